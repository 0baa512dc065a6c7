// One matrix drawn as a heatmap on canvas: a base canvas holding the colours (redrawn only when
// the data or the size changes) under an overlay canvas for marks (hover, focus, pinned rows).
// Keeping marks on their own canvas is what keeps hovering cheap at 512 × 512: a mark repaints a
// few rectangles, never the matrix. It handles no events; views ask cellAt() and call mark().
// A causal model's attention is zero above the diagonal by construction, not by what it learned:
// { causal: true } hatches that triangle, so it does not read as "looks at nothing there". A
// sliding-window layer's keys beyond the window are zero by construction too: { window } cross-hatches them.
import { formatNumber, matrixImage, textColorOn } from './colormap.js';

const MIN_NUMBER_CELL = 26; // CSS px: below this, numbers in cells would not fit

// The canvas every matrix's pixels pass through on their way to being scaled up: one, resized when
// a matrix of another shape comes (a grid's are all one shape), not a new canvas and context each.
let pixelCanvas = null;
function scratch(width, height) {
  pixelCanvas ??= new OffscreenCanvas(width, height);
  if (pixelCanvas.width !== width || pixelCanvas.height !== height) Object.assign(pixelCanvas, { width, height });
  return pixelCanvas;
}

export class MatrixCanvas {
  /**
   * label: the accessible name. maxWidth/maxHeight: CSS px the matrix may take. maxCell: the
   * largest cell side. square: equal cell sides. numbers: print values in cells that are big enough.
   */
  constructor({ label, maxWidth = 480, maxHeight = maxWidth, maxCell = 32, square = false, numbers = false }) {
    this.options = { maxWidth, maxHeight, maxCell, square, numbers };
    this.element = document.createElement('div');
    this.element.className = 'mh-matrix';
    this.base = document.createElement('canvas');
    this.base.setAttribute('role', 'img');
    this.base.setAttribute('aria-label', label);
    this.overlay = document.createElement('canvas');
    this.overlay.className = 'mh-matrix-overlay';
    this.overlay.setAttribute('aria-hidden', 'true');
    this.element.append(this.base, this.overlay);
    this.rows = 0;
    this.cols = 0;
    this.cellWidth = 0;
    this.cellHeight = 0;
    this.drawn = 0; // counts draw() calls
  }

  /**
   * Draws a (rows × cols) row-major matrix on `scale`; `sizes` overrides the constructor's sizes;
   * `causal` hatches the masked cells above the diagonal; `window` (the number of latest keys a
   * query sees, or null) cross-hatches the keys before it. The sizes are set at once; the pixels
   * are painted by `paint(job)`, which runs the job now by default (a view with many matrices
   * queues them: paint-queue.js).
   */
  draw(values, rows, cols, scale, { causal = false, window = null, queryOffset = 0, paint = (job) => job(), ...sizes } = {}) {
    const { maxWidth, maxHeight, maxCell, square, numbers } = { ...this.options, ...sizes };
    let w = Math.min(maxCell, maxWidth / cols);
    let h = Math.min(maxCell, maxHeight / rows);
    if (square) w = h = Math.min(w, h);
    Object.assign(this, { values, rows, cols, scale, cellWidth: w, cellHeight: h, queryOffset });
    const dpr = globalThis.devicePixelRatio || 1;
    const cssWidth = w * cols, cssHeight = h * rows;
    // Setting a canvas's size clears and reallocates it even when the size is the same: only a new
    // size is set (the paint covers every pixel of the base, and mark() clears the overlay).
    for (const canvas of [this.base, this.overlay]) {
      const width = Math.max(1, Math.round(cssWidth * dpr)), height = Math.max(1, Math.round(cssHeight * dpr));
      if (canvas.width !== width) canvas.width = width;
      if (canvas.height !== height) canvas.height = height;
      if (canvas.style.width !== `${cssWidth}px`) canvas.style.width = `${cssWidth}px`;
      if (canvas.style.height !== `${cssHeight}px`) canvas.style.height = `${cssHeight}px`;
    }
    const drawn = ++this.drawn; // a later draw makes this one's paint job moot
    paint(() => {
      if (drawn !== this.drawn) return;
      // One pixel per value, then scaled up without smoothing: crisp cells at any size.
      const pixels = scratch(cols, rows);
      pixels.getContext('2d').putImageData(matrixImage(values, rows, cols, scale), 0, 0);
      const ctx = this.base.getContext('2d');
      ctx.imageSmoothingEnabled = false;
      ctx.drawImage(pixels, 0, 0, this.base.width, this.base.height);
      if (causal) this.#hatch(ctx, dpr, false, (r) => [Math.min(cols, queryOffset + r + 1), cols]);
      if (window !== null) this.#hatch(ctx, dpr, true, (r) => [0, Math.max(0, Math.min(cols, queryOffset + r - window + 1))]);
      if (numbers && w >= MIN_NUMBER_CELL && h >= MIN_NUMBER_CELL * 0.6) this.#drawNumbers(ctx, dpr);
    });
    this.mark({});
  }

  // Hatches the cells [from, to) of each row r that `span(r)` gives, as one path of a rectangle per
  // row filled with a grey diagonal hatch (crossed with `cross`): one fill at any size. A causal
  // mask hides (r, c > queryOffset + r): query r is at position queryOffset + r, key c at c.
  #hatch(ctx, dpr, cross, span) {
    const { rows, cellWidth: w, cellHeight: h } = this;
    const tile = new OffscreenCanvas(6, 6);
    const t = tile.getContext('2d');
    t.strokeStyle = 'rgb(128 128 128 / 0.55)';
    t.lineWidth = 1.5;
    t.beginPath();
    t.moveTo(0, 6);
    t.lineTo(6, 0);
    if (cross) {
      t.moveTo(0, 0);
      t.lineTo(6, 6);
    }
    t.stroke();
    ctx.save();
    ctx.scale(dpr, dpr);
    ctx.beginPath();
    for (let r = 0; r < rows; r++) {
      const [from, to] = span(r);
      if (from < to) ctx.rect(from * w, r * h, (to - from) * w, h);
    }
    ctx.fillStyle = ctx.createPattern(tile, 'repeat');
    ctx.fill();
    ctx.restore();
  }

  #drawNumbers(ctx, dpr) {
    const { rows, cols, cellWidth: w, cellHeight: h, values, scale } = this;
    ctx.save();
    ctx.scale(dpr, dpr);
    ctx.font = `${Math.min(11, w / 4.2)}px system-ui, sans-serif`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const v = values[r * cols + c];
        ctx.fillStyle = textColorOn(scale, v);
        ctx.fillText(formatNumber(v).replace(/^(−?)0\./, '$1.'), (c + 0.5) * w, (r + 0.5) * h);
      }
    }
    ctx.restore();
  }

  /** The value drawn at a cell. */
  valueAt(row, col) {
    return this.values[row * this.cols + col];
  }

  /** The cell under a pointer position, or null outside the matrix. */
  cellAt(clientX, clientY) {
    const box = this.overlay.getBoundingClientRect();
    const col = Math.floor((clientX - box.left) / this.cellWidth);
    const row = Math.floor((clientY - box.top) / this.cellHeight);
    if (!(row >= 0 && col >= 0 && row < this.rows && col < this.cols)) return null; // NaN before the first draw
    return { row, col };
  }

  /**
   * Repaints the overlay. rows/cols/cells are outlined; with dim, everything outside the marked
   * rows, columns and cells is faded, so what a value came from stands out.
   */
  mark({ rows = [], cols = [], cells = [], dim = false }) {
    const ctx = this.overlay.getContext('2d');
    const dpr = globalThis.devicePixelRatio || 1;
    const { cellWidth: w, cellHeight: h } = this;
    const width = this.cols * w, height = this.rows * h;
    const boxes = [
      ...rows.map((r) => [0, r * h, width, h]),
      ...cols.map((c) => [c * w, 0, w, height]),
      ...cells.map(([r, c]) => [c * w, r * h, w, h]),
    ];
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, height);
    if (boxes.length === 0) return;
    if (dim) {
      ctx.fillStyle = 'rgb(128 128 128 / 0.7)';
      ctx.fillRect(0, 0, width, height);
      for (const b of boxes) ctx.clearRect(...b);
    }
    // A dark line under a light one reads on every colour of the map.
    for (const [color, lineWidth] of [['#000', 3], ['#fff', 1.5]]) {
      ctx.strokeStyle = color;
      ctx.lineWidth = lineWidth;
      for (const [x, y, bw, bh] of boxes) ctx.strokeRect(x + 0.75, y + 0.75, Math.max(0, bw - 1.5), Math.max(0, bh - 1.5));
    }
  }
}

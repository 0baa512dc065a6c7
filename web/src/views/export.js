// Attention as files a reader can keep: the numbers as JSON, and one layer's heatmaps as a figure
// in SVG or PNG. The SVG and the PNG are drawn from the one layout and the one list of texts, so
// they show the same thing at the same pixel positions, and the PNG's size follows from the token
// count and the number of heads alone (it is drawn at device-pixel-ratio 1 on purpose).
// csvField writes one CSV field, for every CSV the package and the page make.
// It makes strings and Blobs only: it does not save, download or place anything on the page.
import { colorIndex, lutHex, matrixImage, weightScale } from './colormap.js';

const MARGIN = 16; // px around the whole figure
const TITLE_LINE = 28; // px for the figure's title
const CAPTION_LINE = 20; // px for "head 3" above each panel
const LABEL_BAND = 90; // px for the token labels left of and above each matrix
const LABEL_PAD = 4; // px between a label and the matrix
const GAP = 24; // px between panels
const MAX_COLUMNS = 4; // panels per row
const MATRIX_SIDE = 480; // px a matrix aims for; the cell clamps below decide in the end
const MIN_CELL = 2, MAX_CELL = 24; // px: a cell stays visible at 512 tokens, and a short sentence stays small
const LABEL_CHARS = 12; // a longer token keeps 11 characters and an ellipsis
const TITLE_FONT = 15, CAPTION_FONT = 13; // px
const MIN_LABEL_FONT = 8, MAX_LABEL_FONT = 11; // px; 12 monospace characters at 11 px fit the band
const TEXT_COLOR = '#222';
export const FONT_FAMILY = 'monospace';

/**
 * The attention of every layer and head as a JSON string:
 * { format, version, tokens, unknown?, keyTokens?, layerNumbers?, layers: [{ heads: [[[weight per key] per query] per head] }] }.
 * tokens: string[] (nQueries). unknown: boolean[] (nQueries), optional. keyTokens: string[] (nKeys),
 * only when the keys are not the query tokens. layers: [{ weights: Float32Array (nQueries × nKeys) per head }].
 * layerNumbers: which layers those are, counted from 1, when they are not all of them from the first.
 * Each weight is written as the number the Float32Array holds, which JSON gives back exactly.
 */
export function attentionJson({ tokens, unknown, keyTokens, layers, layerNumbers }) {
  const nKeys = (keyTokens ?? tokens).length;
  // One query row per line: a file a person can open, and a fraction of the size of one number per line.
  const headText = (weights) => rowsOf(weights, tokens.length, nKeys).map((row) => `        ${JSON.stringify(row)}`).join(',\n');
  const layerText = ({ weights }) =>
    `    { "heads": [\n${weights.map((w) => `      [\n${headText(w)}\n      ]`).join(',\n')}\n    ] }`;
  const fields = [
    `  "format": "multihead-attention"`,
    `  "version": 1`,
    `  "tokens": ${JSON.stringify(tokens)}`,
    ...(unknown === undefined ? [] : [`  "unknown": ${JSON.stringify(unknown)}`]),
    ...(keyTokens === undefined ? [] : [`  "keyTokens": ${JSON.stringify(keyTokens)}`]),
    ...(layerNumbers === undefined ? [] : [`  "layerNumbers": ${JSON.stringify(layerNumbers)}`]),
    `  "layers": [\n${layers.map(layerText).join(',\n')}\n  ]`,
  ];
  return `{\n${fields.join(',\n')}\n}\n`;
}

/** A (rows × cols) row-major matrix as `rows` arrays of plain numbers. */
function rowsOf(weights, rows, cols) {
  checkWeights(weights, rows, cols, "a head's weights");
  const out = [];
  for (let q = 0; q < rows; q++) {
    const row = Array.from(weights.subarray(q * cols, (q + 1) * cols));
    // JSON has no NaN or Infinity: JSON.stringify would write null and lose the value silently.
    if (!row.every(Number.isFinite)) throw new RangeError(`query row ${q} holds a value JSON cannot represent`);
    out.push(row);
  }
  return out;
}

/** Throws unless `weights` holds (nQueries × nKeys) values; `what` names it in the message. */
export function checkWeights(weights, nQueries, nKeys, what) {
  if (weights?.length !== nQueries * nKeys) {
    const tokens = nQueries === nKeys ? `${nQueries} tokens need ${nQueries} × ${nQueries}`
      : `${nQueries} queries and ${nKeys} keys need ${nQueries} × ${nKeys}`;
    throw new RangeError(`${what} hold${what.endsWith('s') ? '' : 's'} ${weights?.length ?? 'no'} values; ${tokens} = ${nQueries * nKeys}`);
  }
}

/**
 * The figure's layout in integer px: for n query tokens and nKeys key tokens (n unless given), one
 * panel per entry of `heads`, at most four to a row. A panel is its caption line, then a band of
 * token labels left of and above an (n × nKeys) matrix of `cell`-px squares, matrixWidth ×
 * matrixHeight px. Each panel carries its top-left corner (x, y) and its matrix's (cellsX, cellsY).
 * Labels are drawn for every labelStride-th token only, so they never overlap when cells are
 * smaller than the label font.
 */
export function figureLayout({ n, nKeys = n, heads }) {
  for (const [name, count] of [['token', n], ['key', nKeys]]) {
    if (!Number.isInteger(count) || count < 1) throw new RangeError(`a figure needs at least one ${name}, not ${count}`);
  }
  if (heads.length === 0) throw new RangeError('a figure needs at least one head');
  const cell = Math.max(MIN_CELL, Math.min(MAX_CELL, Math.floor(MATRIX_SIDE / Math.max(n, nKeys))));
  const matrixWidth = nKeys * cell, matrixHeight = n * cell;
  const labelFont = Math.max(MIN_LABEL_FONT, Math.min(MAX_LABEL_FONT, cell - 2));
  const labelStride = Math.ceil(labelFont / cell);
  const panelWidth = LABEL_BAND + matrixWidth;
  const panelHeight = CAPTION_LINE + LABEL_BAND + matrixHeight;
  const columns = Math.min(MAX_COLUMNS, heads.length);
  const rows = Math.ceil(heads.length / MAX_COLUMNS);
  const panels = heads.map((head, i) => {
    const x = MARGIN + (i % MAX_COLUMNS) * (panelWidth + GAP);
    const y = MARGIN + TITLE_LINE + Math.floor(i / MAX_COLUMNS) * (panelHeight + GAP);
    return { head, x, y, cellsX: x + LABEL_BAND, cellsY: y + CAPTION_LINE + LABEL_BAND };
  });
  return {
    width: 2 * MARGIN + columns * panelWidth + (columns - 1) * GAP,
    height: 2 * MARGIN + TITLE_LINE + rows * panelHeight + (rows - 1) * GAP,
    n, nKeys, cell, matrixWidth, matrixHeight, labelFont, labelStride, panelWidth, panelHeight, columns, rows, panels,
  };
}

/**
 * `text` cut to at most `max` characters, the last an ellipsis when it is cut. Characters are
 * counted in code points, so an emoji is never cut in half.
 */
export function clipText(text, max) {
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text;
}

/**
 * Every text of the figure, positioned: { text, x, y, size, anchor: 'start' | 'end', vertical }.
 * y is the text's vertical centre; a vertical text is turned −90° about (x, y) and reads upwards.
 */
function figureTexts(layout, tokens, keyTokens, title) {
  const { cell, labelFont: size, labelStride, panels } = layout;
  const texts = [{ text: title, x: MARGIN, y: MARGIN + TITLE_LINE / 2, size: TITLE_FONT, anchor: 'start', vertical: false }];
  const middle = (i) => i * cell + cell / 2;
  for (const { head, x, y, cellsX, cellsY } of panels) {
    texts.push({ text: `head ${head + 1}`, x: cellsX, y: y + CAPTION_LINE / 2, size: CAPTION_FONT, anchor: 'start', vertical: false });
    for (let i = 0; i < Math.max(tokens.length, keyTokens.length); i += labelStride) {
      if (i < tokens.length) {
        texts.push({ text: clipText(tokens[i], LABEL_CHARS), x: x + LABEL_BAND - LABEL_PAD, y: cellsY + middle(i), size, anchor: 'end', vertical: false });
      }
      if (i < keyTokens.length) {
        texts.push({ text: clipText(keyTokens[i], LABEL_CHARS), x: cellsX + middle(i), y: cellsY - LABEL_PAD, size, anchor: 'start', vertical: true });
      }
    }
  }
  return texts;
}

/** The figure's layout, after checking that each head drawn has (queries × keys) weights. */
function checkFigure({ tokens, keyTokens = tokens, weights, heads }) {
  for (const head of heads) checkWeights(weights[head], tokens.length, keyTokens.length, `head ${head}'s weights`);
  return figureLayout({ n: tokens.length, nKeys: keyTokens.length, heads });
}

// XML escaping alone is not enough for user text: XML 1.0 forbids most control characters and
// lone surrogates outright, even as character references, so they become U+FFFD instead.
const XML_INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const XML_ENTITIES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/**
 * `value` as one CSV field (RFC 4180). Numbers keep every digit (JavaScript's shortest text that
 * reads back as the same double, and "-0"). A text that a spreadsheet would run as a formula
 * (=, +, −, @, a tab or a carriage return first) gets a leading apostrophe, as OWASP advises: a
 * token is untrusted text. A field with a comma, a quote, a line break or space at either end is
 * quoted, its quotes doubled.
 */
export function csvField(value) {
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  let field = String(value);
  if (/^[=+\-@\t\r]/.test(field)) field = `'${field}`;
  return /[",\r\n]|^\s|\s$/.test(field) ? `"${field.replaceAll('"', '""')}"` : field;
}

/** `text` as XML character data or an attribute value: markup characters as entities, what XML cannot hold as U+FFFD. */
function escapeXml(text) {
  return String(text).replace(XML_INVALID, '\uFFFD').replace(/[&<>"']/g, (c) => XML_ENTITIES[c]);
}

/** The viridis colours as "#rrggbb", one per lookup-table entry. */
function hexColors(scale) {
  return Array.from({ length: scale.lut.length / 4 }, (_, i) => lutHex(scale, i));
}

/** One of a figure's texts as an SVG <text>, as drawText draws it; its text escaped. */
export function svgText({ text, x, y, size, anchor, vertical, color }) {
  const turn = vertical ? ` transform="rotate(-90 ${x} ${y})"` : '';
  const fill = color ? ` fill="${color}"` : '';
  return `<text x="${x}" y="${y}" font-size="${size}" text-anchor="${anchor}" dominant-baseline="central"${fill}${turn}>${escapeXml(text)}</text>`;
}

/**
 * One layer's heatmaps as an SVG document string, of figureLayout's size. tokens: string[] (n), the
 * queries. keyTokens: string[] (nKeys), when the keys are other tokens. weights: Float32Array
 * (n × nKeys) per head. heads: the head indices to draw. title: the figure's title.
 * Every cell is one <rect>; every text is escaped, so tokens cannot add markup.
 */
export function heatmapSvg({ tokens, keyTokens = tokens, weights, heads, title = '' }) {
  const layout = checkFigure({ tokens, keyTokens, weights, heads });
  const { width, height, n, nKeys, cell } = layout;
  const scale = weightScale();
  const colors = hexColors(scale);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${FONT_FAMILY}">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
  ];
  // crispEdges: antialiased edges would let the background show through as seams between cells.
  parts.push('<g shape-rendering="crispEdges">');
  for (const { head, cellsX, cellsY } of layout.panels) {
    const values = weights[head];
    for (let q = 0; q < n; q++) {
      for (let k = 0; k < nKeys; k++) {
        const fill = colors[colorIndex(scale, values[q * nKeys + k])];
        parts.push(`<rect x="${cellsX + k * cell}" y="${cellsY + q * cell}" width="${cell}" height="${cell}" fill="${fill}"/>`);
      }
    }
  }
  parts.push(`</g><g fill="${TEXT_COLOR}">`);
  for (const text of figureTexts(layout, tokens, keyTokens, title)) parts.push(svgText(text));
  parts.push('</g></svg>\n');
  return parts.join('\n');
}

/**
 * The same figure as heatmapSvg, as a PNG Blob of exactly figureLayout's width × height pixels.
 * Text goes through fillText, which draws user text as text and never parses it.
 */
export async function heatmapPng({ tokens, keyTokens = tokens, weights, heads, title = '' }) {
  const layout = checkFigure({ tokens, keyTokens, weights, heads });
  const { canvas, ctx, drawMatrix } = figureCanvas(layout.width, layout.height, layout.n, layout.nKeys);
  for (const { head, cellsX, cellsY } of layout.panels) drawMatrix(weights[head], cellsX, cellsY, layout.matrixWidth, layout.matrixHeight);
  ctx.fillStyle = TEXT_COLOR;
  for (const text of figureTexts(layout, tokens, keyTokens, title)) drawText(ctx, text);
  return canvas.convertToBlob({ type: 'image/png' });
}

/**
 * A white width × height canvas for a PNG figure, and drawMatrix(values, x, y, w, h), which draws
 * an (n × nKeys) matrix there as a w × h rectangle: one pixel per value, then scaled up without
 * smoothing, as MatrixCanvas does, so the cells stay crisp.
 */
export function figureCanvas(width, height, n, nKeys = n) {
  const canvas = new OffscreenCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, width, height);
  ctx.imageSmoothingEnabled = false;
  const scale = weightScale();
  const pixels = new OffscreenCanvas(nKeys, n);
  const drawMatrix = (values, x, y, w, h) => {
    pixels.getContext('2d').putImageData(matrixImage(values, n, nKeys, scale), 0, 0);
    ctx.drawImage(pixels, x, y, w, h);
  };
  return { canvas, ctx, drawMatrix };
}

/**
 * One of a figure's texts on a canvas: left- or right-anchored at x ('start' or 'end'), centred
 * on y, turned −90° when vertical, in `color` when given (else the context's fill).
 */
export function drawText(ctx, { text, x, y, size, anchor, vertical, color }) {
  ctx.save();
  if (color) ctx.fillStyle = color;
  ctx.font = `${size}px ${FONT_FAMILY}`;
  ctx.textAlign = anchor === 'end' ? 'right' : 'left';
  ctx.textBaseline = 'middle';
  ctx.translate(x, y);
  if (vertical) ctx.rotate(-Math.PI / 2);
  ctx.fillText(text, 0, 0);
  ctx.restore();
}

/** The heads a figure of `view` shows: the ones on screen in the head and lines views, else all `count`. */
export function headsOnScreen(view, count, heads) {
  return view === 'head' || view === 'lines' ? heads : Array.from({ length: count }, (_, h) => h);
}

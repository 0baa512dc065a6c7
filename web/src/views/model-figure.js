// The model view as a file: every layer's heads as thumbnails in one figure, a row per layer, each
// with its caption ("L2 H1", or "L2 H1 (off)" and a border when the head is switched off) and its
// role badge when the page has one. The PNG and the SVG come from one layout and one list of texts.
// The SVG keeps its texts as text but its thumbnails as images: one <rect> per cell would be 2.4
// million elements at 144 heads and 128 tokens, so each thumbnail is an image of one pixel per
// cell, encoded by the canvas (convertToBlob) and scaled without smoothing: WebP at quality 1,
// which Chromium encodes losslessly at about two thirds of a PNG's size (a browser that cannot
// encode WebP gives a PNG, and the data URL says which).
// It makes strings and Blobs only: it does not save, download or place anything on the page.
import { matrixImage, weightScale } from './colormap.js';
import { FONT_FAMILY, clipText, drawText, figureCanvas, svgText } from './export.js';

const MARGIN = 16; // px around the whole figure
const TITLE_LINE = 28; // px for the figure's title
const ROW_LABEL = 64; // px left of each row for "Layer 3"
const CAPTION_LINE = 16; // px above each thumbnail for "L3 H2"
const BADGE_LINE = 16; // px below each thumbnail for its role
const GAP = 10; // px between thumbnails, and between rows
const THUMB_SIDE = 96; // px a thumbnail aims for; the cell clamps below decide in the end
const BADGE_CHARS = 16; // "punctuation 0.93", the longest role badge; a longer one is cut with an ellipsis
const MIN_SLOT = 100; // px a column keeps however small its thumbnail: BADGE_CHARS at SMALL_FONT (≈ 0.6 em each)
const MIN_CELL = 1, MAX_CELL = 8; // px per cell
const TITLE_FONT = 15, LABEL_FONT = 12, SMALL_FONT = 10; // px
const TEXT_COLOR = '#222', OFF_COLOR = '#d55e00';

/**
 * The figure's layout in integer px for n query tokens and nKeys key tokens (n unless given),
 * `layers` rows of `heads` thumbnails: each thumbnail carries its top-left corner (x, y) of the
 * matrix, its layer and head. A thumbnail is thumbWidth = nKeys × `cell` by thumbHeight = n × `cell`
 * px; its column is `slot` px wide, at least MIN_SLOT, so badges never overlap.
 */
export function modelLayout({ n, nKeys = n, layers, heads }) {
  for (const [name, value] of [['n', n], ['nKeys', nKeys], ['layers', layers], ['heads', heads]]) {
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`a model figure needs ${name} ≥ 1, not ${value}`);
  }
  const cell = Math.max(MIN_CELL, Math.min(MAX_CELL, Math.floor(THUMB_SIDE / Math.max(n, nKeys))));
  const thumbWidth = nKeys * cell, thumbHeight = n * cell;
  const slot = Math.max(thumbWidth, MIN_SLOT);
  const rowHeight = CAPTION_LINE + thumbHeight + BADGE_LINE;
  const thumbs = [];
  for (let layer = 0; layer < layers; layer++) {
    for (let head = 0; head < heads; head++) {
      thumbs.push({
        layer, head,
        x: MARGIN + ROW_LABEL + head * (slot + GAP),
        y: MARGIN + TITLE_LINE + layer * (rowHeight + GAP) + CAPTION_LINE,
      });
    }
  }
  return {
    width: 2 * MARGIN + ROW_LABEL + heads * slot + (heads - 1) * GAP,
    height: 2 * MARGIN + TITLE_LINE + layers * rowHeight + (layers - 1) * GAP,
    n, nKeys, cell, thumbWidth, thumbHeight, slot, rowHeight, thumbs,
  };
}

/**
 * Every text of the figure, as export.js's drawText and svgText take them: { text, x, y, size,
 * anchor, vertical, color } with y the vertical centre; all read left to right from x.
 */
function figureTexts(layout, { title, badges, ablated }) {
  const text = (content, x, y, size, color = TEXT_COLOR) => ({ text: content, x, y, size, anchor: 'start', vertical: false, color });
  const texts = [text(title, MARGIN, MARGIN + TITLE_LINE / 2, TITLE_FONT)];
  for (const { layer, head, x, y } of layout.thumbs) {
    if (head === 0) texts.push(text(`Layer ${layer + 1}`, MARGIN, y + layout.thumbHeight / 2, LABEL_FONT));
    const off = Boolean(ablated?.[layer]?.[head]);
    const color = off ? OFF_COLOR : TEXT_COLOR;
    texts.push(text(`L${layer + 1} H${head + 1}${off ? ' (off)' : ''}`, x, y - CAPTION_LINE / 2, SMALL_FONT, color));
    const badge = badges?.[layer]?.[head];
    if (badge) texts.push(text(clipText(String(badge), BADGE_CHARS), x, y + layout.thumbHeight + BADGE_LINE / 2, SMALL_FONT, color));
  }
  return texts;
}

/** The input checked: every head (queries × keys), and badges and ablated, when given, one per head. */
function checkModel({ tokens, keyTokens = tokens, layers, badges, ablated }) {
  if (!Array.isArray(tokens) || tokens.length < 1) throw new RangeError('a model figure needs at least one token');
  if (!Array.isArray(keyTokens) || keyTokens.length < 1) throw new RangeError('a model figure needs at least one key token');
  if (!Array.isArray(layers) || layers.length < 1) throw new RangeError('a model figure needs at least one layer');
  const n = tokens.length, nKeys = keyTokens.length, heads = layers[0].weights?.length;
  const need = keyTokens === tokens ? `${n} tokens need ${n * n}` : `${n} queries and ${nKeys} keys need ${n * nKeys}`;
  layers.forEach(({ weights }, l) => {
    if (weights?.length !== heads) throw new RangeError(`layer ${l + 1} has ${weights?.length ?? 'no'} heads; layer 1 has ${heads}`);
    weights.forEach((w, h) => {
      if (w?.length !== n * nKeys) throw new RangeError(`layer ${l + 1} head ${h + 1} has ${w?.length ?? 'no'} weights; ${need}`);
    });
  });
  for (const [name, grid] of [['badges', badges], ['ablated', ablated]]) {
    if (grid === undefined) continue;
    if (!Array.isArray(grid) || grid.length !== layers.length || !grid.every((row) => Array.isArray(row) && row.length === heads)) {
      throw new RangeError(`${name} must hold one entry per head: ${layers.length} layers of ${heads}`);
    }
  }
  return modelLayout({ n, nKeys, layers: layers.length, heads });
}

/**
 * The model view as a PNG Blob of exactly modelLayout's size. tokens: string[] (n), the queries.
 * keyTokens: string[] (nKeys), when the keys are other tokens. layers: [{ weights: Float32Array
 * (n × nKeys) per head }]. badges: per layer, per head, a text or null (optional). ablated: per
 * layer, per head, whether it is switched off (optional). title: text.
 */
export async function modelPng({ tokens, keyTokens, layers, badges, ablated, title = '' }) {
  const layout = checkModel({ tokens, keyTokens, layers, badges, ablated });
  const { thumbWidth: w, thumbHeight: h } = layout;
  const { canvas, ctx, drawMatrix } = figureCanvas(layout.width, layout.height, layout.n, layout.nKeys);
  for (const { layer, head, x, y } of layout.thumbs) {
    drawMatrix(layers[layer].weights[head], x, y, w, h);
    if (ablated?.[layer]?.[head]) {
      ctx.strokeStyle = OFF_COLOR;
      ctx.lineWidth = 2;
      ctx.strokeRect(x - 1, y - 1, w + 2, h + 2);
    }
  }
  for (const text of figureTexts(layout, { title, badges, ablated })) drawText(ctx, text);
  return canvas.convertToBlob({ type: 'image/png' });
}

/** The same figure as modelPng, as an SVG document string (async: its thumbnails are compressed). */
export async function modelSvg({ tokens, keyTokens, layers, badges, ablated, title = '' }) {
  const layout = checkModel({ tokens, keyTokens, layers, badges, ablated });
  const { width, height, n, nKeys, thumbWidth: w, thumbHeight: h } = layout;
  const scale = weightScale();
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${FONT_FAMILY}">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
  ];
  for (const { layer, head, x, y } of layout.thumbs) {
    const url = await thumbnailUrl(layers[layer].weights[head], n, nKeys, scale);
    parts.push(`<image x="${x}" y="${y}" width="${w}" height="${h}" preserveAspectRatio="none" ` +
      `style="image-rendering:pixelated" href="${url}"/>`);
    if (ablated?.[layer]?.[head]) {
      parts.push(`<rect x="${x - 1}" y="${y - 1}" width="${w + 2}" height="${h + 2}" fill="none" stroke="${OFF_COLOR}" stroke-width="2"/>`);
    }
  }
  for (const text of figureTexts(layout, { title, badges, ablated })) parts.push(svgText(text));
  parts.push('</svg>\n');
  return parts.join('\n');
}

/** An (n × nKeys) matrix as a data: URL of an image of one pixel per weight, in the weight colours. */
async function thumbnailUrl(values, n, nKeys, scale) {
  const canvas = new OffscreenCanvas(nKeys, n);
  canvas.getContext('2d').putImageData(matrixImage(values, n, nKeys, scale), 0, 0);
  const blob = await canvas.convertToBlob({ type: 'image/webp', quality: 1 });
  return `data:${blob.type};base64,${base64(new Uint8Array(await blob.arrayBuffer()))}`;
}

function base64(bytes) {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

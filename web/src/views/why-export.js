// The "Why?" section as files a reader can keep: a figure (SVG or PNG) of the heads' parts of the
// logit, the logit lens, the patching map and the query–key map, and a CSV of every number they
// show. The SVG and the PNG are drawn from one layout, a list of shapes and texts, so they show the
// same thing at the same pixel positions; the PNG is drawn at device-pixel-ratio 1, so its size
// follows from the data alone. The sentences and scales the view prints are made here too, so the
// page and the files say the same thing in the same words.
// It makes strings and Blobs only: it does not save, download or place anything on the page, and
// whySvg and whyCsv need no DOM (they run in Node).
import { checkInteger, checkObject, describe } from '../check.js';
import { formatNumber, hexColor, signedScale, textColorOn, weightScale } from './colormap.js';
import { FONT_FAMILY, clipText, csvField, svgText } from './export.js';

const MARGIN = 16; // px around the whole figure
const TITLE_LINE = 28; // px for the figure's title
const BLOCK_GAP = 20; // px between blocks
const HEADING_LINE = 24; // px for a block's heading
const LINE = 18; // px for a line of text
const ROW_LABEL = 84; // px for "embeddings" and "layer 40" left of a map
const LABEL_PAD = 4; // px between a label and its cells
const COLUMN_LINE = 16; // px for the head numbers above a map
const HEAD_LABEL = 14; // px a head number needs: smaller cells number every second or third head
const MAP_WIDTH = 480; // px a map of heads aims for; the cell clamps below decide in the end
const MIN_CELL = 8, MAX_CELL = 24; // px per head
const MLP_GAP = 8; // px between the heads and the MLP column
const LEGEND_WIDTH = 160, LEGEND_BAR = 10, LEGEND_HEIGHT = 44; // px: a caption line, the bar, a tick line
const STRONGEST_WIDTH = 200; // px for the list of strongest heads right of the patching map
const LENS_WIDTH = 72, LENS_HEIGHT = 18; // px per cell of the lens: LENS_CHARS at CELL_FONT, with room
const LENS_HEADER = 72; // px for the tokens written upwards above the lens's columns
const LENS_CHARS = 10; // a longer token keeps 9 characters and an ellipsis
const SCATTER_SIDE = 360, SCATTER_PAD = 12; // px
const POINT = 3; // px: a query's radius, and half a key's side
const TITLE_FONT = 15, HEADING_FONT = 14, TEXT_FONT = 12, LABEL_FONT = 11, CELL_FONT = 10; // px
const CHAR_WIDTH = 0.6; // em: a monospace character's advance, for the figure's width
const TEXT_COLOR = '#222', MUTED_COLOR = '#555', FRAME_COLOR = '#bbb';
const STRONGEST = 5; // heads in the list of strongest heads
const GRADIENT_STOPS = 11; // RdBu is 11 ColorBrewer colours interpolated: 11 stops redraw it

/**
 * The query–key map's two colours and shapes: Okabe–Ito vermillion circles and blue squares, told
 * apart under the common colour-vision deficiencies by colour and, failing that, by shape. Both
 * keep a contrast of 3:1 on white and on the dark theme's background.
 */
export const QUERY_COLOR = '#D55E00', KEY_COLOR = '#0072B2';

// ——— Texts the view and the files share ———

/** A token between quotes, with line breaks shown as ↵ so a "\n" token does not break a line or look empty. */
export function quote(text) {
  return `“${oneLine(text)}”`;
}

/** `text` on one line: each line break as ↵. */
export function oneLine(text) {
  return String(text).replace(/\r\n|\r|\n/g, '↵');
}

/** A number with its sign always written: "+1.234", "−0.500", and "0.000" for what rounds to zero. */
export function signed(value) {
  const text = formatNumber(value);
  return value > 0 && text !== '0.000' ? `+${text}` : text;
}

/** "layer 2 head 4", counted from 1 as the page counts them. */
export function headName(layer, head) {
  return `layer ${layer + 1} head ${head + 1}`;
}

/**
 * Where the prediction is made, counted from 1: a causal model's "position 12 (after “ met”)", the
 * next token's; a masked model's "position 7 (“[MASK]”)", the token there.
 */
export function positionText(tokens, position, causal) {
  return `position ${position + 1} (${causal ? 'after ' : ''}${quote(tokens[position])})`;
}

/** The heads block's header: what is split into parts, and that they add up to it. */
export function logitText(tokens, c, causal) {
  const what = c.against ? `Logit difference ${quote(c.token.text)} − ${quote(c.against.text)}` : `Logit of ${quote(c.token.text)}`;
  // The parts add up to the logit to 1e-4 relative; printed to 3 decimals they may not quite.
  const sum = formatNumber(c.total) === formatNumber(c.logit) ? '= the sum of the parts below' : `(the parts below add up to ${formatNumber(c.total)})`;
  return `${what} at ${positionText(tokens, c.position, causal)}: ${formatNumber(c.logit)} ${sum}`;
}

/** The note under the heads block for Gemma, whose final soft cap the parts leave out; null otherwise. */
export function softcapText(c) {
  return c.softcap === null ? null
    : `The parts add up to the logit before Gemma's final soft cap (${c.softcap}), which is not linear and is left out.`;
}

/** What the patching map measured: "“ William” − “ James”: clean 8.530, corrupted −9.220; 8 runs in 40 ms". */
export function patchText(p) {
  return `${quote(p.token.text)} − ${quote(p.against.text)}: clean ${formatNumber(p.clean)}, corrupted ${formatNumber(p.corrupted)}; ` +
    `${p.runs} runs in ${Math.round(p.elapsedMs)} ms`;
}

export const PATCH_HINT = "Each head's output copied from the clean run into the corrupted one: " +
  '0 leaves the corrupted logit difference, 1 restores the clean one.';
/** What the lens table shows: a causal model's next token after each position; a masked model's token at it. */
export function lensHint(causal) {
  return `The likeliest ${causal ? 'next token' : 'token at each position'} read off the residual stream after each layer (the logit lens), shaded by its probability.`;
}

/** The `count` heads of a (layers × heads) map with the largest |value|, largest first: [{ layer, head, value }]. */
export function strongestHeads(values, count = STRONGEST) {
  const all = values.flatMap((row, layer) => Array.from(row, (value, head) => ({ layer, head, value })));
  return all.filter((h) => Number.isFinite(h.value)).sort((a, b) => Math.abs(b.value) - Math.abs(a.value)).slice(0, count);
}

/** "Layer 3, head 2: queries and keys". */
export function queryKeyTitle(qk) {
  return `Layer ${qk.layer + 1}, head ${qk.head + 1}: queries and keys`;
}

/** "The axes explain 41% and 22% of the spread." */
export function varianceText(qk) {
  const [a, b] = qk.variance.map((share) => Math.round(share * 100));
  return `The axes explain ${a}% and ${b}% of the spread.`;
}

/** A lens cell's top tokens, one a line: "“ William” 0.912". */
export function lensTip(list) {
  return list.map(({ token, probability }) => `${quote(token)} ${formatNumber(probability)}`).join('\n');
}

/** The scale of the heads block: one symmetric range for the heads, the MLPs and the two terms, so they compare. */
export function contributionScale(c) {
  const label = c.against ? 'part of the logit difference' : 'part of the logit';
  return { ...signedScale(...c.heads, c.mlps, [c.embeddings, c.biases]), label };
}

/** The patching map's scale: at least −1 to 1, so 1 (the clean run) always looks the same. */
export function patchScale(p) {
  return { ...signedScale(...p.values, [1]), label: 'patched: 0 corrupted, 1 clean' };
}

export function probabilityScale() {
  return { ...weightScale(), label: 'probability of the top token' };
}

/**
 * Where the query–key map's points go in a width × height box: one scale for both axes (distances
 * are what the map means), the points' extent centred, `pad` px kept free at the edges, y upwards.
 * queries, keys: (n × 2) interleaved. Returns place(x, y) → [px, py].
 */
export function scatterPlace(queries, keys, width, height, pad) {
  let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const points of [queries, keys]) {
    for (let i = 0; i + 1 < points.length; i += 2) {
      const [x, y] = [points[i], points[i + 1]];
      if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
      [minX, maxX, minY, maxY] = [Math.min(minX, x), Math.max(maxX, x), Math.min(minY, y), Math.max(maxY, y)];
    }
  }
  if (minX > maxX) [minX, maxX, minY, maxY] = [-1, 1, -1, 1];
  const scale = Math.min((width - 2 * pad) / (maxX - minX || 1), (height - 2 * pad) / (maxY - minY || 1));
  const [cx, cy] = [(minX + maxX) / 2, (minY + maxY) / 2];
  return (x, y) => [width / 2 + (x - cx) * scale, height / 2 - (y - cy) * scale];
}

// ——— The data checked ———

const isText = (value) => typeof value === 'string';
const isNumber = (value) => typeof value === 'number';

function checkTokenText(name, value) {
  checkObject(name, value);
  if (!isText(value.text)) throw new TypeError(`${name}.text must be a string, got ${describe(value.text)}`);
}

/** Checks a (layers × heads) map: an array of arrays of numbers, every row as long. Returns [layers, heads]. */
function checkMap(name, rows) {
  if (!Array.isArray(rows) || rows.length === 0) throw new TypeError(`${name} must be an array of layers, got ${describe(rows)}`);
  const heads = rows[0]?.length;
  rows.forEach((row, layer) => {
    if (!(ArrayBuffer.isView(row) || Array.isArray(row)) || row.length !== heads || heads === 0) {
      throw new RangeError(`${name}[${layer}] must hold one number per head (${heads}, as ${name}[0] does), got ${describe(row)}`);
    }
    if (!Array.prototype.every.call(row, isNumber)) throw new TypeError(`${name}[${layer}] holds a value that is not a number`);
  });
  return [rows.length, heads];
}

function checkNumbers(name, object, keys) {
  for (const key of keys) if (!isNumber(object[key])) throw new TypeError(`${name}.${key} must be a number, got ${describe(object[key])}`);
}

/**
 * Throws a TypeError or RangeError that names the field unless `data` has the shape the view and
 * the files draw (see createWhyView), every part that is not null whole; at least one of
 * contributions, lens, patch and queryKeys must be there.
 */
export function checkWhy(data) {
  checkObject('data', data);
  const { tokens, position, contributions: c, lens, patch, queryKeys: qk } = data;
  if (!Array.isArray(tokens) || tokens.length === 0 || !tokens.every(isText)) {
    throw new TypeError(`data.tokens must be a non-empty array of strings, got ${describe(tokens)}`);
  }
  const n = tokens.length;
  checkInteger('data.position', position, 0, n - 1);
  if (c) {
    const [layers] = checkMap('contributions.heads', c.heads);
    checkInteger('contributions.position', c.position, 0, n - 1);
    checkTokenText('contributions.token', c.token);
    if (c.against !== null) checkTokenText('contributions.against', c.against);
    if (c.mlps?.length !== layers || !Array.prototype.every.call(c.mlps, isNumber)) {
      throw new RangeError(`contributions.mlps must hold one number per layer (${layers}), got ${describe(c.mlps)}`);
    }
    checkNumbers('contributions', c, ['embeddings', 'biases', 'total', 'logit']);
    if (c.softcap !== null && !isNumber(c.softcap)) throw new TypeError(`contributions.softcap must be a number or null, got ${describe(c.softcap)}`);
  }
  if (lens) {
    const { positions, layers, cells } = lens;
    if (!Array.isArray(positions) || positions.length === 0) throw new TypeError(`lens.positions must be a non-empty array, got ${describe(positions)}`);
    positions.forEach((p, i) => checkInteger(`lens.positions[${i}]`, p, 0, n - 1));
    if (!Array.isArray(layers) || layers.length === 0 || !layers.every(isText)) {
      throw new TypeError(`lens.layers must be a non-empty array of strings, got ${describe(layers)}`);
    }
    if (!Array.isArray(cells) || cells.length !== layers.length) {
      throw new RangeError(`lens.cells must hold a row per layer (${layers.length}), got ${describe(cells)}`);
    }
    cells.forEach((row, r) => {
      if (!Array.isArray(row) || row.length !== positions.length) {
        throw new RangeError(`lens.cells[${r}] must hold a cell per position (${positions.length}), got ${describe(row)}`);
      }
      row.forEach((list, col) => {
        const ok = Array.isArray(list) && list.length > 0 && list.every((e) => e && isText(e.token) && isNumber(e.probability) && isNumber(e.id));
        if (!ok) throw new TypeError(`lens.cells[${r}][${col}] must be a non-empty list of { token, id, probability }`);
      });
    });
  }
  if (patch) {
    checkMap('patch.values', patch.values);
    checkTokenText('patch.token', patch.token);
    checkTokenText('patch.against', patch.against);
    checkNumbers('patch', patch, ['clean', 'corrupted', 'runs', 'elapsedMs']);
  }
  if (qk) {
    checkInteger('queryKeys.layer', qk.layer, 0, Infinity);
    checkInteger('queryKeys.head', qk.head, 0, Infinity);
    for (const name of ['queries', 'keys']) {
      if (qk[name]?.length !== 2 * n) throw new RangeError(`queryKeys.${name} must hold (x, y) for each of the ${n} tokens, got ${describe(qk[name])}`);
    }
    if (!Array.isArray(qk.variance) || qk.variance.length !== 2 || !qk.variance.every(isNumber)) {
      throw new TypeError(`queryKeys.variance must be two numbers, got ${describe(qk.variance)}`);
    }
    checkInteger('queryKeys.k', qk.k, 0, n);
    if (qk.top?.length !== n * qk.k) throw new RangeError(`queryKeys.top must hold ${qk.k} keys for each of the ${n} queries, got ${describe(qk.top)}`);
    for (const key of qk.top) checkInteger('a key of queryKeys.top', key, 0, n - 1);
  }
  if (!c && !lens && !patch && !qk) throw new RangeError('there is nothing to show yet: contributions, lens, patch and queryKeys are all null');
  return data;
}

// ——— The figure's layout: shapes and texts in px ———

/**
 * The figure of `data`: { width, height, shapes, texts }. A shape is { type: 'rect', x, y, w, h,
 * fill, stroke?, strokeWidth?, attrs? }, { type: 'circle', x, y, r, fill } or { type: 'gradient', x, y, w, h,
 * lut } (a legend's bar); a text is what export.js's svgText takes, with anchor 'middle' too.
 */
function whyFigure(data) {
  checkWhy(data);
  const fig = { shapes: [], texts: [], right: 0 };
  const c = data.contributions;
  const token = c?.token ?? data.patch?.token;
  const title = `Why ${token ? `${quote(token.text)} ` : ''}at ${positionText(data.tokens, data.position, data.causal)}`;
  text(fig, title, MARGIN, MARGIN + TITLE_LINE / 2, TITLE_FONT);
  let y = MARGIN + TITLE_LINE;
  if (c) y = headsBlock(fig, data, y + BLOCK_GAP);
  if (data.lens) y = lensBlock(fig, data, y + BLOCK_GAP);
  if (data.patch) y = patchBlock(fig, data.patch, y + BLOCK_GAP);
  if (data.queryKeys) y = scatterBlock(fig, data, y + BLOCK_GAP);
  return { width: Math.ceil(fig.right) + MARGIN, height: y + MARGIN, shapes: fig.shapes, texts: fig.texts };
}

/** Adds a text, and widens the figure to hold it (a monospace character is CHAR_WIDTH em wide). */
function text(fig, content, x, y, size, { anchor = 'start', color = TEXT_COLOR, vertical = false } = {}) {
  fig.texts.push({ text: content, x, y, size, anchor, vertical, color });
  const width = [...content].length * size * CHAR_WIDTH;
  const right = vertical ? x + size / 2 : anchor === 'start' ? x + width : anchor === 'middle' ? x + width / 2 : x;
  fig.right = Math.max(fig.right, right);
}

function shape(fig, s) {
  fig.shapes.push(s);
  fig.right = Math.max(fig.right, s.type === 'circle' ? s.x + s.r : s.x + s.w);
}

/** A block's heading and lines of text from y; returns the y below them. */
function heading(fig, y, title, lines = []) {
  text(fig, title, MARGIN, y + HEADING_LINE / 2, HEADING_FONT);
  y += HEADING_LINE;
  for (const line of lines) {
    text(fig, line, MARGIN, y + LINE / 2, TEXT_FONT, { color: MUTED_COLOR });
    y += LINE;
  }
  return y;
}

/** A legend at (x, y): caption, gradient bar, and the ends and middle of the scale. Returns the y below it. */
function legend(fig, scale, lut, x, y) {
  text(fig, scale.label, x, y + 7, LABEL_FONT, { color: MUTED_COLOR });
  shape(fig, { type: 'gradient', x, y: y + 16, w: LEGEND_WIDTH, h: LEGEND_BAR, lut });
  const ticks = [[scale.min, 'start', x], [(scale.min + scale.max) / 2, 'middle', x + LEGEND_WIDTH / 2], [scale.max, 'end', x + LEGEND_WIDTH]];
  for (const [v, anchor, tx] of ticks) text(fig, formatNumber(v), tx, y + 34, CELL_FONT, { anchor, color: MUTED_COLOR });
  return y + LEGEND_HEIGHT;
}

/**
 * A (layers × heads) map with its row labels and head numbers at y, and an extra column (the MLPs)
 * when given. kind names its cells (class="why-heads" or "why-patch", data-layer, data-head from 0).
 * Returns { x, y, bottom, right, cell }.
 */
function headMap(fig, { rows, scale, y, kind, extra = null }) {
  const heads = rows[0].length;
  const cell = Math.max(MIN_CELL, Math.min(MAX_CELL, Math.floor(MAP_WIDTH / (heads + (extra ? 1 : 0)))));
  const x = MARGIN + ROW_LABEL, top = y + COLUMN_LINE;
  const stride = Math.ceil(LABEL_FONT / cell); // labels never overlap, however small the cells
  for (let h = 0; h < heads; h += Math.ceil(HEAD_LABEL / cell)) {
    text(fig, String(h + 1), x + h * cell + cell / 2, y + COLUMN_LINE / 2, CELL_FONT, { anchor: 'middle', color: MUTED_COLOR });
  }
  const extraX = x + heads * cell + MLP_GAP;
  if (extra) text(fig, extra.label, extraX + cell / 2, y + COLUMN_LINE / 2, CELL_FONT, { anchor: 'middle', color: MUTED_COLOR });
  rows.forEach((row, layer) => {
    const cy = top + layer * cell;
    if (layer % stride === 0) text(fig, `layer ${layer + 1}`, x - LABEL_PAD, cy + cell / 2, LABEL_FONT, { anchor: 'end' });
    for (let head = 0; head < heads; head++) {
      shape(fig, { type: 'rect', x: x + head * cell, y: cy, w: cell, h: cell, fill: hexColor(scale, row[head]),
        attrs: { class: kind, 'data-layer': layer, 'data-head': head } });
    }
    if (extra) {
      shape(fig, { type: 'rect', x: extraX, y: cy, w: cell, h: cell, fill: hexColor(scale, extra.values[layer]),
        attrs: { class: `${kind}-${extra.label.toLowerCase()}`, 'data-layer': layer } });
    }
  });
  // A frame: on white, the palest cells (parts near 0) would otherwise have no edge.
  const bottom = top + rows.length * cell;
  shape(fig, { type: 'rect', x, y: top, w: heads * cell, h: bottom - top, fill: 'none', stroke: FRAME_COLOR });
  if (extra) shape(fig, { type: 'rect', x: extraX, y: top, w: cell, h: bottom - top, fill: 'none', stroke: FRAME_COLOR });
  return { x, y: top, bottom, right: extra ? extraX + cell : x + heads * cell, cell };
}

function headsBlock(fig, { tokens, contributions: c, causal }, y) {
  y = heading(fig, y, 'Heads behind it', [logitText(tokens, c, causal)]);
  const scale = contributionScale(c);
  const map = headMap(fig, { rows: c.heads, scale, y, kind: 'why-heads', extra: { label: 'MLP', values: c.mlps } });
  // The two terms that belong to no layer, as one cell each under the map.
  y = map.bottom + 6;
  for (const [name, value] of [['embeddings', c.embeddings], ['biases', c.biases]]) {
    text(fig, name, map.x - LABEL_PAD, y + map.cell / 2, LABEL_FONT, { anchor: 'end' });
    shape(fig, { type: 'rect', x: map.x, y, w: map.cell, h: map.cell, fill: hexColor(scale, value), stroke: FRAME_COLOR, attrs: { class: `why-${name}` } });
    y += map.cell + 2;
  }
  y = legend(fig, scale, 'rdbu', map.x, y + 8);
  const note = softcapText(c);
  if (note) {
    text(fig, note, MARGIN, y + LINE / 2, TEXT_FONT, { color: MUTED_COLOR });
    y += LINE;
  }
  return y;
}

function lensBlock(fig, { tokens, position, lens, causal }, y) {
  y = heading(fig, y, 'Layer by layer', [lensHint(causal)]);
  const scale = probabilityScale();
  const x = MARGIN + ROW_LABEL, top = y + LENS_HEADER;
  lens.positions.forEach((p, col) => {
    text(fig, clipText(oneLine(tokens[p]), LENS_CHARS), x + col * LENS_WIDTH + LENS_WIDTH / 2, top - LABEL_PAD, LABEL_FONT,
      { vertical: true, color: p === position ? TEXT_COLOR : MUTED_COLOR });
  });
  lens.cells.forEach((row, r) => {
    const cy = top + r * LENS_HEIGHT;
    text(fig, lens.layers[r], x - LABEL_PAD, cy + LENS_HEIGHT / 2, LABEL_FONT, { anchor: 'end' });
    row.forEach(([best], col) => {
      const cx = x + col * LENS_WIDTH;
      shape(fig, { type: 'rect', x: cx, y: cy, w: LENS_WIDTH, h: LENS_HEIGHT, fill: hexColor(scale, best.probability), attrs: { class: 'why-lens' } });
      text(fig, clipText(oneLine(best.token), LENS_CHARS), cx + LENS_WIDTH / 2, cy + LENS_HEIGHT / 2, CELL_FONT,
        { anchor: 'middle', color: textColorOn(scale, best.probability) });
    });
  });
  const bottom = top + lens.layers.length * LENS_HEIGHT;
  const marked = lens.positions.indexOf(position);
  if (marked >= 0) {
    shape(fig, { type: 'rect', x: x + marked * LENS_WIDTH, y: top, w: LENS_WIDTH, h: bottom - top, fill: 'none', stroke: TEXT_COLOR, strokeWidth: 2 });
  }
  return legend(fig, scale, 'viridis', x, bottom + 8);
}

function patchBlock(fig, p, y) {
  y = heading(fig, y, 'Patching', [patchText(p), PATCH_HINT]);
  const scale = patchScale(p);
  const map = headMap(fig, { rows: p.values, scale, y, kind: 'why-patch' });
  const lx = map.right + 24;
  text(fig, 'Strongest heads', lx, map.y + LINE / 2, TEXT_FONT);
  strongestHeads(p.values).forEach(({ layer, head, value }, i) => {
    text(fig, `${headName(layer, head)}: ${formatNumber(value)}`, lx, map.y + (i + 1.5) * LINE, TEXT_FONT, { color: MUTED_COLOR });
  });
  fig.right = Math.max(fig.right, lx + STRONGEST_WIDTH);
  const listBottom = map.y + (STRONGEST + 1) * LINE;
  return legend(fig, scale, 'rdbu', map.x, Math.max(map.bottom, listBottom) + 8);
}

function scatterBlock(fig, { tokens, queryKeys: qk }, y) {
  y = heading(fig, y, queryKeyTitle(qk), [varianceText(qk)]);
  const x = MARGIN;
  shape(fig, { type: 'rect', x, y, w: SCATTER_SIDE, h: SCATTER_SIDE, fill: 'none', stroke: FRAME_COLOR });
  const place = scatterPlace(qk.queries, qk.keys, SCATTER_SIDE, SCATTER_SIDE, SCATTER_PAD);
  const round = (v) => Math.round(v * 10) / 10;
  // Keys first, so the queries, fewer in a picture of where they look, stay on top.
  for (let i = 0; i < tokens.length; i++) {
    const [px, py] = place(qk.keys[2 * i], qk.keys[2 * i + 1]);
    shape(fig, { type: 'rect', x: round(x + px - POINT), y: round(y + py - POINT), w: 2 * POINT, h: 2 * POINT, fill: KEY_COLOR, attrs: { class: 'why-key' } });
  }
  for (let i = 0; i < tokens.length; i++) {
    const [px, py] = place(qk.queries[2 * i], qk.queries[2 * i + 1]);
    shape(fig, { type: 'circle', x: round(x + px), y: round(y + py), r: POINT, fill: QUERY_COLOR });
  }
  const lx = x + SCATTER_SIDE + 16;
  shape(fig, { type: 'circle', x: lx + POINT, y: y + LINE / 2, r: POINT, fill: QUERY_COLOR });
  text(fig, 'query', lx + 4 * POINT, y + LINE / 2, TEXT_FONT);
  shape(fig, { type: 'rect', x: lx, y: y + LINE * 1.5 - POINT, w: 2 * POINT, h: 2 * POINT, fill: KEY_COLOR });
  text(fig, 'key', lx + 4 * POINT, y + LINE * 1.5, TEXT_FONT);
  return y + SCATTER_SIDE;
}

/** A lookup table's colours at GRADIENT_STOPS evenly spaced offsets: [offset, "#rrggbb"]. */
function gradientStops(lut) {
  const scale = { lut: lut === 'rdbu' ? signedScale().lut : weightScale().lut, min: 0, max: 1 };
  return Array.from({ length: GRADIENT_STOPS }, (_, i) => [i / (GRADIENT_STOPS - 1), hexColor(scale, i / (GRADIENT_STOPS - 1))]);
}

// ——— The figure as SVG, as PNG ———

/**
 * The figure of `data` (see createWhyView for its shape) as an SVG document string: the heads'
 * parts of the logit, the logit lens, the patching map and the query–key map, each when it is
 * there. Every head's cell is one <rect class="why-heads" data-layer data-head> (class="why-patch"
 * in the patching map), layers and heads from 0; every text is escaped, so tokens cannot add markup.
 */
export function whySvg(data) {
  const { width, height, shapes, texts } = whyFigure(data);
  const gradients = ['rdbu', 'viridis'].map((lut) => `<linearGradient id="why-${lut}">` +
    gradientStops(lut).map(([offset, color]) => `<stop offset="${offset}" stop-color="${color}"/>`).join('') + '</linearGradient>');
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${FONT_FAMILY}">`,
    `<defs>${gradients.join('')}</defs>`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    // crispEdges: antialiased edges would let the background show through as seams between cells.
    '<g shape-rendering="crispEdges">',
  ];
  for (const s of shapes) {
    if (s.type === 'circle') continue;
    const attrs = Object.entries(s.attrs ?? {}).map(([name, value]) => ` ${name}="${value}"`).join('');
    const fill = s.type === 'gradient' ? `url(#why-${s.lut})` : s.fill;
    const stroke = s.stroke ? ` stroke="${s.stroke}" stroke-width="${s.strokeWidth ?? 1}"` : '';
    parts.push(`<rect${attrs} x="${s.x}" y="${s.y}" width="${s.w}" height="${s.h}" fill="${fill}"${stroke}/>`);
  }
  parts.push('</g><g>');
  for (const s of shapes) if (s.type === 'circle') parts.push(`<circle cx="${s.x}" cy="${s.y}" r="${s.r}" fill="${s.fill}"/>`);
  parts.push('</g><g>');
  for (const t of texts) parts.push(svgText(t));
  parts.push('</g></svg>\n');
  return parts.join('\n');
}

/**
 * The same figure as whySvg, as a PNG Blob of exactly its width × height pixels, drawn at
 * device-pixel-ratio 1 on an OffscreenCanvas (a browser's, or a worker's). Text goes through
 * fillText, which draws user text as text and never parses it.
 */
export async function whyPng(data) {
  const { width, height, shapes, texts } = whyFigure(data);
  if (typeof OffscreenCanvas !== 'function') throw new Error('whyPng draws on an OffscreenCanvas, which this environment does not have: use whySvg');
  const canvas = new OffscreenCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, width, height);
  const gradient = (s) => {
    const g = ctx.createLinearGradient(s.x, 0, s.x + s.w, 0);
    for (const [offset, color] of gradientStops(s.lut)) g.addColorStop(offset, color);
    return g;
  };
  // In the SVG's order: rects, then circles, then texts.
  for (const s of shapes) {
    if (s.type === 'circle') continue;
    if (s.fill !== 'none') {
      ctx.fillStyle = s.type === 'gradient' ? gradient(s) : s.fill;
      ctx.fillRect(s.x, s.y, s.w, s.h);
    }
    if (s.stroke) {
      ctx.strokeStyle = s.stroke;
      ctx.lineWidth = s.strokeWidth ?? 1;
      ctx.strokeRect(s.x, s.y, s.w, s.h);
    }
  }
  for (const s of shapes) {
    if (s.type !== 'circle') continue;
    ctx.fillStyle = s.fill;
    ctx.beginPath();
    ctx.arc(s.x, s.y, s.r, 0, 2 * Math.PI);
    ctx.fill();
  }
  for (const t of texts) drawText(ctx, t);
  return canvas.convertToBlob({ type: 'image/png' });
}

/** One text on a canvas as svgText places it: anchored at x (start, middle or end), centred on y, turned −90° when vertical. */
function drawText(ctx, { text: content, x, y, size, anchor, vertical, color }) {
  ctx.save();
  ctx.fillStyle = color;
  ctx.font = `${size}px ${FONT_FAMILY}`;
  ctx.textAlign = { start: 'left', middle: 'center', end: 'right' }[anchor];
  ctx.textBaseline = 'middle';
  ctx.translate(x, y);
  if (vertical) ctx.rotate(-Math.PI / 2);
  ctx.fillText(content, 0, 0);
  ctx.restore();
}

// ——— The numbers as CSV ———

/**
 * Every number the figure shows as CSV text, in sections: a row with the section's name, a header
 * row, the rows, and an empty line before the next section. Layers, heads, positions and ranks are
 * counted from 1, as the page shows them. The sections, each when its data is there:
 * prediction (position, token there, token, id, against, id, softcap); contributions (part: head,
 * mlp, embeddings, biases, total, logit; layer; head; value); logit lens (row, position, token
 * there, rank, token, id, probability: all of each cell's list); patching (token, against, clean,
 * corrupted, runs, elapsed ms); patching by head (layer, head, value); query-key map (layer, head,
 * the two axes' shares); query-key points (query or key, position, token, x, y).
 * Lines end in CRLF, as RFC 4180 says.
 */
export function whyCsv(data) {
  checkWhy(data);
  const { tokens, contributions: c, lens, patch: p, queryKeys: qk } = data;
  const rows = [];
  const section = (name, header, body) => {
    if (rows.length) rows.push([]);
    rows.push([name], header, ...body);
  };
  if (c) {
    section('prediction', ['position', 'token there', 'token', 'token id', 'against', 'against id', 'softcap'],
      [[c.position + 1, tokens[c.position], c.token.text, c.token.id ?? '', c.against?.text ?? '', c.against?.id ?? '', c.softcap ?? '']]);
    section('contributions', ['part', 'layer', 'head', 'value'], [
      ...c.heads.flatMap((row, l) => Array.from(row, (v, h) => ['head', l + 1, h + 1, v])),
      ...Array.from(c.mlps, (v, l) => ['mlp', l + 1, '', v]),
      ['embeddings', '', '', c.embeddings], ['biases', '', '', c.biases], ['total', '', '', c.total], ['logit', '', '', c.logit],
    ]);
  }
  if (lens) {
    section('logit lens', ['row', 'position', 'token there', 'rank', 'token', 'id', 'probability'],
      lens.cells.flatMap((row, r) => row.flatMap((list, col) => list.map((e, rank) =>
        [lens.layers[r], lens.positions[col] + 1, tokens[lens.positions[col]], rank + 1, e.token, e.id, e.probability]))));
  }
  if (p) {
    section('patching', ['token', 'against', 'clean', 'corrupted', 'runs', 'elapsed ms'],
      [[p.token.text, p.against.text, p.clean, p.corrupted, p.runs, p.elapsedMs]]);
    section('patching by head', ['layer', 'head', 'value'], p.values.flatMap((row, l) => Array.from(row, (v, h) => [l + 1, h + 1, v])));
  }
  if (qk) {
    section('query-key map', ['layer', 'head', 'axis 1 share', 'axis 2 share'], [[qk.layer + 1, qk.head + 1, ...qk.variance]]);
    const points = (kind, xy) => tokens.map((t, i) => [kind, i + 1, t, xy[2 * i], xy[2 * i + 1]]);
    section('query-key points', ['kind', 'position', 'token', 'x', 'y'], [...points('query', qk.queries), ...points('key', qk.keys)]);
  }
  return rows.map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n';
}

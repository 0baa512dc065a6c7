// The export module (web/src/views/export.js) in headless Chromium, fed the attention the engine
// computes in this Node process: the JSON gives back every weight exactly, the PNG has the
// layout's pixel size and the SVG's colours, and the SVG parses with user tokens kept as text.
// The module is imported unbundled into tests/e2e/pages/views.html, served from the repository.
import { fileURLToPath } from 'node:url';
import { startServer } from '../../tools/serve.js';
import { loadEngine } from '../../web/src/index.js';
import { colorIndex, weightScale } from '../../web/src/views/colormap.js';
import { launchBrowser } from './browser.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const SENTENCE = 'The cat sat on the mat.';
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const HOSTILE = '<b>&"\'x'; // a token that would add an element, or break an attribute, if not escaped

let browser, server, engine, model, result, page, problems;

beforeAll(async () => {
  engine = await loadEngine();
  [browser, server, model] = await Promise.all([launchBrowser(), startServer({ root: REPO }), engine.loadModel()]);
  result = model.run(SENTENCE);
  ({ page, problems } = await browser.open(`${server.url}tests/e2e/pages/views.html`));
});

afterAll(async () => {
  await page?.close();
  engine?.dispose();
  await Promise.all([browser?.close(), server?.close()]);
});

/** Calls export.js's `name` in the page. Weights cross as plain arrays and become Float32Arrays there. */
function callExport(name, { weights, ...args }) {
  return page.evaluate(async ({ name, weights, args }) => {
    const exports = await import('/web/src/views/export.js');
    return exports[name]({ ...args, weights: weights.map((w) => Float32Array.from(w)) });
  }, { name, weights: weights.map((w) => Array.from(w)), args });
}

/** One layer's heads from the engine, as Float32Arrays (n × n). */
const layerWeights = (layer) => Array.from({ length: result.heads }, (_, h) => result.attention(layer, h));

/** Width and height from a PNG's IHDR chunk, which the format requires to come first. */
function pngSize(bytes) {
  expect([...bytes.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
  expect(bytes.readUInt32BE(8)).toBe(13);
  expect(bytes.toString('latin1', 12, 16)).toBe('IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

test('figureLayout gives integer sizes that follow from the token and head counts', async () => {
  const layouts = await page.evaluate(async () => {
    const { figureLayout } = await import('/web/src/views/export.js');
    return [
      figureLayout({ n: 9, heads: [0, 1, 2, 3] }),
      figureLayout({ n: 2, heads: [0, 1, 2, 3, 4] }),
      figureLayout({ n: 512, heads: [7] }),
      figureLayout({ n: 40, heads: [1, 0] }),
    ];
  });
  const pick = ({ width, height, cell, columns, rows, labelStride }) => ({ width, height, cell, columns, rows, labelStride });
  // 9 tokens: 24 px cells (480 / 9 = 53, clamped); a panel is 90 + 216 wide and 20 + 90 + 216 high;
  // four in a row: 16 + 4 × 306 + 3 × 24 + 16 = 1328 by 16 + 28 + 326 + 16 = 386.
  expect(pick(layouts[0])).toEqual({ width: 1328, height: 386, cell: 24, columns: 4, rows: 1, labelStride: 1 });
  // Five heads wrap onto a second row.
  expect(pick(layouts[1])).toEqual({ width: 656, height: 400, cell: 24, columns: 4, rows: 2, labelStride: 1 });
  expect(layouts[1].panels.map(({ x, y }) => [x, y])).toEqual([[16, 44], [178, 44], [340, 44], [502, 44], [16, 226]]);
  // 512 tokens: the 2 px floor, and a label on every 4th token so 8 px labels do not overlap.
  expect(pick(layouts[2])).toEqual({ width: 1146, height: 1194, cell: 2, columns: 1, rows: 1, labelStride: 4 });
  expect(layouts[2].panels).toEqual([{ head: 7, x: 16, y: 44, cellsX: 106, cellsY: 154 }]);
  expect(pick(layouts[3])).toEqual({ width: 1196, height: 650, cell: 12, columns: 2, rows: 1, labelStride: 1 });
  expect(layouts[3].panels.map((p) => p.head)).toEqual([1, 0]);
});

test('the JSON gives back every weight of every layer and head exactly as the engine computed it', async () => {
  const layers = Array.from({ length: result.layers }, (_, l) => layerWeights(l));
  const text = await page.evaluate(async ({ tokens, unknown, layers }) => {
    const { attentionJson } = await import('/web/src/views/export.js');
    return attentionJson({ tokens, unknown, layers: layers.map((heads) => ({ weights: heads.map((w) => Float32Array.from(w)) })) });
  }, { tokens: result.tokens, unknown: result.unknown, layers: layers.map((heads) => heads.map((w) => Array.from(w))) });
  const json = JSON.parse(text);
  const n = result.tokens.length;
  expect(json.format).toBe('multihead-attention');
  expect(json.version).toBe(1);
  expect(json.tokens).toEqual(result.tokens);
  expect(json.unknown).toEqual(result.unknown);
  expect(json.layers).toHaveLength(result.layers);
  let compared = 0, differing = 0;
  for (let l = 0; l < result.layers; l++) {
    expect(json.layers[l].heads).toHaveLength(result.heads);
    for (let h = 0; h < result.heads; h++) {
      const expected = result.attention(l, h);
      const rows = json.layers[l].heads[h];
      expect(rows.map((row) => row.length)).toEqual(Array(n).fill(n));
      for (let q = 0; q < n; q++) {
        for (let k = 0; k < n; k++, compared++) if (!Object.is(rows[q][k], expected[q * n + k])) differing++;
      }
    }
  }
  expect(compared).toBe(result.layers * result.heads * n * n);
  expect(differing).toBe(0);
  // Without unknown there is no "unknown" key.
  const bare = await page.evaluate(async () => {
    const { attentionJson } = await import('/web/src/views/export.js');
    return JSON.parse(attentionJson({ tokens: ['a'], layers: [{ weights: [Float32Array.of(1)] }] }));
  });
  expect(bare).toEqual({ format: 'multihead-attention', version: 1, tokens: ['a'], layers: [{ heads: [[[1]]] }] });
  expect(problems).toEqual([]);
});

test('the PNG has the layout\'s pixel size and, in every cell, the colour the SVG gives that cell', async () => {
  const layer = 1, heads = [3, 0, 2];
  const args = { tokens: result.tokens, weights: layerWeights(layer), heads, title: `layer ${layer + 1}: ${SENTENCE}` };
  const out = await page.evaluate(async ({ weights, ...args }) => {
    const { figureLayout, heatmapPng, heatmapSvg } = await import('/web/src/views/export.js');
    const input = { ...args, weights: weights.map((w) => Float32Array.from(w)) };
    const blob = await heatmapPng(input);
    const bytes = new Uint8Array(await blob.arrayBuffer());
    let binary = '';
    for (const b of bytes) binary += String.fromCharCode(b);
    // The PNG decoded again, sampled in each cell the SVG draws.
    const bitmap = await createImageBitmap(blob);
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const ctx = canvas.getContext('2d');
    ctx.drawImage(bitmap, 0, 0);
    const { data } = ctx.getImageData(0, 0, bitmap.width, bitmap.height);
    const doc = new DOMParser().parseFromString(heatmapSvg(input), 'image/svg+xml');
    const cells = [...doc.querySelectorAll('g > rect')].map((r) => {
      const [x, y, w, h] = ['x', 'y', 'width', 'height'].map((a) => Number(r.getAttribute(a)));
      const hexAt = (px, py) => {
        const i = (py * bitmap.width + px) * 4;
        return `#${[data[i], data[i + 1], data[i + 2]].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
      };
      // Both corners as well as the centre: a cell a pixel off or short would differ at one of them.
      const png = [...new Set([hexAt(x, y), hexAt(x + w / 2, y + h / 2), hexAt(x + w - 1, y + h - 1)])].join(' ');
      return { x, y, svg: r.getAttribute('fill'), png };
    });
    return { type: blob.type, base64: btoa(binary), layout: figureLayout({ n: args.tokens.length, heads: args.heads }), cells };
  }, { ...args, weights: args.weights.map((w) => Array.from(w)) });

  expect(out.type).toBe('image/png');
  const size = pngSize(Buffer.from(out.base64, 'base64'));
  expect(size).toEqual({ width: out.layout.width, height: out.layout.height });
  expect(size).toEqual({ width: 16 + 3 * 306 + 2 * 24 + 16, height: 386 });

  const n = result.tokens.length;
  expect(out.cells).toHaveLength(heads.length * n * n);
  expect(out.cells.filter((c) => c.svg !== c.png)).toEqual([]);
  // Panel p's cell (q, k) sits at its matrix origin + (k, q) cells: query rows down, key columns across.
  const { cell, panels } = out.layout;
  expect(panels.map((p) => p.head)).toEqual(heads);
  const positions = panels.flatMap(({ cellsX, cellsY }) =>
    Array.from({ length: n * n }, (_, i) => [cellsX + (i % n) * cell, cellsY + Math.floor(i / n) * cell]));
  expect(out.cells.map((c) => [c.x, c.y])).toEqual(positions);
  // Each cell's colour is viridis of its weight, looked up here in Node.
  const scale = weightScale();
  const viridis = (v) => {
    const i = colorIndex(scale, v) * 4;
    return `#${[0, 1, 2].map((c) => scale.lut[i + c].toString(16).padStart(2, '0')).join('')}`;
  };
  const expected = heads.flatMap((head) => Array.from(args.weights[head], viridis));
  expect(out.cells.map((c) => c.svg)).toEqual(expected);
  expect(new Set(expected).size).toBeGreaterThan(10); // the sentence's heads are not one flat colour
  expect(problems).toEqual([]);
});

test('the SVG parses, has one rect per cell, and keeps a token like <b>&"\' as text', async () => {
  const tokens = result.tokens.map((t, i) => (i === 2 ? HOSTILE : t));
  tokens[4] = 'supercalifragilistic';
  const title = 'layer 1 <script>alert(1)</script> & more';
  const args = { tokens, weights: layerWeights(0), heads: [0, 1, 2, 3], title };
  const out = await page.evaluate(async ({ weights, ...args }) => {
    const { heatmapSvg } = await import('/web/src/views/export.js');
    const svg = heatmapSvg({ ...args, weights: weights.map((w) => Float32Array.from(w)) });
    const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
    const root = doc.documentElement;
    return {
      svg,
      errors: doc.getElementsByTagName('parsererror').length,
      root: [root.localName, root.namespaceURI, ...['width', 'height', 'viewBox'].map((a) => root.getAttribute(a))],
      elements: [...new Set([...doc.getElementsByTagName('*')].map((e) => e.localName))].sort(),
      rects: doc.getElementsByTagName('rect').length,
      background: doc.querySelector('svg > rect').getAttribute('fill'),
      texts: [...doc.getElementsByTagName('text')].map((t) => t.textContent),
    };
  }, { ...args, weights: args.weights.map((w) => Array.from(w)) });

  const n = tokens.length;
  expect(out.errors).toBe(0);
  expect(out.root).toEqual(['svg', 'http://www.w3.org/2000/svg', '1328', '386', '0 0 1328 386']);
  expect(out.elements).toEqual(['g', 'rect', 'svg', 'text']); // no <b>, no <script>
  expect(out.rects).toBe(4 * n * n + 1);
  expect(out.background).toBe('#fff');
  // The title, four captions, and every token twice per panel (left and top).
  expect(out.texts).toHaveLength(1 + 4 + 4 * 2 * n);
  expect(out.texts[0]).toBe(title);
  expect(out.texts.filter((t) => t.startsWith('head '))).toEqual(['head 1', 'head 2', 'head 3', 'head 4']);
  expect(out.texts.filter((t) => t === HOSTILE)).toHaveLength(8);
  expect(out.texts.filter((t) => t === 'supercalifr…')).toHaveLength(8);
  expect(out.svg).toContain('>&lt;b&gt;&amp;&quot;&apos;x</text>');
  expect(out.svg).not.toContain('<b>');
  expect(problems).toEqual([]);
});

test('at 512 tokens a head is 512 × 512 rects of 2 px, and the PNG matches the layout', async () => {
  const out = await page.evaluate(async () => {
    const { figureLayout, heatmapPng, heatmapSvg } = await import('/web/src/views/export.js');
    const n = 512;
    const tokens = Array.from({ length: n }, (_, i) => `t${i}`);
    const weights = [Float32Array.from({ length: n * n }, (_, i) => (i % n) / n)];
    const svg = heatmapSvg({ tokens, weights, heads: [0], title: '512 tokens' });
    const bitmap = await createImageBitmap(await heatmapPng({ tokens, weights, heads: [0], title: '512 tokens' }));
    return {
      rects: svg.match(/<rect /g).length,
      cellRects: svg.match(/<rect [^>]*width="2" height="2"/g).length,
      labels: svg.match(/>t\d+<\/text>/g).length,
      bytes: svg.length,
      png: [bitmap.width, bitmap.height],
      layout: figureLayout({ n, heads: [0] }),
    };
  });
  expect(out.rects).toBe(512 * 512 + 1);
  expect(out.cellRects).toBe(512 * 512);
  expect(out.labels).toBe(2 * 512 / 4);
  expect(out.png).toEqual([out.layout.width, out.layout.height]);
  expect(out.png).toEqual([1146, 1194]);
  console.log(`export: a 512-token head as SVG is ${(out.bytes / 1e6).toFixed(1)} MB`);
  expect(problems).toEqual([]);
});

test('modelLayout gives integer sizes, and a column wide enough for a badge however few the tokens', async () => {
  const layouts = await page.evaluate(async () => {
    const { modelLayout } = await import('/web/src/views/model-figure.js');
    const pick = ({ width, height, cell, thumbWidth, thumbHeight, slot, thumbs }) =>
      ({ width, height, cell, side: thumbWidth === thumbHeight ? thumbWidth : 'not square', slot, first: thumbs[0], second: thumbs[1], last: thumbs.at(-1), count: thumbs.length });
    return [
      modelLayout({ n: 8, layers: 4, heads: 4 }),
      modelLayout({ n: 12, layers: 12, heads: 12 }),
      modelLayout({ n: 128, layers: 12, heads: 12 }),
      modelLayout({ n: 512, layers: 1, heads: 1 }),
    ].map(pick);
  });
  // 8 tokens: 8 px cells (96 / 8 = 12, clamped), 64 px thumbnails in 100 px columns;
  // 16 + 64 + 4 × 100 + 3 × 10 + 16 = 526 wide, 16 + 28 + 4 × (16 + 64 + 16) + 3 × 10 + 16 = 474 high.
  expect(layouts[0]).toEqual({
    width: 526, height: 474, cell: 8, side: 64, slot: 100, count: 16,
    first: { layer: 0, head: 0, x: 80, y: 60 }, second: { layer: 0, head: 1, x: 190, y: 60 }, last: { layer: 3, head: 3, x: 410, y: 378 },
  });
  // 12 tokens fill the 96 px aim exactly at 8 px a cell.
  expect(layouts[1]).toMatchObject({ cell: 8, side: 96, slot: 100, count: 144 });
  // 128 tokens: the 1 px floor, and the thumbnail is its own column.
  expect(layouts[2]).toMatchObject({ width: 16 + 64 + 12 * 128 + 11 * 10 + 16, cell: 1, side: 128, slot: 128, count: 144 });
  expect(layouts[2].last).toEqual({ layer: 11, head: 11, x: 80 + 11 * 138, y: 60 + 11 * (160 + 10) });
  expect(layouts[3]).toMatchObject({ width: 16 + 64 + 512 + 16, height: 16 + 28 + 16 + 512 + 16 + 16, cell: 1, side: 512 });
  // Each thumbnail is a whole number of px per cell.
  for (const { side, cell } of layouts) expect(side % cell).toBe(0);
});

test('the model view: the PNG and the SVG show every head\'s cells in the colours of its weights, with badges and switched-off heads as text', async () => {
  const layers = Array.from({ length: result.layers }, (_, l) => ({ weights: layerWeights(l).map((w) => Array.from(w)) }));
  const title = `${HOSTILE} ]]> <script>alert(1)</script>`;
  const out = await page.evaluate(async ({ tokens, layers, hostile, title }) => {
    const { modelLayout, modelPng, modelSvg } = await import('/web/src/views/model-figure.js');
    const input = {
      tokens, title,
      layers: layers.map((l) => ({ weights: l.weights.map((w) => Float32Array.from(w)) })),
      badges: layers.map((l, i) => l.weights.map((_, h) => (i === 1 && h === 1 ? 'previous 0.52' : i === 2 && h === 0 ? hostile : i === 0 && h === 2 ? 'a badge far wider than its column' : null))),
      ablated: layers.map((l, i) => l.weights.map((_, h) => i === 1 && h === 3)),
    };
    const layout = modelLayout({ n: tokens.length, layers: layers.length, heads: layers[0].weights.length });
    const { width, height, cell } = layout;
    /** An image drawn at (0, 0) as its RGBA pixels. */
    const pixelsOf = (image) => {
      const canvas = new OffscreenCanvas(width, height);
      const ctx = canvas.getContext('2d');
      ctx.drawImage(image, 0, 0);
      return ctx.getImageData(0, 0, width, height).data;
    };
    /**
     * The colours at each cell's two corners and centre, per thumbnail, as one list of distinct
     * colours per cell: a thumbnail a pixel off, or a cell a pixel short, gives two at some cell.
     */
    const sample = (data) => {
      const n = tokens.length;
      const rgb = (px, py) => [...data.subarray((py * width + px) * 4, (py * width + px) * 4 + 3)].join(',');
      return layout.thumbs.map(({ x, y }) => Array.from({ length: n * n }, (_, k) => {
        const left = x + (k % n) * cell, top = y + Math.floor(k / n) * cell;
        return [...new Set([rgb(left, top), rgb(left + (cell >> 1), top + (cell >> 1)), rgb(left + cell - 1, top + cell - 1)])];
      }));
    };
    const png = await modelPng(input);
    const pngBitmap = await createImageBitmap(png);
    const pngPixels = pixelsOf(pngBitmap);
    const svg = await modelSvg(input);
    const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
    // Each thumbnail's own PNG, decoded and drawn where the SVG puts it.
    const canvas = new OffscreenCanvas(width, height);
    const ctx = canvas.getContext('2d');
    ctx.imageSmoothingEnabled = false;
    const images = [...doc.getElementsByTagName('image')];
    const embedded = [];
    for (const image of images) {
      const bitmap = await createImageBitmap(await (await fetch(image.getAttribute('href'))).blob());
      embedded.push([bitmap.width, bitmap.height]);
      ctx.drawImage(bitmap, Number(image.getAttribute('x')), Number(image.getAttribute('y')),
        Number(image.getAttribute('width')), Number(image.getAttribute('height')));
    }
    // Left of the switched-off thumbnail (layer 2, head 4) and of the one before it: the border or white.
    const border = layout.thumbs.filter((t) => t.layer === 1 && t.head >= 2).map(({ x, y }) =>
      [...pngPixels.subarray(((y + 10) * width + x - 1) * 4, ((y + 10) * width + x - 1) * 4 + 3)]);
    return {
      layout: { width, height, thumbs: layout.thumbs.length },
      png: { type: png.type, size: [pngBitmap.width, pngBitmap.height], cells: sample(pngPixels), border },
      svg: { errors: doc.getElementsByTagName('parsererror').length, images: images.length, embedded, cells: sample(ctx.getImageData(0, 0, width, height).data),
        size: ['width', 'height'].map((a) => Number(doc.documentElement.getAttribute(a))),
        texts: [...doc.getElementsByTagName('text')].map((t) => t.textContent), elements: [...new Set([...doc.getElementsByTagName('*')].map((e) => e.localName))].sort(),
        offRects: doc.querySelectorAll('rect[stroke]').length },
    };
  }, { tokens: result.tokens, layers, hostile: HOSTILE, title });

  const heads = result.layers * result.heads, n = result.tokens.length;
  expect(out.layout.thumbs).toBe(heads);
  expect(out.png.type).toBe('image/png');
  expect(out.png.size).toEqual([out.layout.width, out.layout.height]);
  expect(out.svg.size).toEqual([out.layout.width, out.layout.height]);
  expect(out.svg.embedded).toEqual(Array(heads).fill([n, n])); // one pixel per cell
  // Every cell of every thumbnail, in both files, is one colour, the colour of its weight.
  const scale = weightScale();
  let wrong = 0;
  for (let t = 0; t < heads; t++) {
    const weights = result.attention(Math.floor(t / result.heads), t % result.heads);
    for (let k = 0; k < n * n; k++) {
      const c = colorIndex(scale, weights[k]) * 4;
      const want = [scale.lut[c], scale.lut[c + 1], scale.lut[c + 2]].join(',');
      for (const got of [out.png.cells[t][k], out.svg.cells[t][k]]) if (got.length !== 1 || got[0] !== want) wrong++;
    }
  }
  expect(wrong).toBe(0);
  // The switched-off head has the vermillion border in the PNG too; its neighbour has none.
  expect(out.png.border).toEqual([[255, 255, 255], [0xd5, 0x5e, 0x00]]);
  expect(out.svg.errors).toBe(0);
  expect(out.svg.images).toBe(heads);
  expect(out.svg.elements).toEqual(['image', 'rect', 'svg', 'text']); // no <b>, no <script>
  expect(out.svg.offRects).toBe(1);
  expect(out.svg.texts).toEqual(expect.arrayContaining([title, 'Layer 1', 'L1 H1', 'L2 H4 (off)', 'L4 H4', 'previous 0.52', 'a badge far wid…']));
  expect(out.svg.texts.filter((t) => t.endsWith('(off)'))).toEqual(['L2 H4 (off)']);
  expect(out.svg.texts.filter((t) => t === HOSTILE)).toHaveLength(1); // the badge, as text
  expect(problems).toEqual([]);
});

test('the model view\'s longest badge and caption fit their column at the figure\'s font', async () => {
  const out = await page.evaluate(async () => {
    const { modelLayout } = await import('/web/src/views/model-figure.js');
    const ctx = new OffscreenCanvas(1, 1).getContext('2d');
    ctx.font = '10px monospace';
    const widths = ['punctuation 0.93', 'L12 H12 (off)'].map((t) => ctx.measureText(t).width);
    return { widths, slots: [2, 9, 96].map((n) => modelLayout({ n, layers: 12, heads: 12 }).slot) };
  });
  for (const slot of out.slots) for (const width of out.widths) expect(width).toBeLessThanOrEqual(slot);
});

test('the model view names what is wrong with its input', async () => {
  const messages = await page.evaluate(async () => {
    const { modelPng, modelSvg } = await import('/web/src/views/model-figure.js');
    const one = () => ({ weights: [Float32Array.of(1), Float32Array.of(1)] }); // 1 token, 2 heads
    const inputs = [
      { tokens: [], layers: [one()] },
      { tokens: ['a'], layers: [] },
      { tokens: ['a', 'b'], layers: [one()] },
      { tokens: ['a'], layers: [one(), { weights: [Float32Array.of(1)] }] },
      { tokens: ['a'], layers: [one()], badges: [['x']] },
      { tokens: ['a'], layers: [one(), one()], ablated: [[false, true]] },
    ];
    const out = [];
    for (const draw of [modelSvg, modelPng]) {
      for (const input of inputs) out.push(await draw(input).then(() => 'no error', (e) => `${e.name}: ${e.message}`));
    }
    return out;
  });
  const expected = [
    'RangeError: a model figure needs at least one token',
    'RangeError: a model figure needs at least one layer',
    'RangeError: layer 1 head 1 has 1 weights; 2 tokens need 4',
    'RangeError: layer 2 has 1 heads; layer 1 has 2',
    'RangeError: badges must hold one entry per head: 1 layers of 2',
    'RangeError: ablated must hold one entry per head: 2 layers of 2',
  ];
  expect(messages).toEqual([...expected, ...expected]);
});

test('the model view at 144 heads and 128 tokens stays a small SVG', async () => {
  const out = await page.evaluate(async () => {
    const { modelPng, modelSvg } = await import('/web/src/views/model-figure.js');
    const n = 128;
    const tokens = Array.from({ length: n }, (_, i) => `t${i}`);
    const weights = (seed) => {
      const w = new Float32Array(n * n);
      // Noise, which compresses as badly as real attention or worse.
      for (let i = 0; i < n * n; i++) w[i] = (Math.abs(Math.sin((i + seed * n * n) * 12.9898) * 43758.5453) % 1) * (2 / n);
      return w;
    };
    const layers = Array.from({ length: 12 }, (_, l) => ({ weights: Array.from({ length: 12 }, (_, h) => weights(l * 12 + h)) }));
    const started = performance.now();
    const svg = await modelSvg({ tokens, layers, title: 'every layer' });
    const ms = performance.now() - started;
    const png = await modelPng({ tokens, layers, title: 'every layer' });
    return { bytes: svg.length, ms, png: png.size, images: svg.match(/<image /g).length };
  });
  expect(out.images).toBe(144);
  expect(out.bytes).toBeLessThan(3e6);
  console.log(`export: the model view of 144 heads × 128 tokens as SVG is ${(out.bytes / 1e6).toFixed(2)} MB, made in ${out.ms.toFixed(0)} ms; as PNG ${(out.png / 1e6).toFixed(2)} MB`);
  expect(problems).toEqual([]);
});

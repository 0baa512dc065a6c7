// The "Why?" files (views/why-export.js) in Node, without a DOM: the SVG writes hostile tokens as
// escaped text only and draws one cell per head in the sign's colour on one shared scale, the CSV
// reads back to every number and token exactly, and malformed data is refused with a message that
// names the field.
import { whyCsv, whyPng, whySvg } from '../../../web/src/views/why-export.js';

const HOSTILE = ['<script>alert(1)</script>', ' a&b', '"quoted", too', 'two\nlines', '=HYPERLINK("x")', ']]>\u0001'];

/**
 * A run of the hostile tokens, 2 layers of 3 heads: head h of layer l wrote (l + 1) · (h − 1.25)
 * (no zeros: every cell has a sign), each MLP 0.5 − l, and the lens, patch and query–key map of
 * those tokens, each number distinct.
 */
function whyData() {
  const n = HOSTILE.length, layers = 2, heads = 3, k = 2;
  const grid = (f) => Array.from({ length: layers }, (_, l) => Float64Array.from({ length: heads }, (_, h) => f(l, h)));
  return {
    tokens: HOSTILE,
    position: 3,
    contributions: {
      position: 3, token: { id: 7, text: ' William' }, against: { id: 9, text: '<b>James</b>' },
      heads: grid((l, h) => (l + 1) * (h - 1.25)), mlps: Float64Array.of(0.5, -0.5),
      embeddings: 0.1234567890123, biases: -1 / 3, total: 1.0000000001, logit: 1, softcap: null,
    },
    lens: {
      positions: [0, 3],
      layers: ['embeddings', 'layer 1', 'layer 2'],
      cells: Array.from({ length: 3 }, (_, r) => [0, 3].map((p) => Array.from({ length: 5 }, (_, rank) =>
        ({ token: HOSTILE[(r + p + rank) % n], id: 100 * r + 10 * p + rank, probability: 0.9 / (rank + 1) - r * 0.01 })))),
    },
    patch: {
      values: grid((l, h) => (h - 1.5) * (l + 0.3)), token: { id: 7, text: ' William' }, against: { id: 9, text: '<b>James</b>' },
      clean: 8.53, corrupted: -9.22, corruptedTokens: HOSTILE, runs: 6, elapsedMs: 40.25,
    },
    patching: null,
    queryKeys: {
      layer: 1, head: 2, k, variance: [0.41, 0.22],
      queries: Float32Array.from({ length: 2 * n }, (_, i) => Math.sin(i + 1)),
      keys: Float32Array.from({ length: 2 * n }, (_, i) => Math.cos(i + 1) / 3),
      top: Int32Array.from({ length: n * k }, (_, j) => Math.max(0, Math.floor(j / k) - (j % k))), // query i: itself, then i − 1
    },
    causal: true,
  };
}

/** RFC 4180 rows: quoted fields may hold commas, doubled quotes and line breaks; lines end in CRLF. */
function parseCsv(text) {
  const rows = [];
  let row = [], field = '', quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') field += text[i++];
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') [row, field] = [[...row, field], ''];
    else if (ch === '\r' && text[i + 1] === '\n') {
      rows.push([...row, field]);
      [row, field, i] = [[], '', i + 1];
    } else field += ch;
  }
  expect({ quoted, rest: row.length + field.length }).toEqual({ quoted: false, rest: 0 }); // the text ends with a whole line
  return rows;
}

/** The CSV's sections by name, each as its rows keyed by its header's names. */
function sections(text) {
  const out = {};
  let current = null;
  for (const [i, row] of parseCsv(text).entries()) {
    if (row.length === 1 && row[0] === '') current = null;
    else if (!current) out[row[0]] = current = { header: null, rows: [], start: i };
    else if (!current.header) current.header = row;
    else current.rows.push(Object.fromEntries(current.header.map((name, j) => [name, row[j]])));
  }
  return out;
}

/** The SVG's <rect>s of class `kind`: { layer, head, fill: [r, g, b] }. */
function cells(svg, kind) {
  return [...svg.matchAll(new RegExp(`<rect class="${kind}" data-layer="(\\d+)" data-head="(\\d+)"[^>]* fill="#(\\w\\w)(\\w\\w)(\\w\\w)"`, 'g'))]
    .map(([, layer, head, ...rgb]) => ({ layer: Number(layer), head: Number(head), fill: rgb.map((c) => parseInt(c, 16)) }));
}

describe('whySvg', () => {
  test('hostile tokens reach the SVG as escaped text only', () => {
    const svg = whySvg(whyData());
    expect(svg).not.toMatch(/<script|<b>|\]\]>/);
    expect(svg).toContain('&lt;script&gt;a…'); // the lens's label, clipped to 10 characters
    expect(svg).toContain('&lt;b&gt;James&lt;/b&gt;');
    // Every & starts an entity, and every < starts one of the figure's own elements.
    expect(svg.match(/&(?!(amp|lt|gt|quot|apos);)/g)).toBeNull();
    expect(new Set(svg.match(/<\/?[a-zA-Z]+/g))).toEqual(new Set(['<svg', '<defs', '<linearGradient', '<stop', '</linearGradient', '</defs',
      '<rect', '<g', '</g', '<text', '</text', '<circle', '</svg']));
    // XML cannot hold U+0001 even as a reference: it becomes U+FFFD.
    expect(svg).not.toMatch(/[\u0000-\u0008]/);
    expect(svg).toContain('\uFFFD');
  });

  test('the SVG has one cell per head, red where the head raised the logit and blue where it lowered it', () => {
    const data = whyData();
    for (const [kind, values] of [['why-heads', data.contributions.heads], ['why-patch', data.patch.values]]) {
      const drawn = cells(whySvg(data), kind);
      expect(drawn.map(({ layer, head }) => [layer, head])).toEqual([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]);
      for (const { layer, head, fill: [r, , b] } of drawn) {
        expect({ layer, head, red: r > b }).toEqual({ layer, head, red: values[layer][head] > 0 });
      }
    }
  });

  test('the heads, the MLPs and the embedding term share one scale symmetric around 0', () => {
    const data = whyData();
    Object.assign(data.contributions, { embeddings: 5, mlps: Float64Array.of(0.5, -5) });
    const svg = whySvg(data);
    // ±5 is the largest part: the ends of RdBu, whichever kind of cell holds it.
    expect(svg).toMatch(/<rect class="why-embeddings"[^>]* fill="#67001f"/);
    expect(svg).toMatch(/<rect class="why-heads-mlp" data-layer="1"[^>]* fill="#053061"/);
    const heads = cells(svg, 'why-heads');
    expect(heads.every(({ fill }) => fill.join() !== '103,0,31' && fill.join() !== '5,48,97')).toBe(true);
  });

  test('the patching map spans at least −1 to 1, and wider when a value passes it', () => {
    const data = whyData();
    const darkest = (svg) => cells(svg, 'why-patch').filter(({ fill }) => fill.join() === '103,0,31').length;
    data.patch.values = [Float64Array.of(0.5, -0.25, 0.1)];
    data.contributions = null;
    expect(darkest(whySvg(data))).toBe(0);
    data.patch.values = [Float64Array.of(1, -0.25, 0.1)];
    expect(darkest(whySvg(data))).toBe(1);
    data.patch.values = [Float64Array.of(1, 2, 0.1)];
    expect(cells(whySvg(data), 'why-patch').map(({ fill }) => fill.join() === '103,0,31')).toEqual([false, true, false]);
  });

  test('the header says what the parts add up to, in the page\'s counting from 1', () => {
    const svg = whySvg(whyData());
    expect(svg).toContain('Logit difference “ William” − “&lt;b&gt;James&lt;/b&gt;” at position 4 (after “two↵lines”): 1.000');
    expect(svg).toContain('Layer 2, head 3: queries and keys');
    expect(svg).toContain('The axes explain 41% and 22% of the spread.');
  });

  test('a block whose data is null is left out of the figure', () => {
    const data = { ...whyData(), contributions: null, patch: null, queryKeys: null };
    const svg = whySvg(data);
    expect(cells(svg, 'why-heads')).toEqual([]);
    expect(svg).not.toContain('<circle');
    expect(svg.match(/class="why-lens"/g)).toHaveLength(6);
  });
});

describe('whyCsv', () => {
  test('the CSV reads back to every number the figure shows, exactly', () => {
    const data = whyData();
    const s = sections(whyCsv(data));
    expect(Object.keys(s)).toEqual(['prediction', 'contributions', 'logit lens', 'patching', 'patching by head', 'query-key map', 'query-key points']);
    const c = data.contributions;
    const part = (name) => s.contributions.rows.filter((r) => r.part === name);
    expect(part('head').map((r) => [Number(r.layer), Number(r.head), Number(r.value)]))
      .toEqual(c.heads.flatMap((row, l) => Array.from(row, (v, h) => [l + 1, h + 1, v])));
    expect(part('mlp').map((r) => Number(r.value))).toEqual(Array.from(c.mlps));
    for (const name of ['embeddings', 'biases', 'total', 'logit']) expect(Number(part(name)[0].value)).toBe(c[name]);

    const lens = s['logit lens'].rows;
    expect(lens).toHaveLength(3 * 2 * 5);
    for (const r of lens) {
      const row = data.lens.layers.indexOf(r.row), col = data.lens.positions.indexOf(Number(r.position) - 1);
      const entry = data.lens.cells[row][col][Number(r.rank) - 1];
      expect([Number(r.id), Number(r.probability), r['token there']]).toEqual([entry.id, entry.probability, HOSTILE[Number(r.position) - 1]]);
    }

    expect(s.patching.rows[0]).toEqual({ token: ' William', against: '<b>James</b>', clean: '8.53', corrupted: '-9.22', runs: '6', 'elapsed ms': '40.25' });
    expect(s['patching by head'].rows.map((r) => Number(r.value))).toEqual(data.patch.values.flatMap((row) => Array.from(row)));

    const points = s['query-key points'].rows;
    const coordinates = (kind) => points.filter((r) => r.kind === kind).flatMap((r) => [Number(r.x), Number(r.y)]);
    expect(Float32Array.from(coordinates('query'))).toEqual(data.queryKeys.queries);
    expect(coordinates('key')).toEqual(Array.from(data.queryKeys.keys));
    expect(s['query-key map'].rows[0]).toEqual({ layer: '2', head: '3', 'axis 1 share': '0.41', 'axis 2 share': '0.22' });
  });

  test('tokens with commas, quotes and line breaks are quoted, and one a spreadsheet would run is defused', () => {
    const text = whyCsv(whyData());
    expect(text).toContain('"""quoted"", too"');
    expect(text).toContain('"two\nlines"');
    expect(text).toContain('" a&b"'); // a leading space is kept by quoting it
    const tokens = sections(text)['query-key points'].rows.filter((r) => r.kind === 'query').map((r) => r.token);
    expect(tokens).toEqual(HOSTILE.map((t) => (t.startsWith('=') ? `'${t}` : t)));
    // A negative number is a number, not a formula: it keeps its minus sign alone.
    expect(text).toMatch(/\r\nbiases,,,-0\.3333333333333333\r\n/);
  });

  test('a section whose data is null is left out', () => {
    const data = { ...whyData(), contributions: null, lens: null, queryKeys: null };
    expect(Object.keys(sections(whyCsv(data)))).toEqual(['patching', 'patching by head']);
  });
});

describe('malformed data', () => {
  const cases = [
    ['no tokens', (d) => { d.tokens = []; }, /data\.tokens must be a non-empty array of strings/],
    ['a token that is not text', (d) => { d.tokens = ['a', 7, 'b', 'c', 'd', 'e']; }, /data\.tokens/],
    ['a position past the tokens', (d) => { d.position = 6; }, /data\.position must be from 0 to 5, got 6/],
    ['a layer with a head too few', (d) => { d.contributions.heads[1] = Float64Array.of(1, 2); }, /contributions\.heads\[1\] must hold one number per head \(3/],
    ['an MLP too few', (d) => { d.contributions.mlps = Float64Array.of(1); }, /contributions\.mlps must hold one number per layer \(2\)/],
    ['a logit that is not a number', (d) => { d.contributions.logit = '9'; }, /contributions\.logit must be a number/],
    ['a lens row a position short', (d) => { d.lens.cells[2].pop(); }, /lens\.cells\[2\] must hold a cell per position \(2\)/],
    ['an empty list in the lens', (d) => { d.lens.cells[0][1] = []; }, /lens\.cells\[0\]\[1\]/],
    ['a lens position past the tokens', (d) => { d.lens.positions = [1, 9]; }, /lens\.positions\[1\]/],
    ['a ragged patch map', (d) => { d.patch.values[0] = Float64Array.of(1); }, /patch\.values\[1\] must hold one number per head \(1/],
    ['a query-key map of other tokens', (d) => { d.queryKeys.queries = new Float32Array(4); }, /queryKeys\.queries must hold \(x, y\) for each of the 6 tokens/],
    ['a top key past the tokens', (d) => { d.queryKeys.top[0] = 6; }, /a key of queryKeys\.top must be from 0 to 5, got 6/],
    ['nothing to draw', (d) => { Object.assign(d, { contributions: null, lens: null, patch: null, queryKeys: null }); }, /nothing to show/],
  ];
  test.each(cases)('%s is refused with a message naming the field', (_, spoil, message) => {
    const data = whyData();
    spoil(data);
    expect(() => whySvg(data)).toThrow(message);
    expect(() => whyCsv(data)).toThrow(message);
  });

  test('whyPng says what it lacks in Node instead of failing on a missing global', async () => {
    await expect(whyPng(whyData())).rejects.toThrow(/OffscreenCanvas/);
  });
});

test('a causal model predicts after its position, a masked model at it: the figure says which', () => {
  const base = whyData();
  const data = { ...base, tokens: base.tokens.map((t, i) => (i === base.position ? 'met' : t)) };
  const at = 'met';
  expect(whySvg(data)).toContain(`(after “${at}”)`);
  const masked = whySvg({ ...data, causal: false });
  expect(masked).not.toContain('(after ');
  expect(masked).toContain(`(“${at}”)`);
  expect(masked).toContain('The likeliest token at each position');
});

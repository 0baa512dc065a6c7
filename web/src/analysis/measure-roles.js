// Head roles measured over data rather than one sentence: the position and copying roles on
// repeated random tokens (as tools/measure_induction.py measures them), the others averaged over
// a probe set of sentences, and syntactic relations over that set's annotated arcs (Clark et al.
// 2019, "What Does BERT Look At?", §4), each beside its best fixed-offset baseline.
import { checkInteger, checkObject, describe } from '../check.js';
import { ROLES, headRoles, topRole } from './head-roles.js';

/** Roles measured on repeated random tokens (Olsson et al. 2022, §2); the rest on the probe sentences. */
const RANDOM_ROLES = ['previous', 'duplicate', 'induction'];
const OFFSETS = [-4, -3, -2, -1, 1, 2, 3, 4]; // the fixed-offset baselines tried, in words

/** tools/causal_model.py's xorshift32, so both draw the same random tokens from one seed. */
export function* xorshift32(seed) {
  let x = seed >>> 0;
  for (;;) {
    x = (x ^ (x << 13)) >>> 0;
    x = (x ^ (x >>> 17)) >>> 0;
    x = (x ^ (x << 5)) >>> 0;
    yield x;
  }
}

/**
 * Measures every head of `model` (engine.loadModel's) and returns
 * { heads: [{ layer, head, scores, top }], relations, sentences, runs }:
 *
 * - scores.previous, .duplicate and .induction: headRoles' formulas averaged over `runs` (200)
 *   sequences that repeat `runLength` (50, or fewer if the model's positions need) distinct random
 *   tokens once (Olsson et al. 2022); the vocabulary needs twice as many. Tokens are drawn with
 *   xorshift32(seed) as tools/measure_induction.py draws them: each is the vocabulary's tokens
 *   that stand alone (ids, ascending) at (x mod their count); a repeat in a run is drawn again.
 * - the other ROLES: headRoles' scores averaged over the probe sentences (each null where no
 *   sentence measures it).
 * - scores[relation] for each relation of the probe set: the better direction's share of arcs
 *   whose word most attended is the other end of the arc (Clark et al. 2019, §4.1), on word-level
 *   attention: summed over the attended word's tokens, averaged over the attending word's.
 * - relations[relation]: { arcs, best: { layer, head, direction: 'from' | 'to', score },
 *   baseline: { offset, direction, score } }: the best head, and the best fixed offset (the word
 *   `offset` places from the attending one) for comparison, as the paper reports.
 *
 * `probes` is { relations, sentences: [{ text, words, arcs: [[relation, from, to]] }] }
 * (web/probes/syntax.json). `onProgress({ done, total })` follows the runs; `signal` stops it.
 */
export async function measureHeadRoles(model, options = {}) {
  checkObject('measureHeadRoles options', options);
  const longest = Math.floor((model.maxTokens - 2) / 2); // two copies and up to two added tokens
  const { probes, runs = 200, runLength = Math.min(50, longest), seed = 20220308, onProgress, signal, ...rest } = options;
  const unknown = Object.keys(rest);
  if (unknown.length) throw new TypeError(`measureHeadRoles has no option ${unknown.join(', ')}`);
  checkInteger('runs', runs, 1, 10000);
  checkInteger('runLength', runLength, 2, longest);
  checkInteger('seed', seed, 0, 0xffffffff);
  const sentences = checkProbes(probes);
  if (onProgress !== undefined && typeof onProgress !== 'function') throw new TypeError(`onProgress must be a function, got ${describe(onProgress)}`);
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw new TypeError(`signal must be an AbortSignal, got ${describe(signal)}`);

  const total = runs + sentences.length;
  let done = 0;
  const step = async () => {
    done++;
    onProgress?.({ done, total });
    if (done % 8 === 0) await new Promise((resolve) => setTimeout(resolve, 0)); // let an abort or a message in
    signal?.throwIfAborted();
  };
  signal?.throwIfAborted();

  const H = model.numHeads, count = model.numLayers * H;
  const random = averages(count), probe = averages(count);
  const words = singleWordTokens(model);
  if (words.ids.length < 2 * runLength) {
    throw new RangeError(`measureHeadRoles: runLength ${runLength} needs ${2 * runLength} tokens that stand alone; the vocabulary has ${words.ids.length}`);
  }
  signal?.throwIfAborted();
  const draw = xorshift32(seed);
  for (let k = 0; k < runs; k++) {
    const r = repeatedRun(model, words, draw, runLength);
    headRoles(r).forEach((role, i) => random.add(i, role.scores, RANDOM_ROLES));
    await step();
  }
  const relations = Object.keys(probes.relations);
  const arcs = new Map(relations.map((name) => [name, { heads: Array.from({ length: count }, () => ({ from: 0, to: 0 })), arcs: 0, offsets: new Map() }]));
  let measured = 0;
  for (const sentence of sentences) {
    const r = model.run(sentence.text);
    const others = Object.keys(ROLES).filter((role) => !RANDOM_ROLES.includes(role));
    headRoles(r).forEach((role, i) => probe.add(i, role.scores, others));
    const wordOf = wordTokens(r, sentence);
    if (wordOf) {
      measured++;
      scoreArcs(r, sentence, wordOf, arcs);
    }
    await step();
  }

  const heads = [];
  for (let i = 0; i < count; i++) {
    const scores = { ...probe.means(i), ...random.means(i) };
    const ordered = Object.fromEntries(Object.keys(ROLES).map((role) => [role, scores[role] ?? null]));
    for (const [name, a] of arcs) ordered[name] = a.arcs ? Math.max(a.heads[i].from, a.heads[i].to) / a.arcs : null;
    heads.push({ layer: Math.floor(i / H), head: i % H, scores: ordered, top: topRole(ordered) });
  }
  return { heads, relations: summarise(arcs, H), sentences: { total: sentences.length, measured }, runs: { runs, runLength, seed } };
}

/** Running means per head of some roles, leaving out nulls. */
function averages(count) {
  const sums = Array.from({ length: count }, () => ({}));
  return {
    add(i, scores, roles) {
      for (const role of roles) {
        if (scores[role] === null) continue;
        const s = (sums[i][role] ??= { sum: 0, n: 0 });
        s.sum += scores[role];
        s.n++;
      }
    },
    means(i) {
      return Object.fromEntries(Object.entries(sums[i]).map(([role, { sum, n }]) => [role, sum / n]));
    },
  };
}

/**
 * The vocabulary's tokens that stand alone, ascending: every token but the special ones whose
 * text, after one space, tokenizes to that token alone (plus the tokens the tokenizer adds to any
 * text). For a word-level vocabulary that is every word, so the draws are measure_induction.py's.
 * Each maps to that spaced text.
 */
function singleWordTokens(model) {
  const added = model.tokenize('a').ids.length - 1;
  const words = new Map();
  for (let id = 0; id < model.vocabSize; id++) {
    const { text, special } = model.token(id);
    if (special || !/^ ?\S+$/u.test(text)) continue;
    const spaced = text.startsWith(' ') ? text : ` ${text}`;
    const { ids } = model.tokenize(spaced);
    if (ids.length === added + 1 && ids.includes(id)) words.set(id, spaced);
  }
  return { ids: [...words.keys()], text: words };
}

/** One run `r r` of `length` distinct single-word tokens drawn from `draw`, through the model. */
function repeatedRun(model, words, draw, length) {
  const run = [];
  while (run.length < length) {
    const id = words.ids[draw.next().value % words.ids.length];
    if (!run.includes(id)) run.push(id);
  }
  const r = model.run([...run, ...run].map((id) => words.text.get(id)).join(''));
  const kept = Array.from(r.ids).filter((id) => words.text.has(id));
  if (kept.join() !== [...run, ...run].join()) throw new Error('measureHeadRoles: a repeated run did not tokenize back to its tokens');
  return r;
}

/** The probe set, checked and copied: { text, words, arcs } per sentence, with each word's [start, end). */
function checkProbes(probes) {
  checkObject('probes', probes);
  const relations = checkObject('probes.relations', probes.relations);
  const sentences = probes.sentences;
  if (!Array.isArray(sentences) || sentences.length > 10000) throw new TypeError(`probes.sentences must be an Array of at most 10000, got ${describe(sentences)}`);
  return sentences.map((s, k) => {
    const where = `probes.sentences[${k}]`;
    const { text, words, arcs } = checkObject(where, s);
    if (typeof text !== 'string') throw new TypeError(`${where}.text must be a string, got ${describe(text)}`);
    if (!Array.isArray(words) || words.length < 1 || words.length > 512) throw new TypeError(`${where}.words must be an Array of 1 to 512 words, got ${describe(words)}`);
    const ranges = [];
    let at = 0;
    for (const [i, word] of words.entries()) {
      const start = typeof word === 'string' && word !== '' ? text.indexOf(word, at) : -1;
      if (start < 0 || text.slice(at, start).trim() !== '') throw new RangeError(`${where}.words[${i}] (${describe(word)}) is not the next word of its text`);
      ranges.push([start, (at = start + word.length)]);
    }
    if (!Array.isArray(arcs)) throw new TypeError(`${where}.arcs must be an Array, got ${describe(arcs)}`);
    const checked = arcs.map((arc, a) => {
      const [relation, from, to] = Array.isArray(arc) ? arc : [];
      if (!Object.hasOwn(relations, relation)) throw new RangeError(`${where}.arcs[${a}] names no relation of probes.relations: ${describe(relation)}`);
      checkInteger(`${where}.arcs[${a}] from`, from, 0, words.length - 1);
      checkInteger(`${where}.arcs[${a}] to`, to, 0, words.length - 1);
      return [relation, from, to];
    });
    return { text, ranges, arcs: checked };
  });
}

/**
 * For each token of `r`, the word of `sentence` its span overlaps, or -1 (an added token); null when
 * the run has no spans or leaves a word without a token (truncated text).
 */
function wordTokens(r, sentence) {
  if (r.spans.every((span) => span === null)) return null;
  const wordOf = r.spans.map((span) => (span ? sentence.ranges.findIndex(([s, e]) => span[0] < e && span[1] > s) : -1));
  return sentence.ranges.every((_, k) => wordOf.includes(k)) ? wordOf : null;
}

/**
 * Word-level attention of one head (Clark et al. 2019, §4.1): the weight from word a to word b is
 * the sum over b's tokens of the mean over a's tokens. Returns each word's most attended word.
 */
function mostAttendedWords(a, n, wordOf, words) {
  const counts = new Array(words).fill(0);
  for (const w of wordOf) if (w >= 0) counts[w]++;
  const weights = new Float64Array(words * words);
  for (let i = 0; i < n; i++) {
    if (wordOf[i] < 0) continue;
    for (let j = 0; j < n; j++) if (wordOf[j] >= 0) weights[wordOf[i] * words + wordOf[j]] += a[i * n + j] / counts[wordOf[i]];
  }
  return Array.from({ length: words }, (_, w) => {
    let best = 0;
    for (let v = 1; v < words; v++) if (weights[w * words + v] > weights[w * words + best]) best = v;
    return best;
  });
}

/** Counts, per relation and head, the arcs whose ends each head links, and the offsets' hits. */
function scoreArcs(r, sentence, wordOf, arcs) {
  const n = r.ids.length, words = sentence.ranges.length;
  const most = [];
  for (let l = 0; l < r.numLayers; l++) for (let h = 0; h < r.numHeads; h++) most.push(mostAttendedWords(r.attention(l, h), n, wordOf, words));
  for (const [relation, from, to] of sentence.arcs) {
    const a = arcs.get(relation);
    a.arcs++;
    most.forEach((m, i) => {
      if (m[from] === to) a.heads[i].from++;
      if (m[to] === from) a.heads[i].to++;
    });
    for (const offset of OFFSETS) {
      for (const [direction, hit] of [['from', from + offset === to], ['to', to + offset === from]]) {
        const key = `${direction} ${offset}`;
        if (hit) a.offsets.set(key, (a.offsets.get(key) ?? 0) + 1);
      }
    }
  }
}

/** Per relation: the arcs, the best head and direction, and the best fixed offset. */
function summarise(arcs, H) {
  const out = {};
  for (const [relation, a] of arcs) {
    let best = null, baseline = null;
    a.heads.forEach((counts, i) => {
      for (const direction of ['from', 'to']) {
        const score = a.arcs ? counts[direction] / a.arcs : 0;
        if (!best || score > best.score) best = { layer: Math.floor(i / H), head: i % H, direction, score };
      }
    });
    for (const [key, hits] of a.offsets) {
      const [direction, offset] = key.split(' ');
      const score = hits / a.arcs;
      if (!baseline || score > baseline.score) baseline = { offset: Number(offset), direction, score };
    }
    out[relation] = { arcs: a.arcs, best: a.arcs ? best : null, baseline };
  }
  return out;
}

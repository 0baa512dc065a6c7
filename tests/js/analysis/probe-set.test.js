// The syntactic probe set (web/probes/syntax.json), checked as data: at least 100 sentences; only
// the 8 declared relations, each with at least 50 arcs; every sentence's words found in its text,
// in order, with only whitespace between them (so a missing or misspelt word fails); arc indices
// integers in range, never from a word to itself; a pronoun's antecedent before it; no arc twice.
// And the checks themselves reject copies of the data spoilt in each of those ways.
import { readFileSync } from 'node:fs';

const probes = JSON.parse(readFileSync(new URL('../../../web/probes/syntax.json', import.meta.url), 'utf8'));
const RELATIONS = ['det', 'amod', 'nsubj', 'obj', 'pobj', 'poss', 'aux', 'coref'];

/** Where `words` do not spell out `text` from left to right with only whitespace between; else null. */
function alignmentError({ text, words }) {
  let at = 0;
  for (const [i, word] of words.entries()) {
    while (at < text.length && /\s/.test(text[at])) at++;
    if (typeof word !== 'string' || word === '' || !text.startsWith(word, at)) return `word ${i} ${JSON.stringify(word)} is not next in ${JSON.stringify(text)}`;
    at += word.length;
  }
  return text.slice(at).trim() === '' ? null : `${JSON.stringify(text)} goes on after the last word`;
}

/** The problems with one sentence's arcs, as messages. */
function arcErrors({ text, words, arcs }, relations) {
  const errors = [];
  const seen = new Set();
  for (const arc of arcs) {
    const [relation, from, to] = arc;
    const where = `${JSON.stringify(text)} ${JSON.stringify(arc)}`;
    if (arc.length !== 3) errors.push(`${where}: not [relation, from, to]`);
    if (!relations.includes(relation)) errors.push(`${where}: undeclared relation`);
    for (const index of [from, to]) if (!Number.isInteger(index) || index < 0 || index >= words.length) errors.push(`${where}: index out of range`);
    if (from === to) errors.push(`${where}: from a word to itself`);
    if (relation === 'coref' && !(to < from)) errors.push(`${where}: antecedent not before the pronoun`);
    if (seen.has(JSON.stringify(arc))) errors.push(`${where}: twice`);
    seen.add(JSON.stringify(arc));
  }
  return errors;
}

/** The number of arcs of each relation in a probe set. */
function arcCounts(set) {
  const counts = Object.fromEntries(Object.keys(set.relations).map((r) => [r, 0]));
  for (const s of set.sentences) for (const [relation] of s.arcs) counts[relation] = (counts[relation] ?? 0) + 1;
  return counts;
}

/** The relations with fewer than 50 arcs, as messages. */
function countErrors(set) {
  const counts = arcCounts(set);
  return RELATIONS.filter((r) => !((counts[r] ?? 0) >= 50)).map((r) => `${r} has ${counts[r] ?? 0} arcs`);
}

/** Every problem with a probe set, as messages. */
function problems(set) {
  const relations = Object.keys(set.relations);
  return [
    ...(set.sentences.length >= 100 ? [] : [`only ${set.sentences.length} sentences`]),
    ...relations.filter((r) => !RELATIONS.includes(r)).map((r) => `relation ${r} is not one of the 8`),
    ...RELATIONS.filter((r) => !relations.includes(r)).map((r) => `relation ${r} is not declared`),
    ...countErrors(set),
    ...set.sentences.map(alignmentError).filter(Boolean),
    ...set.sentences.flatMap((s) => arcErrors(s, relations)),
  ];
}

test('has at least 100 sentences', () => {
  expect(probes.sentences.length).toBeGreaterThanOrEqual(100);
});

test('declares the 8 relations, and each has at least 50 arcs', () => {
  expect(Object.keys(probes.relations).sort()).toEqual([...RELATIONS].sort());
  expect(countErrors(probes)).toEqual([]);
});

test("every sentence's words are its text, in order, with only whitespace between them", () => {
  expect(probes.sentences.map(alignmentError).filter(Boolean)).toEqual([]);
});

test('arcs use declared relations and in-range indices, never from = to, coref backwards, none twice', () => {
  expect(probes.sentences.flatMap((s) => arcErrors(s, Object.keys(probes.relations)))).toEqual([]);
});

test('the checks reject a spoilt copy of the data', () => {
  const spoil = (change) => {
    const copy = structuredClone(probes);
    change(copy.sentences[0], copy);
    return problems(copy);
  };
  expect(problems(probes)).toEqual([]);
  expect(spoil((s, set) => { set.sentences.splice(99); })).not.toEqual([]); // too few sentences
  expect(spoil((s, set) => { for (const t of set.sentences) t.arcs = t.arcs.filter(([r]) => r !== 'aux'); })).not.toEqual([]); // no aux arcs
  expect(spoil((s, set) => { delete set.relations.aux; })).not.toEqual([]); // a relation undeclared
  expect(spoil((s) => { s.words.splice(1, 1); })).not.toEqual([]); // a word missing
  expect(spoil((s) => { s.words[1] = `${s.words[1]}x`; })).not.toEqual([]); // a word misspelt
  expect(spoil((s) => { s.words.pop(); })).not.toEqual([]); // the last word missing
  expect(spoil((s) => { [s.words[0], s.words[1]] = [s.words[1], s.words[0]]; })).not.toEqual([]); // out of order
  expect(spoil((s) => { s.arcs.push(['nmod', 0, 1]); })).not.toEqual([]); // undeclared relation
  expect(spoil((s, set) => { set.relations.nmod = 'noun → noun'; })).not.toEqual([]); // a 9th relation
  expect(spoil((s) => { s.arcs.push(['det', 0, s.words.length]); })).not.toEqual([]); // out of range
  expect(spoil((s) => { s.arcs.push(['det', -1, 2]); })).not.toEqual([]);
  expect(spoil((s) => { s.arcs.push(['det', 0.5, 2]); })).not.toEqual([]); // not an integer
  expect(spoil((s) => { s.arcs.push(['amod', 2, 2]); })).not.toEqual([]); // from = to
  expect(spoil((s) => { s.arcs.push(['coref', 0, 4]); })).not.toEqual([]); // antecedent after the pronoun
  expect(spoil((s) => { s.arcs.push([...s.arcs[0]]); })).not.toEqual([]); // an arc twice
});

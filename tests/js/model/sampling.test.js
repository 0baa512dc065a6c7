// generate()'s choice of the next token (chooseToken), against an exact reference: the
// distribution it draws from, computed here by sorting the whole vocabulary in float64. Greedy
// ties go to the lower id; the repetition penalty is Hugging Face's; a draw at temperature T is
// softmax(logits / T), cut to the topK likeliest and then to the fewest reaching topP. Frequencies
// over many seeded draws match the reference's probabilities, and no token outside the cut is
// ever drawn, including from a flat vocabulary of 20,000 whose nucleus holds hundreds.
import { chooseToken, seededRandom } from '../../../web/src/model/generate.js';
import { nucleus } from '../../../web/src/model/likeliest.js';

const OPTIONS = { temperature: 1, topK: 0, topP: 1, repetitionPenalty: 1 };

/** The exact distribution: { id → probability } over the tokens the cut keeps. */
function reference(logits, { temperature, topK, topP }) {
  const order = Array.from(logits.keys()).sort((a, b) => logits[b] - logits[a] || a - b);
  const kept = topK > 0 ? order.slice(0, topK) : order;
  const max = logits[kept[0]];
  const weights = kept.map((id) => Math.exp((logits[id] - max) / temperature));
  const total = weights.reduce((a, b) => a + b, 0);
  let count = 0, mass = 0;
  while (count < kept.length && (count === 0 || mass < topP * total)) mass += weights[count++];
  return new Map(kept.slice(0, count).map((id, i) => [id, weights[i] / mass]));
}

/** How often each id is drawn in `draws` draws, as fractions. */
function frequencies(logits, options, draws, seed = 1) {
  const random = seededRandom(seed);
  const counts = new Map();
  for (let i = 0; i < draws; i++) {
    const id = chooseToken(logits, [], options, random);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return new Map([...counts].map(([id, n]) => [id, n / draws]));
}

function expectDrawsFrom(logits, options, draws, tolerance) {
  const want = reference(logits, options);
  const got = frequencies(logits, options, draws);
  for (const id of got.keys()) expect(want.has(id)).toBe(true); // nothing outside the cut
  for (const [id, p] of want) expect(Math.abs((got.get(id) ?? 0) - p)).toBeLessThan(tolerance);
}

const SMALL = Float32Array.from([2, 1, 0.5, 0.5, -1, 3]);

test('greedy takes the largest logit, the lower id on a tie, after Hugging Face\'s repetition penalty', () => {
  const greedy = { ...OPTIONS, temperature: 0 };
  expect(chooseToken(SMALL, [], greedy, Math.random)).toBe(5);
  expect(chooseToken(Float32Array.from([1, 3, 3]), [], greedy, Math.random)).toBe(1);
  // 3 / 2 = 1.5 < 2: the seen token gives way; a negative logit seen is multiplied, so it falls further.
  expect(chooseToken(SMALL, [5], { ...greedy, repetitionPenalty: 2 }, Math.random)).toBe(0);
  expect(chooseToken(Float32Array.from([-1, -0.9]), [1], { ...greedy, repetitionPenalty: 2 }, Math.random)).toBe(0);
  expect(Array.from(SMALL)).toEqual([2, 1, 0.5, 0.5, -1, 3]); // the logits are not changed
});

test('the repetition penalty applies once to each distinct id, however often it was seen', () => {
  // transformers' RepetitionPenaltyLogitsProcessor gathers the seen ids' logits, divides or
  // multiplies them, and scatters them back: an id seen three times is penalised once. Compounded,
  // 3 / 1.4³ = 1.09 would fall below 2 and token 0 would win; once, 3 / 1.4 = 2.14 still leads.
  const greedy = { ...OPTIONS, temperature: 0, repetitionPenalty: 1.4 };
  expect(chooseToken(SMALL, [5, 5, 5], greedy, Math.random)).toBe(5);
  // A negative logit is multiplied once: -0.8 × 1.2 = -0.96 still beats -1; compounded over its
  // two sightings it would be -1.15 and give way.
  expect(chooseToken(Float32Array.from([-1, -0.8]), [1, 1], { ...greedy, repetitionPenalty: 1.2 }, Math.random)).toBe(1);
});

test.each([
  ['every token', {}],
  ['temperature 0.5', { temperature: 0.5 }],
  ['temperature 3', { temperature: 3 }],
  ['top-k 2', { topK: 2 }],
  ['top-p 0.7', { topP: 0.7 }],
  ['top-k 3 and top-p 0.9', { topK: 3, topP: 0.9 }],
])('%s: draws follow softmax(logits / T) over the cut', (_, options) => {
  expectDrawsFrom(SMALL, { ...OPTIONS, ...options }, 100000, 0.006);
});

test('a vocabulary of 20,000 with a nucleus of hundreds: only its tokens are drawn, at their probabilities', () => {
  const random = seededRandom(11);
  const logits = Float32Array.from({ length: 20000 }, () => 4 * random());
  const options = { ...OPTIONS, topP: 0.05 };
  const want = reference(logits, options);
  expect(want.size).toBeGreaterThan(100);
  const got = frequencies(logits, options, 3000);
  for (const id of got.keys()) expect(want.has(id)).toBe(true);
  // Every kept token is about as likely as the others here: the drawn share of the likeliest half matches.
  const likeliest = [...want.keys()].slice(0, want.size >> 1);
  const share = (map) => likeliest.reduce((a, id) => a + (map.get(id) ?? 0), 0);
  expect(Math.abs(share(got) - share(want))).toBeLessThan(0.04);
});

test('the same seed draws the same tokens', () => {
  const draws = (seed) => {
    const random = seededRandom(seed);
    return Array.from({ length: 50 }, () => chooseToken(SMALL, [], { ...OPTIONS, topP: 0.9 }, random));
  };
  expect(draws(3)).toEqual(draws(3));
  expect(draws(3)).not.toEqual(draws(4));
});

test('nucleus() keeps the likeliest by count or by mass, ties to the lower id, whatever the pivots met', () => {
  const random = seededRandom(5);
  for (let trial = 0; trial < 200; trial++) {
    const n = 1 + Math.floor(random() * 300);
    // Few distinct values, so ties are everywhere.
    const weights = Float64Array.from({ length: n }, () => Math.floor(random() * 6) / 5);
    const order = Array.from(weights.keys()).sort((a, b) => weights[b] - weights[a] || a - b);
    const count = 1 + Math.floor(random() * n);
    expect(nucleus(weights, count, Infinity).sort((a, b) => a - b)).toEqual(order.slice(0, count).sort((a, b) => a - b));
    const total = weights.reduce((a, b) => a + b, 0);
    const mass = random() * total;
    let fewest = 0;
    for (let acc = 0; fewest < n && (fewest === 0 || acc < mass); fewest++) acc += weights[order[fewest]];
    const kept = nucleus(weights, Infinity, mass);
    if (mass > 0) expect(kept.sort((a, b) => a - b)).toEqual(order.slice(0, fewest).sort((a, b) => a - b));
  }
});

// What each head does, measured on one run's attention weights: a score per role, the mean over
// the sentence's query positions of the share of attention the role predicts, and the head's top
// role. Plain JavaScript over model.run's result (or any { layers, heads, tokens, ids?, causal?,
// attention(layer, head) }); no annotation needed.
import { attentionOf } from './attention-source.js';

/**
 * Roles in the order headRoles reports them, each with the least score that makes it a head's
 * top role, one plain sentence for a reader, and where a role was first described when that is not
 * plain (cite). A(i, j) is the weight from query i to key j.
 */
export const ROLES = Object.freeze({
  previous: { threshold: 0.5, meaning: 'looks at the token just before each token' },
  next: { threshold: 0.5, meaning: 'looks at the token just after each token' },
  self: { threshold: 0.5, meaning: 'looks at each token itself' },
  sink: {
    threshold: 0.5,
    meaning: 'rests on the first token, an "attention sink": a head\'s weights must add up to 1, so one with nothing to look for ' +
      'parks them on the token every query can see, the first, whatever it says. Models keep doing it even when that token is ' +
      'a plain word, and removing it breaks them',
    cite: 'Xiao et al. 2023, "Efficient Streaming Language Models with Attention Sinks"',
  },
  last: { threshold: 0.5, meaning: 'rests on the closing token ([SEP] or </s>)' },
  punctuation: { threshold: 0.5, meaning: 'looks at punctuation marks' },
  broad: { threshold: 0.8, meaning: 'spreads its attention over the whole sentence' },
  duplicate: { threshold: 0.5, meaning: 'looks from a token back to earlier copies of the same token' },
  induction: { threshold: 0.5, meaning: 'looks from a repeated token to the token that followed its earlier copy, to predict it comes again' },
});

const PUNCTUATION = /^[\s\p{P}]*\p{P}[\s\p{P}]*$/u;

/**
 * Every head's scores on this run, [{ layer, head, scores: { previous, next, … }, top }], in layer
 * then head order. A score is null where the sentence cannot measure it (no punctuation, no
 * repeated token, a causal model's missing closing token). Each is a mean over queries i of:
 *
 * - previous: A(i, i−1), i ≥ 1; next: A(i, i+1), i < n−1; self: A(i, i). Positional heads (Clark
 *   et al. 2019, "What Does BERT Look At?", §3.1; Voita et al. 2019, "Analyzing Multi-Head
 *   Self-Attention", §4.2).
 * - sink: A(i, 0), i ≥ 1. Heads that park attention on [CLS] or the first token (Clark et al.
 *   2019, §3.2; Xiao et al. 2023, "Efficient Streaming Language Models with Attention Sinks").
 * - last: A(i, n−1), i < n−1, for models that close the text with a special token ([SEP], </s>):
 *   Clark et al. 2019, §3.2, found [SEP] works as a no-op.
 * - punctuation: Σ A(i, j) over punctuation tokens j (Clark et al. 2019, §3.2: periods and commas).
 * - broad: the entropy of row i over the keys it may see, divided by log(their number): 1 is
 *   uniform, 0 one key (Clark et al. 2019, §3.3); rows that see one key are left out.
 * - duplicate: Σ A(i, j) over earlier copies j < i of token i, over queries that have one (Wang et
 *   al. 2022, "Interpretability in the Wild", §3: duplicate token heads).
 * - induction: Σ A(i, j+1) over earlier copies j of token i with j+1 < i, over queries that have
 *   one (Olsson et al. 2022, "In-context Learning and Induction Heads", §2).
 *
 * `top` is the role with the highest score among those at or above their ROLES threshold, as
 * { role, score }, or null when none is.
 */
export function headRoles(result) {
  const source = attentionOf(result, 'headRoles');
  const { n, layers, heads } = source;
  const ids = sameTokenIds(result, source.tokens);
  const causal = result.causal === true;
  const punctuation = source.tokens.map((t) => PUNCTUATION.test(t));
  const hasPunctuation = punctuation.includes(true);
  const copies = earlierCopies(ids);
  // The earlier copies j of each token whose next token j + 1 is still before it, for induction.
  const followed = copies.map((list, i) => list.filter((j) => j + 1 < i));
  const roles = [];
  for (let layer = 0; layer < layers; layer++) {
    for (let head = 0; head < heads; head++) {
      const a = source.attention(layer, head);
      const scores = {
        previous: mean(n, (i) => (i >= 1 ? a[i * n + i - 1] : undefined)),
        next: mean(n, (i) => (i < n - 1 ? a[i * n + i + 1] : undefined)),
        self: mean(n, (i) => a[i * n + i]),
        sink: mean(n, (i) => (i >= 1 ? a[i * n] : undefined)),
        last: causal ? null : mean(n, (i) => (i < n - 1 ? a[i * n + n - 1] : undefined)),
        punctuation: hasPunctuation ? mean(n, (i) => sumOver(a, i, n, punctuation)) : null,
        broad: mean(n, (i) => normalisedEntropy(a, i, n, causal ? i + 1 : n)),
        duplicate: mean(n, (i) => (copies[i].length ? copies[i].reduce((s, j) => s + a[i * n + j], 0) : undefined)),
        induction: mean(n, (i) => (followed[i].length ? followed[i].reduce((s, j) => s + a[i * n + j + 1], 0) : undefined)),
      };
      roles.push({ layer, head, scores, top: topRole(scores) });
    }
  }
  return roles;
}

/** The role with the highest score that clears its threshold in `roles` (ROLES by default), or null. */
export function topRole(scores, roles = ROLES) {
  let top = null;
  for (const [role, { threshold }] of Object.entries(roles)) {
    const score = scores[role];
    if (score !== null && score !== undefined && score >= threshold && (!top || score > top.score)) top = { role, score };
  }
  return top;
}

/** Ids that say which positions hold the same token: result.ids when it has them, else the labels. */
function sameTokenIds(result, tokens) {
  const ids = result.ids;
  if (ids !== undefined && ids !== null && ids.length === tokens.length) return Array.from(ids, Number);
  return tokens;
}

/** For each position, the earlier positions holding the same token. */
function earlierCopies(ids) {
  const seen = new Map();
  return ids.map((id, i) => {
    const before = seen.get(id) ?? [];
    seen.set(id, [...before, i]);
    return before;
  });
}

/** The mean of value(i) over the queries where it is defined; null when it is nowhere. */
function mean(n, value) {
  let sum = 0, count = 0;
  for (let i = 0; i < n; i++) {
    const v = value(i);
    if (v === undefined) continue;
    sum += v;
    count++;
  }
  return count ? sum / count : null;
}

/** Σ a(i, j) over the keys j that `keep[j]` marks. */
function sumOver(a, i, n, keep) {
  let sum = 0;
  for (let j = 0; j < n; j++) if (keep[j]) sum += a[i * n + j];
  return sum;
}

/** Row i's entropy over its first `visible` keys over log(visible), or undefined for one key. */
function normalisedEntropy(a, i, n, visible) {
  if (visible < 2) return undefined;
  let entropy = 0;
  for (let j = 0; j < visible; j++) {
    const p = a[i * n + j];
    if (p > 0) entropy -= p * Math.log(p);
  }
  return entropy / Math.log(visible);
}

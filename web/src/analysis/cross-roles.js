// What each cross-attention head of an encoder–decoder does, on one run: how much it reads the
// source word that an alignment of the two sentences pairs each target word with, when writing
// that word (the decoder's row before it, as the alignment view draws it), and whether it parks
// its weight on the source's closing </s>. Plain JavaScript over a cross-attention's
// weights (target rows over source columns), as head-roles.js is over a self-attention's.
import { attentionOf } from './attention-source.js';
import { topRole } from './head-roles.js';

/** The cross-attention roles, as head-roles.js's ROLES: each with the least score that makes it a head's top role. */
export const CROSS_ROLES = Object.freeze({
  align: {
    threshold: 0.5,
    meaning: 'reads, as it writes each target word, the source word the two sentences\' alignment pairs it with: the word ' +
      'being translated. The alignment pairs a word that is in the source with itself there, and any other word with the ' +
      'source word that every cross head of every layer together reads most as it is written',
    cite: 'Bahdanau et al. 2014, "Neural Machine Translation by Jointly Learning to Align and Translate"',
  },
  sink: {
    threshold: 0.5,
    meaning: 'parks its weight on the source\'s closing token (</s>): a cross head with nothing to read for this word ' +
      'rests there, as a self-attention head rests on its first token',
  },
});

/**
 * The alignment of a cross-attention run ({ ids (the decoder's input), keyIds (the source) } and
 * its checked `source` weights): for each row r whose next target id, the word it writes, is no
 * special id, the source column it pairs with; null for the other rows. A word that occurs in the
 * source pairs with that occurrence (the one nearest the diagonal when it occurs more than once);
 * any other with the column that the mean of every head of every layer weighs most in its row.
 * Special source tokens (<s>, </s>, the pad) are never paired.
 */
export function alignmentOf(source, ids, keyIds, special) {
  const { n, nKeys, layers, heads } = source;
  const columns = Array.from({ length: nKeys }, (_, j) => j).filter((j) => !special.has(keyIds[j]));
  const rows = Array.from({ length: n }, (_, r) => r).filter((r) => r + 1 < n && !special.has(ids[r + 1]));
  const alignment = new Array(n).fill(null);
  if (columns.length === 0) return alignment;
  let sum = null; // the mean of every head, summed once a row needs it
  rows.forEach((r, k) => {
    const diagonal = rows.length === 1 ? 0 : (k * (nKeys - 1)) / (rows.length - 1);
    const same = columns.filter((j) => keyIds[j] === ids[r + 1]);
    if (same.length) {
      alignment[r] = same.reduce((best, j) => (Math.abs(j - diagonal) < Math.abs(best - diagonal) ? j : best));
      return;
    }
    if (!sum) {
      sum = new Float64Array(n * nKeys);
      for (let l = 0; l < layers; l++) {
        for (let h = 0; h < heads; h++) {
          const a = source.attention(l, h);
          for (let i = 0; i < sum.length; i++) sum[i] += a[i];
        }
      }
    }
    alignment[r] = columns.reduce((best, j) => (sum[r * nKeys + j] > sum[r * nKeys + best] ? j : best));
  });
  return alignment;
}

/**
 * Every cross head's scores on this run, [{ layer, head, scores: { align, sink }, top }], in layer
 * then head order, with the run's `alignment` (alignmentOf: per row, the source column of the word
 * it writes, or null) and `diagonal`: the share of the paired rows whose column is the diagonal
 * one among the source's words (row k of the K paired, word round(k · (m − 1) / (K − 1)) of m),
 * what the word order alone would pair, the baseline for these lengths. `result` is { tokens and
 * ids (the decoder's input, its rows), keyTokens and keyIds (the source, its columns), numLayers,
 * numHeads, attention(layer, head) }; `special` holds the ids of special tokens.
 *
 * - align: the mean over paired rows r of A(r, alignment(r)); null when no row is paired.
 * - sink: the mean over every row of A(r, m), m the source's last column, when it is a special
 *   token (the closing </s>); else null.
 */
export function crossHeadRoles(result, special = new Set()) {
  const source = attentionOf(result, 'crossHeadRoles');
  const { n, nKeys, layers, heads } = source;
  const ids = Array.from(result.ids ?? [], Number), keyIds = Array.from(result.keyIds ?? [], Number);
  if (ids.length !== n || keyIds.length !== nKeys) {
    throw new RangeError(`crossHeadRoles: result.ids and result.keyIds must hold ${n} and ${nKeys} ids, got ${ids.length} and ${keyIds.length}`);
  }
  const alignment = alignmentOf(source, ids, keyIds, special);
  const paired = alignment.flatMap((j, r) => (j === null ? [] : [r]));
  const words = Array.from({ length: nKeys }, (_, j) => j).filter((j) => !special.has(keyIds[j]));
  const diagonalOf = (k) => words[paired.length === 1 ? 0 : Math.round((k * (words.length - 1)) / (paired.length - 1))];
  const diagonal = paired.length ? paired.filter((r, k) => alignment[r] === diagonalOf(k)).length / paired.length : null;
  const closing = special.has(keyIds[nKeys - 1]);
  const roles = [];
  for (let layer = 0; layer < layers; layer++) {
    for (let head = 0; head < heads; head++) {
      const a = source.attention(layer, head);
      let align = 0, sink = 0;
      for (const r of paired) align += a[r * nKeys + alignment[r]];
      for (let r = 0; r < n; r++) sink += a[r * nKeys + nKeys - 1];
      const scores = { align: paired.length ? align / paired.length : null, sink: closing ? sink / n : null };
      roles.push({ layer, head, scores, top: topRole(scores, CROSS_ROLES) });
    }
  }
  return { roles, alignment, diagonal };
}

// What each cross-attention head of an encoder–decoder does, on one run: how much it reads the
// source word that an alignment of the two sentences pairs each target word with, and whether it
// parks its weight on the source's closing </s>. Plain JavaScript over a cross-attention's
// weights (target rows over source columns), as head-roles.js is over a self-attention's.
import { attentionOf } from './attention-source.js';
import { topRole } from './head-roles.js';

/** The cross-attention roles, as head-roles.js's ROLES: each with the least score that makes it a head's top role. */
export const CROSS_ROLES = Object.freeze({
  align: {
    threshold: 0.5,
    meaning: 'reads, from each target word, the source word the two sentences\' alignment pairs it with: the word ' +
      'being translated (the alignment is the one the alignment view draws: the most-read source word of every cross ' +
      'head together, the closing token left out)',
    cite: 'Bahdanau et al. 2014, "Neural Machine Translation by Jointly Learning to Align and Translate"',
  },
  sink: {
    threshold: 0.5,
    meaning: 'parks its weight on the source\'s closing token (</s>): a cross head with nothing to read for this word ' +
      'rests there, as a self-attention head rests on its first token',
  },
});

/**
 * The alignment of a cross-attention run: for each target row, the source column that the mean of
 * every head of every layer weighs most, leaving out a closing token (`closing`: the source's
 * last token is </s>); ties go to the earlier column.
 */
export function alignmentOf(source, closing) {
  const { n, nKeys, layers, heads } = source;
  const columns = closing && nKeys > 1 ? nKeys - 1 : nKeys;
  const sum = new Float64Array(n * nKeys);
  for (let l = 0; l < layers; l++) {
    for (let h = 0; h < heads; h++) {
      const a = source.attention(l, h);
      for (let k = 0; k < sum.length; k++) sum[k] += a[k];
    }
  }
  return Array.from({ length: n }, (_, i) => {
    let best = 0;
    for (let j = 1; j < columns; j++) if (sum[i * nKeys + j] > sum[i * nKeys + best]) best = j;
    return best;
  });
}

/**
 * Every cross head's scores on this run, [{ layer, head, scores: { align, sink }, top }], in layer
 * then head order, with the run's `alignment` (a source column per target row) and `diagonal`:
 * the align score a head would get by reading only the diagonal source word (row i of n_t reads
 * column round(i · (m − 1) / (n_t − 1)) of the m words the alignment may pair), the baseline a
 * word order alone gives for these lengths. `result` is { tokens (target rows), keyTokens
 * (source columns), numLayers, numHeads, attention(layer, head) }; `closing` says the source
 * ends with a closing token (</s>): sink is null without one.
 *
 * - align: the mean over target rows i of A(i, alignment(i)).
 * - sink: the mean over target rows i of A(i, m), m the closing token's column.
 */
export function crossHeadRoles(result, closing) {
  const source = attentionOf(result, 'crossHeadRoles');
  const { n, nKeys, layers, heads } = source;
  const alignment = alignmentOf(source, closing);
  const words = closing && nKeys > 1 ? nKeys - 1 : nKeys;
  const diagonalColumn = (i) => (n === 1 ? 0 : Math.round((i * (words - 1)) / (n - 1)));
  const diagonal = alignment.filter((j, i) => j === diagonalColumn(i)).length / n;
  const roles = [];
  for (let layer = 0; layer < layers; layer++) {
    for (let head = 0; head < heads; head++) {
      const a = source.attention(layer, head);
      let align = 0, sink = 0;
      for (let i = 0; i < n; i++) {
        align += a[i * nKeys + alignment[i]];
        sink += a[i * nKeys + nKeys - 1];
      }
      const scores = { align: align / n, sink: closing ? sink / n : null };
      roles.push({ layer, head, scores, top: topRole(scores, CROSS_ROLES) });
    }
  }
  return { roles, alignment, diagonal };
}

import { AttentionResult } from './rollout.js';

/** The roles crossHeadRoles measures. */
export type CrossRole = 'align' | 'sink';

/** Each cross role's least score that makes it a head's top role, and a plain sentence saying what it means. */
export const CROSS_ROLES: Readonly<Record<CrossRole, { threshold: number; meaning: string; cite?: string }>>;

/** One cross head's measured roles; sink is null when the source has no closing token. */
export interface CrossHeadRole {
  layer: number;
  head: number;
  scores: Record<CrossRole, number | null>;
  top: { role: CrossRole; score: number } | null;
}

/**
 * Every cross-attention head's scores on one run (result.crossAttention's weights: the decoder's
 * input `tokens` and `ids` down the rows, the source's `keyTokens` and `keyIds` across the
 * columns), with the alignment they read (per row, the source column of the word it writes, or
 * null) and the diagonal baseline of these lengths (cross-roles.js). `special`: the ids of special tokens.
 */
export function crossHeadRoles(result: AttentionResult & { readonly keyTokens: readonly string[]; readonly ids: ArrayLike<number>;
  readonly keyIds: ArrayLike<number> }, special?: ReadonlySet<number>): { roles: CrossHeadRole[]; alignment: (number | null)[]; diagonal: number | null };

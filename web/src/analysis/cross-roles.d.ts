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
 * Every cross-attention head's scores on one run (result.crossAttention's weights: target rows
 * `tokens` over source columns `keyTokens`), with the alignment they read (a source column per
 * target row) and the diagonal baseline of these lengths (cross-roles.js).
 */
export function crossHeadRoles(result: AttentionResult & { readonly keyTokens: readonly string[] }, closing: boolean):
  { roles: CrossHeadRole[]; alignment: number[]; diagonal: number };

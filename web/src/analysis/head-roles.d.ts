import { AttentionResult } from './rollout.js';

/** The roles headRoles measures. */
export type Role = 'previous' | 'next' | 'self' | 'sink' | 'last' | 'punctuation' | 'broad' | 'duplicate' | 'induction';

/** Each role's least score that makes it a head's top role, and a plain sentence saying what it means. */
export const ROLES: Readonly<Record<Role, { threshold: number; meaning: string; cite?: string }>>;

/** One head's measured roles. A score is null where the sentence cannot measure it. */
export interface HeadRole {
  layer: number;
  head: number;
  scores: Record<Role, number | null>;
  /** The highest-scoring role at or above its threshold, or null. */
  top: { role: Role; score: number } | null;
}

/**
 * Every head's role scores on one run (formulas and citations in head-roles.js). `ids` and
 * `causal`, as model.run's result has them, decide which tokens repeat and whether a closing
 * token exists; without ids the token labels are compared.
 */
export function headRoles(result: AttentionResult & { readonly ids?: ArrayLike<number>; readonly causal?: boolean }): HeadRole[];

/** The role with the highest score that clears its threshold in `roles` (ROLES by default), or null. */
export function topRole<R extends string = Role>(scores: Partial<Record<R, number | null>>,
  roles?: Readonly<Record<R, { threshold: number }>>): { role: R; score: number } | null;

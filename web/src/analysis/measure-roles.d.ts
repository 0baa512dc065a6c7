import { Model } from '../model/model.js';
import { Role } from './head-roles.js';

/**
 * A probe set such as web/probes/syntax.json: what each relation means, and sentences split into
 * words, each arc naming a relation and two words by index (from, to).
 */
export interface ProbeSet {
  relations: Record<string, string>;
  sentences: { text: string; words: string[]; arcs: [relation: string, from: number, to: number][] }[];
}

export interface MeasureOptions {
  /** The sentences the syntactic relations and the sentence-level roles are measured on. */
  probes: ProbeSet;
  /** Random repeated sequences for the previous-token, duplicate and induction scores (default 200, at most 10000). */
  runs?: number;
  /** Distinct tokens in each, repeated once (default 50, or fewer if the model's positions need). */
  runLength?: number;
  /** The xorshift32 seed of the draws (default 20220308), as tools/measure_induction.py uses it. */
  seed?: number;
  /** Called after each run and each probe sentence. */
  onProgress?: (progress: { done: number; total: number }) => void;
  /** Stops the measure: it rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** One head's scores: every role of ROLES (null where nothing measures it) and every relation of the probe set. */
export interface MeasuredHead {
  layer: number;
  head: number;
  scores: Record<Role, number | null> & Record<string, number | null>;
  /** The highest-scoring role at or above its threshold, or null. */
  top: { role: Role; score: number } | null;
}

/** A relation's best head, and the best fixed offset (a word `offset` places away) for comparison. */
export interface MeasuredRelation {
  arcs: number;
  best: { layer: number; head: number; direction: 'from' | 'to'; score: number } | null;
  baseline: { offset: number; direction: 'from' | 'to'; score: number } | null;
}

export interface HeadRolesMeasure {
  heads: MeasuredHead[];
  relations: Record<string, MeasuredRelation>;
  /** Probe sentences given, and those measured (a truncated one is not). */
  sentences: { total: number; measured: number };
  runs: { runs: number; runLength: number; seed: number };
}

/**
 * Measures every head of `model` over random repeated sequences and a probe set (Olsson et al.
 * 2022; Clark et al. 2019): formulas in measure-roles.js. Bad options throw a TypeError or
 * RangeError naming the option; it yields to the event loop every few runs, so `signal` can stop it.
 */
export function measureHeadRoles(model: Model, options: MeasureOptions): Promise<HeadRolesMeasure>;

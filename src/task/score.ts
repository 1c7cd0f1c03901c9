// The names a FALSE may carry per property are the property table's.
import { violationNames } from '../properties/index.js';
import type { PropertyKind } from './property.js';
import type { Verdict } from './verdict.js';

/** Points of the competition's scoring table. */
export const POINTS = {
  correctTrue: 2,
  correctFalse: 1,
  incorrectTrue: -32,
  incorrectFalse: -16,
  unknown: 0,
} as const;

export interface ExpectedResult {
  /** `true`: the property holds; `false`: it is violated. */
  readonly verdict: boolean;
  /** The violated sub-property, for properties that have several (memory safety). */
  readonly subproperty?: string;
}

/**
 * - `correct`: right answer (witness confirmed, or no confirmation asked for);
 * - `correct-unconfirmed`: right answer whose witness no validator confirmed (0 points);
 * - `wrong`: a TRUE for a violated property or a FALSE for one that holds or
 *   for the wrong sub-property;
 * - `unknown`: no answer, or an answer that does not belong to the property;
 * - `missing`: the task has no expected verdict for the property.
 */
export type ResultCategory = 'correct' | 'correct-unconfirmed' | 'wrong' | 'unknown' | 'missing';

export interface ScoredResult {
  readonly category: ResultCategory;
  readonly points: number;
  /** Why an answer was not taken at face value. */
  readonly note?: string;
}

export interface ScoreOptions {
  /** The task's property: a FALSE naming a violation of another property is no answer for it. */
  readonly property?: PropertyKind;
  /** Witness confirmation: `false` makes a correct answer `correct-unconfirmed` (0 points). */
  readonly confirmed?: boolean;
}

/**
 * Scores one answer as the rules' table says: +2 correct TRUE, +1 correct
 * FALSE, -32 incorrect TRUE, -16 incorrect FALSE, 0 otherwise. A FALSE naming
 * a different sub-property of the same property (false(valid-free) where
 * valid-deref is violated) is incorrect. A FALSE that names no sub-property
 * where the task expects one, or names a violation of another property, is
 * not an answer to this task's property and scores 0 (BenchExec: "result does
 * not match property").
 */
export function scoreResult(expected: ExpectedResult | undefined, actual: Verdict, options: ScoreOptions = {}): ScoredResult {
  if (actual.kind === 'unknown') return { category: 'unknown', points: 0 };
  if (actual.kind === 'false' && actual.property !== undefined && options.property !== undefined) {
    if (!violationNames(options.property).includes(actual.property)) {
      return { category: 'unknown', points: 0, note: `result false(${actual.property}) does not match property ${options.property}` };
    }
  }
  if (!expected) return { category: 'missing', points: 0, note: 'no expected verdict' };
  if (actual.kind === 'false' && expected.subproperty !== undefined && actual.property === undefined) {
    return { category: 'unknown', points: 0, note: `result false does not name the violated sub-property` };
  }
  let correct: boolean;
  if (actual.kind === 'true') correct = expected.verdict;
  else if (!expected.verdict) {
    correct = expected.subproperty === undefined || actual.property === expected.subproperty;
  } else correct = false;
  if (!correct) {
    const note =
      actual.kind === 'false' && !expected.verdict ? `wrong sub-property: expected false(${expected.subproperty})` : undefined;
    return {
      category: 'wrong',
      points: actual.kind === 'true' ? POINTS.incorrectTrue : POINTS.incorrectFalse,
      ...(note ? { note } : {}),
    };
  }
  if (options.confirmed === false) return { category: 'correct-unconfirmed', points: 0, note: 'witness not confirmed' };
  return { category: 'correct', points: actual.kind === 'true' ? POINTS.correctTrue : POINTS.correctFalse };
}

/** One scored run, as tallies need it. */
export interface ScoredRun {
  readonly answer: Verdict['kind'];
  readonly category: ResultCategory;
  readonly points: number;
  /** CPU time in seconds. */
  readonly cpuTime: number;
}

export interface Tally {
  score: number;
  correctTrue: number;
  correctFalse: number;
  /** Correct answers whose witness was not confirmed (0 points). */
  unconfirmedTrue: number;
  unconfirmedFalse: number;
  incorrectTrue: number;
  incorrectFalse: number;
  /** Everything else: unknown, timeout, out of memory, error, unmatched answers. */
  unknown: number;
  /** Runs without an expected verdict (not scored). */
  missing: number;
  /** Success run time: CPU seconds of the correct results. */
  cpuTimeCorrect: number;
  tasks: number;
}

export function emptyTally(): Tally {
  return {
    score: 0,
    correctTrue: 0,
    correctFalse: 0,
    unconfirmedTrue: 0,
    unconfirmedFalse: 0,
    incorrectTrue: 0,
    incorrectFalse: 0,
    unknown: 0,
    missing: 0,
    cpuTimeCorrect: 0,
    tasks: 0,
  };
}

export function tally(runs: Iterable<ScoredRun>): Tally {
  const t = emptyTally();
  for (const r of runs) {
    t.tasks++;
    t.score += r.points;
    const isTrue = r.answer === 'true';
    switch (r.category) {
      case 'correct':
        if (isTrue) t.correctTrue++;
        else t.correctFalse++;
        t.cpuTimeCorrect += r.cpuTime;
        break;
      case 'correct-unconfirmed':
        if (isTrue) t.unconfirmedTrue++;
        else t.unconfirmedFalse++;
        break;
      case 'wrong':
        if (isTrue) t.incorrectTrue++;
        else t.incorrectFalse++;
        break;
      case 'missing':
        t.missing++;
        break;
      default:
        t.unknown++;
    }
  }
  return t;
}

export interface CategoryScore {
  readonly name: string;
  /** Number of tasks (runs) in the category. */
  readonly tasks: number;
  readonly score: number;
  /** score / tasks (0 for an empty category). */
  readonly normalizedScore: number;
}

export function categoryScore(name: string, tasks: number, score: number): CategoryScore {
  return { name, tasks, score, normalizedScore: tasks === 0 ? 0 : score / tasks };
}

/**
 * The rules' meta-category score: the sum of the sub-categories' normalised
 * scores (s_i / n_i) times the average number of tasks per sub-category.
 * Empty sub-categories count in the average but add nothing.
 */
export function metaCategoryScore(subcategories: ReadonlyArray<{ tasks: number; score: number }>): number {
  const k = subcategories.length;
  if (k === 0) return 0;
  // Exact rational arithmetic (scores and task counts are integers), so that
  // the rules' example gives 24 and not 24.000000000000004; rounded once at the end.
  let num = 0n;
  let den = 1n;
  let total = 0n;
  for (const c of subcategories) {
    total += BigInt(c.tasks);
    if (c.tasks === 0) continue;
    if (!Number.isInteger(c.score)) return approximateMetaScore(subcategories);
    num = num * BigInt(c.tasks) + BigInt(c.score) * den;
    den *= BigInt(c.tasks);
    const g = gcd(num < 0n ? -num : num, den);
    if (g > 1n) {
      num /= g;
      den /= g;
    }
  }
  num *= total;
  den *= BigInt(k);
  const whole = num / den;
  return Number(whole) + Number(num - whole * den) / Number(den);
}

function approximateMetaScore(subcategories: ReadonlyArray<{ tasks: number; score: number }>): number {
  let sum = 0;
  let total = 0;
  for (const c of subcategories) {
    total += c.tasks;
    if (c.tasks > 0) sum += c.score / c.tasks;
  }
  return (sum * total) / subcategories.length;
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a === 0n ? 1n : a;
}

/** Orders tools as the rules rank them: by score, ties by lower success run time. */
export function rankByScore<T extends { score: number; cpuTimeCorrect: number }>(tools: readonly T[]): T[] {
  return [...tools].sort((a, b) => b.score - a.score || a.cpuTimeCorrect - b.cpuTimeCorrect);
}

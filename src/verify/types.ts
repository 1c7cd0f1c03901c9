// The options and the result of `verify` (their own module: the steps, the
// termination analysis, the input resolution and the worker use them too).

import type { NondetValue, ReplayResult } from '../replay/index.js';
import type { DataModel, Property, PropertyKind, Verdict } from '../task/index.js';
import type { TraceStep } from './trace.js';

export interface VerifyOptions {
  /** With a task file: the property to check (default: the property table's default choice if the task has one, else its first). */
  readonly property?: string;
  /** With a bare program: the property file. */
  readonly prp?: string;
  /** With a bare program: the property itself, already read (instead of `prp`). */
  readonly propertyDetails?: Property;
  /** With a bare program: the data model (default ILP32). Overrides the task's. */
  readonly dataModel?: DataModel;
  /** CPU-time budget in seconds (default 900). */
  readonly timeoutS?: number;
  /** Where to write the witness; absent or `null`: nowhere (unless `witnessFolder` is given). */
  readonly witnessPath?: string | null;
  /** Without `witnessPath`: the folder to write the witness into, under the file name the rules give its format (`witness.yml`, `witness.graphml`). */
  readonly witnessFolder?: string;
  /** Pins the witness's creation time (tests, reproducible output). */
  readonly creationTime?: string;
  readonly toolVersion?: string;
  readonly log?: (message: string) => void;
  /** Solver back end: `auto` (default: z3 on PATH, else the built-in one), `z3-wasm`, `z3`, `cvc5`. */
  readonly solver?: string;
  /** Called with the largest bound up to which no violation exists, each time it grows. */
  readonly onBound?: (bound: number) => void;
  /**
   * The caller needs a proof (a validator of a correctness witness): the
   * short BMC run before the unbounded engines is left out, BMC runs only
   * after them.
   */
  readonly proofFirst?: boolean;
}

/** A loop's ranking function as reported (`--verbose`, JSON `rankingFunctions`). */
export interface RankingFunctionReport {
  /** The C loop, `file:line:column`. */
  readonly loop: string;
  /** Lexicographic components, most significant first, over the IMP variables (`name@function`). */
  readonly components: readonly string[];
}

export interface VerifyResult {
  readonly verdict: Verdict;
  /** One line: why this verdict. */
  readonly reason: string;
  readonly property: PropertyKind;
  readonly program: string;
  readonly dataModel: DataModel;
  /** The witness written. */
  readonly witnessPath?: string;
  readonly bound?: number;
  readonly replay?: ReplayResult;
  /** For FALSE: the nondet values of the replayed counterexample, in call order. */
  readonly counterexample?: readonly NondetValue[];
  /** For FALSE: the path to the violation, step by step (undefined when the model's run could not be retraced). */
  readonly trace?: readonly TraceStep[];
  /** Termination TRUE by ranking: the ranking function proved for each loop. */
  readonly rankingFunctions?: readonly RankingFunctionReport[];
  /** CPU seconds used during the call by this process and the processes it started (solvers, gcc). */
  readonly cpuTimeS: number;
  readonly wallTimeS: number;
  /** Why the witness could not be written (the verdict stands). */
  readonly witnessError?: string;
}

// The property table: per SV-COMP property, everything that differs between
// properties (goal kinds, instrumentation passes, replay, witness formats,
// validation, strategy). Code elsewhere asks the table; adding a property is
// one row here plus its instrumentation pass (lower/) and, if new, its
// engine step, its symptom (replay/) or its way of validating witnesses.

import type { GoalKind, InstrumentationPass } from '../lower/index.js';
import type { Symptom } from '../replay/index.js';
import type { ScheduleSymptom } from '../replay/threads.js';
import { DEFAULT_CHECKS, type PropertyKind } from '../task/index.js';

/**
 * A step of a verification strategy (verify/'s runner gives each its share
 * of the CPU budget, in the row's order):
 * - `execution`: the one run of a program without nondeterminism;
 * - `summaries`: recursion summaries (recursive programs only), after a
 *   short BMC run that decides bounded recursion;
 * - `sampling`: runs on sampled values of float nondets (a short search for
 *   a violation where the solvers' float queries are slow);
 * - `long-runs`: runs on sampled values of programs with loops and no
 *   float nondets (a violation deeper than BMC's bounds), before BMC;
 * - `intervals`: interval evaluation of loop-free float programs over
 *   bisected inputs (a proof where the solvers time out);
 * - `horn`: programs with loops: a short BMC run (quick violations and
 *   complete unrollings), then loop invariants from Horn clauses
 *   (engines/horn.ts) proved on the program;
 * - `cells`: programs with arrays: k-induction on one cell of each array
 *   at a symbolic index (engines/array-cells.ts), proofs only;
 * - `bmc`: BMC with k-induction to the end of the budget;
 * - `termination`: ranking functions, recursion measures, lassos and a
 *   complete unrolling (its own order inside).
 */
export type StepName = 'execution' | 'summaries' | 'sampling' | 'long-runs' | 'intervals' | 'acceleration' | 'horn' | 'cells' | 'bmc' | 'termination';

/** A witness format of the rules: version and the file name it must be written to. */
export interface WitnessFormat {
  readonly version: '1.0' | '2.0' | '2.1';
  readonly file: 'witness.graphml' | 'witness.yml';
}

const GRAPHML: WitnessFormat = { version: '1.0', file: 'witness.graphml' };
const YAML_2_0: WitnessFormat = { version: '2.0', file: 'witness.yml' };
const YAML_2_1: WitnessFormat = { version: '2.1', file: 'witness.yml' };

/** Every format the rules ask for (a witness goes to one of their file names). */
export const WITNESS_FORMATS: readonly WitnessFormat[] = [YAML_2_0, YAML_2_1, GRAPHML];

/** The goal kinds that can violate a property: the lowering's, and the lasso goal of the termination engine. */
export type ViolationGoal = GoalKind | 'lasso';

/**
 * How `tarsier validate` checks a violation witness (validate/):
 * - `error-call`: the target is a call of the error function; the
 *   program's other calls of it are cut off (waypoints.ts);
 * - `at-target`: the replay names the line of the violation, which must lie
 *   in the target statement, passed after the waypoints before it;
 * - `memory`: the sanitizers name the violated sub-property: an invalid
 *   access or free in the target statement, a leak after the run passed the
 *   target (a target outside statements: the end of its function);
 * - `cycle`: a non-termination witness (stem and cycle), its values pinned
 *   in the program, which `verify` checks under the property (cycle.ts).
 */
export type ViolationCheck = 'error-call' | 'at-target' | 'memory' | 'cycle';

/** What a program is, as far as the rules' witness table cares. */
export interface WitnessContext {
  /** The program starts threads (the rules' *Concurrency* categories). */
  readonly concurrent: boolean;
}

export interface PropertyRow {
  readonly kind: PropertyKind;
  /** Why the property is not checked yet (the answer is UNKNOWN, saying so); undefined: it is. */
  readonly notSupported?: string;
  /** The lowering's instrumentation passes that make the property's goals. */
  readonly passes: readonly InstrumentationPass[];
  /**
   * The goal kinds whose failing assert violates the property, each with
   * the name of the violated (sub-)property (`FALSE(name)`) and how a replay
   * by gcc recognises it.
   */
  readonly violations: Readonly<Partial<Record<ViolationGoal, { readonly name: string; readonly replay: Symptom }>>>;
  /** Goal kinds where the model is cut or inexact: no TRUE while one is reachable, never a FALSE. */
  readonly boundKinds: readonly GoalKind[];
  /** The witness of a FALSE answer that the rules require, by violated (sub-)property. */
  readonly violationWitness: (violated: string, program: WitnessContext) => WitnessFormat;
  /** The correctness witness written for TRUE, and whether the rules require (and validators check) it; undefined: none is written. */
  readonly correctnessWitness?: { readonly format: WitnessFormat; readonly required: boolean };
  /**
   * How one concrete run (gcc) checks the property in a program without
   * nondeterminism (the `execution` step; termination's first check): the
   * replay that recognises a violation, and the sanitizers under which the
   * run must show no undefined behaviour for its outcome to count.
   * Undefined: a run does not decide the property.
   */
  readonly concreteRun?: { readonly replay: Symptom; readonly sanitizers: readonly string[] };
  /**
   * Decided for programs that start threads (interleavings, verify/threads.ts),
   * with the replay that confirms a violation under its schedule (also of a
   * GraphML witness's schedule, validate/threads.ts); undefined: such a
   * program is UNKNOWN, its witnesses unconfirmed.
   */
  readonly threaded?: ScheduleSymptom;
  /**
   * What `tarsier validate` checks of the property's witnesses (a program
   * with threads: `threaded`): violation witnesses by `violation`, their
   * runs replayed looking for `replay` (the witness does not say which
   * goal it violates); correctness witnesses' invariants when `correctness`.
   * Undefined, or `correctness` false: such witnesses stay unconfirmed,
   * saying that the property is not supported.
   */
  readonly validation?: { readonly violation: ViolationCheck; readonly replay: Symptom; readonly correctness: boolean };
  /** Only programs that start threads can violate it: one that starts none holds it (once it lowers). */
  readonly onlyWithThreads?: boolean;
  /** The steps that decide the property, in order. */
  readonly strategy: readonly StepName[];
  /**
   * BMC's k-induction may prove TRUE. Not for memory safety with heap
   * blocks: a block lost in a run that never ends is a memtrack violation
   * no goal sees, so TRUE only when every run ends within the bound.
   */
  readonly induction: 'always' | 'without-heap';
  /** Chosen for a task with several properties when none is named (also by select and the playground). */
  readonly defaultChoice: boolean;
  /**
   * Another property whose line this one's property file may add (the
   * upstream memory-safety file has had a fourth line, valid-memcleanup):
   * it is verified once this one holds, and a FALSE naming its violation
   * answers this property too.
   */
  readonly mayInclude?: PropertyKind;
}

// Unwinding assertions of recursion, places where the memory model is not exact, thread slots exhausted.
const BOUND_KINDS: readonly GoalKind[] = ['recursion', 'memory-unknown', 'thread-bound'];

// A run with any undefined behaviour decides nothing; under unreach-call
// signed arithmetic wraps, as in the model (replay adds -fwrapv).
const ALL_UB = ['-fsanitize=address,undefined', '-fno-sanitize-recover=all'];
const UB_BUT_OVERFLOW = ['-fsanitize=address,undefined', '-fno-sanitize=signed-integer-overflow', '-fno-sanitize-recover=all'];

// The rules' table (seed 004, "Witnesses"): violations of programs with threads are GraphML 1.0.
const yamlUnlessConcurrent = (_violated: string, program: WitnessContext): WitnessFormat => (program.concurrent ? GRAPHML : YAML_2_0);

/**
 * A property checked by one kind of goal, whose violation is named and
 * replayed as the property itself (safety properties of the rules and
 * Tarsier's own): the rest of the row as given.
 */
function oneGoalRow(
  kind: PropertyKind,
  pass: InstrumentationPass,
  goal: ViolationGoal,
  replay: Symptom,
  rest: Pick<PropertyRow, 'correctnessWitness' | 'strategy' | 'defaultChoice'> & Partial<Pick<PropertyRow, 'concreteRun' | 'threaded' | 'validation'>>,
): PropertyRow {
  return { kind, passes: [pass], violations: { [goal]: { name: kind, replay } }, boundKinds: BOUND_KINDS, violationWitness: yamlUnlessConcurrent, induction: 'always', ...rest };
}

// Tarsier's own properties, for programs of its users: no rules' witness
// format, so 2.0, whose specification names the property, as for
// unreach-call; a correctness witness is written but not required.
const OWN = {
  correctnessWitness: { format: YAML_2_0, required: false },
  strategy: ['summaries', 'sampling', 'intervals', 'horn', 'acceleration', 'cells', 'long-runs', 'bmc'],
  defaultChoice: false,
} as const;

const SVCOMP_AND_OWN: readonly PropertyRow[] = [
  oneGoalRow('unreach-call', 'error-calls', 'reach_error', 'error-call', {
    correctnessWitness: { format: YAML_2_0, required: true },
    concreteRun: { replay: 'error-call', sanitizers: UB_BUT_OVERFLOW },
    threaded: 'error-call',
    validation: { violation: 'error-call', replay: 'error-call', correctness: true },
    strategy: ['execution', 'summaries', 'sampling', 'intervals', 'horn', 'acceleration', 'cells', 'long-runs', 'bmc'],
    defaultChoice: true,
  }),
  oneGoalRow('no-overflow', 'overflow', 'overflow', 'signed-overflow', {
    correctnessWitness: { format: YAML_2_0, required: true },
    concreteRun: { replay: 'signed-overflow', sanitizers: ALL_UB },
    threaded: 'signed-overflow',
    validation: { violation: 'at-target', replay: 'signed-overflow', correctness: true },
    strategy: ['execution', 'summaries', 'sampling', 'intervals', 'horn', 'acceleration', 'cells', 'long-runs', 'bmc'],
    defaultChoice: true,
  }),
  {
    kind: 'valid-memsafety',
    passes: ['memory-safety'],
    violations: {
      'valid-deref': { name: 'valid-deref', replay: 'valid-deref' },
      'valid-free': { name: 'valid-free', replay: 'valid-free' },
      'valid-memtrack': { name: 'valid-memtrack', replay: 'valid-memtrack' },
    },
    boundKinds: BOUND_KINDS,
    // Formats 2.x cover valid-deref and valid-free only; a leak has no location of its own.
    violationWitness: (violated, program) => (program.concurrent || violated === 'valid-memtrack' ? GRAPHML : YAML_2_0),
    // Not supported by the rules: written, but not required.
    correctnessWitness: { format: YAML_2_0, required: false },
    validation: { violation: 'memory', replay: 'memory-error', correctness: false },
    strategy: ['execution', 'sampling', 'intervals', 'long-runs', 'bmc'],
    induction: 'without-heap',
    defaultChoice: false,
    mayInclude: 'valid-memcleanup',
  },
  {
    kind: 'valid-memcleanup',
    passes: ['memory-cleanup'],
    violations: { 'valid-memcleanup': { name: 'valid-memcleanup', replay: 'valid-memcleanup' } },
    boundKinds: BOUND_KINDS,
    violationWitness: () => GRAPHML,
    correctnessWitness: { format: YAML_2_0, required: false },
    validation: { violation: 'memory', replay: 'valid-memcleanup', correctness: false },
    strategy: ['execution', 'sampling', 'intervals', 'long-runs', 'bmc'],
    induction: 'always',
    defaultChoice: false,
  },
  {
    kind: 'termination',
    // Termination lowers twice itself: without goals (signed arithmetic
    // wraps, the error function is an ordinary call), and with the overflow
    // pass for its bounded proof.
    passes: [],
    violations: { lasso: { name: 'termination', replay: 'endless-run' } },
    boundKinds: ['recursion'],
    violationWitness: () => YAML_2_1,
    // Demo mode in the rules (2.1): not required, none is written.
    // The one run ends: every execution ends (an overflow is no way to end).
    concreteRun: { replay: 'signed-overflow', sanitizers: ALL_UB },
    validation: { violation: 'cycle', replay: 'endless-run', correctness: false },
    strategy: ['termination'],
    induction: 'always',
    defaultChoice: false,
  },
  {
    kind: 'no-data-race',
    // Every access to an object other threads reach is a goal (threads/interleave.ts); a program without threads has no race.
    passes: ['data-race'],
    violations: { 'data-race': { name: 'no-data-race', replay: 'data-race' } },
    boundKinds: BOUND_KINDS,
    violationWitness: () => GRAPHML,
    threaded: 'data-race',
    onlyWithThreads: true,
    strategy: ['bmc'],
    induction: 'always',
    defaultChoice: false,
  },
  oneGoalRow('assert', 'assertions', 'assertion', 'failed-assert', OWN),
  oneGoalRow('div-by-zero', 'division-by-zero', 'div-by-zero', 'division-by-zero', OWN),
];

/**
 * `default`, the checks of a program given without a property
 * (DEFAULT_CHECKS): their rows in one, so that one lowering and one search
 * find violations of each; each violation is named, replayed and witnessed
 * as its own property's.
 */
function defaultRow(rows: readonly PropertyRow[]): PropertyRow {
  const checks = DEFAULT_CHECKS.map((k) => rows.find((r) => r.kind === k)!);
  const owner = (violated: string) => checks.find((r) => Object.values(r.violations).some((v) => v?.name === violated)) ?? checks[0]!;
  return {
    kind: 'default',
    passes: [...new Set(checks.flatMap((r) => r.passes))],
    violations: Object.assign({}, ...checks.map((r) => r.violations)),
    boundKinds: [...new Set(checks.flatMap((r) => r.boundKinds))],
    violationWitness: (violated, program) => owner(violated).violationWitness(violated, program),
    // Several properties at once: no specification of the rules says that (no correctness witness).
    strategy: ['summaries', 'sampling', 'intervals', 'horn', 'acceleration', 'cells', 'long-runs', 'bmc'],
    induction: checks.some((r) => r.induction === 'without-heap') ? 'without-heap' : 'always',
    defaultChoice: false,
  };
}

export const PROPERTY_TABLE: readonly PropertyRow[] = [...SVCOMP_AND_OWN, defaultRow(SVCOMP_AND_OWN)];

// The vacuity guard: a TRUE is suspicious when the model admits no
// execution at all. Every path of the lowered program may end at an
// assumption the model adds for behaviour C leaves undefined (a VLA of size
// 0, a division by zero): then no goal is ever reached, every goal "holds",
// and the proof says nothing about the program gcc runs.
//
// The check: a *reach* goal is put at the end of the entry procedure,
// before every assert (any goal, an unwinding assertion of recursion) and
// before every assumption that ends a run where C ends it (`abort`, `exit`,
// `__VERIFIER_assume`). An execution reaches one of them, unless the model
// cut every path before: runs of the model on sampled nondet values (the
// IMP interpreter), then BMC with iterative deepening, search for one (at
// the first bound, usually); a complete unrolling without one is vacuity.
// Where the search runs out of time, the program is not shown vacuous.

import type { SourceLocation } from '../common/location.js';
import type { AssertStmt, AssumeStmt, ImpProgram, Stmt } from '../ivl/ast.js';
import { rewriteStmts } from '../ivl/walk.js';
import type { Solver } from '../smt/index.js';
import { bmc } from './bmc.js';
import { sampleViolation } from './sample.js';

/** The goal kind of the reach goals (no producer uses it). */
const REACH = 'vacuity-reach';
/** The runs on sampled values first: at most this long (a run stops there), each at most this many statements. */
const SAMPLING_MS = 150;
const SAMPLED_STEPS = 1_000_000;

export interface VacuityOptions {
  /** The bound to start from (loops unrolled, recursion inlined that deep), and the program at each bound. */
  readonly bound: number;
  /** Whether a failing assume ends the run where C (or the rules) end it. */
  readonly endsRun: (s: AssumeStmt) => boolean;
  /** Milliseconds left for the check; when it runs out the answer is "not shown vacuous". */
  readonly deadline: () => number;
  readonly solver?: string | Solver;
  /** The bound after k (default 2k). */
  readonly nextBound?: (bound: number) => number;
  readonly entry?: string;
  readonly log?: (message: string) => void;
}

/** Why the program admits no execution, or undefined when some execution reaches a goal or the end (or the check ran out of time). */
export async function vacuityOf(program: ImpProgram | ((bound: number) => ImpProgram), options: VacuityOptions): Promise<string | undefined> {
  const entry = options.entry ?? 'main';
  const reach = (loc: SourceLocation): AssertStmt => ({ kind: 'assert', cond: { kind: 'bool_lit', value: false, loc }, goal: { kind: REACH, id: 0 }, loc });
  const instrumented = new Map<ImpProgram, ImpProgram>();
  const withReachGoals = (p: ImpProgram): ImpProgram => {
    let q = instrumented.get(p);
    if (!q) {
      const procedures = p.procedures.map((proc) => {
        if (proc.name !== entry || !proc.body) return proc;
        const body = rewriteStmts(proc.body, (s) => (s.kind === 'assert' || (s.kind === 'assume' && options.endsRun(s)) ? [reach(s.loc), s] : undefined));
        return { ...proc, body: [...body, reach(proc.loc)] as Stmt[] };
      });
      instrumented.set(p, (q = { ...p, procedures }));
    }
    return q;
  };
  // One run of the model that reaches a goal or the end settles it; most
  // programs have one on the first sampled values, far cheaper than BMC.
  if (entry === 'main') {
    const start = Date.now();
    const stop = start + Math.min(SAMPLING_MS, options.deadline() / 10);
    const sampled = sampleViolation(withReachGoals(typeof program === 'function' ? program(options.bound) : program), {
      deadline: () => Math.min(stop - Date.now(), options.deadline()),
      roles: { error: [REACH], bound: [] },
      maxSteps: SAMPLED_STEPS,
    });
    if (sampled.counterexample?.goal.goal?.kind === REACH) {
      options.log?.(`vacuity: run ${sampled.runs} of the model on sampled values reaches a goal or the end (${Date.now() - start} ms)`);
      return undefined;
    }
    options.log?.(`vacuity: ${sampled.runs} runs of the model on sampled values reach no goal and not the end`);
  }
  const r = await bmc((bound) => withReachGoals(typeof program === 'function' ? program(bound) : program), {
    deadline: options.deadline,
    startBound: options.bound,
    ...(options.nextBound ? { nextBound: options.nextBound } : {}),
    induction: false,
    // The program's own asserts only stop executions where they fail; the reach goals are the question.
    roles: { error: [REACH], bound: [], unlabelled: 'assume' },
    solver: options.solver,
    entry,
  });
  options.log?.(`vacuity: bound ${r.bound}: ${r.verdict === 'false' ? 'an execution reaches a goal or the end' : r.verdict === 'true' ? 'no execution reaches a goal or the end, and none runs longer' : r.reason}`);
  // TRUE of the reach question: no reach goal is reachable and the unrolling is complete.
  if (r.verdict !== 'true') return undefined;
  return `the model admits no execution: every path ends at an assumption about behaviour C leaves undefined before it reaches a goal or the end of ${entry} (BMC bound ${r.bound}), so the proof shows nothing`;
}

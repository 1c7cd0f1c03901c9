// The solver the BMC engine talks to: Z3 (WebAssembly, `z3-solver`) fed
// with SMT-LIB 2 text. A small adapter of our own, because the engine only
// needs "check these assertions, then read constants from the model".

import { init } from 'z3-solver';

type Z3Api = Awaited<ReturnType<typeof init>>;
type Ctx = ReturnType<Z3Api['Context']>;

let api: Promise<{ ctx: Ctx; z3: Z3Api }> | undefined;

function z3(): Promise<{ ctx: Ctx; z3: Z3Api }> {
  if (!api) api = init().then((z) => ({ z3: z, ctx: z.Context('tarsier_bmc') as Ctx }));
  return api;
}

export type CheckResult<T> =
  | { status: 'sat'; value: T }
  | { status: 'unsat' }
  | { status: 'unknown'; reason: string };

/** Reads values of declared constants from a model. */
export interface ModelReader {
  bool(name: string): boolean;
  /** Bit-vector or integer constant as an unsigned (bit-vector) or mathematical (int) integer. */
  int(name: string, sort: { kind: 'bv'; width: number } | { kind: 'int' }): bigint;
}

/**
 * Checks `declarations` plus `(assert goal)`. `timeoutMs` bounds the call
 * (Z3's own timeout; the answer is then unknown). On sat, `read` extracts
 * what the caller needs from the model.
 */
export async function checkSat<T>(
  declarations: string,
  goal: string,
  timeoutMs: number,
  read: (model: ModelReader) => T,
): Promise<CheckResult<T>> {
  const { ctx } = await z3();
  const logic = process.env.TARSIER_SMT_LOGIC === 'default' ? undefined : logicOf(declarations);
  const solver = logic ? new ctx.Solver(logic) : new ctx.Solver();
  try {
    solver.set('timeout', Math.max(1, Math.floor(timeoutMs)));
    solver.fromString(declarations + `(assert ${goal})\n`);
    const r = await solver.check();
    if (r === 'unsat') return { status: 'unsat' };
    if (r === 'unknown') return { status: 'unknown', reason: solver.reasonUnknown() || 'solver gave up' };
    // Read while the model is alive.
    return { status: 'sat', value: read(modelReader(ctx, solver.model())) };
  } finally {
    // Free the native solver now rather than at garbage collection.
    (solver as unknown as { release?: () => void }).release?.();
  }
}

type Model = ReturnType<InstanceType<Ctx['Solver']>['model']>;

/** Reads constants of a model, completing it where the model leaves them free. */
function modelReader(ctx: Ctx, model: Model): ModelReader {
  return {
    bool(name) {
      if (name === 'true') return true;
      if (name === 'false') return false;
      return ctx.isTrue(model.eval(ctx.Bool.const(name), true));
    },
    int(name, sort) {
      if (sort.kind === 'bv') {
        const v = model.eval(ctx.BitVec.const(name, sort.width), true);
        if (!ctx.isBitVecVal(v)) throw new Error(`model: no value for ${name}`);
        return v.value();
      }
      const v = model.eval(ctx.Int.const(name), true);
      if (!ctx.isIntVal(v)) throw new Error(`model: no value for ${name}`);
      return v.value();
    },
  };
}

/**
 * The narrowest SMT-LIB logic of a problem, so that Z3 picks its
 * bit-blasting tactic for pure bit-vector problems; undefined: Z3's default.
 */
export function logicOf(text: string): string | undefined {
  if (/\b(Int|Real|bv2nat|int2bv|to_real|to_int)\b/.test(text)) return undefined;
  return text.includes('(Array ') ? 'QF_ABV' : 'QF_BV';
}

/** A solver holding a problem's declarations; goals are checked one by one in push/pop scopes. */
export interface Session {
  check<T>(goalFlags: readonly string[], timeoutMs: number, read: (model: ModelReader) => T): Promise<CheckResult<T>>;
  close(): void;
}

/** Opens a session on `declarations` (SMT-LIB text). Goals are disjunctions of Boolean constants declared there. */
export async function openSession(declarations: string): Promise<Session> {
  const { ctx } = await z3();
  const logic = process.env.TARSIER_SMT_LOGIC === 'default' ? undefined : logicOf(declarations);
  const solver = logic ? new ctx.Solver(logic) : new ctx.Solver();
  solver.fromString(declarations);
  return {
    async check<T>(goalFlags: readonly string[], timeoutMs: number, read: (model: ModelReader) => T): Promise<CheckResult<T>> {
      solver.push();
      try {
        solver.set('timeout', Math.max(1, Math.floor(timeoutMs)));
        // The solver keeps the declarations of `declarations` for later texts.
        const goal = goalFlags.length === 0 ? 'false' : goalFlags.length === 1 ? goalFlags[0] : `(or ${goalFlags.join(' ')})`;
        solver.fromString(`(assert ${goal})`);
        const r = await solver.check();
        if (r === 'unsat') return { status: 'unsat' };
        if (r === 'unknown') return { status: 'unknown', reason: solver.reasonUnknown() || 'solver gave up' };
        return { status: 'sat', value: read(modelReader(ctx, solver.model())) };
      } finally {
        solver.pop();
      }
    },
    close() {
      (solver as unknown as { release?: () => void }).release?.();
    },
  };
}

// Interleaving: a threaded IMP program (markers.ts) becomes one sequential
// IMP procedure whose executions are exactly the program's executions under
// sequential consistency, with a context switch possible before every
// visible operation.
//
// Each thread's body is cut into *blocks* at its visible operations; a
// thread's program counter says which block runs next. The procedure is a
// scheduler loop: each iteration picks a running thread (a nondet choice)
// and runs one *step* of it: from its program counter up to its next
// visible operation, or further when no other thread is running (nobody
// could run in between). A blocked operation (a locked mutex, a join of a
// running thread) is an `assume`: the schedules that pick a blocked thread
// end there, the others go on. So the loop's unrolling to k iterations
// holds every execution of at most k steps, and an unrolling where no
// execution takes another step is complete: BMC's TRUE then covers every
// interleaving, every thread count (slots are bounded by `thread-bound`
// goals) and every loop iteration.
//
// Blocks are laid out in the order of the program text; a step runs blocks
// in layout order (a forward jump continues the step, a backward jump, the
// end of a loop iteration, ends it), so loops without visible operations
// stay IMP loops inside one block.
//
// Data races: before a thread's access a (at the end of the step before
// it) the thread *announces* it (location, index, write); every access then
// checks, as its `data-race` goal, that no other thread has announced a
// conflicting one: two threads about to access one location, one of them
// writing. Accesses inside atomic sections are never announced (a thread
// inside one runs it to its end), so two atomic accesses never conflict,
// and accesses protected by one mutex never meet (the second thread cannot
// be before its access while the first holds the mutex).
//
// The schedule is readable from a counterexample's havocs: `$sched.thread`
// (the thread of each step), `$sched.op` (each visible operation, by its
// number in `operations`), `$sched.next` (an announced access).
import type { SourceLocation } from '../common/location.js';
import type { BvWidth, Expr, ImpProgram, ImpType, Procedure, Stmt, VarDecl } from '../ivl/ast.js';
import { boolType, bvType, syntheticLoc } from '../ivl/ast.js';
import { MAIN_THREAD, MARKER, isMarker, threadOfProcedure } from './markers.js';

/** A visible operation of the interleaved program. */
export interface VisibleOperation {
  readonly thread: number;
  readonly kind: 'access' | 'sync' | 'create' | 'join';
  /** The C location of the operation (the marker's). */
  readonly loc: SourceLocation;
  /** For an access: its `data-race` goal (undefined when races are not checked) and whether it writes. */
  readonly goal?: number;
  readonly write?: boolean;
  /** For a creation: the thread started. */
  readonly created?: number;
}

export interface Interleaved {
  readonly program: ImpProgram;
  /** The visible operations by number (the values of `$sched.op` and `$sched.next`). */
  readonly operations: readonly VisibleOperation[];
  /** The thread numbers, main first. */
  readonly threads: readonly number[];
}

/** The havoc targets that carry the schedule (see the header). */
export const SCHEDULE_VARS = { thread: '$sched.thread', op: '$sched.op', next: '$sched.next' } as const;

/** Whether an IMP variable is one of the interleaving's own (its havocs choose the schedule, not a nondet call's value, though one may share the call's place). */
export function isScheduleVar(name: string): boolean {
  return name.startsWith('$sched.');
}

const RUN = '$sched.run';
const EXITED = '$sched.exited';
const pcOf = (k: number) => `$sched.pc#${k}`;
const stateOf = (k: number) => `$sched.state#${k}`;
const pendingOf = (k: number) => `$sched.pending#${k}`;
const locOf = (k: number) => `$sched.location#${k}`;
const indexOf = (k: number) => `$sched.index#${k}`;
const writeOf = (k: number) => `$sched.write#${k}`;

/** Thread states. */
const NOT_STARTED = 0n;
const RUNNING = 1n;
const ENDED = 2n;

export class InterleaveError extends Error {}

/** Turns a threaded program (markers.ts) into one sequential procedure `main` (see the header). */
export function interleave(program: ImpProgram): Interleaved {
  const loc = syntheticLoc(program.file);
  const threads: Array<{ index: number; proc: Procedure }> = [];
  for (const p of program.procedures) {
    const k = threadOfProcedure(p.name);
    if (k !== undefined && p.body) threads.push({ index: k, proc: p });
  }
  threads.sort((a, b) => a.index - b.index);
  if (threads[0]?.index !== MAIN_THREAD) throw new InterleaveError('a threaded program without main');
  const access = program.procedures.find((p) => p.name === MARKER.access);
  const pw = (access?.params[2]?.type.kind === 'bv' ? access.params[2].type.width : 32) as BvWidth;
  const ctx = new Context(threads.map((t) => t.index), pw, loc);
  const dispatch = threads.map((t) => ({ index: t.index, blocks: new ThreadCompiler(ctx, t.index).compile(t.proc.body!) }));

  const c = ctx.c;
  const s = ctx.s;
  const init: Stmt[] = [];
  for (const t of dispatch) {
    init.push(s.assign(stateOf(t.index), c.bv(t.index === MAIN_THREAD ? RUNNING : NOT_STARTED, 8)));
    init.push(s.assign(pcOf(t.index), c.bv(BigInt(t.blocks[0]!.id), 32)));
    init.push(s.assign(pendingOf(t.index), c.bool(false)));
  }
  init.push(s.assign(EXITED, c.bool(false)));
  // One step of the chosen thread: its blocks in layout order, each when the step has reached it.
  let choice: Stmt[] = [s.assume(c.bool(false))];
  for (const t of [...dispatch].reverse()) {
    const blocks = t.blocks.map((b) => s.if(c.and(c.v(RUN), c.eq(c.v(pcOf(t.index)), c.bv(BigInt(b.id), 32))), b.body, []));
    const step = [s.assume(c.eq(c.v(stateOf(t.index)), c.bv(RUNNING, 8))), ...blocks];
    choice = [s.if(c.eq(c.v(SCHEDULE_VARS.thread), c.bv(BigInt(t.index), 32)), step, choice)];
  }
  const anyRunning = c.or(...dispatch.map((t) => c.eq(c.v(stateOf(t.index)), c.bv(RUNNING, 8))));
  const loop: Stmt = {
    kind: 'while',
    cond: c.and(c.not(c.v(EXITED)), anyRunning),
    invariants: [],
    candidates: [],
    body: [s.assign(RUN, c.bool(true)), s.havoc(SCHEDULE_VARS.thread), ...choice],
    loc,
  };
  const main = program.procedures.find((p) => p.name === 'main')!;
  const locals: VarDecl[] = [...program.globals, ...main.locals, ...ctx.declarations()];
  return {
    program: {
      kind: 'program',
      file: program.file,
      globals: [],
      procedures: [{ kind: 'procedure', name: 'main', params: [], returns: [], requires: [], ensures: [], locals, body: [...init, loop], loc: main.loc }],
    },
    operations: ctx.operations,
    threads: dispatch.map((t) => t.index),
  };
}

/** Small IMP constructors at one location. */
class Build {
  constructor(private readonly loc: SourceLocation) {}
  v = (name: string): Expr => ({ kind: 'var', name, loc: this.loc });
  bv = (value: bigint, width: BvWidth): Expr => ({ kind: 'bv_lit', value, width, loc: this.loc });
  bool = (value: boolean): Expr => ({ kind: 'bool_lit', value, loc: this.loc });
  eq = (a: Expr, b: Expr): Expr => ({ kind: 'binary', op: '==', left: a, right: b, loc: this.loc });
  not = (a: Expr): Expr => (a.kind === 'bool_lit' ? this.bool(!a.value) : { kind: 'unary', op: '!', arg: a, loc: this.loc });
  and = (...xs: Expr[]): Expr => this.fold('&&', xs, true);
  or = (...xs: Expr[]): Expr => this.fold('||', xs, false);
  private fold(op: '&&' | '||', xs: Expr[], unit: boolean): Expr {
    const ys = xs.filter((x) => !(x.kind === 'bool_lit' && x.value === unit));
    if (ys.some((x) => x.kind === 'bool_lit')) return this.bool(!unit);
    if (ys.length === 0) return this.bool(unit);
    return ys.reduce((a, b) => ({ kind: 'binary', op, left: a, right: b, loc: this.loc }));
  }
}

class Stmts {
  constructor(private readonly loc: SourceLocation) {}
  assign = (target: string, value: Expr, at = this.loc): Stmt => ({ kind: 'assign', target, value, loc: at });
  havoc = (target: string, at = this.loc): Stmt => ({ kind: 'havoc', target, loc: at });
  assume = (cond: Expr, at = this.loc): Stmt => ({ kind: 'assume', cond, loc: at });
  if = (cond: Expr, then: Stmt[], els: Stmt[], at = this.loc): Stmt => ({ kind: 'if', cond, then, else: els, loc: at });
}

/** What all threads' compilers share: the threads, the operations, the variables made. */
class Context {
  readonly c: Build;
  readonly s: Stmts;
  readonly operations: VisibleOperation[] = [];
  constructor(
    readonly threads: readonly number[],
    readonly pw: BvWidth,
    readonly loc: SourceLocation,
  ) {
    this.c = new Build(loc);
    this.s = new Stmts(loc);
  }

  declarations(): VarDecl[] {
    const d = (name: string, type: ImpType): VarDecl => ({ kind: 'var_decl', name, type, loc: this.loc });
    const out = [d(RUN, boolType), d(EXITED, boolType), d(SCHEDULE_VARS.thread, bvType(32)), d(SCHEDULE_VARS.op, bvType(32)), d(SCHEDULE_VARS.next, bvType(32))];
    for (const k of this.threads) {
      out.push(d(pcOf(k), bvType(32)), d(stateOf(k), bvType(8)), d(pendingOf(k), boolType), d(locOf(k), bvType(32)), d(indexOf(k), bvType(this.pw)), d(writeOf(k), boolType));
    }
    return out;
  }

  /** Registers a visible operation; returns the statements that put it on the trace. */
  operation(op: VisibleOperation, trace: string): Stmt[] {
    const id = this.operations.length;
    this.operations.push(op);
    return [this.s.havoc(trace, op.loc), this.s.assume(this.c.eq(this.c.v(trace), this.c.bv(BigInt(id), 32)), op.loc)];
  }
}

interface Block {
  readonly id: number;
  readonly body: Stmt[];
}

/** Cuts one thread's body into blocks (see the header). */
class ThreadCompiler {
  private readonly blocks: Block[] = [];
  private current: Block;
  private readonly c: Build;
  private readonly s: Stmts;

  constructor(
    private readonly ctx: Context,
    private readonly me: number,
  ) {
    this.c = ctx.c;
    this.s = ctx.s;
    this.current = this.open();
  }

  compile(body: readonly Stmt[]): Block[] {
    this.list(body);
    // The end of main's body ends the process; the end of another thread's, that thread.
    this.current.body.push(...this.end(this.me === MAIN_THREAD));
    return this.blocks;
  }

  private nextId = 0;
  private open(): Block {
    const b: Block = { id: this.nextId++, body: [] };
    this.blocks.push(b);
    this.current = b;
    return b;
  }
  /** A block id to be opened later (a forward target). */
  private reserve(): Block {
    return { id: this.nextId++, body: [] };
  }
  private place(b: Block): void {
    this.blocks.push(b);
    this.current = b;
  }

  /** Statements that end this thread (or, for main at its end, the process). */
  private end(processExit: boolean): Stmt[] {
    const { c, s } = this;
    return [
      ...(processExit ? [s.assign(EXITED, c.bool(true))] : [s.assign(stateOf(this.me), c.bv(ENDED, 8))]),
      s.assign(pendingOf(this.me), c.bool(false)),
      s.assign(RUN, c.bool(false)),
    ];
  }

  /** Whether another thread is running (then a context switch is possible). */
  private othersRunning(): Expr {
    const c = this.c;
    return c.or(...this.ctx.threads.filter((k) => k !== this.me).map((k) => c.eq(c.v(stateOf(k)), c.bv(RUNNING, 8))));
  }

  /** Continue at `target`, a block laid out later: within the step. */
  private jump(target: Block): Stmt {
    return this.s.assign(pcOf(this.me), this.c.bv(BigInt(target.id), 32));
  }

  private list(ss: readonly Stmt[]): void {
    for (let i = 0; i < ss.length; i++) {
      const st = ss[i]!;
      if (st.kind === 'call' && st.proc === MARKER.atomicBegin) {
        const j = ss.findIndex((x, k) => k > i && x.kind === 'call' && x.proc === MARKER.atomicEnd);
        if (j < 0) throw new InterleaveError(`${st.loc.line}:${st.loc.column}: an atomic section that does not end in the same block`);
        // The section is one step: a context switch before it, none inside.
        this.cut(undefined);
        for (const x of ss.slice(i + 1, j)) this.current.body.push(...this.atomic(x));
        i = j;
        continue;
      }
      if (!hasMarker(st)) {
        this.current.body.push(st);
        continue;
      }
      switch (st.kind) {
        case 'call':
          this.marker(st);
          break;
        case 'block':
          this.list(st.body);
          break;
        case 'if': {
          const then = this.reserve();
          const els = hasMarker({ kind: 'block', body: st.else, loc: st.loc }) ? this.reserve() : undefined;
          const join = this.reserve();
          if (els) {
            this.current.body.push(this.s.if(st.cond, [this.jump(then)], [this.jump(els)], st.loc));
          } else {
            this.current.body.push(this.s.if(st.cond, [this.jump(then)], [...st.else, this.jump(join)], st.loc));
          }
          this.place(then);
          this.list(st.then);
          this.current.body.push(this.jump(join));
          if (els) {
            this.place(els);
            this.list(st.else);
            this.current.body.push(this.jump(join));
          }
          this.place(join);
          break;
        }
        case 'while': {
          if (st.invariants.length) throw new InterleaveError(`${st.loc.line}:${st.loc.column}: a loop with invariants and visible operations`);
          const head = this.reserve();
          const body = this.reserve();
          const exit = this.reserve();
          this.current.body.push(this.jump(head));
          this.place(head);
          this.current.body.push(this.s.if(st.cond, [this.jump(body)], [this.jump(exit)], st.loc));
          this.place(body);
          this.list(st.body);
          // Back to the head, laid out before: the step ends.
          this.current.body.push(this.jump(head), this.s.assign(RUN, this.c.bool(false)));
          this.place(exit);
          break;
        }
        default:
          throw new InterleaveError(`unexpected statement ${st.kind} with a visible operation`);
      }
    }
  }

  /**
   * A context switch point: the step may end here (when another thread runs)
   * and the thread goes on in a new block. `announce`: the access it is
   * about to make (for the race checks of the others).
   */
  private cut(announce: { where: Expr; index: Expr; write: boolean; op: VisibleOperation } | undefined): void {
    const { c, s } = this;
    if (announce) {
      this.current.body.push(
        s.assign(pendingOf(this.me), c.bool(true)),
        s.assign(locOf(this.me), announce.where),
        s.assign(indexOf(this.me), announce.index),
        s.assign(writeOf(this.me), c.bool(announce.write)),
        ...this.ctx.operation(announce.op, SCHEDULE_VARS.next),
      );
    } else {
      this.current.body.push(s.assign(pendingOf(this.me), c.bool(false)));
    }
    const next = this.reserve();
    this.current.body.push(this.jump(next), s.if(this.othersRunning(), [s.assign(RUN, c.bool(false))], []));
    this.place(next);
  }

  /** A marker outside atomic sections: a context switch point, then the operation. */
  private marker(st: Extract<Stmt, { kind: 'call' }>): void {
    const { c, s } = this;
    switch (st.proc) {
      case MARKER.access: {
        const [where, index] = [st.args[1]!, st.args[2]!];
        const write = boolArg(st.args[3]!);
        const op = this.accessOperation(st);
        this.cut(op.goal !== undefined ? { where, index, write, op } : undefined);
        this.current.body.push(...this.ctx.operation(op, SCHEDULE_VARS.op), ...this.raceCheck(st, op), s.assign(pendingOf(this.me), c.bool(false)));
        return;
      }
      case MARKER.sync:
      case MARKER.create:
      case MARKER.join:
        this.cut(undefined);
        this.current.body.push(...this.atomic(st));
        return;
      case MARKER.exit: {
        this.current.body.push(...this.end(false));
        // What follows is unreachable (a fresh block no jump leads to).
        this.open();
        return;
      }
      case MARKER.atomicEnd:
        throw new InterleaveError(`${st.loc.line}:${st.loc.column}: the end of an atomic section that did not begin in the same block`);
      default:
        throw new InterleaveError(`unknown marker ${st.proc}`);
    }
  }

  private accessOperation(st: Extract<Stmt, { kind: 'call' }>): VisibleOperation {
    const g = st.args[0]!;
    const goal = g.kind === 'int_lit' ? Number(g.value) : undefined;
    return { thread: this.me, kind: 'access', loc: st.loc, write: boolArg(st.args[3]!), ...(goal !== undefined ? { goal } : {}) };
  }

  /** The data-race goal of an access: no other thread is about to make a conflicting one. */
  private raceCheck(st: Extract<Stmt, { kind: 'call' }>, op: VisibleOperation): Stmt[] {
    if (op.goal === undefined) return [];
    const { c } = this;
    const [where, index] = [st.args[1]!, st.args[2]!];
    const conflicts = this.ctx.threads
      .filter((k) => k !== this.me)
      .map((k) => c.and(c.v(pendingOf(k)), c.eq(c.v(locOf(k)), where), c.eq(c.v(indexOf(k)), index), op.write ? c.bool(true) : c.v(writeOf(k))));
    return [{ kind: 'assert', cond: c.not(c.or(...conflicts)), goal: { kind: 'data-race', id: op.goal }, loc: st.loc }];
  }

  /** A statement inside an atomic section (or the operation after a cut): markers become plain statements. */
  private atomic(st: Stmt): Stmt[] {
    const { c, s } = this;
    switch (st.kind) {
      case 'call': {
        if (!isMarker(st.proc)) return [st];
        switch (st.proc) {
          case MARKER.access: {
            const op = this.accessOperation(st);
            return [...this.ctx.operation(op, SCHEDULE_VARS.op), ...this.raceCheck(st, op)];
          }
          case MARKER.sync:
            return this.ctx.operation({ thread: this.me, kind: 'sync', loc: st.loc }, SCHEDULE_VARS.op);
          case MARKER.create: {
            const k = Number((st.args[0] as Extract<Expr, { kind: 'int_lit' }>).value);
            if (!this.ctx.threads.includes(k)) throw new InterleaveError(`creation of an unknown thread ${k}`);
            return [
              ...this.ctx.operation({ thread: this.me, kind: 'create', loc: st.loc, created: k }, SCHEDULE_VARS.op),
              s.assign(stateOf(k), c.bv(RUNNING, 8), st.loc),
            ];
          }
          case MARKER.join: {
            const t = st.args[0]!;
            const w = t.kind === 'bv_lit' ? t.width : this.ctx.pw;
            const ended = this.ctx.threads.map((k) => c.and(c.eq(t, c.bv(BigInt(k), w)), c.eq(c.v(stateOf(k)), c.bv(ENDED, 8))));
            // Waits until the thread has ended (a thread that does not exist: undefined, the path ends).
            return [...this.ctx.operation({ thread: this.me, kind: 'join', loc: st.loc }, SCHEDULE_VARS.op), s.assume(c.or(...ended), st.loc)];
          }
          case MARKER.atomicBegin:
          case MARKER.atomicEnd:
            return [];
          default:
            throw new InterleaveError(`${st.loc.line}:${st.loc.column}: ${st.proc} inside an atomic section`);
        }
      }
      case 'block':
        return st.body.flatMap((x) => this.atomic(x));
      case 'if':
        return [{ ...st, then: st.then.flatMap((x) => this.atomic(x)), else: st.else.flatMap((x) => this.atomic(x)) }];
      case 'while':
        return [{ ...st, body: st.body.flatMap((x) => this.atomic(x)) }];
      default:
        return [st];
    }
  }
}

function boolArg(e: Expr): boolean {
  return e.kind === 'bool_lit' && e.value;
}

/** Whether a statement contains a marker call. */
export function hasMarker(st: Stmt): boolean {
  switch (st.kind) {
    case 'call':
      return isMarker(st.proc);
    case 'block':
    case 'while':
      return st.body.some(hasMarker);
    case 'if':
      return st.then.some(hasMarker) || st.else.some(hasMarker);
    default:
      return false;
  }
}

// Threads in the lowering: pthread_create, pthread_join, pthread_exit,
// pthread_self and pthread_equal, mutexes, atomic sections, and the visible
// operations of a program that starts threads, written in the threaded form
// of IMP (threads/markers.ts). Methods of the Lowerer (lower.ts).
//
// Every start routine a pthread_create names is lowered once per *thread
// slot*: one slot per call site outside loops, `threadInstances` slots per
// call site inside a loop (a creation beyond them is a `thread-bound` goal:
// no TRUE while it is reachable). Each slot's body is an inlined copy with
// its own variables, so threads share only what C shares: globals, static
// locals, heap blocks and objects whose address is taken.
import type { Call, CProgram, Expr as CExpr, FunctionDecl } from '../c/ast.js';
import type { CType } from '../c/types.js';
import { pointerTo, unqualified, voidType } from '../c/types.js';
import type { Expr, Stmt } from '../ivl/ast.js';
import { boolType, bvType, mapType } from '../ivl/ast.js';
import { MAIN_THREAD, MARKER, markerProcedures, threadProcedure } from '../threads/markers.js';
import { app, assign, bin, boolLit, bv, eq, havoc, ifs, ite, type L, select, store, un, v } from './imp-build.js';
import {
  type Alt,
  type LValue,
  type Root,
  SYNC_STATE_TYPE,
  type SyncKind,
  UnsupportedError,
  type Val,
  leafName,
  markSyncRecord,
  syncKindOf,
  unionPlace,
} from './memory.js';
import { NOWHERE, VOID, stripCasts, stripPointer } from './common.js';
import type { Lowerer } from './lower.js';

/** A thread the program may start: a slot for one creation at one call site. */
export interface ThreadSlot {
  /** Its number (and pthread_t value): 2, 3, ... (main is 1). */
  readonly index: number;
  /** The start routine. */
  readonly fn: FunctionDecl;
  /** The pthread_create call. */
  readonly loc: L;
  /** The start routine's argument, set by the creating thread. */
  readonly arg: Root;
  /** The thread that creates it. */
  readonly parent: number;
}

/** What the lowering keeps about the threads of a program that starts some. */
export class ThreadModel {
  readonly slots: ThreadSlot[] = [];
  /** Slots whose bodies are still to be lowered (after main's). */
  readonly todo: ThreadSlot[] = [];
  readonly bodies = new Map<number, Stmt[]>();
  /** The thread whose code is being lowered. */
  current = MAIN_THREAD;
  /** Accesses are visible operations (not while globals are initialised, before main). */
  live = false;
  /** > 0 while a modelled library function writes (pthread_create's id): not the program's access. */
  quiet = 0;
  /** Depth of the atomic sections around the code being lowered. */
  atomic = 0;
  /** Race locations: a number per accessed leaf. */
  readonly locations = new Map<string, number>();
  constructor(
    /** Slots per pthread_create call site inside a loop. */
    readonly perSite: number,
  ) {}
}

/** The variables of the threads' results (pthread_exit's or the start routine's value), by thread number. */
const RESULT_BASE = '$thread_result.base';
const RESULT_OFF = '$thread_result.off';

/** Linux's EBUSY (pthread_mutex_trylock on a locked mutex). */
const EBUSY = 16n;

/** The pthread functions the model knows, and the typedefs of the objects they work on. */
const SYNC_TYPEDEFS: ReadonlyArray<readonly [string, SyncKind]> = [
  ['pthread_mutex_t', 'mutex'],
  ['pthread_cond_t', 'cond'],
  ['pthread_attr_t', 'opaque'],
  ['pthread_mutexattr_t', 'opaque'],
  ['pthread_condattr_t', 'opaque'],
];

/** Functions that only describe or tidy objects the model does not look into: no effect, result 0. */
const NO_EFFECT = new Set([
  'pthread_attr_init',
  'pthread_attr_destroy',
  'pthread_attr_setdetachstate',
  'pthread_attr_setstacksize',
  'pthread_attr_setscope',
  'pthread_attr_setschedpolicy',
  'pthread_attr_setinheritsched',
  'pthread_mutexattr_init',
  'pthread_mutexattr_destroy',
  'pthread_condattr_init',
  'pthread_condattr_destroy',
  'pthread_mutex_destroy',
  'pthread_cond_destroy',
  'pthread_detach',
  'sched_yield',
]);

const PTHREAD_FUNCTIONS = new Set([
  ...NO_EFFECT,
  'pthread_create',
  'pthread_join',
  'pthread_exit',
  'pthread_self',
  'pthread_equal',
  'pthread_mutex_init',
  'pthread_mutex_lock',
  'pthread_mutex_trylock',
  'pthread_mutex_unlock',
  'pthread_cond_init',
]);

/** Whether the lowering models a call of this library function (threads/pthreads). */
export function isThreadFunction(name: string): boolean {
  return PTHREAD_FUNCTIONS.has(name);
}

/** Whether the program calls pthread_create (it starts threads). */
export function startsThreads(program: CProgram): boolean {
  const create = program.functions.find((f) => f.name === 'pthread_create' && !f.body);
  return create !== undefined && mentions(program.functions.map((f) => f.body), create);
}

function mentions(node: unknown, decl: object): boolean {
  const seen = new Set<object>();
  const walk = (x: unknown): boolean => {
    if (!x || typeof x !== 'object' || seen.has(x)) return false;
    seen.add(x);
    const o = x as Record<string, unknown>;
    if (o.kind === 'Identifier' && o.decl === decl) return true;
    for (const [k, val] of Object.entries(o)) {
      if (k === 'type' || k === 'decl' || k === 'loc' || k === 'function') continue;
      if (Array.isArray(val) ? val.some(walk) : walk(val)) return true;
    }
    return false;
  };
  return walk(node);
}

/** Marks the program's pthread object types (by their typedefs) as one leaf each (memory.ts, SyncKind). */
export function markPthreadTypes(program: CProgram): void {
  for (const [name, kind] of SYNC_TYPEDEFS) {
    const t = program.typedefs.get(name)?.type;
    const u = t && unqualified(t);
    if (u?.kind === 'record') markSyncRecord(u.record, kind);
  }
}

/** True when every scalar of an initializer is the constant 0 (the default initialisers of mutexes and conditions). */
function zeroInitializer(init: unknown): boolean {
  const x = init as { kind?: string; items?: Array<{ value: unknown }>; value?: bigint };
  if (x.kind === 'InitList') return (x.items ?? []).every((i) => zeroInitializer(i.value));
  const e = stripCasts(init as CExpr);
  if (e?.kind === 'Identifier' && e.decl.kind === 'EnumConstant') return e.decl.value === 0n;
  return e?.kind === 'IntegerLiteral' && e.value === 0n;
}

export class ThreadLowering {
  /** Whether other threads can reach the object (globals, static locals, heap blocks, objects whose address is taken). */
  isShared(this: Lowerer, root: Root): boolean {
    if (root.name === NOWHERE || root.storage === 'literal') return false;
    return root.storage === 'static' || this.targets.has(root.name);
  }

  /**
   * Marks an access to `lv` as a visible operation (a thread may run
   * before it) when another thread can reach the object; with the
   * data-race pass it is also a `data-race` goal. Returns whether it did:
   * the caller then copies the value read into temporaries, so that the
   * access happens here and not where the value is used.
   */
  visibleAccess(this: Lowerer, lv: LValue, loc: L, write: boolean): boolean {
    const t = this.threads;
    if (!t || !t.live || t.quiet > 0) return false;
    if (!lv.alts.some((a) => this.isShared(a.root))) return false;
    let where: Expr = bv(0n, 32, loc);
    let index: Expr = bv(0n, this.pw, loc);
    for (const a of [...lv.alts].reverse()) {
      const place = this.isShared(a.root) ? this.raceLocation(a, loc) : { leaf: '', index: bv(0n, this.pw, loc) };
      let id = place.leaf === '' ? 0 : t.locations.get(place.leaf);
      if (id === undefined) t.locations.set(place.leaf, (id = t.locations.size + 1));
      const w = bv(BigInt(id), 32, loc);
      where = a.guard ? ite(a.guard, w, where, loc) : w;
      index = a.guard ? ite(a.guard, place.index, index, loc) : place.index;
    }
    let goal = -1;
    if (this.passes.has('data-race')) {
      const name = lv.alts.length === 1 ? cName(lv.alts[0]!.root.name) : undefined;
      const what = `${write ? 'write' : 'read'}${name ? ` of '${name}'` : ' through a pointer'}`;
      goal = this.map.addGoal({ kind: 'data-race', loc, targetLoc: this.stmtLoc, function: this.fnName, description: `data race: ${what} concurrent with a conflicting access` }).id;
    }
    const g: Expr = goal >= 0 ? { kind: 'int_lit', value: BigInt(goal), loc } : un('-', { kind: 'int_lit', value: 1n, loc }, loc);
    this.emit({ kind: 'call', targets: [], proc: MARKER.access, args: [g, where, index, boolLit(write, loc)], loc });
    return true;
  }

  /** The leaf an access touches and its index there (a union's bytes and a view count as their stored object). */
  raceLocation(this: Lowerer, a: Alt, loc: L): { leaf: string; index: Expr } {
    const idx = a.index ?? bv(0n, this.pw, loc);
    const k = (n: number) => bv(BigInt(n), this.pw, loc);
    if (a.view) return { leaf: leafName(a.root, a.path), index: a.view.k === 1 ? idx : app('udiv', [idx, k(a.view.k)], loc) };
    const u = unionPlace(a.root.type, a.path, this.dm, loc);
    if (u) return { leaf: leafName(a.root, u.unionPath) + '.bytes', index: u.innerCount === 1 ? idx : app('udiv', [idx, k(u.innerCount)], loc) };
    return { leaf: leafName(a.root, a.path), index: idx };
  }

  /** A visible synchronisation operation follows (threaded programs only). */
  syncPoint(this: Lowerer, loc: L): void {
    if (this.threads?.live) this.emit({ kind: 'call', targets: [], proc: MARKER.sync, args: [], loc });
  }

  /** Runs `f` with the program's accesses not marked (a library function's own writes). */
  quietly<T>(this: Lowerer, f: () => T): T {
    if (!this.threads) return f();
    this.threads.quiet++;
    try {
      return f();
    } finally {
      this.threads.quiet--;
    }
  }

  /** `__VERIFIER_atomic_begin()` / `__VERIFIER_atomic_end()`. */
  atomicMarker(this: Lowerer, begin: boolean, loc: L): Val {
    const t = this.threads;
    if (!t) return VOID; // a program without threads runs atomically anyway
    if (begin) {
      if (t.atomic++ === 0) this.emit({ kind: 'call', targets: [], proc: MARKER.atomicBegin, args: [], loc });
    } else {
      if (t.atomic === 0) throw new UnsupportedError('__VERIFIER_atomic_end without __VERIFIER_atomic_begin', loc);
      if (--t.atomic === 0) this.emit({ kind: 'call', targets: [], proc: MARKER.atomicEnd, args: [], loc });
    }
    return VOID;
  }

  /** A call of a `__VERIFIER_atomic_*` function: its body runs without interruption. */
  atomically(this: Lowerer, loc: L, f: () => Val): Val {
    this.atomicMarker(true, loc);
    const r = f();
    this.atomicMarker(false, loc);
    return r;
  }

  /** A call of one of the pthread functions the model knows (isThreadFunction). */
  pthreadCall(this: Lowerer, e: Call, name: string): Val {
    const loc = e.loc;
    const ret = unqualified(e.function!.type.returnType);
    const zero = (): Val => (ret.kind === 'void' ? VOID : this.convert({ k: 'int', e: bv(0n, 32, loc), ik: 'int' }, ret, loc));
    const tw = this.pw;
    switch (name) {
      case 'pthread_create':
        this.createThread(e);
        return zero();
      case 'pthread_join':
        this.joinThread(e);
        return zero();
      case 'pthread_exit': {
        const r = e.args[0] ? this.snapshot(this.rv(e.args[0]), loc) : undefined;
        this.setResult(r, loc);
        if (this.threads) this.emit({ kind: 'call', targets: [], proc: MARKER.exit, args: [], loc });
        else this.assumeThat(boolLit(false, loc), loc, 'path-ends'); // the only thread ends: so does the process
        return VOID;
      }
      case 'pthread_self':
        return this.convert({ k: 'int', e: bv(BigInt(this.threads?.current ?? MAIN_THREAD), tw, loc), ik: 'ulong' }, ret, loc);
      case 'pthread_equal': {
        const [a, b] = e.args.map((x) => this.rv(x));
        if (a?.k !== 'int' || b?.k !== 'int') throw new UnsupportedError('pthread_equal of non-integer thread ids', loc);
        return this.convert({ k: 'int', e: ite(eq(a.e, b.e, loc), bv(1n, 32, loc), bv(0n, 32, loc), loc), ik: 'int' }, ret, loc);
      }
      case 'pthread_mutex_init':
      case 'pthread_cond_init': {
        const state = this.syncState(e.args[0], name === 'pthread_mutex_init' ? 'mutex' : 'cond', loc);
        const attr = e.args[1] && this.rv(e.args[1]);
        if (attr && !(attr.k === 'ptr' && attr.base.kind === 'bv_lit' && attr.base.value === 0n)) {
          this.notes.add(`${name} with attributes: a mutex or condition of the default type is assumed`);
        }
        this.quietly(() => this.store(state, { k: 'int', e: bv(0n, 32, loc), ik: 'uint' }, loc));
        return zero();
      }
      case 'pthread_mutex_lock':
      case 'pthread_mutex_trylock':
      case 'pthread_mutex_unlock':
        return this.mutexOperation(e, name, ret);
      default:
        if (NO_EFFECT.has(name)) {
          for (const a of e.args) this.rv(a, true);
          return zero();
        }
        throw new UnsupportedError(`call of '${name}'`, loc);
    }
  }

  /** The state leaf of the pthread object `*arg` of kind `kind`. */
  syncState(this: Lowerer, arg: CExpr | undefined, kind: SyncKind, loc: L): LValue {
    if (!arg) throw new UnsupportedError('a pthread function without its object argument', loc);
    const pointee = stripPointer(arg.type);
    if (syncKindOf(pointee) !== kind) throw new UnsupportedError(`a pthread ${kind} of a type the model does not know (${cNameOfType(pointee)})`, loc);
    const p = this.snapshot(this.rv(arg), loc);
    const lv = this.deref(p, pointee, loc);
    return { type: SYNC_STATE_TYPE, alts: lv.alts };
  }

  /**
   * lock (waits until the mutex is free, then holds it), trylock (holds it
   * and returns 0 if it is free, else EBUSY), unlock (frees it). A default
   * mutex locked again by its owner waits forever, as glibc's does.
   */
  mutexOperation(this: Lowerer, e: Call, name: string, ret: CType): Val {
    const loc = e.loc;
    const state = this.syncState(e.args[0], 'mutex', loc);
    this.syncPoint(loc);
    const me = bv(BigInt(this.threads?.current ?? MAIN_THREAD), 32, loc);
    const result = (x: Expr): Val => (ret.kind === 'void' ? VOID : this.convert({ k: 'int', e: x, ik: 'int' }, ret, loc));
    return this.quietly(() => {
      const s = this.readLv(state, loc);
      if (s.k !== 'int') throw new UnsupportedError('a mutex state that is not an integer', loc);
      const free = eq(s.e, bv(0n, 32, loc), loc);
      if (name === 'pthread_mutex_unlock') {
        this.store(state, { k: 'int', e: bv(0n, 32, loc), ik: 'uint' }, loc);
        return result(bv(0n, 32, loc));
      }
      if (name === 'pthread_mutex_lock') {
        this.assumeThat(free, loc, 'blocked');
        this.store(state, { k: 'int', e: me, ik: 'uint' }, loc);
        return result(bv(0n, 32, loc));
      }
      const got = this.temp(boolType, '$trylock');
      this.emit(assign(got, free, loc));
      const [take] = this.buffer(() => this.store(state, { k: 'int', e: me, ik: 'uint' }, loc));
      this.emit(ifs(v(got, loc), take, [], loc));
      return result(ite(v(got, loc), bv(0n, 32, loc), bv(EBUSY, 32, loc), loc));
    });
  }

  /** pthread_create(id, attr, start, arg): a new slot runs `start(arg)`; its number is stored in `*id`. */
  createThread(this: Lowerer, e: Call): void {
    const loc = e.loc;
    const t = this.threads;
    if (!t) throw new UnsupportedError('pthread_create', loc);
    const [idArg, attrArg, startArg, argArg] = e.args;
    const start = stripCasts(startArg);
    const fn = start?.kind === 'Identifier' && start.decl.kind === 'Function' ? start.decl : undefined;
    if (!fn?.body) throw new UnsupportedError('pthread_create of a start routine that is not a function the program defines', startArg?.loc ?? loc);
    const idp = idArg ? this.snapshot(this.rv(idArg), loc) : undefined;
    if (attrArg) this.rv(attrArg, true);
    const arg = argArg ? this.snapshot(this.rv(argArg), loc) : undefined;
    const count = this.loopNesting > 0 ? Math.max(1, t.perSite) : 1;
    const slots: ThreadSlot[] = [];
    for (let i = 0; i < count; i++) {
      const index = MAIN_THREAD + t.slots.length + 1;
      const slot: ThreadSlot = { index, fn, loc, arg: this.makeRoot(`$thread_arg#${index}`, pointerTo(voidType), loc), parent: t.current };
      t.slots.push(slot);
      t.todo.push(slot);
      slots.push(slot);
    }
    const start1 = (slot: ThreadSlot): Stmt[] =>
      this.buffer(() => {
        const argLv: LValue = { type: pointerTo(voidType), alts: [{ root: slot.arg, path: [] }] };
        this.store(argLv, arg ?? { k: 'ptr', base: bv(0n, 32, loc), off: bv(0n, this.pw, loc), pointee: voidType }, loc);
        if (idp && idp.k === 'ptr' && !(idp.base.kind === 'bv_lit' && idp.base.value === 0n)) {
          const target = this.deref(idp, stripPointer(idArg!.type), loc);
          this.quietly(() => this.store(target, { k: 'int', e: bv(BigInt(slot.index), this.pw, loc), ik: 'ulong' }, loc));
        }
        this.emit({ kind: 'call', targets: [], proc: MARKER.create, args: [{ kind: 'int_lit', value: BigInt(slot.index), loc }], loc });
      })[0];
    if (count === 1) {
      this.emit(...start1(slots[0]!));
      return;
    }
    // A call site inside a loop: the next free slot, or the bound.
    const site = this.temp(bvType(32), '$thread_site');
    this.prologue.push(assign(site, bv(0n, 32, loc), loc));
    const [beyond] = this.buffer(() => {
      this.goal('thread-bound', boolLit(false, loc), loc, `more than ${count} threads started at this pthread_create`, loc);
      this.assumeThat(boolLit(false, loc), loc, 'thread-bound');
    });
    let chain: Stmt[] = beyond;
    for (let i = count - 1; i >= 0; i--) chain = [ifs(eq(v(site, loc), bv(BigInt(i), 32, loc), loc), start1(slots[i]!), chain, loc)];
    this.emit(...chain, assign(site, bin('+', v(site, loc), bv(1n, 32, loc), loc), loc));
  }

  /** pthread_join(t, result): waits until thread t has ended; stores its result in `*result` (unless NULL). */
  joinThread(this: Lowerer, e: Call): void {
    const loc = e.loc;
    if (!this.threads) throw new UnsupportedError('pthread_join in a program that starts no thread', loc);
    const id = this.snapshot(this.rv(e.args[0]!), loc);
    if (id.k !== 'int') throw new UnsupportedError('pthread_join of a thread id that is not an integer', loc);
    const resultp = e.args[1] ? this.snapshot(this.rv(e.args[1]), loc) : undefined;
    this.emit({ kind: 'call', targets: [], proc: MARKER.join, args: [id.e], loc });
    if (!resultp || resultp.k !== 'ptr' || (resultp.base.kind === 'bv_lit' && resultp.base.value === 0n)) return;
    const at = id.e;
    const value: Val = { k: 'ptr', base: select(v(RESULT_BASE, loc), at, loc), off: select(v(RESULT_OFF, loc), at, loc), pointee: voidType };
    const target = this.deref(resultp, stripPointer(e.args[1]!.type), loc);
    this.quietly(() => this.store(target, value, loc));
  }

  /** The current thread's result (pthread_exit's argument or the start routine's value). */
  setResult(this: Lowerer, r: Val | undefined, loc: L): void {
    if (!this.threads || !r || r.k !== 'ptr') return;
    const me = bv(BigInt(this.threads.current), this.pw, loc);
    this.emit(assign(RESULT_BASE, store(v(RESULT_BASE, loc), me, r.base, loc), loc), assign(RESULT_OFF, store(v(RESULT_OFF, loc), me, r.off, loc), loc));
  }

  /** Lowers the bodies of the thread slots (after main's: a slot may make more). */
  lowerThreadBodies(this: Lowerer): void {
    const t = this.threads!;
    for (let slot = t.todo.shift(); slot; slot = t.todo.shift()) {
      const s = slot;
      const loc = s.fn.definitionLoc ?? s.fn.loc;
      t.current = s.index;
      const saved = this.loopNesting;
      this.loopNesting = 0;
      const [body] = this.buffer(() => {
        const arg = this.readLv({ type: pointerTo(voidType), alts: [{ root: s.arg, path: [] }] }, loc);
        const r = this.inline(s.fn, s.fn.params.length > 0 ? [arg] : [], loc, loc);
        this.setResult(r.k === 'ptr' ? r : undefined, loc);
      });
      this.loopNesting = saved;
      t.bodies.set(s.index, body);
    }
    t.current = MAIN_THREAD;
  }

  /** The threaded IMP program (threads/markers.ts): main's body and one procedure per thread slot. */
  threadedProgram(this: Lowerer, mainBody: Stmt[], loc: L): import('../ivl/ast.js').ImpProgram {
    const t = this.threads!;
    this.declare(RESULT_BASE, mapType(bvType(this.pw), bvType(32)));
    this.declare(RESULT_OFF, mapType(bvType(this.pw), bvType(this.pw)));
    const globals = [...this.decls.entries()].map(([name, type]) => ({ kind: 'var_decl' as const, name, type, loc }));
    const proc = (name: string, body: Stmt[], at: L) => ({ kind: 'procedure' as const, name, params: [], returns: [], requires: [], ensures: [], locals: [], body, loc: at });
    return {
      kind: 'program',
      file: this.program.file,
      globals,
      procedures: [
        proc('main', [havoc(RESULT_BASE, loc), havoc(RESULT_OFF, loc), ...mainBody], loc),
        ...t.slots.map((s) => proc(threadProcedure(s.index), t.bodies.get(s.index) ?? [], s.fn.definitionLoc ?? s.fn.loc)),
        ...markerProcedures(this.pw, this.pw),
      ],
    };
  }
}

/** The C name of a root (an IMP name without its instance suffix). */
function cName(root: string): string | undefined {
  if (root.startsWith('$')) return undefined;
  return root.replace(/@.*$/, '').replace(/'\d+$/, '');
}

function cNameOfType(t: CType): string {
  const u = unqualified(t);
  return u.kind === 'record' ? `${u.record.union ? 'union' : 'struct'} ${u.record.tag ?? '(anonymous)'}` : u.kind;
}

export { zeroInitializer };

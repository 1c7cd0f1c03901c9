// The threaded form of IMP: what the lowering makes of a C program that
// starts threads, and what interleave.ts turns into one sequential program.
//
// A threaded program has the procedure `main` (thread 1, the C main with the
// initialisation of globals before it) and one procedure `thread$k` per
// thread slot k >= 2 (a start routine inlined with every call below it); all
// variables are globals of the IMP program, shared or not (the lowering's
// names are unique). Thread operations are calls of the bodiless marker
// procedures below; nothing else in the bodies is special. Every marker but
// `atomic_end` and `thread_exit` is a *visible operation*: a place where
// another thread may run first (a context switch), in the order the
// statements are written:
//
// - `call $access(g, l, i, w)`: a shared memory access follows (the access
//   statements right after it): location `l` (the accessed object's leaf,
//   numbered by the lowering; 0: an object no other thread can reach), index
//   `i` in it, `w` a write. `g` >= 0 is the `data-race` goal the access
//   checks, -1 when races are not checked.
// - `call $sync()`: a synchronisation (a mutex operation, a nondet call) follows.
// - `call $create(k)`: thread slot k starts (the lowering has set its argument).
// - `call $join(t)`: waits until the thread whose pthread_t value is t has ended.
// - `call $atomic_begin()` / `call $atomic_end()`: the statements between
//   them (in one statement list) run without interruption.
// - `call $thread_exit()`: the calling thread ends (pthread_exit); the end of
//   `main`'s body is the end of the process (exit), the end of a thread's
//   body the end of that thread.
//
// A thread's number is its pthread_t value: main is 1, slot k is k.
import type { BvWidth, ImpType, Procedure, VarDecl } from '../ivl/ast.js';
import { boolType, bvType, intType, syntheticLoc } from '../ivl/ast.js';

export const MARKER = {
  access: '$access',
  sync: '$sync',
  create: '$create',
  join: '$join',
  atomicBegin: '$atomic_begin',
  atomicEnd: '$atomic_end',
  exit: '$thread_exit',
} as const;
export type MarkerName = (typeof MARKER)[keyof typeof MARKER];

const MARKER_NAMES = new Set<string>(Object.values(MARKER));

export function isMarker(proc: string): proc is MarkerName {
  return MARKER_NAMES.has(proc);
}

/** The thread number of main. */
export const MAIN_THREAD = 1;

/** The IMP procedure of thread slot k. */
export function threadProcedure(k: number): string {
  return `thread$${k}`;
}

/** The thread slot of a procedure name (main is MAIN_THREAD), undefined for others. */
export function threadOfProcedure(name: string): number | undefined {
  if (name === 'main') return MAIN_THREAD;
  const m = /^thread\$(\d+)$/.exec(name);
  return m ? Number(m[1]) : undefined;
}

/** The declarations of the marker procedures, for pointer width `pw` and pthread_t width `tw`. */
export function markerProcedures(pw: BvWidth, tw: BvWidth): Procedure[] {
  const loc = syntheticLoc();
  const param = (name: string, type: ImpType): VarDecl => ({ kind: 'var_decl', name, type, loc });
  const decl = (name: string, params: VarDecl[]): Procedure => ({
    kind: 'procedure',
    name,
    params,
    returns: [],
    requires: [],
    ensures: [],
    locals: [],
    body: undefined,
    loc,
  });
  return [
    decl(MARKER.access, [param('goal', intType), param('location', bvType(32)), param('index', bvType(pw)), param('write', boolType)]),
    decl(MARKER.sync, []),
    decl(MARKER.create, [param('thread', intType)]),
    decl(MARKER.join, [param('thread', bvType(tw))]),
    decl(MARKER.atomicBegin, []),
    decl(MARKER.atomicEnd, []),
    decl(MARKER.exit, []),
  ];
}

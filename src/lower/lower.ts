/**
 * Lowering of a typed C program to one IMP procedure `main` with exact C
 * integer semantics on bit-vectors. Calls are inlined; recursion is inlined
 * to a bound and cut with an assertion of kind `recursion`. See
 * source-map.ts for how IMP statements are tied back to C, and memory.ts for
 * the object model.
 */
import type {
  Assign,
  Binary,
  BlockItem,
  Call,
  CompoundStmt,
  CProgram,
  Declaration,
  Expr as CExpr,
  FunctionDecl,
  IncDec,
  Initializer,
  InitList,
  LoopStmt,
  Stmt as CStmt,
  SwitchStmt,
  VarDecl as CVarDecl,
} from '../c/ast.js';
import type { CType, DataModel, IntegerKind } from '../c/types.js';
import { isSignedKind, sameType, sizeOf as sizeOfElem, typeToString as cTypeToString, unqualified, integerKindName } from '../c/types.js';
import type { BvWidth, Expr, ImpProgram, ImpType, Stmt, VarDecl } from '../ivl/ast.js';
import { bvType, boolType } from '../ivl/ast.js';
import {
  and,
  andAll,
  app,
  assert,
  assign,
  assume,
  bin,
  boolLit,
  bv,
  eq,
  havoc,
  ifs,
  ite,
  type L,
  maxSigned,
  minSigned,
  or,
  orAll,
  resize,
  select,
  store,
  un,
  v,
  whiles,
} from './imp-build.js';
import {
  type Alt,
  type LValue,
  type Region,
  type Root,
  UnsupportedError,
  type Val,
  intKindOf,
  intWidth,
  leafImpType,
  leafName,
  leavesOf,
  ptrWidth,
  regionKey,
  scalarParts,
  stripArrays,
  typeAtPath,
  unionPlace,
  firstMembers,
  regionLayout,
  type View,
} from './memory.js';
import { LIBRARY_FUNCTIONS, Library } from './library.js';
import { type GoalKind, SourceMapBuilder } from './source-map.js';
import { summaryGoalLoc, type LoweredProgram, type LowerOptions, type RecursionMeasure, type SummaryCondition } from './types.js';


const VOID: Val = { k: 'void' };
/** Root name of the place a pointer with no known target designates (while pointer targets are being collected). */
const NOWHERE = '$nowhere';

interface Frame {
  readonly fn: FunctionDecl;
  readonly label: string;
  readonly env: Map<number, Root>;
  retFlag?: string;
  readonly retRoot?: Root;
  /** Forward gotos: one flag per target label; labels already passed; gotos whose label is still ahead. */
  readonly gotoFlags: Map<string, string>;
  readonly labelsSeen: Set<string>;
  readonly pending: Set<string>;
  /** Labels whose block rest is being lowered as a loop (backward gotos), with their flags. */
  readonly backLabels: Map<string, string>;
  /** Tracked objects that end when the call returns (parameters, alloca blocks). */
  readonly dying: Root[];
}

interface LoopCtx {
  /** Flag set by `break` (undefined until a break needs it). */
  brk?: string;
  /** Flag set by `continue`; undefined for a switch (continue goes to the enclosing loop). */
  cont?: string;
  readonly isSwitch: boolean;
}

/** Flags a lowered statement may set, and whether it always jumps (the rest of the block is dead). */
interface Jump {
  readonly may: ReadonlySet<string>;
  readonly always: boolean;
}
const NOJUMP: Jump = { may: new Set(), always: false };

/** Arrays up to this many elements are zero-filled element by element; bigger ones start havocked. */
const ZERO_FILL_LIMIT = 256;

/** Budget of inlined function bodies: deeper recursion is cut (as at the depth bound) once it is spent. */
const MAX_INSTANCES = 2000;

/** Base ids of function pointers (above every object region's id). */
const FUNCTION_IDS = 0x40000000;
/** Base id of the streams `fopen` returns: opaque objects the model does not look into. */
const STREAM_ID = 0x3fffffff;

const ALLOCATORS = new Set(['malloc', 'calloc', 'realloc', 'alloca', '__builtin_alloca']);

const ABORTING = new Set(['abort', 'exit', '_exit', '_Exit', '__assert_fail', '__assert_perror_fail', '__assert', 'assert']);

/** The failure functions of <assert.h>: they abort; they are not the error function of unreach-call. */
const ASSERT_FAILURES = new Set(['__assert_fail', '__assert_perror_fail', '__assert', 'assert']);

/**
 * C library output functions: they only write to a stream, so they change no
 * program state the properties look at. Value: the index of the format
 * argument (printf family), or -1.
 */
const OUTPUT_FUNCTIONS = new Map<string, number>([
  ['printf', 0],
  ['fprintf', 1],
  ['dprintf', 1],
  ['puts', -1],
  ['fputs', -1],
  ['putchar', -1],
  ['putc', -1],
  ['fputc', -1],
  ['fflush', -1],
  ['perror', -1],
]);

class Lowerer {
  private out: Stmt[] = [];
  private readonly prologue: Stmt[] = [];
  private readonly decls = new Map<string, ImpType>();
  private readonly used = new Set<string>();
  private readonly suffix = new Map<string, number>();
  /** Function bodies inlined so far (recursive calls are cut beyond MAX_INSTANCES). */
  private instances = 0;
  /** The arguments of the entry function of a summary check (see RecursionSummaries). */
  private entryArgs: readonly Val[] | undefined;
  private readonly globals = new Map<number, Root>();
  private readonly statics = new Map<number, Root>();
  private readonly frames: Frame[] = [];
  private readonly loops: LoopCtx[] = [];
  /** Jump flags active in each enclosing block being lowered (innermost last). */
  private readonly blockActives: string[][] = [];
  /** Run-time lengths of the variable-length array types declared so far. */
  private readonly vlaLength = new Map<CType, Expr>();
  /** Loops being lowered around the current point, across inlined calls. */
  private loopNesting = 0;
  /** Where each jump flag is first set (the location of guards reading it). */
  private readonly flagLoc = new Map<string, L>();
  private readonly maxKnownId: number;
  private newRegions = 0;
  private readonly instanceCount = new Map<string, number>();
  private tempCount = 0;
  readonly regions = new Map<string, Region>();
  readonly map: SourceMapBuilder;
  readonly approximations: string[] = [];
  /** Havocs of objects every element of which is written right after (see LoweredProgram.filledHavocs). */
  readonly filledHavocs = new Set<Stmt>();
  /** Havocs of arrays that stand for C memory not yet written (see LoweredProgram.memoryHavocs). */
  readonly memoryHavocs = new Set<Stmt>();
  /** Facts about the model the verdict's reason should mention (each once). */
  readonly notes = new Set<string>();
  private stmtLoc: L;
  private readonly dm: DataModel;
  private readonly pw: BvWidth;
  private readonly depth: number;
  /** A memory-safety property is checked: accesses, frees and leaks are goals. */
  private readonly mem: boolean;
  /** Names of the roots some pointer may point to (from the previous pass). */
  private readonly targets: ReadonlySet<string>;
  /** Liveness flag of each root whose lifetime is tracked, and the flags' initial values. */
  private readonly liveVars = new Map<string, string>();
  private readonly liveInit: Stmt[] = [];
  /** Tracked automatic objects of each enclosing scope, which end with it. */
  private readonly scopes: Root[][] = [];
  /** String literal objects, one per literal in the source. */
  private readonly literals = new Map<CExpr, Root>();
  private memUnknowns = 0;
  /** Roots of allocation sites inside loops, per site. */
  private readonly siteRoots = new Map<string, Root>();
  /** The program allocates heap blocks (memory-safety properties). */
  allocates = false;
  /** Pointer types `void *` values are being converted to (innermost last): the type of an untyped allocation (typedRv). */
  private readonly allocTypes: CType[] = [];
  /** The program opens streams (`fopen`): their objects are not modelled. */
  private readonly opensStreams: boolean;
  /** Functions whose address the program takes: the targets of calls through pointers. */
  private readonly addressTaken: readonly FunctionDecl[];
  /** The C library's memory and string functions. */
  private readonly library: Library;


  constructor(
    private readonly program: CProgram,
    private readonly options: LowerOptions,
    /** Regions found by a first pass: dereferences choose among these. */
    private readonly knownRegions?: ReadonlyMap<string, Region>,
  ) {
    this.dm = options.dataModel;
    this.pw = ptrWidth(this.dm);
    this.depth = options.recursionDepth ?? 3;
    this.mem = options.passes.includes('memory-safety') || options.passes.includes('memory-cleanup');
    this.targets = new Set([...(knownRegions?.values() ?? [])].map((r) => r.root.name));
    this.addressTaken = addressTakenFunctions(program);
    const fopen = program.functions.find((f) => f.name === 'fopen' && !f.body);
    this.opensStreams = fopen !== undefined && usesDecl(program, fopen);
    this.maxKnownId = Math.max(0, ...[...(knownRegions?.values() ?? [])].map((r) => r.id));
    this.map = new SourceMapBuilder(program.file);
    this.stmtLoc = { file: program.file, line: 1, column: 1, offset: 0 };
    this.library = new Library({
      dm: this.dm,
      pw: this.pw,
      rv: (e) => this.rv(e),
      snapshot: (val, loc) => this.snapshot(val, loc),
      deref: (p, type, loc) => this.deref(p, type, loc),
      readLv: (lv, loc) => this.readLv(lv, loc),
      store: (lv, val, loc) => this.store(lv, val, loc),
      member: (lv, name, type) => this.member(lv, name, type),
      indexArray: (arr, i, loc) => this.indexArray(arr, i, loc),
      emit: (...s) => this.emit(...s),
      buffer: (f) => this.buffer(f),
      temp: (t, prefix) => this.temp(t, prefix),
      uncertain: (cond, loc, d) => this.uncertain(cond, loc, d),
      regionBound: (elem, loc) => this.regionBound(elem, loc),
      allocationType: () => {
        const t = this.allocTypes[this.allocTypes.length - 1];
        return t?.kind === 'pointer' ? t.pointee : undefined;
      },
    });
  }

  // ---- names and declarations ------------------------------------------------

  private fresh(base: string): string {
    let name = base;
    let k = this.suffix.get(base) ?? 0;
    while (this.used.has(name)) name = `${base}'${++k}`;
    this.suffix.set(base, k);
    this.used.add(name);
    return name;
  }
  private declare(name: string, t: ImpType): void {
    this.decls.set(name, t);
  }
  private temp(t: ImpType, prefix = '$t'): string {
    const name = this.fresh(`${prefix}${++this.tempCount}`);
    this.declare(name, t);
    return name;
  }
  private emit(...s: Stmt[]): void {
    this.out.push(...s);
  }
  /** Runs f with a fresh statement buffer and returns the statements it emitted. */
  private buffer<T>(f: () => T): [Stmt[], T] {
    const saved = this.out;
    this.out = [];
    try {
      const r = f();
      return [this.out, r];
    } finally {
      this.out = saved;
    }
  }

  /** Creates a root object and declares the IMP variables of its leaves. */
  private makeRoot(name: string, type: CType, loc: L, extra: Pick<Root, 'storage' | 'countVar' | 'blocks'> = {}): Root {
    const root: Root = { name: this.fresh(name), type, ...extra };
    for (const leaf of leavesOf(type, loc)) {
      for (const [suffix, t] of scalarParts(leaf.type, this.dm, loc)) {
        this.declare(leafName(root, leaf.path) + suffix, leafImpType(t, leaf.mapped, this.dm));
      }
    }
    return root;
  }

  private recordVariable(name: string, fn: string | undefined, declLoc: L, root: Root): void {
    const k = intKindOf(root.type);
    if (k === undefined) return;
    this.map.addVariable({ name, ...(fn ? { function: fn } : {}), declLoc, imp: root.name, width: intWidth(k, this.dm, declLoc), signed: isSignedKind(k) });
  }

  private get frame(): Frame {
    return this.frames[this.frames.length - 1];
  }
  private get fnName(): string {
    return this.frames.length ? this.frame.fn.name : '';
  }

  // ---- lifetimes (memory-safety properties) ----------------------------------------

  /** The liveness flag of an object (declared on first use; static objects start live). */
  private liveOf(root: Root, loc: L): Expr {
    let name = this.liveVars.get(root.name);
    if (!name) {
      name = `${root.name}$live`;
      this.used.add(name);
      this.declare(name, boolType);
      this.liveVars.set(root.name, name);
      const always = root.storage === 'static' || root.storage === 'literal';
      this.liveInit.push(assign(name, boolLit(always, loc), loc));
    }
    return v(name, loc);
  }
  private setLive(root: Root, value: Expr, loc: L): void {
    this.liveOf(root, loc);
    this.emit(assign(this.liveVars.get(root.name)!, value, loc));
  }

  /** An automatic object begins: tracked (true) when a pointer may point to it. */
  private born(root: Root, loc: L): boolean {
    if (!this.mem || !this.targets.has(root.name)) return false;
    this.setLive(root, boolLit(true, loc), loc);
    return true;
  }
  private endLifetimes(roots: readonly Root[], loc: L): void {
    for (const r of roots) this.setLive(r, boolLit(false, loc), loc);
  }
  /** Runs f in a new scope: the tracked objects declared in it end afterwards. */
  private inScope<T>(f: () => T): T {
    if (!this.mem) return f();
    this.scopes.push([]);
    let dying: Root[] = [];
    let r: T;
    try {
      r = f();
    } finally {
      dying = this.scopes.pop()!;
    }
    this.endLifetimes(dying, this.stmtLoc);
    return r;
  }

  /** The heap blocks of the program (one per allocation site and inlined copy). */
  private heapBlocks(): Array<{ root: Root; id: number }> {
    return [...(this.knownRegions?.values() ?? [])]
      .filter((r) => r.root.storage === 'heap' && r.path.length === 0 && !r.view)
      .map((r) => ({ root: r.root, id: r.id }));
  }
  private noLiveBlock(loc: L): Expr {
    return andAll(
      this.heapBlocks().map((b) => {
        const bl = b.root.blocks;
        return bl ? eq(v(bl.alive, loc), bv(0n, this.pw, loc), loc) : un('!', this.liveOf(b.root, loc), loc);
      }),
      loc,
    );
  }

  /**
   * For a site inside a loop, where the element at linear index `idx` of the
   * region (root, path) lies: its block and its struct's index in the block.
   */
  private blockOf(root: Root, path: readonly string[], idx: Expr, loc: L): { block: Expr; inBlock: Expr; live: Expr } {
    const bl = root.blocks!;
    const perStruct = this.elementCount(root, path, loc, bv(1n, this.pw, loc));
    const struct = perStruct.kind === 'bv_lit' && perStruct.value === 1n ? idx : app('udiv', [idx, perStruct], loc);
    const block = app('lshr', [struct, bv(BigInt(bl.shift), this.pw, loc)], loc);
    const inBlock = bin('&', struct, bv((1n << BigInt(bl.shift)) - 1n, this.pw, loc), loc);
    const live = and(app('ult', [block, v(bl.made, loc)], loc), select(v(bl.lives, loc), block, loc), loc);
    return { block, inBlock, live };
  }

  /** A goal of a memory-safety sub-property; later code runs only where it held. */
  private memGoal(kind: GoalKind, cond: Expr, loc: L, description: string, targetLoc = this.stmtLoc): void {
    if (cond.kind === 'bool_lit' && cond.value) return;
    this.goal(kind, cond, loc, description, targetLoc);
    this.emit(assume(cond, loc));
  }
  /** Where the model is not exact: if cond can fail, the answer is UNKNOWN (never FALSE). */
  private uncertain(cond: Expr, loc: L, description: string): void {
    if (cond.kind === 'bool_lit' && cond.value) return;
    // A key of its own (offset below any real one): it never meets a goal of another kind.
    const key = { ...loc, offset: -++this.memUnknowns };
    this.goal('memory-unknown', cond, key, description, loc);
    this.emit(assume(cond, key));
  }

  /** The run ends here (abort, exit): blocks still allocated are not judged. */
  private endOfRun(loc: L): void {
    if (this.mem) this.uncertain(this.noLiveBlock(loc), loc, 'a heap block is still allocated when the program aborts or exits');
  }

  /**
   * At the end of main: every block freed (valid-memcleanup). For
   * valid-memtrack a block still allocated is lost when no global variable
   * can hold a pointer (main's locals end with main); otherwise not judged.
   */
  private leakGoal(main: FunctionDecl, loc: L): void {
    const last = main.body?.items[main.body.items.length - 1];
    // The goal sits at main's last `return` (no other goal starts at that keyword), else at main.
    const target = last?.kind === 'Return' ? last.loc : loc;
    const cond = this.noLiveBlock(target);
    if (this.options.passes.includes('memory-cleanup')) {
      this.memGoal('valid-memcleanup', cond, target, 'a heap block is still allocated at the end of main', target);
      return;
    }
    const staticRoots = [...this.globals.values(), ...this.statics.values()];
    const pointers = staticRoots.flatMap((r) => leavesOf(r.type, loc).filter((l) => unqualified(l.type).kind === 'pointer').map((l) => ({ root: r, leaf: l })));
    if (pointers.length === 0) {
      this.memGoal('valid-memtrack', cond, target, 'a heap block is lost at the end of main', target);
      return;
    }
    // Global pointers may still track blocks. Judged exactly only for the
    // blocks of sites outside loops and for pointers held in scalar global
    // variables: a block no such pointer points into is lost when no other
    // pointer can be stored anywhere that survives main (no global array of
    // pointers, no block holding pointers). A block counts as tracked only
    // when a global points to its start; an interior pointer is UNKNOWN.
    const scalars = pointers.filter((x) => !x.leaf.mapped).map((x) => ({ base: v(leafName(x.root, x.leaf.path) + '.base', target), off: v(leafName(x.root, x.leaf.path) + '.off', target) }));
    const regions = [...(this.knownRegions?.values() ?? [])];
    const heap = this.heapBlocks();
    const otherHolders =
      pointers.some((x) => x.leaf.mapped) ||
      heap.some((b) => leavesOf(b.root.type, target).some((l) => unqualified(l.type).kind === 'pointer'));
    const ZERO = bv(0n, this.pw, target);
    if (otherHolders) {
      const closure = this.trackedByChains(pointers, heap, regions, target);
      if (closure) {
        this.memGoal('valid-memtrack', un('!', orAll(closure.lost, target), target), target, 'a heap block is lost at the end of main', target);
        this.uncertain(andAll([...closure.exact, un('!', orAll(closure.untracked, target), target)], target), target, 'a heap block is still allocated at the end of main (a pointer may still track it)');
        return;
      }
    }
    const lost: Expr[] = [];
    const untracked: Expr[] = [];
    for (const b of heap) {
      if (b.root.blocks) {
        untracked.push(un('!', eq(v(b.root.blocks.alive, target), ZERO, target), target));
        continue;
      }
      const live = this.liveOf(b.root, target);
      const ids = regions.filter((r) => r.root === b.root || r.root.name === b.root.name).map((r) => bv(BigInt(r.id), 32, target));
      const into = orAll(scalars.flatMap((g) => ids.map((id) => eq(g.base, id, target))), target);
      const atStart = orAll(scalars.map((g) => and(eq(g.base, bv(BigInt(b.id), 32, target), target), eq(g.off, ZERO, target), target)), target);
      lost.push(and(live, un('!', into, target), target));
      untracked.push(and(live, un('!', atStart, target), target));
    }
    if (!otherHolders) this.memGoal('valid-memtrack', un('!', orAll(lost, target), target), target, 'a heap block is lost at the end of main', target);
    this.uncertain(un('!', orAll(untracked, target), target), target, 'a heap block is still allocated at the end of main (a global pointer may still track it)');
  }

  /**
   * valid-memtrack at the end of main when blocks may hold pointers: a block
   * is tracked when a global pointer points into it, or a tracked block
   * holds one that does; the closure takes one round per block. Exact only
   * for blocks of sites outside loops (each its own root) holding at most
   * `CHAIN_SLOTS` elements, and for global pointers in scalars or small
   * arrays; otherwise undefined. `lost`: blocks no chain reaches (a
   * violation); `untracked`: blocks no chain of pointers to block starts
   * reaches (an interior pointer is not judged, as above); `exact`: the
   * conditions under which every pointer was looked at.
   */
  private trackedByChains(
    pointers: ReadonlyArray<{ root: Root; leaf: ReturnType<typeof leavesOf>[number] }>,
    heap: ReadonlyArray<{ root: Root; id: number }>,
    regions: readonly Region[],
    loc: L,
  ): { lost: Expr[]; untracked: Expr[]; exact: Expr[] } | undefined {
    const CHAIN_SLOTS = 4;
    if (heap.length === 0 || heap.length > 16 || heap.some((b) => b.root.blocks)) return undefined;
    const c = (n: number) => bv(BigInt(n), this.pw, loc);
    interface Slot { readonly base: Expr; readonly off: Expr; readonly holder?: number; readonly when?: Expr }
    const slots: Slot[] = [];
    const at = (name: string, mapped: boolean, k: number) => ({
      base: mapped ? select(v(name + '.base', loc), c(k), loc) : v(name + '.base', loc),
      off: mapped ? select(v(name + '.off', loc), c(k), loc) : v(name + '.off', loc),
    });
    for (const x of pointers) {
      const name = leafName(x.root, x.leaf.path);
      if (!x.leaf.mapped) slots.push(at(name, false, 0));
      else if (x.leaf.count !== undefined && x.leaf.count <= 16 && !x.leaf.bytes) for (let k = 0; k < x.leaf.count; k++) slots.push(at(name, true, k));
      else return undefined;
    }
    const exact: Expr[] = [];
    const live = heap.map((b) => this.liveOf(b.root, loc));
    for (const [i, b] of heap.entries()) {
      const held = leavesOf(stripArrays(b.root.type), loc).filter((l) => l.bytes || unqualified(l.type).kind === 'pointer');
      if (held.length === 0) continue;
      if (held.some((l) => l.bytes || (l.mapped && l.count === undefined))) return undefined;
      const count = this.elementCount(b.root, [], loc);
      exact.push(or(un('!', live[i]!, loc), app('ule', [count, c(CHAIN_SLOTS)], loc), loc));
      for (const l of held) {
        const inner = l.mapped ? l.count! : 1;
        if (inner * CHAIN_SLOTS > 64) return undefined;
        for (let e = 0; e < CHAIN_SLOTS; e++) {
          for (let j = 0; j < inner; j++) slots.push({ ...at(leafName(b.root, l.path), true, e * inner + j), holder: i, when: app('ult', [c(e), count], loc) });
        }
      }
    }
    const ids = heap.map((b) => regions.filter((r) => r.root === b.root || r.root.name === b.root.name).map((r) => r.id));
    const closure = (atStart: boolean): Expr[] => {
      const points = (s: Slot, i: number) =>
        atStart ? and(eq(s.base, bv(BigInt(heap[i]!.id), 32, loc), loc), eq(s.off, c(0), loc), loc) : orAll(ids[i]!.map((id) => eq(s.base, bv(BigInt(id), 32, loc), loc)), loc);
      let tracked: Expr[] | undefined;
      for (let round = 0; round <= heap.length; round++) {
        const prev = tracked;
        tracked = heap.map((_, i) => {
          const from = slots.filter((s) => s.holder === undefined || prev).map((s) => (s.holder === undefined ? points(s, i) : andAll([prev![s.holder]!, s.when!, points(s, i)], loc)));
          return this.named(boolType, and(live[i]!, orAll(from, loc), loc), loc);
        });
      }
      return heap.map((_, i) => and(live[i]!, un('!', tracked![i]!, loc), loc));
    };
    return { lost: closure(false), untracked: closure(true), exact };
  }

  /** Elements of the region (root, path): the product of the array lengths on the way (a block's count for a heap object). */
  private elementCount(root: Root, path: readonly string[], loc: L, outerCount?: Expr): Expr {
    let n: Expr = bv(1n, this.pw, loc);
    const mul = (x: Expr) => {
      n = n.kind === 'bv_lit' && x.kind === 'bv_lit' ? bv(n.value * x.value, this.pw, loc) : n.kind === 'bv_lit' && n.value === 1n ? x : bin('*', n, x, loc);
    };
    let t = unqualified(root.type);
    let outer = true;
    const arrays = () => {
      while (t.kind === 'array') {
        const len = this.arrayLength(t, loc) ?? (outer ? (outerCount ?? (root.countVar ? v(root.countVar, loc) : undefined)) : undefined);
        if (!len) throw new UnsupportedError('array of unknown length', loc);
        mul(len);
        outer = false;
        t = unqualified(t.element);
      }
      outer = false;
    };
    arrays();
    for (const f of path) {
      if (t.kind !== 'record') throw new UnsupportedError('member access on a non-struct', loc);
      const field = t.record.fields?.find((x) => x.name === f);
      if (!field) throw new UnsupportedError(`member '${f}' not found`, loc);
      t = unqualified(field.type);
      arrays();
    }
    return n;
  }

  /** The largest element count of the regions of elements of type `elem` (undefined: one is not a constant). */
  private regionBound(elem: CType, loc: L): number | undefined {
    let n = 0;
    for (const r of this.knownRegions?.values() ?? []) {
      if (!sameType(unqualified(r.elem), unqualified(elem))) continue;
      if (r.root.blocks) return undefined;
      let c: Expr;
      try {
        c = this.elementCount(r.root, r.path, loc);
      } catch (err) {
        // A block whose size is not tracked (outside memory safety).
        if (err instanceof UnsupportedError) return undefined;
        throw err;
      }
      if (c.kind !== 'bv_lit') return undefined;
      n = Math.max(n, Number(c.value) * (r.view?.k ?? 1));
    }
    return n;
  }

  /** valid-deref at an access: the pointer designates a live object and the element is inside it. */
  private checkAccess(lv: LValue, loc: L, write: boolean): void {
    if (lv.alts[0]?.root.name === NOWHERE) return;
    if (!this.mem) {
      // Outside memory safety a view's index is not checked by a goal; one
      // beyond the viewed object (the bytes of a neighbouring member) would
      // read the wrong element: not modelled.
      const views = lv.alts.filter((a) => a.view && a.index !== undefined);
      const inside = views.map((a) => {
        let ok: Expr;
        try {
          ok = app('ult', [a.index!, bin('*', this.elementCount(a.root, a.path, loc), bv(BigInt(a.view!.k), this.pw, loc), loc)], loc);
        } catch (err) {
          // A block whose size is not tracked (outside memory safety): its bounds are unknown.
          if (!(err instanceof UnsupportedError)) throw err;
          ok = boolLit(false, loc);
        }
        return a.guard ? or(un('!', a.guard, loc), ok, loc) : ok;
      });
      if (inside.length) this.uncertain(andAll(inside, loc), loc, 'byte access outside the object the pointer was converted from');
      // An index through a pointer past the part of a struct it points into
      // (`p = &s.a; p[1]`) would reach the neighbouring member: not modelled.
      const pastMember = lv.alts.flatMap((a) => {
        const part = a.fromPointer && !a.view && a.index !== undefined ? regionLayout(a.root.type, a.path, this.dm).member : undefined;
        return part ? [{ a, part }] : [];
      });
      if (pastMember.length) {
        const ok = pastMember.map(({ a, part }) => this.guarded(a, app('ult', [a.index!, bv(BigInt(part.count), this.pw, loc)], loc), loc));
        this.uncertain(andAll(ok, loc), loc, this.pastMemberText(pastMember.map((x) => x.part.name)));
      }
      return;
    }
    let trivial = true;
    const pastMember: Array<{ a: Alt; ok: Expr; name: string }> = [];
    const ok = lv.alts.map((a) => {
      const parts: Expr[] = [];
      if (a.root.blocks) {
        // A block of a site inside a loop: made, live, and the element inside it.
        const b = this.blockOf(a.root, a.path, a.index ?? bv(0n, this.pw, loc), loc);
        trivial = false;
        return andAll([a.via ?? boolLit(true, loc), b.live, app('ult', [b.inBlock, select(v(a.root.blocks.counts, loc), b.block, loc)], loc)], loc);
      }
      if (a.via) parts.push(a.via, this.liveOf(a.root, loc));
      if (write && a.root.storage === 'literal') parts.push(boolLit(false, loc));
      const part = a.index !== undefined && !a.root.blocks ? regionLayout(a.root.type, a.path, this.dm).member : undefined;
      if (a.index !== undefined && part) {
        // A part of a struct (`s.a`, `s.buf`): the access is valid while it
        // stays in the object's bytes; past the part but inside the object
        // it reaches a neighbouring member, which is not modelled.
        const k = a.view?.k ?? 1;
        const size = a.view ? (sizeOfElem(a.view.elem, this.dm) ?? 1) : part.elemSize;
        const c = (n: number) => bv(BigInt.asUintN(this.pw, BigInt(n)), this.pw, loc);
        const inObject = and(app('sle', [c(-Math.floor(part.offset / size)), a.index], loc), app('slt', [a.index, c(Math.floor((part.objectSize - part.offset) / size))], loc), loc);
        parts.push(inObject);
        pastMember.push({ a, ok: or(un('!', inObject, loc), app('ult', [a.index, c(part.count * k)], loc), loc), name: part.name });
      } else if (a.index !== undefined) {
        const n = this.elementCount(a.root, a.path, loc);
        parts.push(app('ult', [a.index, a.view && a.view.k > 1 ? bin('*', n, bv(BigInt(a.view.k), this.pw, loc), loc) : n], loc));
      }
      if (parts.length) trivial = false;
      return andAll(parts, loc);
    });
    if (!trivial) this.memGoal('valid-deref', orAll(ok, loc), loc, write ? 'invalid memory write' : 'invalid memory read');
    if (pastMember.length) this.uncertain(andAll(pastMember.map((x) => this.guarded(x.a, x.ok, loc)), loc), loc, this.pastMemberText(pastMember.map((x) => x.name)));
  }

  /** `cond` where the access is to this alternative (always when it is the only one). */
  private guarded(a: Alt, cond: Expr, loc: L): Expr {
    const when = a.via ?? a.guard;
    return when ? or(un('!', when, loc), cond, loc) : cond;
  }

  private pastMemberText(names: readonly string[]): string {
    return `access through a pointer or index past the struct member ${[...new Set(names)].map((n) => `'${n}'`).join(', ')} (the neighbouring members' bytes are not modelled)`;
  }

  /** `free(p)`: p is NULL or the start of a live heap block, which ends. */
  private free(e: Call): Val {
    const loc = e.loc;
    if (e.args.length !== 1) throw new UnsupportedError(`free with ${e.args.length} arguments`, loc);
    const p = this.snapshot(this.rv(e.args[0]), loc);
    this.release(p, 'free', loc);
    return VOID;
  }

  /** `free(p)` and the old block of `realloc(p, n)`: p must be NULL or the start of a live heap block, which ends. */
  private release(p: Val, name: string, loc: L): void {
    if (p.k !== 'ptr') throw new UnsupportedError(`${name} of a non-pointer`, loc);
    const blocks = this.heapBlocks();
    const base = this.named(bvType(32), p.base, loc);
    // The block's start, also through a pointer to its first member or a view of its bytes.
    const at = (id: number) => {
      const r = [...(this.knownRegions?.values() ?? [])].find((x) => x.id === id);
      const views = [...(this.knownRegions?.values() ?? [])].filter((x) => r && x.view && x.root.name === r.root.name && x.path.length === 0);
      return orAll([id, ...(r ? this.firstMemberRegions(r).map((m) => m.id) : []), ...views.map((x) => x.id)].map((i) => eq(base, bv(BigInt(i), 32, loc), loc)), loc);
    };
    const ZERO = bv(0n, this.pw, loc);
    const startOf = blocks.map((b) => {
      if (!b.root.blocks) return andAll([at(b.id), eq(p.off, ZERO, loc), this.liveOf(b.root, loc)], loc);
      const k = this.blockOf(b.root, [], p.off, loc);
      return andAll([at(b.id), eq(k.inBlock, ZERO, loc), k.live], loc);
    });
    this.memGoal('valid-free', or(eq(base, bv(0n, 32, loc), loc), orAll(startOf, loc), loc), loc, 'invalid free');
    blocks.forEach((b, i) => {
      const bl = b.root.blocks;
      if (!bl) return this.setLive(b.root, and(this.liveOf(b.root, loc), un('!', at(b.id), loc), loc), loc);
      // After the check above, a pointer to this site is the start of a live block.
      const k = this.blockOf(b.root, [], p.off, loc);
      this.emit(
        ifs(at(b.id), [assign(bl.lives, store(v(bl.lives, loc), k.block, boolLit(false, loc), loc), loc), assign(bl.alive, bin('-', v(bl.alive, loc), bv(1n, this.pw, loc), loc), loc)], [], loc),
      );
      void i;
    });
  }

  // ---- goals ------------------------------------------------------------------

  private goal(kind: GoalKind, cond: Expr, loc: L, description: string, targetLoc = this.stmtLoc): void {
    const goal = this.map.addGoal({ kind, loc, targetLoc, function: this.fnName, description });
    this.emit(assert(cond, loc, goal));
  }

  // ---- entry ------------------------------------------------------------------

  run(): ImpProgram {
    const main = this.program.functions.find((f) => f.name === 'main' && f.body);
    if (!main) throw new UnsupportedError('program without a main function', { file: this.program.file, line: 1, column: 1, offset: 0 });
    const mainLoc = main.definitionLoc ?? main.loc;
    // Globals: their C initial values (zero without initializer), before main runs.
    for (const g of this.program.globals) {
      this.stmtLoc = g.loc;
      const root = this.makeRoot(g.name, g.type, g.loc, { storage: 'static' });
      this.globals.set(g.id, root);
      this.recordVariable(g.name, undefined, g.loc, root);
    }
    for (const g of this.program.globals) {
      this.stmtLoc = g.loc;
      const root = this.globals.get(g.id)!;
      if (g.storage === 'extern' && !g.defined && !g.init) {
        this.havocObject(root, g.loc);
      } else {
        this.initObject(root, g.type, g.init, g.loc, true);
      }
    }
    const globalsInit = this.out;
    this.out = [];
    const entry = this.options.summaries?.entry;
    const [body] = this.buffer(() => {
      if (entry !== undefined) return this.summaryCheck(entry);
      const args: Val[] = main.params.map((p) => {
        const k = intKindOf(p.type);
        if (k === undefined) {
          // argv and the like: fine while the program does not look at them.
          if (usesDecl(main.body, p)) throw new UnsupportedError(`main parameter '${p.name}' of type ${cTypeToString(p.type)}`, p.loc);
          return this.dummyVal(unqualified(p.type), p.loc);
        }
        const t = this.temp(bvType(intWidth(k, this.dm, p.loc)));
        this.emit(havoc(t, p.loc));
        return { k: 'int', e: v(t, p.loc), ik: k } as Val;
      });
      this.inline(main, args, mainLoc, mainLoc);
      if (this.mem) this.leakGoal(main, mainLoc);
    });
    const locals: VarDecl[] = [...this.decls.entries()].map(([name, type]) => ({ kind: 'var_decl', name, type, loc: mainLoc }));
    return {
      kind: 'program',
      file: this.program.file,
      globals: [],
      procedures: [
        {
          kind: 'procedure',
          name: 'main',
          params: [],
          returns: [],
          requires: [],
          ensures: [],
          locals,
          body: [...this.liveInit, ...globalsInit, ...this.prologue, ...body],
          loc: mainLoc,
        },
      ],
    };
  }

  // ---- object initialisation ---------------------------------------------------------

  /** Havocs every leaf of the object (recorded in `record`: C memory not yet written). */
  private havocObject(root: Root, loc: L, record?: Set<Stmt>): void {
    for (const leaf of leavesOf(root.type, loc)) {
      for (const [suffix] of scalarParts(leaf.type, this.dm, loc)) {
        const h = havoc(leafName(root, leaf.path) + suffix, loc);
        record?.add(h);
        this.emit(h);
      }
    }
  }

  /** Zero (static storage) or havoc (automatic) every leaf, then apply the initializer. */
  private initObject(root: Root, type: CType, init: Initializer | undefined, loc: L, isStatic: boolean): void {
    if (init && init.kind !== 'InitList' && unqualified(type).kind !== 'array') {
      // A scalar or a struct copied from an expression.
      const val = this.rv(init);
      this.store({ type, alts: [{ root, path: [] }] }, val, init.loc);
      return;
    }
    const leaves = leavesOf(type, loc);
    for (const leaf of leaves) {
      for (const [suffix, t] of scalarParts(leaf.type, this.dm, loc)) {
        const name = leafName(root, leaf.path) + suffix;
        const zero = bv(0n, (t as { width: BvWidth }).width, loc);
        if (!leaf.mapped) {
          this.emit(isStatic || init ? assign(name, zero, loc) : havoc(name, loc));
          continue;
        }
        const h = havoc(name, loc);
        this.emit(h);
        // An automatic array without initialiser, or a large static one (zero in C, arbitrary here): C memory.
        this.memoryHavocs.add(h);
        if (isStatic || init) {
          // A union's map holds its bytes.
          const count = leaf.count !== undefined && leaf.bytes ? leaf.count * (sizeOfElem(leaf.type, this.dm) ?? Infinity) : leaf.count;
          if (count !== undefined && count <= ZERO_FILL_LIMIT) {
            this.filledHavocs.add(h);
            let m: Expr = v(name, loc);
            for (let i = 0; i < count; i++) m = store(m, bv(BigInt(i), this.pw, loc), zero, loc);
            this.emit(assign(name, m, loc));
          } else {
            this.approximations.push(`${formatLoc(loc)}: the ${leaf.count ?? 'unknown'} zero-initialised elements of '${name}' start arbitrary`);
          }
        }
      }
    }
    if (init) this.applyInit({ type, alts: [{ root, path: [] }] }, init);
  }

  private applyInit(lv: LValue, init: Initializer): void {
    if (init.kind !== 'InitList') {
      const t = unqualified(lv.type);
      if (t.kind === 'array' && init.kind === 'StringLiteral') {
        // char s[N] = "...": the characters, then zeros (already there: an initializer zero-fills).
        const k = intKindOf(t.element);
        if (k === undefined || init.wide) throw new UnsupportedError('string literal initializer', init.loc);
        const n = Math.min(init.units.length, t.length ?? init.units.length);
        for (let i = 0; i < n; i++) {
          const elem = this.indexArray(lv, bv(BigInt(i), this.pw, init.loc), init.loc);
          this.store(elem, { k: 'int', e: bv(BigInt(init.units[i]), intWidth(k, this.dm, init.loc), init.loc), ik: k }, init.loc);
        }
        return;
      }
      this.store(lv, this.rv(init), init.loc);
      return;
    }
    const t = unqualified(lv.type);
    for (const item of init.items) {
      let sub: LValue;
      if (t.kind === 'array') {
        sub = this.indexArray(lv, bv(BigInt(item.target), this.pw, init.loc), init.loc);
      } else if (t.kind === 'record') {
        const f = t.record.fields?.[item.target];
        if (!f?.name) throw new UnsupportedError('initializer of an unnamed member', init.loc);
        sub = this.member(lv, f.name, f.type);
      } else {
        // Braces around a scalar initializer.
        sub = lv;
      }
      this.applyInit(sub, item.value);
    }
  }

  // ---- functions -------------------------------------------------------------------

  /** The entry function called with arbitrary integer arguments, its summary's conditions as goals where it returns. */
  private summaryCheck(name: string): void {
    const fn = this.program.functions.find((f) => f.name === name && f.body);
    if (!fn) throw new UnsupportedError(`a summary of '${name}', which has no body`, this.stmtLoc);
    const loc = fn.definitionLoc ?? fn.loc;
    const args: Val[] = fn.params.map((p) => {
      const k = intKindOf(p.type);
      if (k === undefined) throw new UnsupportedError(`a summary of a function with parameter '${p.name}' of type ${cTypeToString(p.type)}`, p.loc);
      const t = this.temp(bvType(intWidth(k, this.dm, p.loc)));
      this.emit(havoc(t, p.loc));
      return { k: 'int', e: v(t, p.loc), ik: k } as Val;
    });
    this.entryArgs = args;
    const ret = this.inline(fn, args, loc, loc);
    const conditions = this.options.summaries!.conditions.get(name) ?? [];
    conditions.forEach((c, i) => this.goal('summary', this.summaryCondition(c, args, ret, loc), summaryGoalLoc(this.program.file, i), `summary condition ${i + 1} of ${name}`, loc));
  }

  /** At a summarised call of a measured function, the goal that its measure is below the entry's. */
  private decreaseGoal(fn: FunctionDecl, args: readonly Val[], loc: L): void {
    const measures = this.options.summaries!.measures!;
    const entry = this.program.functions.find((f) => f.name === this.options.summaries!.entry && f.body);
    const mine = measures.get(entry?.name ?? '');
    const theirs = measures.get(fn.name)!;
    if (!entry || !mine) throw new UnsupportedError('a recursion measure without one for the entry function', loc);
    // Both measures as 64-bit values: unsigned ones zero-extended, signed ones sign-extended (an entry's signed measure must be at least 0).
    const value = (f: FunctionDecl, vals: readonly Val[], m: RecursionMeasure): Expr => {
      const x = vals[m.index];
      const k = intKindOf(unqualified(f.params[m.index]!.type));
      if (x?.k !== 'int' || k === undefined) throw new UnsupportedError(`a recursion measure of ${f.name} that is not an integer parameter`, loc);
      // The argument converted to the parameter's type, as the call does.
      const w = intWidth(k, this.dm, loc);
      return resize(resize(x.e, intWidth(x.ik, this.dm, loc), w, isSignedKind(x.ik), loc), w, 64, m.signed, loc);
    };
    const outer = value(entry, this.entryArgs!, mine);
    const below = app('ult', [value(fn, args, theirs), outer], loc);
    const cond = mine.signed ? and(app('sge', [outer, bv(0n, 64, loc)], loc), below, loc) : below;
    const name = (f: FunctionDecl, m: RecursionMeasure) => `${f.name}'s '${f.params[m.index]!.name}'`;
    this.goal('decrease', cond, loc, `the call of ${fn.name} decreases the measure (${name(fn, theirs)} below ${name(entry, mine)})`, loc);
  }

  /** A summary condition over a call's arguments and result (integers of the result's type). */
  private summaryCondition(c: SummaryCondition, args: readonly Val[], ret: Val, loc: L): Expr {
    if (ret.k !== 'int') throw new UnsupportedError('a summary of a function without an integer result', loc);
    const w = intWidth(ret.ik, this.dm, loc);
    let bound = bv(c.bound.constant, w, loc);
    for (const { index, sign } of c.bound.params) {
      const a = args[index];
      if (!a || a.k !== 'int' || a.ik !== ret.ik) throw new UnsupportedError('a summary bound of another type than the result', loc);
      bound = bin(sign > 0 ? '+' : '-', bound, a.e, loc);
    }
    if (c.op === '==') return eq(ret.e, bound, loc);
    const signed = isSignedKind(ret.ik);
    return app(c.op === '<=' ? (signed ? 'sle' : 'ule') : signed ? 'sge' : 'uge', [ret.e, bound], loc);
  }

  /** Inlines a call of a defined function; returns its result. */
  private inline(fn: FunctionDecl, args: Val[], loc: L, cutLoc: L): Val {
    const active = this.frames.filter((f) => f.fn === fn).length;
    const retType = unqualified(fn.type.returnType);
    // Inside the entry of a measure check, calls of measured functions are summarised.
    const measured = this.entryArgs !== undefined && this.frames.length > 0 && this.options.summaries?.measures?.has(fn.name) === true;
    if (measured || active >= this.depth || (active > 0 && this.instances >= MAX_INSTANCES)) {
      const summary = this.options.summaries?.conditions.get(fn.name) ?? (measured ? [] : undefined);
      if (summary) {
        // A summarised call returns any result its summary allows.
        if (measured) this.decreaseGoal(fn, args, loc);
        const ret = retType.kind === 'void' ? VOID : this.havocVal(retType, loc);
        for (const c of summary) this.emit(assume(this.summaryCondition(c, args, ret, loc), loc));
        return ret;
      }
      // Deeper recursion is cut: an unwinding assertion, then no execution goes on.
      this.goal('recursion', boolLit(false, cutLoc), cutLoc, `recursion of ${fn.name} cut (depth ${this.depth}, ${MAX_INSTANCES} inlined bodies at most)`, cutLoc);
      this.emit(assume(boolLit(false, cutLoc), cutLoc));
      return retType.kind === 'void' ? VOID : this.havocVal(retType, loc);
    }
    this.instances++;
    const n = (this.instanceCount.get(fn.name) ?? 0) + 1;
    this.instanceCount.set(fn.name, n);
    const label = n === 1 ? fn.name : `${fn.name}#${n}`;
    const env = new Map<number, Root>();
    const retRoot = retType.kind === 'void' ? undefined : this.makeRoot(`$ret@${label}`, retType, loc);
    const frame: Frame = { fn, label, env, retRoot, gotoFlags: new Map(), labelsSeen: new Set(), pending: new Set(), backLabels: new Map(), dying: [] };
    fn.params.forEach((p, i) => {
      const root = this.makeRoot(`${p.name}@${label}`, p.type, p.loc);
      env.set(p.id, root);
      if (this.born(root, p.loc)) frame.dying.push(root);
      this.recordVariable(p.name, fn.name, p.loc, root);
      if (i < args.length) this.store({ type: p.type, alts: [{ root, path: [] }] }, args[i], loc);
      else this.havocObject(root, loc);
    });
    this.frames.push(frame);
    const savedLoops = this.loops.splice(0);
    const savedStmtLoc = this.stmtLoc;
    let body: Stmt[];
    try {
      [body] = this.buffer(() => this.lowerBlock(fn.body!.items));
    } finally {
      this.frames.pop();
      this.loops.push(...savedLoops);
      this.stmtLoc = savedStmtLoc;
    }
    if (frame.pending.size) {
      throw new UnsupportedError(`goto to a label that does not follow it in an enclosing block ('${[...frame.pending][0]}')`, fn.body!.loc);
    }
    if (frame.retFlag) this.emit(assign(frame.retFlag, boolLit(false, loc), loc));
    for (const f of frame.gotoFlags.values()) this.emit(assign(f, boolLit(false, loc), loc));
    this.emit(...body);
    this.endLifetimes(frame.dying, loc);
    if (!retRoot) return VOID;
    return this.readLv({ type: retType, alts: [{ root: retRoot, path: [] }] }, loc);
  }

  private havocVal(t: CType, loc: L): Val {
    const root = this.makeRoot('$h', t, loc);
    this.havocObject(root, loc);
    return this.readLv({ type: t, alts: [{ root, path: [] }] }, loc);
  }

  private call(e: Call, discard: boolean): Val {
    const fn = e.function;
    if (!fn) return this.callThroughPointer(e);
    const b = fn.builtin;
    if (b) {
      switch (b.kind) {
        case 'reach_error':
        case 'error': {
          // For other properties than unreach-call the error function is an
          // ordinary function: a body of the program's own (which may return)
          // is inlined below; only one it does not define ends the path.
          if (!this.options.passes.includes('error-calls') && fn.body) break;
          for (const a of e.args) this.rv(a, true);
          if (this.options.passes.includes('error-calls')) {
            this.goal('reach_error', boolLit(false, e.loc), e.loc, `call of ${fn.name}`, e.loc);
          }
          this.endOfRun(e.loc);
          this.emit(assume(boolLit(false, e.loc), e.loc));
          return VOID;
        }
        case 'assume': {
          if (e.args.length !== 1) throw new UnsupportedError(`${fn.name} with ${e.args.length} arguments`, e.loc);
          this.emit(assume(this.cond(e.args[0]), e.loc));
          return VOID;
        }
        case 'nondet': {
          for (const a of e.args) this.rv(a, true);
          const t = unqualified(b.type);
          const k = intKindOf(t);
          if (k === undefined) throw new UnsupportedError(`${fn.name} returning ${cTypeToString(t)}`, e.loc);
          const w = intWidth(k, this.dm, e.loc);
          const name = this.temp(bvType(w), '$nd');
          this.emit(havoc(name, e.loc));
          if (k === 'bool') this.emit(assume(app('ule', [v(name, e.loc), bv(1n, 8, e.loc)], e.loc), e.loc));
          this.map.addNondet({
            loc: e.loc,
            closeParenLoc: e.rparenLoc,
            statementLoc: this.stmtLoc,
            callee: fn.name,
            function: this.fnName,
            cType: integerKindName(k),
            width: w,
            signed: isSignedKind(k),
            isBool: k === 'bool',
            variable: name,
          });
          return { k: 'int', e: v(name, e.loc), ik: k };
        }
        case 'atomic_begin':
        case 'atomic_end':
          // A sequential program runs atomically anyway.
          return VOID;
        case 'nondet_memory':
          throw new UnsupportedError(fn.name, e.loc);
        case 'assert':
        case 'atomic_function':
          break; // defined by the program: inlined below
      }
    }
    if (!fn.body) {
      if (ABORTING.has(fn.name)) {
        if (ASSERT_FAILURES.has(fn.name) && this.options.passes.includes('error-calls')) {
          this.notes.add(`a failing assert() aborts the program (${fn.name} ends the path; it is not reach_error)`);
        }
        // Message strings (`__assert_fail("x > 0", __FILE__, ...)`) have no effect.
        for (const a of e.args) if (!isStringArg(a)) this.rv(a, true);
        this.endOfRun(e.loc);
        this.emit(assume(boolLit(false, e.loc), e.loc));
        return unqualified(fn.type.returnType).kind === 'void' ? VOID : this.havocVal(fn.type.returnType, e.loc);
      }
      if (fn.name === 'free') {
        if (this.mem) return this.free(e);
        // Memory safety is not the property checked: free only ends the object's lifetime.
        for (const a of e.args) this.rv(a, true);
        return VOID;
      }
      if (OUTPUT_FUNCTIONS.has(fn.name)) return this.output(e, fn.name, OUTPUT_FUNCTIONS.get(fn.name)!);
      if ((fn.name === 'fopen' || fn.name === 'fclose') && !this.mem) return this.stream(e, fn.name);
      if (LIBRARY_FUNCTIONS.has(fn.name)) return this.library.call(fn.name, e.args, fn.type.returnType, e.loc);
      if (ALLOCATORS.has(fn.name)) {
        const to = this.allocTypes[this.allocTypes.length - 1];
        const typed = to && this.allocation(e, to);
        if (typed) return typed;
        throw new UnsupportedError(`${fn.name} whose result is not converted to a typed pointer`, e.loc);
      }
      throw new UnsupportedError(`call of undefined function '${fn.name}'`, e.loc);
    }
    if (fn.type.variadic) throw new UnsupportedError(`variadic function '${fn.name}'`, e.loc);
    const args = e.args.map((a) => this.snapshot(this.rv(a), a.loc));
    void discard;
    return this.inline(fn, args, e.loc, e.rparenLoc);
  }

  /**
   * `fopen` (NULL or an opaque stream; the file may or may not open) and
   * `fclose` (no effect on memory, any result). Only where memory safety is
   * not the property: an access into a stream is then UNKNOWN (see deref).
   */
  private stream(e: Call, name: 'fopen' | 'fclose'): Val {
    const loc = e.loc;
    for (const a of e.args) if (!isStringArg(a)) this.rv(a, true);
    const ret = unqualified(e.function!.type.returnType);
    if (name === 'fclose') return this.havocVal(ret, loc);
    if (ret.kind !== 'pointer') throw new UnsupportedError('fopen returning a non-pointer', loc);
    const opened = this.temp(boolType, '$fopen');
    this.emit(havoc(opened, loc));
    return { k: 'ptr', base: ite(v(opened, loc), bv(BigInt(STREAM_ID), 32, loc), bv(0n, 32, loc), loc), off: bv(0n, this.pw, loc), pointee: ret.pointee };
  }

  /** The pointer value of a function (its own base id, offset 0). */
  private functionPointer(fn: FunctionDecl, loc: L): Val {
    const id = FUNCTION_IDS + this.program.functions.indexOf(fn);
    return { k: 'ptr', base: bv(BigInt(id), 32, loc), off: bv(0n, this.pw, loc), pointee: fn.type };
  }

  /**
   * `fp(args)`: a case split over the functions whose address is taken and
   * whose type fits; a pointer to none of them is an invalid call (the run
   * crashes), one to a function without a body is not modelled.
   */
  private callThroughPointer(e: Call): Val {
    const loc = e.loc;
    let callee = e.callee;
    for (;;) {
      if (callee.kind === 'ImplicitCast' && (callee.castKind === 'FunctionToPointer' || callee.castKind === 'NoOp')) callee = callee.operand;
      else if (callee.kind === 'Unary' && callee.op === '*' && stripPointer(callee.operand.type).kind === 'function') callee = callee.operand;
      else break;
    }
    const p = this.snapshot(this.rv(callee), loc);
    const ft = p.k === 'ptr' ? unqualified(p.pointee) : undefined;
    if (p.k !== 'ptr' || ft?.kind !== 'function') throw new UnsupportedError('call through a value that is not a function pointer', loc);
    const args = e.args.map((a) => this.snapshot(this.rv(a), a.loc));
    const retType = unqualified(ft.returnType);
    const res = retType.kind === 'void' ? undefined : this.makeRoot('$fpret', retType, loc);
    const resLv = res && { type: retType, alts: [{ root: res, path: [] }] };
    const fits = (f: FunctionDecl) =>
      f.type.params.length === ft.params.length && sameType(unqualified(f.type.returnType), retType) && !f.type.variadic;
    const isTarget = (f: FunctionDecl) => {
      const q = this.functionPointer(f, loc) as Extract<Val, { k: 'ptr' }>;
      return eq(p.base, q.base, loc);
    };
    const [invalid] = this.buffer(() => {
      const unmodelled = this.addressTaken.filter((f) => !f.body || !fits(f));
      this.uncertain(un('!', orAll(unmodelled.map(isTarget), loc), loc), loc, 'a call through a pointer to a function without a body or of another type');
      if (this.mem) this.memGoal('valid-deref', boolLit(false, loc), loc, 'call through an invalid function pointer');
      this.emit(assume(boolLit(false, loc), loc));
    });
    let tail = invalid;
    for (const f of [...this.addressTaken].reverse().filter((x) => x.body && fits(x))) {
      const [body] = this.buffer(() => {
        const r = this.inline(f, args, loc, e.rparenLoc);
        if (resLv) this.store(resLv, r, loc);
      });
      tail = [ifs(isTarget(f), body, tail, loc)];
    }
    this.emit(...tail);
    return resLv ? this.readLv(resLv, loc) : VOID;
  }

  /**
   * A call of an output function: its arguments are evaluated for their side
   * effects, its result is arbitrary. `%n` (a write through a pointer) and a
   * format that is not a literal are not modelled.
   */
  private output(e: Call, name: string, formatIndex: number): Val {
    if (formatIndex >= 0) {
      const f = stripCasts(e.args[formatIndex]);
      if (!f || f.kind !== 'StringLiteral') throw new UnsupportedError(`${name} with a format that is not a string literal`, e.loc);
      if (/%[-+ #0-9.*lhjztL]*n/.test(String.fromCharCode(...f.units.map(Number)))) throw new UnsupportedError(`${name} with %n`, e.loc);
    }
    for (const a of e.args) {
      if (isStringArg(a)) continue;
      // `%s` and the like read memory: not modelled where memory safety is checked.
      const t = unqualified(a.type);
      if (this.mem && t.kind === 'pointer' && intKindOf(t.pointee) !== undefined) {
        throw new UnsupportedError(`${name} reading memory through a pointer argument`, a.loc);
      }
      this.rv(a, true);
    }
    const ret = unqualified(e.function!.type.returnType);
    return ret.kind === 'void' ? VOID : this.havocVal(ret, e.loc);
  }

  /** Copies a value into temporaries so later side effects cannot change it. */
  private snapshot(val: Val, loc: L): Val {
    const simple = (x: Expr) => x.kind === 'bv_lit' || x.kind === 'bool_lit';
    switch (val.k) {
      case 'int': {
        if (simple(val.e)) return val;
        const t = this.temp(bvType(intWidth(val.ik, this.dm, loc)));
        this.emit(assign(t, val.e, loc));
        return { ...val, e: v(t, loc) };
      }
      case 'ptr': {
        const b = simple(val.base) ? val.base : this.tempOf(bvType(32), val.base, loc);
        const o = simple(val.off) ? val.off : this.tempOf(bvType(this.pw), val.off, loc);
        return { ...val, base: b, off: o };
      }
      case 'agg': {
        const root = this.makeRoot('$agg', val.lv.type, loc);
        const lv: LValue = { type: val.lv.type, alts: [{ root, path: [] }] };
        this.store(lv, val, loc);
        return { k: 'agg', lv };
      }
      default:
        return val;
    }
  }
  /** e itself when it is a variable or a literal, else a temporary holding it (e is used more than once). */
  private named(t: ImpType, e: Expr, loc: L): Expr {
    return e.kind === 'var' || e.kind === 'bv_lit' ? e : this.tempOf(t, e, loc);
  }
  private tempOf(t: ImpType, e: Expr, loc: L): Expr {
    const name = this.temp(t);
    this.emit(assign(name, e, loc));
    return v(name, loc);
  }

  // ---- statements ---------------------------------------------------------------------

  /**
   * A block: after an item that may jump (break, continue, return, goto),
   * each later item runs only while no such flag is set. A label that is
   * the target of a forward goto from an earlier item of this block clears
   * that goto's flag: execution resumes there.
   */
  private lowerBlock(items: readonly BlockItem[], initialActive: readonly string[] = []): Jump {
    return this.inScope(() => this.lowerBlockItems(items, initialActive));
  }

  private lowerBlockItems(items: readonly BlockItem[], initialActive: readonly string[]): Jump {
    const may = new Set<string>(initialActive);
    const active: string[] = [...initialActive];
    this.blockActives.push(active);
    // Consecutive items under the same flags share one guard.
    let guarded: { key: string; flags: string[]; body: Stmt[] } | undefined;
    const flush = () => {
      if (guarded) this.emit(this.guard(guarded.flags, guarded.body));
      guarded = undefined;
    };
    try {
      for (let i = 0; i < items.length; i++) {
        let item: BlockItem = items[i];
        while (item.kind === 'Label') {
          const f = this.frame.gotoFlags.get(item.name);
          if (f && this.frame.pending.has(item.name)) {
            const outer = this.blockActives.slice(0, -1).some((a) => a.includes(f));
            if (!active.includes(f) || outer) throw new UnsupportedError(`goto into a nested block (label '${item.name}')`, item.loc);
            flush();
            this.emit(assign(f, boolLit(false, item.loc), item.loc));
            active.splice(active.indexOf(f), 1);
            may.delete(f);
            this.frame.pending.delete(item.name);
          }
          this.frame.labelsSeen.add(item.name);
          if (containsGoto([item, ...items.slice(i + 1)], item.name)) {
            // Backward gotos to this label: the rest of the block becomes a
            // loop that runs again while `goto label` was executed.
            flush();
            const j = this.labelLoop(item.name, [item.body, ...items.slice(i + 1)], item.loc, active);
            for (const f of j.may) may.add(f);
            return { may, always: false };
          }
          item = item.body;
        }
        const it = item;
        const [buf, j] = this.buffer(() => this.lowerItem(it));
        if (buf.length) {
          if (active.length) {
            const key = active.join(',');
            if (guarded?.key !== key) {
              flush();
              guarded = { key, flags: [...active], body: [] };
            }
            guarded.body.push(...buf);
          } else {
            flush();
            this.emit(...buf);
          }
        }
        for (const f of j.may) {
          may.add(f);
          if (!active.includes(f)) active.push(f);
        }
        // An item that may jump can set a flag the current guard already
        // tests; the guard was evaluated before the item, so later items
        // need a fresh one.
        if (j.may.size) flush();
        // The rest is dead unless a label makes it reachable.
        if (j.always && !items.slice(i + 1).some((x) => x.kind === 'Label')) {
          flush();
          return { may, always: true };
        }
      }
      flush();
      return { may, always: false };
    } finally {
      this.blockActives.pop();
    }
  }

  /** `L: rest` with backward `goto L` inside: `g := true; while (g) { g := false; rest }` (guarded by the block's active flags). */
  private labelLoop(label: string, rest: BlockItem[], loc: L, active: readonly string[]): Jump {
    const g = this.temp(boolType, `$again_${label}_`);
    this.flagLoc.set(g, loc);
    this.frame.backLabels.set(label, g);
    let body: Stmt[];
    let j: Jump;
    this.loopNesting++;
    try {
      [body, j] = this.buffer(() => this.lowerBlock(rest));
    } finally {
      this.loopNesting--;
      this.frame.backLabels.delete(label);
    }
    const loop = [assign(g, boolLit(true, loc), loc), whiles(v(g, loc), [assign(g, boolLit(false, loc), loc), ...body], loc)];
    if (active.length) this.emit(this.guard(active, loop));
    else this.emit(...loop);
    return { may: new Set([...j.may].filter((f) => f !== g)), always: false };
  }

  /**
   * `if (!(f1 || ...)) { body }`. Its loc is where the first flag is set (a
   * `break`, `return`, `goto`, ... keyword), so it is never mistaken for a
   * C `if` of the source map.
   */
  private guard(flags: readonly string[], body: Stmt[]): Stmt {
    const loc = this.flagLoc.get(flags[0]) ?? body[0].loc;
    return ifs(un('!', orAll(flags.map((f) => v(f, loc)), loc), loc), body, [], loc);
  }
  private setFlag(flag: string, loc: L): void {
    if (!this.flagLoc.has(flag)) this.flagLoc.set(flag, loc);
    this.emit(assign(flag, boolLit(true, loc), loc));
  }

  private lowerItem(s: BlockItem): Jump {
    if (s.kind === 'DeclStmt') {
      this.stmtLoc = s.loc;
      this.lowerDeclaration(s.declaration);
      return NOJUMP;
    }
    return this.lowerStmt(s);
  }

  private lowerDeclaration(d: Declaration): void {
    for (const dc of d.declarators) {
      const decl = dc.decl;
      if (decl.kind !== 'Var') continue; // typedefs, prototypes
      if (decl.storage === 'extern') {
        if (!this.globals.has(decl.id)) throw new UnsupportedError(`block-scope extern '${decl.name}'`, dc.loc);
        continue;
      }
      if (decl.vlaSizes?.length) {
        if (decl.storage === 'static') throw new UnsupportedError('static variable-length array', dc.loc);
        this.declareVla(decl, dc.loc);
      }
      if (decl.storage === 'static') {
        // Initialised once, before main runs.
        if (this.statics.has(decl.id)) continue;
        const root = this.makeRoot(`${decl.name}@${this.fnName}.static`, decl.type, dc.loc, { storage: 'static' });
        this.statics.set(decl.id, root);
        this.recordVariable(decl.name, this.fnName, decl.loc, root);
        const [init] = this.buffer(() => this.initObject(root, decl.type, dc.init ?? decl.init, dc.loc, true));
        this.prologue.push(...init);
        continue;
      }
      const root = this.makeRoot(`${decl.name}@${this.frame.label}`, decl.type, dc.loc);
      this.frame.env.set(decl.id, root);
      if (this.born(root, dc.loc)) this.scopes[this.scopes.length - 1]?.push(root);
      this.recordVariable(decl.name, this.fnName, decl.loc, root);
      this.withVoidTarget(decl, () => this.initObject(root, decl.type, dc.init, dc.loc, false));
    }
  }

  /** Evaluates the sizes of a variable-length array declaration once; a size must be positive. */
  private declareVla(decl: CVarDecl, loc: L): void {
    const sizes = decl.vlaSizes ?? [];
    let t = unqualified(decl.type);
    let k = 0;
    while (t.kind === 'array') {
      if (t.vla) {
        const e = sizes[k++];
        if (!e) throw new UnsupportedError('variable-length array without a size', loc);
        const val = this.rv(e);
        if (val.k !== 'int') throw new UnsupportedError('variable-length array size', loc);
        const w = intWidth(val.ik, this.dm, loc);
        const positive = isSignedKind(val.ik) ? app('sgt', [val.e, bv(0n, w, loc)], loc) : un('!', eq(val.e, bv(0n, w, loc), loc), loc);
        // A size <= 0 is undefined behaviour.
        this.emit(assume(positive, loc));
        const len = this.tempOf(bvType(this.pw), resize(val.e, w, this.pw, isSignedKind(val.ik), loc), loc);
        this.vlaLength.set(t, len);
      }
      t = unqualified(t.element);
    }
  }

  /** The length of an array type as an IMP expression (constant, or a VLA's evaluated size). */
  private arrayLength(t: CType, loc: L): Expr | undefined {
    const u = t.kind === 'array' ? t : undefined;
    if (!u) return undefined;
    if (u.length !== undefined && !u.vla) return bv(BigInt(u.length), this.pw, loc);
    return this.vlaLength.get(t) ?? this.vlaLength.get(unqualified(t));
  }

  private lowerStmt(s: CStmt): Jump {
    switch (s.kind) {
      case 'Compound':
        return this.lowerBlock(s.items);
      case 'ExprStmt':
        this.stmtLoc = s.loc;
        this.rv(s.expr, true);
        return NOJUMP;
      case 'Null':
        return NOJUMP;
      case 'If': {
        this.stmtLoc = s.loc;
        if (s.else && this.gotoIntoElse(s)) return this.ifWithGotoIntoElse(s);
        const c = this.cond(s.condition);
        const [th, tj] = this.buffer(() => this.lowerStmt(s.then));
        const [el, ej] = s.else ? this.buffer(() => this.lowerStmt(s.else!)) : [[], NOJUMP];
        this.map.addBranch({ loc: s.loc, keyword: 'if', function: this.fnName });
        this.emit(ifs(c, th, el, s.loc));
        return { may: new Set([...tj.may, ...ej.may]), always: tj.always && ej.always };
      }
      case 'While':
      case 'DoWhile':
        return this.lowerLoop(s);
      case 'For':
        // The scope of a declaration in the for header.
        return this.inScope(() => this.lowerLoop(s));
      case 'Switch':
        return this.lowerSwitch(s);
      case 'Label':
        if (this.frame.pending.has(s.name)) throw new UnsupportedError(`goto into a nested statement (label '${s.name}')`, s.loc);
        this.frame.labelsSeen.add(s.name);
        return this.lowerStmt(s.body);
      case 'Case':
      case 'Default':
        throw new UnsupportedError('case label outside the top level of a switch body', s.loc);
      case 'Goto': {
        const fr = this.frame;
        const back = fr.backLabels.get(s.label);
        if (back) {
          this.setFlag(back, s.loc);
          return { may: new Set([back]), always: true };
        }
        // Forward gotos: to a label later in an enclosing block (a flag, like break).
        if (fr.labelsSeen.has(s.label)) throw new UnsupportedError('backward goto out of the block of its label', s.loc);
        let f = fr.gotoFlags.get(s.label);
        if (!f) {
          f = this.temp(boolType, `$goto_${s.label}_`);
          fr.gotoFlags.set(s.label, f);
        }
        fr.pending.add(s.label);
        this.setFlag(f, s.loc);
        return { may: new Set([f]), always: true };
      }
      case 'Break': {
        const ctx = this.loops[this.loops.length - 1];
        if (!ctx) throw new UnsupportedError('break outside a loop', s.loc);
        ctx.brk ??= this.temp(boolType, '$brk');
        this.setFlag(ctx.brk, s.loc);
        return { may: new Set([ctx.brk]), always: true };
      }
      case 'Continue': {
        const ctx = [...this.loops].reverse().find((l) => !l.isSwitch);
        if (!ctx) throw new UnsupportedError('continue outside a loop', s.loc);
        ctx.cont ??= this.temp(boolType, '$cont');
        this.setFlag(ctx.cont, s.loc);
        return { may: new Set([ctx.cont]), always: true };
      }
      case 'Return': {
        this.stmtLoc = s.loc;
        const f = this.frame;
        if (s.value) {
          const val = this.rv(s.value);
          if (f.retRoot) this.store({ type: f.fn.type.returnType, alts: [{ root: f.retRoot, path: [] }] }, val, s.loc);
        }
        f.retFlag ??= this.temp(boolType, '$ret');
        this.setFlag(f.retFlag, s.loc);
        return { may: new Set([f.retFlag]), always: true };
      }
      case 'Asm':
        throw new UnsupportedError('inline assembler', s.loc);
    }
  }

  /** Labels at the top level of an if's else branch that gotos in its then branch jump to. */
  private gotoIntoElse(s: Extract<CStmt, { kind: 'If' }>): boolean {
    const items = s.else!.kind === 'Compound' ? s.else!.items : [s.else!];
    return items.some((it) => {
      for (let x: BlockItem = it; x.kind === 'Label'; x = x.body) if (containsGoto(s.then, x.name)) return true;
      return false;
    });
  }

  /**
   * `if (c) { ... goto L; ... } else { ... L: ... }`: `k := c; if (k) {then};
   * if (!k || jumped) {else}`, the else block entered with the goto flags active.
   */
  private ifWithGotoIntoElse(s: Extract<CStmt, { kind: 'If' }>): Jump {
    const c = this.tempOf(boolType, this.cond(s.condition), s.loc);
    const [th, tj] = this.buffer(() => this.lowerStmt(s.then));
    const fr = this.frame;
    const items = s.else!.kind === 'Compound' ? s.else!.items : [s.else!];
    const elseLabels = new Set<string>();
    for (const it of items) for (let x: BlockItem = it; x.kind === 'Label'; x = x.body) elseLabels.add(x.name);
    const flags = [...tj.may].filter((f) => [...fr.gotoFlags.entries()].some(([label, g]) => g === f && fr.pending.has(label) && elseLabels.has(label)));
    const [el, ej] = this.buffer(() => this.lowerBlock(items, flags));
    this.map.addBranch({ loc: s.loc, keyword: 'if', function: this.fnName });
    this.emit(ifs(c, th, [], s.loc));
    const loc = this.flagLoc.get(flags[0]) ?? s.loc;
    this.emit(ifs(or(un('!', c, loc), orAll(flags.map((f) => v(f, loc)), loc), loc), el, [], loc));
    const cleared = (f: string) => [...fr.gotoFlags.entries()].some(([label, g]) => g === f && !fr.pending.has(label));
    return { may: new Set([...tj.may, ...ej.may].filter((f) => !cleared(f))), always: false };
  }

  /**
   * `while (c) S`, `for (i; c; n) S`, `do S while (c)` become an IMP while
   * at the C keyword. With a side-effect-free condition and no break/return
   * in the body: `while (c) { S; n }`; otherwise a condition variable:
   * `k := c; while (k) { S; if (!jumped) { n; k := c } else { k := false } }`.
   */
  private lowerLoop(s: LoopStmt): Jump {
    const kw = s.keywordLoc;
    this.map.addLoop({ loc: kw, keyword: s.kind === 'While' ? 'while' : s.kind === 'For' ? 'for' : 'do', function: this.fnName });
    if (s.kind === 'For' && s.init) {
      this.stmtLoc = s.loc;
      if (s.init.kind === 'Declaration') this.lowerDeclaration(s.init);
      else this.rv(s.init, true);
    }
    const condExpr = s.kind === 'For' ? s.condition : s.condition;
    const condLoc = condExpr?.loc ?? kw;
    const [condPre, c] = this.buffer(() => {
      this.stmtLoc = condLoc;
      return condExpr ? this.cond(condExpr) : boolLit(true, kw);
    });
    const ctx: LoopCtx = { isSwitch: false };
    this.loops.push(ctx);
    let body: Stmt[];
    let bj: Jump;
    let step: Stmt[] = [];
    this.loopNesting++;
    try {
      [body, bj] = this.buffer(() => this.lowerStmt(s.body));
      if (s.kind === 'For' && s.step) {
        const st = s.step;
        [step] = this.buffer(() => {
          this.stmtLoc = st.loc;
          this.rv(st, true);
        });
      }
    } finally {
      this.loops.pop();
      this.loopNesting--;
    }
    const outer = [...bj.may].filter((f) => f !== ctx.brk && f !== ctx.cont);
    const exitFlags = [...(ctx.brk ? [ctx.brk] : []), ...outer];
    if (ctx.cont) body = [assign(ctx.cont, boolLit(false, kw), kw), ...body];
    if (ctx.brk) this.emit(assign(ctx.brk, boolLit(false, kw), kw));
    const notExited = un('!', orAll(exitFlags.map((f) => v(f, kw)), kw), kw);
    if (s.kind !== 'DoWhile' && condPre.length === 0 && exitFlags.length === 0) {
      this.emit(whiles(c, [...body, ...step], kw));
    } else {
      const k = this.temp(boolType, '$loop');
      const next = [...step, ...condPre, assign(k, c, kw)];
      if (s.kind === 'DoWhile') this.emit(assign(k, boolLit(true, kw), kw));
      else this.emit(...condPre, assign(k, c, kw));
      const tail = exitFlags.length ? [ifs(notExited, next, [assign(k, boolLit(false, kw), kw)], kw)] : next;
      this.emit(whiles(v(k, kw), [...body, ...tail], kw));
    }
    // break and continue are consumed here; return flags propagate.
    return { may: new Set(outer), always: false };
  }

  /**
   * A switch whose case labels sit at the top level of its compound body:
   * `m := false`, then each labelled item runs when `m := m || (x == v)`;
   * `default` matches when no case value does. `break` sets the switch's flag.
   */
  private lowerSwitch(s: SwitchStmt): Jump {
    this.stmtLoc = s.loc;
    const x = this.snapshot(this.rv(s.condition), s.condition.loc);
    if (x.k !== 'int') throw new UnsupportedError('switch on a non-integer', s.loc);
    if (s.body.kind !== 'Compound') throw new UnsupportedError('switch without a compound body', s.loc);
    const w = intWidth(x.ik, this.dm, s.loc);
    const top = new Set<CStmt>();
    const caseCond = (c: CStmt): Expr => {
      if (c.kind === 'Case') {
        const lo = bv(c.value, w, c.loc);
        if (c.last === undefined) return eq(x.e, lo, c.loc);
        const sg = isSignedKind(x.ik);
        return and(app(sg ? 'sle' : 'ule', [lo, x.e], c.loc), app(sg ? 'sle' : 'ule', [x.e, bv(c.last, w, c.loc)], c.loc), c.loc);
      }
      return boolLit(false, c.loc);
    };
    const anyCase = orAll(s.cases.filter((c) => c.kind === 'Case').map(caseCond), s.loc);
    // Flatten `case 1: case 2: stmt` chains into label lists per item.
    const items: Array<{ labels: CStmt[]; stmt: BlockItem }> = [];
    for (const it of s.body.items) {
      const labels: CStmt[] = [];
      let cur: BlockItem = it;
      while (cur.kind === 'Case' || cur.kind === 'Default') {
        labels.push(cur);
        top.add(cur);
        cur = cur.body;
      }
      items.push({ labels, stmt: cur });
    }
    for (const c of s.cases) if (!top.has(c)) throw new UnsupportedError('case label nested inside a switch body', c.loc);
    const m = this.temp(boolType, '$sw');
    this.emit(assign(m, boolLit(false, s.loc), s.loc));
    const ctx: LoopCtx = { isSwitch: true };
    this.loops.push(ctx);
    const may = new Set<string>();
    let body: Stmt[];
    try {
      [body] = this.buffer(() => {
        // Each item: update the match flag, then run it guarded by the flag
        // and by "no break/continue/return yet".
        const flags: string[] = [];
        for (const { labels, stmt } of items) {
          if (labels.length) {
            const hit = orAll(labels.map((l) => (l.kind === 'Default' ? un('!', anyCase, l.loc) : caseCond(l))), labels[0].loc);
            this.emit(assign(m, or(v(m, labels[0].loc), hit, labels[0].loc), labels[0].loc));
          }
          const [st, j] = this.buffer(() => this.lowerItem(stmt));
          for (const f of j.may) {
            may.add(f);
            if (!flags.includes(f)) flags.push(f);
          }
          const loc = s.loc; // the switch keyword: not a C branching of the source map
          const guard = and(v(m, loc), un('!', orAll(flags.map((f) => v(f, loc)), loc), loc), loc);
          if (st.length) this.emit(ifs(guard, st, [], loc));
        }
      });
    } finally {
      this.loops.pop();
    }
    // The guard above reads flags set by earlier items; they must start false.
    for (const f of may) if (f === ctx.brk) this.emit(assign(f, boolLit(false, s.loc), s.loc));
    this.emit(...body);
    const outer = [...may].filter((f) => f !== ctx.brk);
    return { may: new Set(outer), always: false };
  }

  // ---- lvalues --------------------------------------------------------------------

  private rootOf(d: CVarDecl, loc: L): Root {
    const r = (this.frames.length ? this.frame.env.get(d.id) : undefined) ?? this.statics.get(d.id) ?? this.globals.get(d.id);
    if (!r) throw new UnsupportedError(`variable '${d.name}' not in scope`, loc);
    return r;
  }

  private lvalue(e: CExpr): LValue {
    switch (e.kind) {
      case 'Identifier':
        if (e.decl.kind !== 'Var') throw new UnsupportedError(`'${e.name}' used as an object`, e.loc);
        return { type: e.decl.type, alts: [{ root: this.rootOf(e.decl, e.loc), path: [] }] };
      case 'Unary':
        if (e.op !== '*') break;
        return this.deref(this.rv(e.operand), e.type, e.loc);
      case 'Index': {
        const base = e.base;
        if (base.kind === 'ImplicitCast' && base.castKind === 'ArrayToPointer') {
          const arr = this.lvalue(base.operand);
          const i = this.index(this.rv(e.index), e.index.loc);
          return this.indexArray(arr, i, e.loc);
        }
        const p = this.rv(base);
        const i = this.index(this.rv(e.index), e.index.loc);
        if (p.k !== 'ptr') throw new UnsupportedError('indexing a non-pointer', e.loc);
        return this.deref({ ...p, off: this.step(p, '+', i, e.loc) }, e.type, e.loc);
      }
      case 'Member': {
        const obj = e.arrow ? this.deref(this.rv(e.object), stripPointer(e.object.type), e.loc) : this.lvalueOrTemp(e.object);
        if (e.path.length > 1) throw new UnsupportedError('member of an anonymous struct or union', e.loc);
        return this.member(obj, e.name, e.type);
      }
      case 'ImplicitCast':
        if (e.castKind === 'NoOp') return this.lvalue(e.operand);
        break;
      case 'StatementExpr':
      case 'Call':
      case 'Assign':
      case 'Conditional':
      case 'Comma':
        return this.lvalueOrTemp(e);
      case 'StringLiteral':
        return { type: e.type, alts: [{ root: this.literal(e), path: [] }] };
      default:
        break;
    }
    throw new UnsupportedError(`lvalue of kind ${e.kind}`, e.loc);
  }

  /** The object of a string literal: its characters and a 0, set before main runs. */
  private literal(e: Extract<CExpr, { kind: 'StringLiteral' }>): Root {
    let root = this.literals.get(e);
    if (root) return root;
    const t = unqualified(e.type);
    const k = t.kind === 'array' ? intKindOf(t.element) : undefined;
    if (e.wide || k === undefined || t.kind !== 'array') throw new UnsupportedError('wide string literal', e.loc);
    root = this.makeRoot('$str', e.type, e.loc, { storage: 'literal' });
    this.literals.set(e, root);
    const w = intWidth(k, this.dm, e.loc);
    const name = leafName(root, []);
    let m: Expr = v(name, e.loc);
    [...e.units, 0].forEach((u, i) => (m = store(m, bv(BigInt(i), this.pw, e.loc), bv(BigInt(u), w, e.loc), e.loc)));
    const h = havoc(name, e.loc);
    this.filledHavocs.add(h);
    this.prologue.push(h, assign(name, m, e.loc));
    return root;
  }

  /** An lvalue, or for a struct rvalue (call result, assignment) the temporary object holding it. */
  private lvalueOrTemp(e: CExpr): LValue {
    if (e.kind === 'Identifier' || e.kind === 'Index' || e.kind === 'Member' || (e.kind === 'Unary' && e.op === '*')) return this.lvalue(e);
    const val = this.rv(e);
    if (val.k !== 'agg') throw new UnsupportedError('member access on a non-struct value', e.loc);
    return val.lv;
  }

  private member(lv: LValue, name: string, type: CType): LValue {
    return { type, alts: lv.alts.map((a) => ({ ...a, path: [...a.path, name] })) };
  }

  /** Element i of an array lvalue: the linear index grows by the array's length at each dimension. */
  private indexArray(arr: LValue, i: Expr, loc: L): LValue {
    const t = unqualified(arr.type);
    if (t.kind !== 'array') throw new UnsupportedError('indexing a non-array', loc);
    return {
      type: t.element,
      alts: arr.alts.map((a) => {
        if (a.index === undefined) return { ...a, index: i };
        const n = this.arrayLength(arr.type, loc) ?? this.arrayLength(t, loc);
        if (n === undefined) throw new UnsupportedError('array of unknown length inside an array', loc);
        return { ...a, index: bin('+', bin('*', a.index, n, loc), i, loc) };
      }),
    };
  }

  /** An integer index converted to pointer width (sign-extended when signed). */
  private index(val: Val, loc: L): Expr {
    if (val.k !== 'int') throw new UnsupportedError('non-integer array index', loc);
    const w = intWidth(val.ik, this.dm, loc);
    return resize(val.e, w, this.pw, isSignedKind(val.ik), loc);
  }

  private regionFor(a: Alt, loc: L): Region {
    const key = regionKey(a.root, a.path, a.view);
    const { type } = typeAtPath(a.root.type, a.path, loc);
    // A pointer into nothing (an earlier pass did not know the target yet): NULL.
    if (a.root.name === NOWHERE) return { id: 0, root: a.root, path: a.path, elem: stripArrays(type) };
    let r = this.regions.get(key);
    if (!r) {
      const known = this.knownRegions?.get(key);
      const elem = a.view ? a.view.elem : stripArrays(type);
      r = { id: known?.id ?? this.maxKnownId + ++this.newRegions, root: a.root, path: a.path, elem, ...(a.view ? { view: a.view } : {}) };
      this.regions.set(key, r);
    }
    return r;
  }

  /** `&lv` (or the decay of an array lvalue, with `arrayLength` its length). */
  private addressOf(lv: LValue, pointee: CType, loc: L, arrayLength?: Expr): Val {
    let base: Expr | undefined;
    let off: Expr | undefined;
    for (const a of [...lv.alts].reverse()) {
      const r = this.regionFor(a, loc);
      let o = a.index ?? bv(0n, this.pw, loc);
      if (arrayLength !== undefined && a.index !== undefined) o = bin('*', o, arrayLength, loc);
      const b = bv(BigInt(r.id), 32, loc);
      base = base === undefined || !a.guard ? b : ite(a.guard, b, base, loc);
      off = off === undefined || !a.guard ? o : ite(a.guard, o, off, loc);
    }
    if (!base || !off) throw new UnsupportedError('address of nothing', loc);
    return { k: 'ptr', base, off, pointee };
  }

  /** `*p`: a case split over the regions whose elements have the pointee type. */
  private deref(p: Val, type: CType, loc: L): LValue {
    if (p.k !== 'ptr') throw new UnsupportedError('dereference of a non-pointer', loc);
    const target = unqualified(type);
    if (target.kind === 'void' || target.kind === 'function') throw new UnsupportedError(`dereference of ${cTypeToString(target)} *`, loc);
    if (target.kind === 'array') throw new UnsupportedError('pointer to an array', loc);
    const all = [...(this.knownRegions?.values() ?? [])];
    const cands = all.filter((r) => sameType(unqualified(r.elem), target));
    const nowhere: LValue = { type, alts: [{ root: { name: NOWHERE, type }, path: [] }] };
    if (cands.length === 0 && this.mem) {
      // No object of this type is ever pointed to: any access through it is invalid.
      this.memGoal('valid-deref', boolLit(false, loc), loc, `dereference of a pointer to no object of type ${cTypeToString(target)}`);
      return nowhere;
    }
    const guards = cands.map((r) => eq(p.base, bv(BigInt(r.id), 32, loc), loc));
    if (!this.mem) {
      // An object of another type read through this pointer is not modelled.
      const others = all.filter((r) => !cands.includes(r)).map((r) => eq(p.base, bv(BigInt(r.id), 32, loc), loc));
      if (this.opensStreams) others.push(eq(p.base, bv(BigInt(STREAM_ID), 32, loc), loc));
      this.uncertain(un('!', orAll(others, loc), loc), loc, `access to an object of another type through a ${cTypeToString(target)} pointer`);
      // A valid program dereferences only valid pointers (the property is not
      // memory safety). With no object of this type at all (the pass's
      // regions are final once they settle, see lowerProgram) the path ends.
      this.emit(assume(orAll(guards, loc), loc));
      if (cands.length === 0) return nowhere;
    }
    return {
      type,
      alts: cands.map((r, i) => ({
        guard: cands.length > 1 ? guards[i] : undefined,
        root: r.root,
        path: r.path,
        index: p.off,
        fromPointer: true,
        ...(this.mem ? { via: guards[i] } : {}),
        ...(r.view ? { view: r.view } : {}),
      })),
    };
  }

  // ---- reading and writing lvalues ---------------------------------------------------

  private leafAccess(a: Alt, path: readonly string[], suffix: string, loc: L): { name: string; mapped: boolean; read: Expr; index: Expr } {
    const full = [...a.path, ...path];
    const name = leafName(a.root, full) + suffix;
    const { mapped } = typeAtPath(a.root.type, full, loc);
    const index = a.index ?? bv(0n, this.pw, loc);
    return { name, mapped, index, read: mapped ? select(v(name, loc), index, loc) : v(name, loc) };
  }

  private readLv(lv: LValue, loc: L): Val {
    const t = unqualified(lv.type);
    if (t.kind === 'record') return { k: 'agg', lv };
    if (t.kind === 'array') throw new UnsupportedError('array used as a value', loc);
    if (lv.alts[0]?.root.name === NOWHERE) return this.dummyVal(t, loc);
    this.checkAccess(lv, loc, false);
    const pick = (suffix: string): Expr => {
      let acc: Expr | undefined;
      for (const a of [...lv.alts].reverse()) {
        const u = this.unionBytes(a, loc);
        const r = u ? u.read : this.leafAccess(a, [], suffix, loc).read;
        acc = acc === undefined || !a.guard ? r : ite(a.guard, r, acc, loc);
      }
      return acc!;
    };
    if (t.kind === 'pointer') return { k: 'ptr', base: pick('.base'), off: pick('.off'), pointee: t.pointee };
    const k = intKindOf(t);
    if (k === undefined) throw new UnsupportedError(`value of type ${cTypeToString(t)}`, loc);
    intWidth(k, this.dm, loc);
    return { k: 'int', e: pick(''), ik: k };
  }

  private dummyVal(t: CType, loc: L): Val {
    if (t.kind === 'pointer') return { k: 'ptr', base: bv(0n, 32, loc), off: bv(0n, this.pw, loc), pointee: t.pointee };
    const k = intKindOf(t);
    if (k === undefined) throw new UnsupportedError(`value of type ${cTypeToString(t)}`, loc);
    return { k: 'int', e: bv(0n, intWidth(k, this.dm, loc), loc), ik: k };
  }

  /**
   * A scalar below a union (see memory.ts, unionPlace): its bytes in the
   * union's byte map, read and written little-endian.
   */
  private unionBytes(a: Alt, loc: L): { read: Expr; write: (value: Expr) => Stmt } | undefined {
    if (a.view) return this.viewBytes(a, a.view, loc);
    const place = unionPlace(a.root.type, a.path, this.dm, loc);
    if (!place) return undefined;
    const k = intKindOf(typeAtPath(a.root.type, a.path, loc).type);
    if (k === undefined) throw new UnsupportedError('a union member that is not an integer', loc);
    const w = intWidth(k, this.dm, loc);
    const pw = this.pw;
    const c = (n: number | bigint) => bv(BigInt(n), pw, loc);
    // The linear index splits into the union's index and the index inside it (mixed radix, last array fastest).
    const idx = a.index ?? c(0);
    const outer = place.innerCount === 1 ? idx : app('udiv', [idx, c(place.innerCount)], loc);
    let inner = place.innerCount === 1 ? c(0) : app('urem', [idx, c(place.innerCount)], loc);
    let addr: Expr = bin('+', bin('*', outer, c(place.size), loc), c(place.offset), loc);
    for (const { length, stride } of [...place.strides].reverse()) {
      const i = length === 1 ? c(0) : app('urem', [inner, c(length)], loc);
      addr = bin('+', addr, bin('*', i, c(stride), loc), loc);
      inner = app('udiv', [inner, c(length)], loc);
    }
    const name = leafName(a.root, place.unionPath) + '.bytes';
    const at = (j: number) => (j === 0 ? addr : bin('+', addr, c(j), loc));
    let read: Expr = select(v(name, loc), at(0), loc);
    if (w > 8) read = resize(read, 8, w, false, loc);
    for (let j = 1; j < w / 8; j++) {
      read = bin('|', read, bin('<<', resize(select(v(name, loc), at(j), loc), 8, w, false, loc), bv(BigInt(8 * j), w, loc), loc), loc);
    }
    const write = (value: Expr): Stmt => {
      let m: Expr = v(name, loc);
      for (let j = 0; j < w / 8; j++) {
        const byte = w === 8 ? value : app('trunc8', [j === 0 ? value : app('lshr', [value, bv(BigInt(8 * j), w, loc)], loc)], loc);
        m = store(m, at(j), byte, loc);
      }
      return assign(name, m, loc);
    };
    return { read, write };
  }

  /**
   * An element of a view (see memory.ts, View): view element j of the stored
   * element j / k, at bits (j mod k)·w of it (little-endian).
   */
  private viewBytes(a: Alt, view: View, loc: L): { read: Expr; write: (value: Expr) => Stmt } {
    const vk = intKindOf(view.elem)!;
    const sk = intKindOf(typeAtPath(a.root.type, a.path, loc).type)!;
    const w = intWidth(vk, this.dm, loc);
    const sw = intWidth(sk, this.dm, loc);
    const acc = this.leafAccess({ ...a, view: undefined }, [], '', loc);
    const idx = a.index ?? bv(0n, this.pw, loc);
    if (view.k === 1) {
      return { read: acc.read, write: (value) => assign(acc.name, acc.mapped ? store(v(acc.name, loc), idx, value, loc) : value, loc) };
    }
    const kk = bv(BigInt(view.k), this.pw, loc);
    const at = app('udiv', [idx, kk], loc);
    const shift = bin('*', resize(app('urem', [idx, kk], loc), this.pw, sw, false, loc), bv(BigInt(w), sw, loc), loc);
    const whole = acc.mapped ? select(v(acc.name, loc), at, loc) : acc.read;
    const read = resize(app('lshr', [whole, shift], loc), sw, w, false, loc);
    const write = (value: Expr): Stmt => {
      const mask = bin('<<', bv((1n << BigInt(w)) - 1n, sw, loc), shift, loc);
      const merged = bin('|', bin('&', whole, un('~', mask, loc), loc), bin('<<', resize(value, w, sw, false, loc), shift, loc), loc);
      return assign(acc.name, acc.mapped ? store(v(acc.name, loc), at, merged, loc) : merged, loc);
    };
    return { read, write };
  }

  private writePart(a: Alt, path: readonly string[], suffix: string, value: Expr, loc: L): void {
    const u = this.unionBytes({ ...a, path: [...a.path, ...path] }, loc);
    if (u) {
      this.emit(a.guard ? ifs(a.guard, [u.write(value)], [], loc) : u.write(value));
      return;
    }
    const acc = this.leafAccess(a, path, suffix, loc);
    const val = a.guard ? ite(a.guard, value, acc.read, loc) : value;
    this.emit(assign(acc.name, acc.mapped ? store(v(acc.name, loc), acc.index, val, loc) : val, loc));
  }

  /** Stores a value (already of the lvalue's type, or converted here) into an lvalue. */
  private store(lv: LValue, val: Val, loc: L): void {
    if (lv.alts[0]?.root.name === NOWHERE) return;
    const t = unqualified(lv.type);
    if (t.kind === 'record') {
      if (val.k !== 'agg') throw new UnsupportedError('struct assigned from a non-struct', loc);
      this.copyAggregate(lv, val.lv, loc);
      return;
    }
    if (t.kind === 'array') throw new UnsupportedError('array assignment', loc);
    const c = this.convert(val, t, loc);
    this.checkAccess(lv, loc, true);
    // Evaluate the value once even when several places may be written.
    if (c.k === 'ptr') {
      const s = lv.alts.length > 1 ? this.snapshot(c, loc) : c;
      if (s.k !== 'ptr') return;
      for (const a of lv.alts) {
        this.writePart(a, [], '.base', s.base, loc);
        this.writePart(a, [], '.off', s.off, loc);
      }
    } else if (c.k === 'int') {
      const s = lv.alts.length > 1 ? this.snapshot(c, loc) : c;
      if (s.k !== 'int') return;
      for (const a of lv.alts) this.writePart(a, [], '', s.e, loc);
    }
  }

  private copyAggregate(dst: LValue, src: LValue, loc: L): void {
    if (src.alts[0]?.root.name === NOWHERE) return;
    this.checkAccess(src, loc, false);
    this.checkAccess(dst, loc, true);
    const leaves = leavesOf(dst.type, loc);
    // Read every source leaf first (the objects may overlap).
    const reads: Array<{ path: readonly string[]; suffix: string; value: Expr; whole: boolean; element?: number; count?: number; byteAt?: (a: Alt) => Expr }> = [];
    for (const leaf of leaves) {
      for (const [suffix, it] of scalarParts(leaf.type, this.dm, loc)) {
        const wholeMap = leaf.mapped;
        if (wholeMap) {
          // An array member: copy the whole map when neither side is itself inside an array.
          const ok = src.alts.length === 1 && dst.alts.length === 1 && !src.alts[0].guard && !dst.alts[0].guard
            && src.alts[0].index === undefined && dst.alts[0].index === undefined;
          if (ok) {
            reads.push({ path: leaf.path, suffix, value: v(leafName(src.alts[0].root, [...src.alts[0].path, ...leaf.path]) + suffix, loc), whole: true });
            continue;
          }
          // Inside an array or through a pointer: element by element (element j of
          // the struct at linear index I is at I * count + j).
          if (leaf.bytes) {
            // A union: its bytes, one by one (union j of the struct at linear index I is at bytes (I * count + j) * size).
            const n = leaf.count;
            const size = sizeOfElem(leaf.type, this.dm);
            if (n === undefined || !size || n * size > ZERO_FILL_LIMIT) throw new UnsupportedError('copy of a large union inside an array or through a pointer', loc);
            for (let j = 0; j < n; j++) {
              for (let b = 0; b < size; b++) {
                const byteAt = (a: Alt) => bin('+', bin('*', this.elementOf(a, j, n, loc).index!, bv(BigInt(size), this.pw, loc), loc), bv(BigInt(b), this.pw, loc), loc);
                let acc: Expr | undefined;
                for (const a of [...src.alts].reverse()) {
                  const r = select(v(leafName(a.root, [...a.path, ...leaf.path]) + suffix, loc), byteAt(a), loc);
                  acc = acc === undefined || !a.guard ? r : ite(a.guard, r, acc, loc);
                }
                reads.push({ path: leaf.path, suffix, value: this.tempOf(it, acc!, loc), whole: false, byteAt });
              }
            }
            continue;
          }
          const n = leaf.count;
          if (n === undefined || n > ZERO_FILL_LIMIT) throw new UnsupportedError('copy of a struct with a large array member inside an array or through a pointer', loc);
          for (let j = 0; j < n; j++) {
            let acc: Expr | undefined;
            for (const a of [...src.alts].reverse()) {
              const r = this.leafAccess(this.elementOf(a, j, n, loc), leaf.path, suffix, loc).read;
              acc = acc === undefined || !a.guard ? r : ite(a.guard, r, acc, loc);
            }
            reads.push({ path: leaf.path, suffix, value: this.tempOf(it, acc!, loc), whole: false, element: j, count: n });
          }
          continue;
        }
        let acc: Expr | undefined;
        for (const a of [...src.alts].reverse()) {
          const r = this.leafAccess(a, leaf.path, suffix, loc).read;
          acc = acc === undefined || !a.guard ? r : ite(a.guard, r, acc, loc);
        }
        const tmp = this.tempOf(it, acc!, loc);
        reads.push({ path: leaf.path, suffix, value: tmp, whole: false });
      }
    }
    for (const r of reads) {
      if (r.whole) {
        this.emit(assign(leafName(dst.alts[0].root, [...dst.alts[0].path, ...r.path]) + r.suffix, r.value, loc));
        continue;
      }
      if (r.byteAt) {
        for (const a of dst.alts) {
          const name = leafName(a.root, [...a.path, ...r.path]) + r.suffix;
          const at = r.byteAt(a);
          const value = a.guard ? ite(a.guard, r.value, select(v(name, loc), at, loc), loc) : r.value;
          this.emit(assign(name, store(v(name, loc), at, value, loc), loc));
        }
        continue;
      }
      for (const a of dst.alts) this.writePart(r.element === undefined ? a : this.elementOf(a, r.element, r.count!, loc), r.path, r.suffix, r.value, loc);
    }
  }

  /** Element j of an array member (n elements per struct) of the struct an alt designates. */
  private elementOf(a: Alt, j: number, n: number, loc: L): Alt {
    const jj = bv(BigInt(j), this.pw, loc);
    return { ...a, index: a.index === undefined ? jj : bin('+', bin('*', a.index, bv(BigInt(n), this.pw, loc), loc), jj, loc) };
  }

  /**
   * Relational comparison and subtraction of pointers are defined only
   * within one object (C11 6.5.6p9, 6.5.8p5); across objects the result
   * depends on the layout, which is not modelled: UNKNOWN there. Returns the
   * offsets, named.
   */
  private sameObject(l: Val & { k: 'ptr' }, r: Val & { k: 'ptr' }, what: string, loc: L): { lo: Expr; ro: Expr } {
    const lb = this.named(bvType(32), l.base, loc);
    const rb = this.named(bvType(32), r.base, loc);
    const lo = this.named(bvType(this.pw), l.off, loc);
    const ro = this.named(bvType(this.pw), r.off, loc);
    const sameBlock = [...(this.knownRegions?.values() ?? [])]
      .filter((x) => x.root.blocks)
      .map((x) => {
        const sh = bv(BigInt(x.root.blocks!.shift), this.pw, loc);
        return or(un('!', eq(lb, bv(BigInt(x.id), 32, loc), loc), loc), eq(app('lshr', [lo, sh], loc), app('lshr', [ro, sh], loc), loc), loc);
      });
    this.uncertain(andAll([eq(lb, rb, loc), ...sameBlock], loc), loc, what);
    return { lo, ro };
  }

  // ---- conversions -------------------------------------------------------------------

  /**
   * A pointer converted between integer types (`(unsigned char *)&x`,
   * `(char *)ints`, and back): it moves to a view of the stored elements
   * (see memory.ts, View), its index scaled to the new element size. A
   * pointer back to a larger type must be aligned to it; a pointer into a
   * union, a block of a site inside a loop or an object of another type is
   * UNKNOWN. Undefined when the types are not integers.
   */
  private viewConversion(val: Val & { k: 'ptr' }, from: CType, target: CType, loc: L): (Val & { k: 'ptr' }) | undefined {
    const fk = intKindOf(from);
    const tk = intKindOf(target);
    if (fk === undefined || tk === undefined || fk === 'bool' || tk === 'bool') return undefined;
    const ts = sizeOfElem(target, this.dm)!;
    const moves: Array<{ from: Region; to: Region; off: Expr; ok: Expr }> = [];
    const base = this.named(bvType(32), val.base, loc);
    const off = this.named(bvType(this.pw), val.off, loc);
    const c = (n: number) => bv(BigInt(n), this.pw, loc);
    for (const r of this.knownRegions?.values() ?? []) {
      if (!sameType(unqualified(r.elem), unqualified(from)) || r.root.blocks || r.root.name === NOWHERE) continue;
      if (unionPlace(r.root.type, r.path, this.dm, loc)) continue;
      const stored = stripArrays(typeAtPath(r.root.type, r.path, loc).type);
      const ss = sizeOfElem(stored, this.dm);
      // A _Bool holds 0 or 1 only: its bytes are not free to write.
      if (!ss || ss % ts !== 0 || intKindOf(stored) === undefined || intKindOf(stored) === 'bool') continue;
      const k0 = r.view?.k ?? 1;
      const k = ss / ts;
      const view: View | undefined = k === 1 && sameType(unqualified(stored), unqualified(target)) ? undefined : { k, elem: unqualified(target) };
      const to = this.regionFor({ root: r.root, path: r.path, ...(view ? { view } : {}) }, loc);
      const at = eq(base, bv(BigInt(r.id), 32, loc), loc);
      if (k >= k0) moves.push({ from: r, to, off: k === k0 ? off : bin('*', off, c(k / k0), loc), ok: at });
      else moves.push({ from: r, to, off: app('udiv', [off, c(k0 / k)], loc), ok: and(at, eq(app('urem', [off, c(k0 / k)], loc), c(0), loc), loc) });
    }
    const what = `pointer conversion from ${cTypeToString(from)} * to ${cTypeToString(target)} *`;
    this.uncertain(or(eq(base, bv(0n, 32, loc), loc), orAll(moves.map((m) => m.ok), loc), loc), loc, `${what} of a pointer to another object or not aligned`);
    let b: Expr = base;
    let o: Expr = off;
    for (const m of moves) {
      const at = eq(base, bv(BigInt(m.from.id), 32, loc), loc);
      b = ite(at, bv(BigInt(m.to.id), 32, loc), b, loc);
      o = ite(at, m.off, o, loc);
    }
    return { ...val, base: b, off: o };
  }

  /** The known regions of r's first members (the same addresses as r's elements, see firstMembers). */
  private firstMemberRegions(r: Region): Region[] {
    const paths = new Set(firstMembers(r.elem).map((m) => [...r.path, ...m.path].join('.')));
    if (paths.size === 0) return [];
    return [...(this.knownRegions?.values() ?? [])].filter((x) => !x.view && x.root.name === r.root.name && paths.has(x.path.join('.')));
  }

  /**
   * A pointer converted between a struct and its first member (at offset 0,
   * through nested first members): `(struct list_head *)item` designates the
   * member, `(struct item *)head` the struct around it. Pointers are typed
   * (region, index), so the region changes and the index stays. A pointer
   * to a `from` object that is not such a member (a lone `struct list_head`)
   * is UNKNOWN; undefined when the types are not related so.
   */
  private firstMemberConversion(val: Val & { k: 'ptr' }, from: CType, target: CType, loc: L): (Val & { k: 'ptr' }) | undefined {
    const down = firstMembers(from).find((m) => sameType(unqualified(m.type), target));
    const up = down ? undefined : firstMembers(target).find((m) => sameType(unqualified(m.type), from));
    if (!down && !up) return undefined;
    const regions = [...(this.knownRegions?.values() ?? [])].filter((r) => !r.view && sameType(unqualified(r.elem), from));
    const moves: Array<{ from: Region; to: Region }> = [];
    for (const r of regions) {
      if (down) {
        moves.push({ from: r, to: this.regionFor({ root: r.root, path: [...r.path, ...down.path] }, loc) });
        continue;
      }
      const n = up!.path.length;
      const prefix = r.path.slice(0, r.path.length - n);
      if (r.path.length < n || r.path.slice(r.path.length - n).join('.') !== up!.path.join('.')) continue;
      if (!sameType(stripArrays(typeAtPath(r.root.type, prefix, loc).type), target)) continue;
      moves.push({ from: r, to: this.regionFor({ root: r.root, path: prefix }, loc) });
    }
    const base = this.named(bvType(32), val.base, loc);
    const at = (r: Region) => eq(base, bv(BigInt(r.id), 32, loc), loc);
    this.uncertain(or(eq(base, bv(0n, 32, loc), loc), orAll(moves.map((m) => at(m.from)), loc), loc), loc, `pointer conversion from ${cTypeToString(from)} * to ${cTypeToString(target)} * of a pointer to another object`);
    let out: Expr = base;
    for (const m of moves) out = ite(at(m.from), bv(BigInt(m.to.id), 32, loc), out, loc);
    return { ...val, base: out };
  }

  private convert(val: Val, to: CType, loc: L): Val {
    const t = unqualified(to);
    if (t.kind === 'void') return VOID;
    if (t.kind === 'record') {
      if (val.k !== 'agg') throw new UnsupportedError('conversion to a struct', loc);
      return val;
    }
    if (t.kind === 'pointer') {
      if (val.k === 'ptr') {
        const from = unqualified(val.pointee);
        const target = unqualified(t.pointee);
        if (!(from.kind === 'void' || target.kind === 'void' || sameType(from, target) || sameType(stripArrays(from), stripArrays(target)))) {
          const moved = this.viewConversion(val, from, target, loc) ?? this.firstMemberConversion(val, from, target, loc);
          if (!moved) throw new UnsupportedError(`pointer conversion from ${cTypeToString(val.pointee)} * to ${cTypeToString(t.pointee)} *`, loc);
          return { ...moved, pointee: t.pointee };
        }
        return { ...val, pointee: t.pointee };
      }
      if (val.k === 'int' && val.e.kind === 'bv_lit' && val.e.value === 0n) {
        return { k: 'ptr', base: bv(0n, 32, loc), off: bv(0n, this.pw, loc), pointee: t.pointee };
      }
      throw new UnsupportedError('conversion of an integer to a pointer', loc);
    }
    const k = intKindOf(t);
    if (k === undefined) throw new UnsupportedError(`conversion to ${cTypeToString(t)}`, loc);
    const w = intWidth(k, this.dm, loc);
    if (val.k === 'ptr') {
      if (k === 'bool') return { k: 'int', e: ite(un('!', eq(val.base, bv(0n, 32, loc), loc), loc), bv(1n, 8, loc), bv(0n, 8, loc), loc), ik: k };
      throw new UnsupportedError('conversion of a pointer to an integer', loc);
    }
    if (val.k !== 'int') throw new UnsupportedError(`conversion of a ${val.k === 'agg' ? 'struct' : 'void'} value to ${cTypeToString(t)}`, loc);
    if (k === 'bool') {
      if (val.ik === 'bool') return val;
      return { k: 'int', e: this.boolToInt(this.truthy(val, loc), 'bool', loc), ik: 'bool' };
    }
    const fw = intWidth(val.ik, this.dm, loc);
    return { k: 'int', e: resize(val.e, fw, w, isSignedKind(val.ik), loc), ik: k };
  }

  private boolToInt(c: Expr, k: IntegerKind, loc: L): Expr {
    const w = intWidth(k, this.dm, loc);
    // `x != 0` read back as an int is just `ite(...)`.
    return ite(c, bv(1n, w, loc), bv(0n, w, loc), loc);
  }

  private truthy(val: Val, loc: L): Expr {
    if (val.k === 'int') {
      const e = val.e;
      // ite(c, 1, 0) != 0  ==>  c
      if (e.kind === 'ite' && e.then.kind === 'bv_lit' && e.then.value === 1n && e.else.kind === 'bv_lit' && e.else.value === 0n) return e.cond;
      if (e.kind === 'bv_lit') return boolLit(e.value !== 0n, loc);
      return un('!', eq(e, bv(0n, intWidth(val.ik, this.dm, loc), loc), loc), loc);
    }
    if (val.k === 'ptr') return un('!', eq(val.base, bv(0n, 32, loc), loc), loc);
    throw new UnsupportedError('condition of non-scalar type', loc);
  }

  // ---- expressions -----------------------------------------------------------------

  /** An expression as a condition (IMP bool). */
  private cond(e: CExpr): Expr {
    if (e.kind === 'Binary') {
      if (e.op === '&&' || e.op === '||') return this.shortCircuit(e);
      if (['<', '>', '<=', '>=', '==', '!='].includes(e.op)) return this.compare(e);
    }
    if (e.kind === 'Unary' && e.op === '!') return un('!', this.cond(e.operand), e.loc);
    if (e.kind === 'ImplicitCast' && (e.castKind === 'IntegralToBoolean' || e.castKind === 'PointerToBoolean')) return this.cond(e.operand);
    return this.truthy(this.rv(e), e.loc);
  }

  private shortCircuit(e: Binary): Expr {
    const isAnd = e.op === '&&';
    const l = this.cond(e.left);
    const [pre, r] = this.buffer(() => this.cond(e.right));
    if (pre.length === 0) return isAnd ? and(l, r, e.loc) : or(l, r, e.loc);
    const t = this.temp(boolType);
    this.emit(assign(t, l, e.loc));
    const branch = [...pre, assign(t, r, e.loc)];
    this.emit(ifs(isAnd ? v(t, e.loc) : un('!', v(t, e.loc), e.loc), branch, [], e.loc));
    return v(t, e.loc);
  }

  private compare(e: Binary): Expr {
    const l = this.rv(e.left);
    const r = this.rv(e.right);
    const loc = e.loc;
    if (l.k === 'ptr' || r.k === 'ptr') {
      const lp = l.k === 'ptr' ? l : this.convert(l, e.right.type, loc);
      const rp = r.k === 'ptr' ? r : this.convert(r, e.left.type, loc);
      if (lp.k !== 'ptr' || rp.k !== 'ptr') throw new UnsupportedError('pointer comparison', loc);
      let same = and(eq(lp.base, rp.base, loc), eq(lp.off, rp.off, loc), loc);
      // A struct and its first member are one address in two regions.
      const known = [...(this.knownRegions?.values() ?? [])];
      const pairs: Array<readonly [Region, Region, number, number]> = known.flatMap((r) => this.firstMemberRegions(r).map((m) => [r, m, 1, 1] as const));
      // Views of one stored region (and the region itself): equal at equal byte offsets.
      for (const [i, a] of known.entries()) {
        for (const b of known.slice(i + 1)) {
          if (a.root.name !== b.root.name || a.path.join('.') !== b.path.join('.') || (!a.view && !b.view)) continue;
          pairs.push([a, b, sizeOfElem(a.elem, this.dm) ?? 1, sizeOfElem(b.elem, this.dm) ?? 1]);
        }
      }
      if (pairs.length && (e.op === '==' || e.op === '!=')) {
        const lb = this.named(bvType(32), lp.base, loc);
        const rb = this.named(bvType(32), rp.base, loc);
        const lo = this.named(bvType(this.pw), lp.off, loc);
        const ro = this.named(bvType(this.pw), rp.off, loc);
        const is = (b: Expr, r: Region) => eq(b, bv(BigInt(r.id), 32, loc), loc);
        const scaled = (o: Expr, m: number) => (m === 1 ? o : bin('*', o, bv(BigInt(m), this.pw, loc), loc));
        const across = pairs.map(([a, b, ma, mb]) =>
          or(and(and(is(lb, a), is(rb, b), loc), eq(scaled(lo, ma), scaled(ro, mb), loc), loc), and(and(is(lb, b), is(rb, a), loc), eq(scaled(lo, mb), scaled(ro, ma), loc), loc), loc),
        );
        same = or(and(eq(lb, rb, loc), eq(lo, ro, loc), loc), orAll(across, loc), loc);
      }
      switch (e.op) {
        case '==': return same;
        case '!=': return un('!', same, loc);
        default: {
          // Relational comparison: defined only within one object (C11 6.5.8p5);
          // across objects the result depends on the layout, which is not modelled.
          const { lo, ro } = this.sameObject(lp, rp, 'relational comparison of pointers into different objects', loc);
          const fn = { '<': 'slt', '>': 'sgt', '<=': 'sle', '>=': 'sge' } as const;
          return app(fn[e.op as '<' | '>' | '<=' | '>='], [lo, ro], loc);
        }
      }
    }
    if (l.k !== 'int' || r.k !== 'int') throw new UnsupportedError('comparison of non-scalars', loc);
    const sg = isSignedKind(l.ik);
    switch (e.op) {
      case '==': return eq(l.e, r.e, loc);
      case '!=': return un('!', eq(l.e, r.e, loc), loc);
      case '<': return app(sg ? 'slt' : 'ult', [l.e, r.e], loc);
      case '>': return app(sg ? 'sgt' : 'ugt', [l.e, r.e], loc);
      case '<=': return app(sg ? 'sle' : 'ule', [l.e, r.e], loc);
      case '>=': return app(sg ? 'sge' : 'uge', [l.e, r.e], loc);
    }
    throw new UnsupportedError(`comparison ${e.op}`, loc);
  }

  /** An expression's value; `discard` when only its side effects matter. */
  private rv(e: CExpr, discard = false): Val {
    switch (e.kind) {
      case 'IntegerLiteral': {
        const k = intKindOf(e.type);
        if (k === undefined) throw new UnsupportedError('integer literal of a non-integer type', e.loc);
        return { k: 'int', e: bv(e.value, intWidth(k, this.dm, e.loc), e.loc), ik: k };
      }
      case 'FloatLiteral':
        throw new UnsupportedError('floating-point constant', e.loc);
      case 'StringLiteral':
        // A literal whose value is discarded (`("tag", f(x))`) has no effect; elsewhere it decays to a pointer first.
        if (discard) return VOID;
        throw new UnsupportedError('string literal', e.loc);
      case 'Identifier': {
        const d = e.decl;
        if (d.kind === 'EnumConstant') {
          const k = intKindOf(e.type) ?? 'int';
          return { k: 'int', e: bv(d.value, intWidth(k, this.dm, e.loc), e.loc), ik: k };
        }
        if (d.kind === 'Function') throw new UnsupportedError('function used as a value', e.loc);
        return this.readLv(this.lvalue(e), e.loc);
      }
      case 'Unary':
        return this.unary(e);
      case 'IncDec':
        return this.incDec(e, discard);
      case 'Binary':
        return this.binary(e);
      case 'Assign':
        return this.assignExpr(e, discard);
      case 'Conditional':
        return this.conditional(e, discard);
      case 'Comma':
        this.rv(e.left, true);
        return this.rv(e.right, discard);
      case 'Call':
        return this.call(e, discard);
      case 'Member':
      case 'Index':
        return this.readLv(this.lvalue(e), e.loc);
      case 'Cast':
        if (unqualified(e.type).kind === 'void') {
          this.rv(e.operand, true);
          return VOID;
        }
        return this.allocation(e.operand, e.type) ?? this.convert(this.typedRv(e.operand, e.type), e.type, e.loc);
      case 'ImplicitCast':
        return this.implicitCast(e, discard);
      case 'SizeOf':
      case 'OffsetOf': {
        if (e.value === undefined) throw new UnsupportedError('sizeof of a variable-length array', e.loc);
        const k = intKindOf(e.type) ?? 'uint';
        return { k: 'int', e: bv(e.value, intWidth(k, this.dm, e.loc), e.loc), ik: k };
      }
      case 'CompoundLiteral':
        throw new UnsupportedError('compound literal', e.loc);
      case 'StatementExpr': {
        const items = e.body.items;
        const last = items[items.length - 1];
        if (last && last.kind === 'ExprStmt' && unqualified(e.type).kind !== 'void') {
          const j = this.lowerBlock(items.slice(0, -1));
          if (j.may.size) throw new UnsupportedError('jump out of a statement expression', e.loc);
          this.stmtLoc = last.loc;
          return this.snapshot(this.rv(last.expr), last.loc);
        }
        const j = this.lowerBlock(items);
        if (j.may.size) throw new UnsupportedError('jump out of a statement expression', e.loc);
        return VOID;
      }
      case 'VaArg':
        throw new UnsupportedError('va_arg', e.loc);
      case 'BuiltinCall': {
        if (e.name === '__builtin_alloca') {
          const to = this.allocTypes[this.allocTypes.length - 1];
          const typed = to && this.allocation(e, to);
          if (typed) return typed;
        }
        return this.builtinCall(e.name, e.args, e.type, e.loc);
      }
    }
  }

  private builtinCall(name: string, args: readonly CExpr[], returnType: CType, loc: L): Val {
    switch (name) {
      case '__builtin_expect':
        if (args.length !== 2) break;
        {
          const r = this.rv(args[0]);
          this.rv(args[1], true);
          return r;
        }
      case '__builtin_abort':
      case '__builtin_trap':
      case '__builtin_unreachable':
        for (const a of args) this.rv(a, true);
        this.endOfRun(loc);
        this.emit(assume(boolLit(false, loc), loc));
        return VOID;
      case '__builtin_alloca':
        throw new UnsupportedError('alloca whose result is not converted to a typed pointer', loc);
      default:
        if (name.startsWith('__builtin_') && LIBRARY_FUNCTIONS.has(name.slice(10))) return this.library.call(name.slice(10), args, returnType, loc);
        break;
    }
    throw new UnsupportedError(`built-in '${name}'`, loc);
  }

  /**
   * A `void *` operand converted to `T *` (`int *a = xmalloc(n)`): an
   * allocation whose result is not converted itself (`void *p = malloc(n)`
   * inside the wrapper) while it is lowered makes a block of T elements. An
   * access to such a block at another type is, as for any object, not
   * modelled (UNKNOWN).
   */
  private typedRv(operand: CExpr, to: CType): Val {
    const t = unqualified(to);
    const from = unqualified(operand.type);
    if (t.kind !== 'pointer' || from.kind !== 'pointer' || unqualified(from.pointee).kind !== 'void') return this.rv(operand);
    const elem = unqualified(t.pointee);
    if (elem.kind === 'void' || elem.kind === 'function' || elem.kind === 'array') return this.rv(operand);
    this.allocTypes.push(t);
    try {
      return this.rv(operand);
    } finally {
      this.allocTypes.pop();
    }
  }

  /**
   * For a `void *` variable of the current function that the function
   * converts to one pointer type T only (`void *p = malloc(n); int *a =
   * p;`): f runs with T as the type of untyped allocations (see typedRv).
   */
  private withVoidTarget<T>(decl: CVarDecl, f: () => T): T {
    const t = unqualified(decl.type);
    if (t.kind !== 'pointer' || unqualified(t.pointee).kind !== 'void' || !this.frames.length) return f();
    const targets = conversionsOf(this.frame.fn.body, decl);
    const first = targets[0];
    if (!first || !targets.every((x) => sameType(unqualified(x), unqualified(first)))) return f();
    const elem = unqualified(first.kind === 'pointer' ? first.pointee : first);
    if (elem.kind === 'void' || elem.kind === 'function' || elem.kind === 'array') return f();
    this.allocTypes.push(first);
    try {
      return f();
    } finally {
      this.allocTypes.pop();
    }
  }

  /**
   * `(T *)malloc(n)` / `calloc(k, n)` / `alloca(n)`: a fresh object of
   * elements of T (never NULL, as the rules say). Only outside loops: one
   * object per call site must stand for one allocation.
   */
  private allocation(operand: CExpr, to: CType): Val | undefined {
    let e = operand;
    while ((e.kind === 'ImplicitCast' && e.castKind === 'NoOp') || (e.kind === 'Cast' && unqualified(e.type).kind === 'pointer')) e = e.operand;
    const t = unqualified(to);
    // <alloca.h> defines alloca as __builtin_alloca.
    const name = e.kind === 'Call' && e.function && !e.function.body ? e.function.name : e.kind === 'BuiltinCall' ? e.name.replace(/^__builtin_alloca$/, 'alloca') : undefined;
    if ((e.kind !== 'Call' && e.kind !== 'BuiltinCall') || t.kind !== 'pointer' || name === undefined || !ALLOCATORS.has(name)) return undefined;
    const loc = e.loc;
    const looped = this.loopNesting > 0;
    if (looped && name !== 'malloc' && name !== 'calloc') throw new UnsupportedError(`${name} inside a loop`, loc);
    const elem = unqualified(t.pointee);
    if (elem.kind === 'void' || elem.kind === 'function' || elem.kind === 'array') throw new UnsupportedError(`${name} of ${cTypeToString(t)}`, loc);
    const all = e.args.map((a) => this.rv(a));
    // realloc(p, n): the size is the second argument; p's block is copied and ends.
    const old = name === 'realloc' && all.length === 2 ? this.snapshot(all[0]!, loc) : undefined;
    if (name === 'realloc' && !old) throw new UnsupportedError(`realloc with ${all.length} arguments`, loc);
    const args = old ? all.slice(1).map((a) => this.snapshot(a, loc)) : all;
    const heap = name === 'malloc' || name === 'calloc' || name === 'realloc';
    if (looped) return this.allocationInLoop(`$heap@${loc.line}:${loc.column}`, name, elem, args, loc);
    let root = this.makeRoot(`$heap@${loc.line}:${loc.column}`, { kind: 'array', element: elem }, loc);
    this.havocObject(root, loc, this.memoryHavocs);
    if (this.mem) {
      // The block's element count: its size in bytes over the element size (a partial element is outside).
      const bytes = args.map((a) => {
        if (a.k !== 'int') throw new UnsupportedError(`${name} with a non-integer size`, loc);
        return resize(a.e, intWidth(a.ik, this.dm, loc), this.pw, isSignedKind(a.ik), loc);
      });
      const esize = sizeOfElem(elem, this.dm);
      if (!esize) throw new UnsupportedError(`${name} of elements of unknown size`, loc);
      const total = bytes.length === 2 ? bin('*', bytes[0], bytes[1], loc) : bytes[0];
      if (!total || bytes.length > 2) throw new UnsupportedError(`${name} with ${args.length} arguments`, loc);
      const countVar = `${root.name}$count`;
      this.used.add(countVar);
      this.declare(countVar, bvType(this.pw));
      root = { ...root, storage: heap ? 'heap' : 'alloca', countVar };
      if (heap) this.allocates = true;
      this.emit(assign(countVar, app('udiv', [total, bv(BigInt(esize), this.pw, loc)], loc), loc));
      this.setLive(root, boolLit(true, loc), loc);
      if (!heap) this.frame.dying.push(root);
    }
    if (old) this.reallocFrom(old, root, args[0]!, loc);
    if (name === 'calloc') {
      // Zero-filled: exact for a small constant size, else the elements start arbitrary (over-approximation).
      const size = args.length === 2 && args.every((a) => a.k === 'int' && a.e.kind === 'bv_lit')
        ? (args as Array<{ e: { value: bigint } }>).reduce((p, a) => p * a.e.value, 1n)
        : undefined;
      const esize = BigInt(sizeOfElem(elem, this.dm) ?? 0);
      const count = size !== undefined && esize > 0n ? Number(size / esize) : undefined;
      const lv: LValue = { type: { kind: 'array', element: elem, ...(count !== undefined ? { length: count } : {}) }, alts: [{ root, path: [] }] };
      if (count !== undefined && count <= ZERO_FILL_LIMIT) {
        for (let i = 0; i < count; i++) this.zeroInit(this.indexArray(lv, bv(BigInt(i), this.pw, loc), loc), loc);
      } else {
        this.approximations.push(`${formatLoc(loc)}: the elements of the calloc'ed object start arbitrary`);
      }
    }
    return this.addressOf({ type: { kind: 'array', element: elem }, alts: [{ root, path: [] }] }, elem, loc);
  }

  /**
   * The new block of `realloc(p, n)` takes the elements of p's block (all of
   * its leaf maps: past the old end they are as arbitrary as a fresh
   * block's), then p's block ends as by `free(p)`. p NULL: a plain malloc.
   * A size of 0 (implementation-defined) and a block of an allocation site
   * inside a loop (its blocks share maps at other offsets) are UNKNOWN.
   */
  private reallocFrom(old: Val, to: Root, size: Val, loc: L): void {
    if (old.k !== 'ptr' || size.k !== 'int') throw new UnsupportedError('realloc of a non-pointer', loc);
    this.uncertain(un('!', eq(size.e, bv(0n, intWidth(size.ik, this.dm, loc), loc), loc), loc), loc, 'realloc to size 0');
    const elem = stripArrays(to.type);
    const at = (id: number) => eq(old.base, bv(BigInt(id), 32, loc), loc);
    const blocks = [...(this.knownRegions?.values() ?? [])].filter(
      (r) => r.path.length === 0 && !r.view && unqualified(r.root.type).kind === 'array' && sameType(unqualified(r.elem), elem),
    );
    // The bytes of a block of another element type would be reinterpreted: not modelled.
    this.uncertain(or(eq(old.base, bv(0n, 32, loc), loc), orAll(blocks.map((r) => at(r.id)), loc), loc), loc, `realloc of a block of another element type than ${cTypeToString(elem)}`);
    for (const r of blocks) {
      if (r.root.blocks) {
        this.uncertain(un('!', at(r.id), loc), loc, 'realloc of a block allocated inside a loop');
        continue;
      }
      for (const leaf of leavesOf(to.type, loc)) {
        for (const [suffix] of scalarParts(leaf.type, this.dm, loc)) {
          const dst = leafName(to, leaf.path) + suffix;
          this.emit(assign(dst, ite(at(r.id), v(leafName(r.root, leaf.path) + suffix, loc), v(dst, loc), loc), loc));
        }
      }
    }
    if (this.mem) this.release(old, 'realloc', loc);
    else this.uncertain(or(eq(old.base, bv(0n, 32, loc), loc), eq(old.off, bv(0n, this.pw, loc), loc), loc), loc, 'realloc of a pointer inside a block');
  }

  /**
   * `(T *)malloc(n)` inside a loop: the next block of the site's root. Its
   * elements were never written (each block has fresh offsets), so they hold
   * the arbitrary values the root's maps started with.
   */
  private allocationInLoop(name: string, fn: string, elem: CType, args: Val[], loc: L): Val {
    // One root per site, shared by all inlined copies: the block number tells blocks apart.
    const site = this.siteRoots.get(name) ?? this.makeLoopSite(name, elem, loc);
    const bl = site.blocks!;
    if (args.length !== (fn === 'calloc' ? 2 : 1)) throw new UnsupportedError(`${fn} with ${args.length} arguments`, loc);
    const sizes = args.map((a) => {
      if (a.k !== 'int') throw new UnsupportedError(`${fn} with a non-integer size`, loc);
      return resize(a.e, intWidth(a.ik, this.dm, loc), this.pw, isSignedKind(a.ik), loc);
    });
    const esize = sizeOfElem(elem, this.dm);
    if (!esize) throw new UnsupportedError(`${fn} of elements of unknown size`, loc);
    const total = sizes.length === 2 ? (sizes.every((x) => x.kind === 'bv_lit') ? bv((sizes[0] as { value: bigint }).value * (sizes[1] as { value: bigint }).value, this.pw, loc) : bin('*', sizes[0]!, sizes[1]!, loc)) : sizes[0]!;
    const count = total.kind === 'bv_lit' ? bv(total.value / BigInt(esize), this.pw, loc) : app('udiv', [total, bv(BigInt(esize), this.pw, loc)], loc);
    // calloc: a block's elements start zero; written one by one, so the count must be a small constant.
    if (fn === 'calloc' && (count.kind !== 'bv_lit' || count.value > BigInt(ZERO_FILL_LIMIT))) {
      throw new UnsupportedError(`calloc inside a loop whose count is not a constant of at most ${ZERO_FILL_LIMIT} elements`, loc);
    }
    const limit = bv(1n << BigInt(bl.shift), this.pw, loc);
    this.uncertain(and(app('ult', [v(bl.made, loc), limit], loc), app('ule', [count, limit], loc), loc), loc, 'more or larger blocks at one allocation site than the model holds');
    const block = this.tempOf(bvType(this.pw), v(bl.made, loc), loc);
    const one = bv(1n, this.pw, loc);
    this.emit(
      assign(bl.made, bin('+', v(bl.made, loc), one, loc), loc),
      assign(bl.counts, store(v(bl.counts, loc), block, count, loc), loc),
      assign(bl.lives, store(v(bl.lives, loc), block, boolLit(true, loc), loc), loc),
      assign(bl.alive, bin('+', v(bl.alive, loc), one, loc), loc),
    );
    this.allocates = true;
    const p = this.addressOf({ type: { kind: 'array', element: elem }, alts: [{ root: site, path: [] }] }, elem, loc);
    if (p.k !== 'ptr') throw new UnsupportedError('allocation', loc);
    const start = this.tempOf(bvType(this.pw), bin('<<', block, bv(BigInt(bl.shift), this.pw, loc), loc), loc);
    if (fn === 'calloc' && count.kind === 'bv_lit') {
      for (let j = 0n; j < count.value; j++) {
        this.zeroInit({ type: elem, alts: [{ root: site, path: [], index: bin('+', start, bv(j, this.pw, loc), loc) }] }, loc);
      }
    }
    return { ...p, off: start };
  }

  /** The root of an allocation site inside a loop (its maps start arbitrary, no block made). */
  private makeLoopSite(name: string, elem: CType, loc: L): Root {
    const base = this.fresh(name);
    const names = { made: `${base}$made`, counts: `${base}$counts`, lives: `${base}$lives`, alive: `${base}$alive` };
    for (const n of Object.values(names)) this.used.add(n);
    const pwt = bvType(this.pw);
    this.declare(names.made, pwt);
    this.declare(names.alive, pwt);
    this.declare(names.counts, leafImpType(pwt, true, this.dm));
    this.declare(names.lives, leafImpType(boolType, true, this.dm));
    const root: Root = { name: base, type: { kind: 'array', element: elem }, storage: 'heap', blocks: { ...names, shift: this.pw / 2 } };
    // A union's byte addresses (element index times size) could wrap at a block's high offset.
    if (leavesOf(root.type, loc).some((l) => l.bytes)) throw new UnsupportedError('a union in a block allocated inside a loop', loc);
    for (const leaf of leavesOf(root.type, loc)) {
      for (const [suffix, t] of scalarParts(leaf.type, this.dm, loc)) {
        const n = leafName(root, leaf.path) + suffix;
        this.declare(n, leafImpType(t, leaf.mapped, this.dm));
        const h = havoc(n, loc);
        this.memoryHavocs.add(h);
        this.liveInit.push(h);
      }
    }
    const zero = bv(0n, this.pw, loc);
    this.liveInit.push(havoc(names.counts, loc), havoc(names.lives, loc), assign(names.made, zero, loc), assign(names.alive, zero, loc));
    this.siteRoots.set(name, root);
    return root;
  }

  /** Stores zero into every scalar of an lvalue (no arrays inside). */
  private zeroInit(lv: LValue, loc: L): void {
    const t = unqualified(lv.type);
    if (t.kind === 'record') {
      for (const f of t.record.fields ?? []) {
        if (!f.name) throw new UnsupportedError('anonymous struct member', loc);
        this.zeroInit(this.member(lv, f.name, f.type), loc);
      }
      return;
    }
    if (t.kind === 'array') throw new UnsupportedError('calloc of structs with array members', loc);
    this.store(lv, this.dummyVal(t, loc), loc);
  }

  private implicitCast(e: Extract<CExpr, { kind: 'ImplicitCast' }>, discard: boolean): Val {
    switch (e.castKind) {
      case 'ArrayToPointer': {
        const lv = this.lvalue(e.operand);
        const at = unqualified(lv.type);
        if (at.kind !== 'array') throw new UnsupportedError('array decay of a non-array', e.loc);
        if (unqualified(at.element).kind === 'array') throw new UnsupportedError('pointer to an array', e.loc);
        const n = this.arrayLength(lv.type, e.loc) ?? this.arrayLength(at, e.loc);
        if (n === undefined && lv.alts.some((a) => a.index !== undefined)) throw new UnsupportedError('array of unknown length inside an array', e.loc);
        return this.addressOf(lv, at.element, e.loc, n);
      }
      case 'FunctionToPointer': {
        const f = stripCasts(e.operand);
        if (f?.kind === 'Identifier' && f.decl.kind === 'Function') return this.functionPointer(f.decl, e.loc);
        throw new UnsupportedError('function pointer', e.loc);
      }
      case 'ToVoid':
        this.rv(e.operand, true);
        return VOID;
      case 'NoOp':
        return this.rv(e.operand, discard);
      case 'IntegralToFloating':
      case 'FloatingToIntegral':
      case 'FloatingToBoolean':
      case 'FloatingCast':
        throw new UnsupportedError('floating-point conversion', e.loc);
      case 'IntegralToPointer':
      case 'NullToPointer':
      case 'PointerCast':
        return this.allocation(e.operand, e.type) ?? this.convert(this.typedRv(e.operand, e.type), e.type, e.loc);
      case 'PointerToBoolean':
      case 'PointerToIntegral':
      case 'IntegralCast':
      case 'IntegralToBoolean':
        return this.convert(this.rv(e.operand), e.type, e.loc);
    }
  }

  private unary(e: Extract<CExpr, { kind: 'Unary' }>): Val {
    const loc = e.loc;
    switch (e.op) {
      case '&': {
        const op = e.operand;
        if (op.kind === 'Unary' && op.op === '*') return this.convert(this.rv(op.operand), e.type, loc);
        if (op.kind === 'Identifier' && op.decl.kind === 'Function') return this.functionPointer(op.decl, loc);
        const lv = this.lvalue(op);
        if (unqualified(lv.type).kind === 'array') throw new UnsupportedError('pointer to an array', loc);
        return this.addressOf(lv, lv.type, loc);
      }
      case '*':
        return this.readLv(this.lvalue(e), loc);
      case '!':
        return { k: 'int', e: this.boolToInt(un('!', this.cond(e.operand), loc), intKindOf(e.type) ?? 'int', loc), ik: intKindOf(e.type) ?? 'int' };
      case '+':
        return this.rv(e.operand);
      case '-':
      case '~': {
        const x = this.rv(e.operand);
        if (x.k !== 'int') throw new UnsupportedError(`'${e.op}' on a non-integer`, loc);
        const w = intWidth(x.ik, this.dm, loc);
        if (e.op === '-' && isSignedKind(x.ik) && this.options.passes.includes('overflow')) {
          this.goal('overflow', un('!', eq(x.e, bv(minSigned(w), w, loc), loc), loc), loc, `signed overflow in -${integerKindName(x.ik)}`);
        }
        return { k: 'int', e: un(e.op, x.e, loc), ik: x.ik };
      }
    }
  }

  /**
   * Integer arithmetic in the (already converted) operation type `ik`, with
   * the no-overflow check for signed types and `assume` for the undefined
   * cases that are not overflow (division by zero, bad shift amounts).
   */
  private arith(op: string, a: Expr, b: Expr, ik: IntegerKind, bk: IntegerKind, loc: L): Expr {
    const w = intWidth(ik, this.dm, loc);
    const sg = isSignedKind(ik);
    const checking = this.options.passes.includes('overflow') && sg;
    const what = `signed overflow in ${integerKindName(ik)} ${op} ${integerKindName(ik)}`;
    const MIN = bv(minSigned(w), w, loc);
    const MINUS1 = bv(-1n, w, loc);
    const ZERO = bv(0n, w, loc);
    switch (op) {
      case '+':
      case '-':
      case '*': {
        const r = bin(op, a, b, loc);
        if (checking) this.goal('overflow', this.noOverflow(op, a, b, w, loc), loc, what);
        return r;
      }
      case '/':
      case '%': {
        this.emit(assume(un('!', eq(b, ZERO, loc), loc), loc));
        if (sg) {
          const ovf = and(eq(a, MIN, loc), eq(b, MINUS1, loc), loc);
          if (checking) this.goal('overflow', un('!', ovf, loc), loc, what);
          // INT_MIN / -1 traps on x86: no execution goes on.
          else this.emit(assume(un('!', ovf, loc), loc));
        }
        return app(op === '/' ? (sg ? 'sdiv' : 'udiv') : sg ? 'srem' : 'urem', [a, b], loc);
      }
      case '&':
      case '|':
      case '^':
        return bin(op, a, b, loc);
      case '<<':
      case '>>': {
        // The amount has its own promoted type `bk`; it must be in [0, w).
        const bw = intWidth(bk, this.dm, loc);
        const bsg = isSignedKind(bk);
        this.emit(assume(app(bsg ? 'slt' : 'ult', [b, bv(BigInt(w), bw, loc)], loc), loc));
        if (bsg) this.emit(assume(app('sge', [b, bv(0n, bw, loc)], loc), loc));
        const amount = resize(b, bw, w, false, loc);
        if (op === '>>') return app(sg ? 'ashr' : 'lshr', [a, amount], loc);
        if (checking) {
          // E1 << E2 for signed E1: E1 >= 0 and E1 * 2^E2 representable.
          const ok = and(
            app('sge', [a, ZERO], loc),
            eq(app('lshr', [a, bin('-', bv(BigInt(w - 1), w, loc), amount, loc)], loc), ZERO, loc),
            loc,
          );
          this.goal('overflow', ok, loc, `signed overflow in ${integerKindName(ik)} << ${integerKindName(bk)}`);
        }
        return bin('<<', a, amount, loc);
      }
    }
    throw new UnsupportedError(`operator ${op}`, loc);
  }

  /** The mathematical result of a signed + - * fits in w bits. */
  private noOverflow(op: '+' | '-' | '*', a: Expr, b: Expr, w: BvWidth, loc: L): Expr {
    if (w <= 32) {
      const W = (w * 2) as BvWidth;
      const aa = resize(a, w, W, true, loc);
      const bb = resize(b, w, W, true, loc);
      const r = bin(op, aa, bb, loc);
      return and(app('sge', [r, bv(minSigned(w), W, loc)], loc), app('sle', [r, bv(maxSigned(w), W, loc)], loc), loc);
    }
    const ZERO = bv(0n, w, loc);
    const neg = (x: Expr) => app('slt', [x, ZERO], loc);
    const r = bin(op, a, b, loc);
    if (op === '+') return un('!', and(eq(neg(a), neg(b), loc), un('!', eq(neg(r), neg(a), loc), loc), loc), loc);
    if (op === '-') return un('!', and(un('!', eq(neg(a), neg(b), loc), loc), un('!', eq(neg(r), neg(a), loc), loc), loc), loc);
    // 64-bit multiplication without a wider type: multiply the magnitudes in
    // 32-bit halves (a division-based check is far harder for the solver).
    const na = neg(a);
    const nb = neg(b);
    const ua = ite(na, un('-', a, loc), a, loc);
    const ub = ite(nb, un('-', b, loc), b, loc);
    const K32 = bv(32n, w, loc);
    const LOW = bv(0xffffffffn, w, loc);
    const ah = app('lshr', [ua, K32], loc);
    const bh = app('lshr', [ub, K32], loc);
    const al = bin('&', ua, LOW, loc);
    const bl = bin('&', ub, LOW, loc);
    const cross = bin('+', bin('*', ah, bl, loc), bin('*', al, bh, loc), loc);
    const hi = bin('<<', cross, K32, loc);
    const sum = bin('+', hi, bin('*', al, bl, loc), loc);
    const limit = ite(eq(na, nb, loc), bv(maxSigned(w), w, loc), bv(-minSigned(w), w, loc), loc);
    return andAll(
      [
        or(eq(ah, ZERO, loc), eq(bh, ZERO, loc), loc),
        app('ult', [cross, bv(1n << 32n, w, loc)], loc),
        app('uge', [sum, hi], loc),
        app('ule', [sum, limit], loc),
      ],
      loc,
    );
  }

  private binary(e: Binary): Val {
    const loc = e.loc;
    switch (e.op) {
      case '&&':
      case '||':
      case '<':
      case '>':
      case '<=':
      case '>=':
      case '==':
      case '!=': {
        const k = intKindOf(e.type) ?? 'int';
        return { k: 'int', e: this.boolToInt(this.cond(e), k, loc), ik: k };
      }
    }
    const l = this.rv(e.left);
    const r = this.rv(e.right);
    if (l.k === 'ptr' || r.k === 'ptr') return this.pointerArith(e, l, r);
    if (l.k !== 'int' || r.k !== 'int') throw new UnsupportedError(`operator ${e.op} on non-integers`, loc);
    const k = intKindOf(e.type);
    if (k === undefined) throw new UnsupportedError(`operator ${e.op} of type ${cTypeToString(e.type)}`, loc);
    return { k: 'int', e: this.arith(e.op, l.e, r.e, k, r.ik, loc), ik: k };
  }

  /**
   * The offset of `p op i`. The model counts a region's elements; where only
   * runs of them are adjacent in memory (the member of each element of an
   * array of structs), a step out of the run reaches other members' bytes in
   * the program but another element's member in the model: not modelled.
   */
  private step(p: Val & { k: 'ptr' }, op: '+' | '-', i: Expr, loc: L): Expr {
    const off = bin(op, p.off, i, loc);
    if (i.kind === 'bv_lit' && i.value === 0n) return off;
    const conds: Expr[] = [];
    const names = new Set<string>();
    for (const r of this.knownRegions?.values() ?? []) {
      if (!sameType(unqualified(r.elem), unqualified(p.pointee))) continue;
      const run = regionLayout(r.root.type, r.path, this.dm).run;
      if (run === undefined) continue;
      const len = run * (r.view?.k ?? 1);
      const at = eq(p.base, bv(BigInt(r.id), 32, loc), loc);
      const stays = len === 1 ? eq(i, bv(0n, this.pw, loc), loc) : app('ult', [bin(op, app('urem', [p.off, bv(BigInt(len), this.pw, loc)], loc), i, loc), bv(BigInt(len), this.pw, loc)], loc);
      conds.push(or(un('!', at, loc), stays, loc));
      names.add(r.path[r.path.length - 1]!);
    }
    if (conds.length) this.uncertain(andAll(conds, loc), loc, `pointer arithmetic out of the member ${[...names].map((n) => `'${n}'`).join(', ')} of an array element (the other members' bytes are not modelled)`);
    return off;
  }

  private pointerArith(e: Binary, l: Val, r: Val): Val {
    const loc = e.loc;
    if (l.k === 'ptr' && r.k === 'ptr') {
      if (e.op !== '-') throw new UnsupportedError(`operator ${e.op} on two pointers`, loc);
      const k = intKindOf(e.type);
      if (k === undefined) throw new UnsupportedError('pointer difference', loc);
      const { lo, ro } = this.sameObject(l, r, 'subtraction of pointers into different objects', loc);
      const d = bin('-', lo, ro, loc);
      return { k: 'int', e: resize(d, this.pw, intWidth(k, this.dm, loc), true, loc), ik: k };
    }
    const p = (l.k === 'ptr' ? l : r) as Extract<Val, { k: 'ptr' }>;
    const n = l.k === 'ptr' ? r : l;
    const i = this.index(n, loc);
    if (unqualified(p.pointee).kind === 'void') {
      // GNU arithmetic on void * counts bytes; the offset counts the object's elements.
      const bytes = [...(this.knownRegions?.values() ?? [])].filter((x) => sizeOfElem(x.elem, this.dm) === 1).map((x) => eq(p.base, bv(BigInt(x.id), 32, loc), loc));
      this.uncertain(or(eq(i, bv(0n, this.pw, loc), loc), orAll(bytes, loc), loc), loc, 'arithmetic on a void * into an object of elements larger than a byte');
    }
    if (e.op === '+') return { ...p, off: this.step(p, '+', i, loc) };
    if (e.op === '-' && l.k === 'ptr') return { ...p, off: this.step(p, '-', i, loc) };
    throw new UnsupportedError(`operator ${e.op} on a pointer`, loc);
  }

  private assignExpr(e: Assign, discard: boolean): Val {
    const loc = e.loc;
    if (e.op === '=') {
      const t = e.target.kind === 'Identifier' && e.target.decl.kind === 'Var' ? e.target.decl : undefined;
      const val = t ? this.withVoidTarget(t, () => this.rv(e.value)) : this.rv(e.value);
      const lv = this.lvalue(e.target);
      const s = discard ? val : this.snapshot(this.convert(val, lv.type, loc), loc);
      this.store(lv, s, loc);
      return discard ? VOID : unqualified(lv.type).kind === 'record' ? { k: 'agg', lv } : s;
    }
    // Compound assignment: lv = (T)((CT)lv op (CT)value).
    const op = e.op.slice(0, -1);
    const val = this.rv(e.value);
    const lv = this.lvalue(e.target);
    const ct = e.computationType ?? e.target.type;
    const old = this.readLv(lv, loc);
    let result: Val;
    if (old.k === 'ptr') {
      if (op !== '+' && op !== '-') throw new UnsupportedError(`${e.op} on a pointer`, loc);
      const i = this.index(val, loc);
      result = { ...old, off: this.step(old, op as '+' | '-', i, loc) };
    } else {
      const a = this.convert(old, ct, loc);
      const shift = op === '<<' || op === '>>';
      const b = shift ? val : this.convert(val, ct, loc);
      if (a.k !== 'int' || b.k !== 'int') throw new UnsupportedError(`${e.op} on non-integers`, loc);
      result = { k: 'int', e: this.arith(op, a.e, b.e, a.ik, b.ik, loc), ik: a.ik };
    }
    const conv = this.convert(result, lv.type, loc);
    const s = discard ? conv : this.snapshot(conv, loc);
    this.store(lv, s, loc);
    return discard ? VOID : s;
  }

  private incDec(e: IncDec, discard: boolean): Val {
    const loc = e.loc;
    const lv = this.lvalue(e.operand);
    const old0 = this.readLv(lv, loc);
    const old = discard || e.prefix ? old0 : this.snapshot(old0, loc);
    const op = e.op === '++' ? '+' : '-';
    let next: Val;
    if (old.k === 'ptr') {
      next = { ...old, off: this.step(old, op, bv(1n, this.pw, loc), loc) };
    } else if (old.k === 'int') {
      // The operand is promoted (C11 6.5.3.1: E += 1), then converted back.
      const pk = promote(old.ik, this.dm);
      const a = this.convert(old, { kind: 'integer', name: pk }, loc);
      if (a.k !== 'int') throw new UnsupportedError('++/--', loc);
      const one = bv(1n, intWidth(pk, this.dm, loc), loc);
      next = this.convert({ k: 'int', e: this.arith(op, a.e, one, pk, pk, loc), ik: pk }, lv.type, loc);
    } else {
      throw new UnsupportedError('++/-- on a non-scalar', loc);
    }
    const s = discard || !e.prefix ? next : this.snapshot(next, loc);
    this.store(lv, s, loc);
    if (discard) return VOID;
    return e.prefix ? s : old;
  }

  private conditional(e: Extract<CExpr, { kind: 'Conditional' }>, discard: boolean): Val {
    const loc = e.questionLoc;
    this.map.addBranch({ loc, keyword: '?', function: this.fnName });
    const type = unqualified(e.type);
    if (e.then === undefined) {
      // GNU a ?: b — a is evaluated once.
      const a = this.snapshot(this.rv(e.condition), e.condition.loc);
      const c = this.truthy(a, loc);
      const [pre, b] = this.buffer(() => this.rv(e.else));
      return this.merge(c, [], this.convert(a, type, loc), pre, this.convert(b, type, loc), type, loc, discard);
    }
    const c = this.cond(e.condition);
    const [preA, a] = this.buffer(() => this.rv(e.then!, discard));
    const [preB, b] = this.buffer(() => this.rv(e.else, discard));
    if (type.kind === 'void' || discard) {
      this.emit(ifs(c, preA, preB, loc));
      return VOID;
    }
    return this.merge(c, preA, this.convert(a, type, loc), preB, this.convert(b, type, loc), type, loc, false);
  }

  private merge(c: Expr, preA: Stmt[], a: Val, preB: Stmt[], b: Val, type: CType, loc: L, discard: boolean): Val {
    if (discard) {
      if (preA.length || preB.length) this.emit(ifs(c, preA, preB, loc));
      return VOID;
    }
    if (a.k === 'int' && b.k === 'int') {
      if (!preA.length && !preB.length) return { k: 'int', e: ite(c, a.e, b.e, loc), ik: a.ik };
      const t = this.temp(bvType(intWidth(a.ik, this.dm, loc)));
      this.emit(ifs(c, [...preA, assign(t, a.e, loc)], [...preB, assign(t, b.e, loc)], loc));
      return { k: 'int', e: v(t, loc), ik: a.ik };
    }
    if (a.k === 'ptr' && b.k === 'ptr') {
      if (!preA.length && !preB.length) return { k: 'ptr', base: ite(c, a.base, b.base, loc), off: ite(c, a.off, b.off, loc), pointee: a.pointee };
      const tb = this.temp(bvType(32));
      const to = this.temp(bvType(this.pw));
      this.emit(ifs(c, [...preA, assign(tb, a.base, loc), assign(to, a.off, loc)], [...preB, assign(tb, b.base, loc), assign(to, b.off, loc)], loc));
      return { k: 'ptr', base: v(tb, loc), off: v(to, loc), pointee: a.pointee };
    }
    if (a.k === 'agg' && b.k === 'agg') {
      const root = this.makeRoot('$agg', type, loc);
      const lv: LValue = { type, alts: [{ root, path: [] }] };
      const [sa] = this.buffer(() => this.store(lv, a, loc));
      const [sb] = this.buffer(() => this.store(lv, b, loc));
      this.emit(ifs(c, [...preA, ...sa], [...preB, ...sb], loc));
      return { k: 'agg', lv };
    }
    throw new UnsupportedError(`conditional of type ${cTypeToString(type)}`, loc);
  }
}

function promote(k: IntegerKind, dm: DataModel): IntegerKind {
  switch (k) {
    case 'bool':
    case 'char':
    case 'schar':
    case 'uchar':
    case 'short':
    case 'ushort':
      return 'int';
    default:
      void dm;
      return k;
  }
}

function stripCasts(e: CExpr | undefined): CExpr | undefined {
  let x = e;
  while (x && (x.kind === 'ImplicitCast' || x.kind === 'Cast')) x = x.operand;
  return x;
}

/** A string literal or `__func__`-like char array argument (possibly converted to a pointer). */
function isStringArg(e: CExpr): boolean {
  const x = stripCasts(e)!;
  if (x.kind === 'StringLiteral') return true;
  if (x.kind === 'Identifier' && x.decl.kind === 'Var') {
    const t = unqualified(x.decl.type);
    return t.kind === 'array' && intKindOf(t.element) !== undefined && /^__(func|FUNCTION|PRETTY_FUNCTION)__$/.test(x.name);
  }
  return false;
}

/** Functions whose address is taken somewhere (a function designator not called directly). */
function addressTakenFunctions(program: CProgram): FunctionDecl[] {
  const found = new Set<FunctionDecl>();
  const seen = new Set<object>();
  const walk = (x: unknown, called: boolean): void => {
    if (!x || typeof x !== 'object' || seen.has(x)) return;
    seen.add(x);
    const o = x as Record<string, unknown>;
    if (o.kind === 'Identifier' && (o.decl as { kind?: string })?.kind === 'Function' && !called) found.add(o.decl as FunctionDecl);
    for (const [k, val] of Object.entries(o)) {
      if (k === 'type' || k === 'decl' || k === 'loc' || k === 'function') continue;
      // The callee of a direct call (through its FunctionToPointer cast) does not take the address.
      const isCallee = o.kind === 'Call' && k === 'callee' && o.function !== undefined;
      const direct = (y: unknown): boolean => {
        const c = y as Record<string, unknown>;
        return c?.kind === 'Identifier' || (c?.kind === 'ImplicitCast' && direct(c.operand));
      };
      if (Array.isArray(val)) val.forEach((y) => walk(y, false));
      else if (isCallee && direct(val)) walkCallee(val);
      else walk(val, false);
    }
  };
  const walkCallee = (x: unknown): void => {
    const c = x as Record<string, unknown>;
    if (c.kind === 'ImplicitCast') walkCallee(c.operand);
    else walk(c, true);
  };
  walk(program.functions.map((f) => f.body), false);
  walk(program.globals.map((g) => g.init), false);
  return program.functions.filter((f) => found.has(f));
}

/** True when the statements contain `goto label`. */
function containsGoto(node: unknown, label: string): boolean {
  const seen = new Set<object>();
  const walk = (x: unknown): boolean => {
    if (!x || typeof x !== 'object' || seen.has(x)) return false;
    seen.add(x);
    const o = x as Record<string, unknown>;
    if (o.kind === 'Goto' && o.label === label) return true;
    for (const [k, val] of Object.entries(o)) {
      if (k === 'type' || k === 'decl' || k === 'loc' || k === 'function') continue;
      if (Array.isArray(val) ? val.some(walk) : walk(val)) return true;
    }
    return false;
  };
  return walk(node);
}

/** True when an identifier in the AST below `node` refers to `decl`. */
/** The pointer types a variable's value is converted to (casts whose operand is the variable) in a subtree. */
function conversionsOf(node: unknown, decl: object): CType[] {
  const out: CType[] = [];
  const seen = new Set<object>();
  const skip = new Set(['type', 'decl', 'loc', 'function', 'field', 'path', 'keywordLoc', 'rparenLoc', 'questionLoc', 'whileLoc', 'end', 'cases']);
  const walk = (x: unknown): void => {
    if (!x || typeof x !== 'object' || seen.has(x)) return;
    seen.add(x);
    const o = x as Record<string, unknown>;
    if (o.kind === 'ImplicitCast' || o.kind === 'Cast') {
      let operand = o.operand as CExpr;
      while (operand.kind === 'ImplicitCast' && operand.castKind === 'NoOp') operand = operand.operand;
      const to = unqualified(o.type as CType);
      if (operand.kind === 'Identifier' && operand.decl === decl && to.kind === 'pointer' && unqualified(to.pointee).kind !== 'void') out.push(to);
    }
    for (const [k, val] of Object.entries(o)) {
      if (skip.has(k)) continue;
      if (Array.isArray(val)) val.forEach(walk);
      else walk(val);
    }
  };
  walk(node);
  return out;
}

function usesDecl(node: unknown, decl: object): boolean {
  const seen = new Set<object>();
  const skip = new Set(['type', 'decl', 'loc', 'function', 'field', 'path', 'keywordLoc', 'rparenLoc', 'questionLoc', 'whileLoc', 'end', 'cases']);
  const walk = (x: unknown): boolean => {
    if (!x || typeof x !== 'object' || seen.has(x)) return false;
    seen.add(x);
    const o = x as Record<string, unknown>;
    if (o.kind === 'Identifier' && o.decl === decl) return true;
    for (const [k, val] of Object.entries(o)) {
      if (skip.has(k)) continue;
      if (Array.isArray(val) ? val.some(walk) : walk(val)) return true;
    }
    return false;
  };
  return walk(node);
}

function stripPointer(t: CType): CType {
  const u = unqualified(t);
  return u.kind === 'pointer' ? u.pointee : u;
}

function formatLoc(loc: L): string {
  return `${loc.file}:${loc.line}:${loc.column}`;
}

/**
 * Lowers a C program to one IMP procedure `main`. Never throws for C it does
 * not model: the result then has `unsupported` set (verdict UNKNOWN).
 */
export function lowerProgram(program: CProgram, options: LowerOptions): LoweredProgram {
  const attempt = (known?: ReadonlyMap<string, Region>) => {
    const l = new Lowerer(program, options, known);
    const imp = l.run();
    return { l, imp };
  };
  try {
    // Pointer targets: each pass dereferences among the objects whose address
    // the previous pass saw taken, until no new one appears.
    let known: ReadonlyMap<string, Region> | undefined;
    let { l, imp } = attempt();
    for (let pass = 1; ; pass++) {
      const stable = known !== undefined && l.regions.size === known.size && [...l.regions.keys()].every((k) => known!.has(k));
      if (stable || l.regions.size === 0) break;
      if (pass >= 6) throw new UnsupportedError('pointer targets that do not settle', { file: program.file, line: 1, column: 1, offset: 0 });
      known = l.regions;
      ({ l, imp } = attempt(known));
    }
    return {
      imp,
      sourceMap: l.map.build(),
      ...(l.approximations.length ? { approximations: l.approximations } : {}),
      ...(l.filledHavocs.size ? { filledHavocs: l.filledHavocs } : {}),
      ...(l.memoryHavocs.size ? { memoryHavocs: l.memoryHavocs } : {}),
      ...(l.notes.size ? { notes: [...l.notes] } : {}),
      ...(l.allocates ? { allocates: true } : {}),
    };
  } catch (err) {
    if (err instanceof UnsupportedError) {
      return {
        imp: { kind: 'program', file: program.file, globals: [], procedures: [] },
        sourceMap: new SourceMapBuilder(program.file).build(),
        unsupported: { construct: err.construct, loc: err.loc },
      };
    }
    throw err;
  }
}

/**
 * Lowering of a typed C program to one IMP procedure `main` with exact C
 * integer semantics on bit-vectors. Calls are inlined; recursion is inlined
 * to a bound and cut with an assertion of kind `recursion`. See
 * source-map.ts for how IMP statements are tied back to C, and memory.ts for
 * the object model.
 */
import type { CompoundStmt, CProgram, Expr as CExpr, FunctionDecl } from '../c/ast.js';
import type { CType, DataModel } from '../c/types.js';
import { isSignedKind, typeToString as cTypeToString, unqualified } from '../c/types.js';
import type { BvWidth, Expr, ImpProgram, ImpType, Stmt, VarDecl } from '../ivl/ast.js';
import { bvType, rmodeType } from '../ivl/ast.js';
import { assert, assign, assume, havoc, type L, v } from './imp-build.js';
import {
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
  scalarParts,
} from './memory.js';
import { Library } from './library.js';
import { type GoalKind, SourceMapBuilder } from './source-map.js';
import { type AssumptionReason, type InstrumentationPass, type LoweredProgram, type LowerOptions, type SummarisedCall } from './types.js';
import { type Frame, type LoopCtx, LIBRARY_OBJECT_FUNCTIONS } from './common.js';
import { MemorySafetyChecks } from './checks/memory-safety.js';
import { OverflowChecks } from './checks/overflow.js';
import { LvalueLowering } from './lvalues.js';
import { ObjectLowering } from './objects.js';
import { RecursionLowering } from './recursion.js';
import { CallLowering } from './calls.js';
import { InputLowering } from './input.js';
import { StatementLowering } from './statements.js';
import { ConversionLowering } from './conversions.js';
import { ExpressionLowering } from './expressions.js';
import { ThreadLowering, ThreadModel, markPthreadTypes, startsThreads } from './threads.js';
import { FloatLowering, ROUNDING_VAR } from './float-lowering.js';
import { convertsIntegersToPointers } from './conversions.js';

/**
 * The lowering's state and its entry (`run`). Its methods live in one module per
 * concern (TypeScript mixins: each module's class holds methods whose `this` is the
 * Lowerer; they are copied onto the Lowerer's prototype below).
 */
export interface Lowerer extends MemorySafetyChecks, OverflowChecks, LvalueLowering, ObjectLowering, RecursionLowering, CallLowering, InputLowering, StatementLowering, ConversionLowering, ExpressionLowering, FloatLowering, ThreadLowering {}

export class Lowerer {
  out: Stmt[] = [];
  readonly prologue: Stmt[] = [];
  readonly decls = new Map<string, ImpType>();
  readonly used = new Set<string>();
  readonly suffix = new Map<string, number>();
  /** Function bodies inlined so far (recursive calls are cut beyond MAX_INSTANCES). */
  instances = 0;
  inliningBudgetSpent = false;
  /** The arguments of the entry function of a summary check (see RecursionSummaries). */
  entryArgs: readonly Val[] | undefined;
  /** The entry function's parameter havocs and result (see LoweredProgram.entry). */
  entry: LoweredProgram['entry'];
  /** See LoweredProgram.summarisedCalls. */
  readonly summarisedCalls = new Map<Stmt, SummarisedCall>();
  readonly globals = new Map<number, Root>();
  readonly statics = new Map<number, Root>();
  readonly frames: Frame[] = [];
  readonly loops: LoopCtx[] = [];
  /** Function bodies without goto (c/goto-elimination.ts), made when first inlined. */
  readonly bodies = new Map<FunctionDecl, CompoundStmt>();
  /** Ids of the declarations the goto elimination makes (above the front end's). */
  readonly gotoIds = { value: 1_800_000_000 };
  /** Run-time lengths of the variable-length array types declared so far. */
  readonly vlaLength = new Map<CType, Expr>();
  /** Loops being lowered around the current point, across inlined calls. */
  loopNesting = 0;
  /** Where each jump flag is first set (the location of guards reading it). */
  readonly flagLoc = new Map<string, L>();
  readonly maxKnownId: number;
  newRegions = 0;
  readonly instanceCount = new Map<string, number>();
  tempCount = 0;
  readonly regions = new Map<string, Region>();
  readonly map: SourceMapBuilder;
  readonly approximations: string[] = [];
  /** Havocs of objects every element of which is written right after (see LoweredProgram.filledHavocs). */
  readonly filledHavocs = new Set<Stmt>();
  /** Havocs of arrays that stand for C memory not yet written (see LoweredProgram.memoryHavocs). */
  readonly memoryHavocs = new Set<Stmt>();
  /** Facts about the model the verdict's reason should mention (each once). */
  readonly notes = new Set<string>();
  stmtLoc: L;
  /** Inside a GNU statement expression: the statement that holds it (see StatementExpr in expressions.ts). */
  statementExprOuter: L | undefined;
  readonly dm: DataModel;
  readonly pw: BvWidth;
  readonly depth: number;
  /** Every `assume` the lowering made, with what guarantees it. */
  readonly assumptions = new Map<Stmt, AssumptionReason>();
  /** The instrumentation passes the property needs (see InstrumentationPass). */
  readonly passes: ReadonlySet<InstrumentationPass>;
  /** A memory-safety property is checked: accesses, frees and leaks are goals. */
  readonly mem: boolean;
  /** Names of the roots some pointer may point to (from the previous pass). */
  readonly targets: ReadonlySet<string>;
  /** Liveness flag of each root whose lifetime is tracked, and the flags' initial values. */
  readonly liveVars = new Map<string, string>();
  readonly liveInit: Stmt[] = [];
  /** Tracked automatic objects of each enclosing scope, which end with it. */
  readonly scopes: Root[][] = [];
  /** String literal objects, one per literal in the source. */
  readonly literals = new Map<CExpr, Root>();
  memUnknowns = 0;
  /** Roots of allocation sites inside loops, per site and element type. */
  readonly siteRoots = new Map<string, Root>();
  /** The program allocates heap blocks (memory-safety properties). */
  allocates = false;
  /** Pointer types `void *` values are being converted to (innermost last): the type of an untyped allocation (typedRv). */
  readonly allocTypes: CType[] = [];
  /** The program gets objects of the C library (`fopen`'s streams, `strerror`'s strings): they are not modelled. */
  readonly libraryObjects: boolean;
  /** Functions whose address the program takes: the targets of calls through pointers. */
  readonly addressTaken: readonly FunctionDecl[];
  /** The C library's memory and string functions. */
  readonly library: Library;
  /** The threads of a program that starts some (threads.ts); undefined for a sequential program. */
  readonly threads: ThreadModel | undefined;
  /** The program calls fesetround: the rounding mode is the variable ROUNDING_VAR (else round-to-nearest-even). */
  readonly changesRounding: boolean;
  /** The program makes pointers from integers (see ConversionLowering.integerAddressUse). */
  readonly integerPointers: boolean;

  constructor(
    readonly program: CProgram,
    readonly options: LowerOptions,
    /** Regions found by a first pass: dereferences choose among these. */
    readonly knownRegions?: ReadonlyMap<string, Region>,
  ) {
    this.dm = options.dataModel;
    this.pw = ptrWidth(this.dm);
    this.depth = options.recursionDepth ?? 3;
    this.passes = new Set(options.passes);
    this.mem = this.passes.has('memory-safety') || this.passes.has('memory-cleanup');
    this.targets = new Set([...(knownRegions?.values() ?? [])].map((r) => r.root.name));
    this.addressTaken = addressTakenFunctions(program);
    this.libraryObjects = program.functions.some((f) => LIBRARY_OBJECT_FUNCTIONS.has(f.name) && !f.body && usesDecl(program, f));
    const fesetround = program.functions.find((f) => f.name === 'fesetround' && !f.body);
    this.changesRounding = fesetround !== undefined && usesDecl(program, fesetround);
    this.integerPointers = convertsIntegersToPointers([program.functions.map((f) => f.body), program.globals.map((g) => g.init)]);
    if (this.changesRounding) {
      const start = { file: program.file, line: 1, column: 1, offset: 0 };
      this.declare(ROUNDING_VAR, rmodeType);
      this.prologue.push(assign(ROUNDING_VAR, { kind: 'rm_lit', mode: 'RNE', loc: start }, start));
    }
    this.maxKnownId = Math.max(0, ...[...(knownRegions?.values() ?? [])].map((r) => r.id));
    this.map = new SourceMapBuilder(program.file);
    markPthreadTypes(program);
    this.threads = startsThreads(program) ? new ThreadModel(options.threadInstances ?? 1) : undefined;
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
      overflowCheck: (cond, loc, d) => {
        if (this.checksOverflow()) this.overflowGoal(cond, loc, d);
      },
      regionBound: (elem, loc) => this.regionBound(elem, loc),
      regions: () => [...(this.knownRegions?.values() ?? [])],
      checkWrite: (lv, loc) => this.checkAccess(lv, loc, true),
      fromVoid: (p, target, loc) => this.fromVoid(p, target, loc),
      freshUnion: (lv, loc) => this.freshUnion(lv, loc),
      allocationType: () => {
        const t = this.allocTypes[this.allocTypes.length - 1];
        return t?.kind === 'pointer' ? t.pointee : undefined;
      },
    });
  }

  fresh(base: string): string {
    let name = base;
    let k = this.suffix.get(base) ?? 0;
    while (this.used.has(name)) name = `${base}'${++k}`;
    this.suffix.set(base, k);
    this.used.add(name);
    return name;
  }

  declare(name: string, t: ImpType): void {
    this.decls.set(name, t);
  }

  temp(t: ImpType, prefix = '$t'): string {
    const name = this.fresh(`${prefix}${++this.tempCount}`);
    this.declare(name, t);
    return name;
  }

  emit(...s: Stmt[]): void {
    this.out.push(...s);
  }

  /** Runs f with a fresh statement buffer and returns the statements it emitted. */
  buffer<T>(f: () => T): [Stmt[], T] {
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
  makeRoot(name: string, type: CType, loc: L, extra: Pick<Root, 'storage' | 'countVar' | 'blocks' | 'untyped'> = {}): Root {
    const root: Root = { name: this.fresh(name), type, ...extra };
    for (const leaf of leavesOf(type, loc)) {
      for (const [suffix, t] of scalarParts(leaf.type, this.dm, loc)) {
        this.declare(leafName(root, leaf.path) + suffix, leafImpType(t, leaf.mapped, this.dm));
      }
    }
    return root;
  }

  recordVariable(name: string, fn: string | undefined, declLoc: L, root: Root): void {
    const k = intKindOf(root.type);
    if (k === undefined) return;
    this.map.addVariable({ name, ...(fn ? { function: fn } : {}), declLoc, imp: root.name, width: intWidth(k, this.dm, declLoc), signed: isSignedKind(k) });
  }

  get frame(): Frame {
    return this.frames[this.frames.length - 1];
  }

  get fnName(): string {
    return this.frames.length ? this.frame.fn.name : '';
  }

  /** Where the model is not exact: if cond can fail, the answer is UNKNOWN (never FALSE). */
  uncertain(cond: Expr, loc: L, description: string): void {
    if (cond.kind === 'bool_lit' && cond.value) return;
    // A key of its own (offset below any real one): it never meets a goal of another kind.
    const key = { ...loc, offset: -++this.memUnknowns };
    this.goal('memory-unknown', cond, key, description, loc);
    this.assumeThat(cond, key, 'checked');
  }

  /**
   * Behaviour C leaves undefined unless `cond` holds, where the property has
   * no goal of its own for it (a division by zero under unreach-call): a
   * place where the model is not exact, so an execution that reaches it
   * makes TRUE impossible. `goesOn`: the path continues as gcc's code does
   * (a VLA of size 0 is an object of no elements), so that what follows
   * can still show a violation; otherwise the model has no meaning for the
   * rest and the path ends after the check. Never a path silently dropped.
   */
  undefinedUnless(cond: Expr, loc: L, description: string, goesOn = false): void {
    if (cond.kind === 'bool_lit' && cond.value) return;
    const key = { ...loc, offset: -++this.memUnknowns };
    this.goal('memory-unknown', cond, key, `${description} (undefined behaviour)`, loc);
    if (!goesOn) this.assumeThat(cond, key, 'checked');
  }

  /**
   * The one place where the lowering adds an `assume`, saying what
   * guarantees it (AssumptionReason); `assumptions` records each.
   */
  assumeThat(cond: Expr, loc: L, why: AssumptionReason): void {
    const s = assume(cond, loc);
    this.assumptions.set(s, why);
    this.emit(s);
  }

  goal(kind: GoalKind, cond: Expr, loc: L, description: string, targetLoc = this.stmtLoc): void {
    const goal = this.map.addGoal({ kind, loc, targetLoc, function: this.fnName, description });
    this.emit(assert(cond, loc, goal));
  }

  run(): ImpProgram {
    const main = this.program.functions.find((f) => f.name === 'main' && f.body);
    if (!main) throw new UnsupportedError('program without a main function', { file: this.program.file, line: 1, column: 1, offset: 0 });
    const mainLoc = main.definitionLoc ?? main.loc;
    // Globals: their C initial values (zero without initializer), before main
    // runs; only those main reaches (headers declare many the program never uses).
    const entryFn = this.program.functions.find((f) => f.name === this.options.summaries?.entry);
    const used = usedGlobals(entryFn ? [main, entryFn] : [main]);
    const globals = this.program.globals.filter((g) => used.has(g.id));
    for (const g of globals) {
      this.stmtLoc = g.loc;
      const root = this.makeRoot(g.name, g.type, g.loc, { storage: 'static' });
      this.globals.set(g.id, root);
      this.recordVariable(g.name, undefined, g.loc, root);
    }
    for (const g of globals) {
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
    if (this.threads) this.threads.live = true;
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
      // Each `return` of main has its goal (statements.ts); this one is for falling off the end.
      if (this.mem && main.body?.items.at(-1)?.kind !== 'Return') this.leakGoal(mainLoc);
    });
    if (this.threads) {
      this.lowerThreadBodies();
      return this.threadedProgram([...this.liveInit, ...globalsInit, ...this.prologue, ...body], mainLoc);
    }
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

  /** e itself when it is a variable or a literal, else a temporary holding it (e is used more than once). */
  named(t: ImpType, e: Expr, loc: L): Expr {
    return e.kind === 'var' || e.kind === 'bv_lit' ? e : this.tempOf(t, e, loc);
  }

  tempOf(t: ImpType, e: Expr, loc: L): Expr {
    const name = this.temp(t);
    this.emit(assign(name, e, loc));
    return v(name, loc);
  }
}

for (const mixin of [MemorySafetyChecks, OverflowChecks, LvalueLowering, ObjectLowering, RecursionLowering, CallLowering, InputLowering, StatementLowering, ConversionLowering, ExpressionLowering, FloatLowering, ThreadLowering]) {
  for (const name of Object.getOwnPropertyNames(mixin.prototype)) {
    if (name !== 'constructor') Object.defineProperty(Lowerer.prototype, name, Object.getOwnPropertyDescriptor(mixin.prototype, name)!);
  }
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

/**
 * The ids of the variables the roots (main, a summary's entry) reach: named
 * in their bodies, in the bodies of the functions they name (called or not)
 * and in the variables' initializers and variable-length array sizes, transitively.
 */
function usedGlobals(roots: readonly FunctionDecl[]): Set<number> {
  const ids = new Set<number>();
  const seen = new Set<object>();
  const stack: unknown[] = [...roots];
  while (stack.length) {
    const x = stack.pop();
    if (!x || typeof x !== 'object' || seen.has(x)) continue;
    seen.add(x);
    const o = x as Record<string, unknown>;
    if (o.kind === 'Var' && typeof o.id === 'number' && typeof o.scope === 'string') ids.add(o.id);
    for (const [k, val] of Object.entries(o)) {
      if (k === 'type' || k === 'loc') continue;
      if (Array.isArray(val)) stack.push(...val);
      else if (val && typeof val === 'object') stack.push(val);
    }
  }
  return ids;
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
      ...(l.threads ? { threads: l.threads.slots.map((t) => ({ index: t.index, function: t.fn.name, createLoc: t.loc, parent: t.parent })) } : {}),
      assumptions: l.assumptions,
      ...(l.inliningBudgetSpent ? { inliningBudgetSpent: true } : {}),
      ...(l.summarisedCalls.size ? { summarisedCalls: l.summarisedCalls } : {}),
      ...(l.entry ? { entry: l.entry } : {}),
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

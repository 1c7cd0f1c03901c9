// Loop acceleration for BMC: before a loop whose body only adds constants
// to bit-vector variables, or such a variable to another (sets others to
// values the loop does not change, asserts or assumes facts about them,
// and may choose a nondet value that only the loop's condition reads), the
// program may jump over m iterations at once. A violation that needs 2^31 iterations
// (a counter running into overflow) is then found at bound 1.
//
// The jump is exact: it reaches only states the loop reaches. After m
// iterations each variable x is x + c·m (bit-vector addition is modular, so
// this holds whatever wraps); a variable that adds such an x in each
// iteration (`sum += i`) is sum + m·x + c·m(m-1)/2 (+ c·m where x was
// stepped first), a quadratic function of m. The loop's condition and the body's asserts
// and assumes must hold in each of the m iterations; they are conjunctions of
// comparisons of affine terms, so where every term's value at iteration t
// is the same as its mathematical value (no wrap-around, checked at both
// ends: an affine function of t lies between its values at the ends), each
// comparison is affine in t and holds on an interval of t: holding at
// t = 0 and t = m - 1 it holds in between. A quadratic term, and a
// comparison with one, must also be monotone over the m iterations: its
// change from one iteration to the next is affine in t, so the same sign of
// that change at the first and the last step suffices. The terms are
// evaluated in 64 bits, where a static bound on their magnitude keeps them
// exact.
//
// Only a counterexample counts (the step that uses it replays it like any
// other): the accelerated program has the original's executions and more
// paths to them, none to a state the original cannot reach.

import { boolType, bvType, syntheticLoc, type BvWidth, type Expr, type HavocStmt, type ImpProgram, type ImpType, type Procedure, type Stmt, type VarDecl } from '../ivl/ast.js';
import { freeVars, renameExpr, rewriteStmts } from '../ivl/walk.js';
import { procedureScope } from '../ivl/typecheck.js';
import { printExpr } from '../ivl/printer.js';
import type { TraceHavoc } from './bmc.js';
import type { LoopJump } from './execute.js';

/** The file name of the jumps' statements: a counterexample's havocs there are the jumps' own, no nondet call's. */
const ACCELERATION_FILE = '<acceleration>';
const loc = syntheticLoc(ACCELERATION_FILE);
/** The most iterations one jump covers: enough for a 32-bit unsigned counter to pass 2^32. */
const MAX_JUMP = 1n << 33n;
/** The most iterations one jump covers where a variable grows quadratically (its terms stay below 2^60). */
const MAX_QUADRATIC_JUMP = 1n << 24n;
/** The largest constant a variable may change by per iteration. */
const MAX_STEP = 1n << 16n;
/** Terms evaluated in 64 bits stay below this magnitude (exact, with room for one more sum). */
const MAX_MAGNITUDE = 1n << 62n;
/** Both sides of a comparison with a quadratic term stay below this magnitude (their difference's change from one iteration to the next is exact). */
const MAX_QUADRATIC_MAGNITUDE = 1n << 60n;

/** A havoc of a counterexample, made `repeat` times in a row (a nondet call in the iterations a jump did). */
export type RepeatedHavoc = TraceHavoc & { readonly repeat?: bigint };

/**
 * The iterations the jumps of a counterexample did (the values of their
 * `m`s), and its havocs as the program makes them: without the jumps' own,
 * the value a jump chose for the iterations before its last one repeated
 * m - 1 times (left out when m = 1).
 */
export function jumpsOf(havocs: readonly TraceHavoc[]): { readonly iterations: bigint; readonly others: RepeatedHavoc[] } {
  let iterations = 0n;
  let m = 0n;
  const others: RepeatedHavoc[] = [];
  for (const h of havocs) {
    if (JUMP_CHOICE.test(h.target)) {
      if (m > 1n) others.push({ ...h, repeat: m - 1n });
    } else if (h.loc.file !== ACCELERATION_FILE) others.push(h);
    else if (h.target.endsWith(M_SUFFIX)) {
      m = h.value;
      iterations += m;
    }
  }
  return { iterations, others };
}

/** The havocs one by one (for a trace; only where the repeats are few). */
export function expandRepeats(havocs: readonly RepeatedHavoc[]): TraceHavoc[] {
  return havocs.flatMap((h) => Array.from({ length: Number(h.repeat ?? 1n) }, () => h));
}

const JUMP_PREFIX = '$acc';
const M_SUFFIX = '_m';
/** The value a jump chooses for a nondet call in every iteration but its last. */
const CHOICE_SUFFIX = '_w';
/** A jump's choice variable, `$acc<n>_w` (its havoc has the nondet call's place, not the jumps' file). */
const JUMP_CHOICE = /^\$acc\d+_w$/;

/** The most paths through a loop's body that get a jump each. */
const MAX_PATHS = 4;

/**
 * The program with jumps before each loop that qualifies, and how many
 * loops did; undefined when none. A body with branches gets a jump per path
 * through it whose branch conditions qualify (m iterations that all take
 * that path); the jumps come in sequence, the sequence repeated once per
 * path, so that the loop's phases can follow each other in any order.
 */
export function accelerateLoops(p: ImpProgram): AcceleratedProgram | undefined {
  if (!accelerated.has(p)) accelerated.set(p, accelerate(p));
  return accelerated.get(p);
}

/** A program with jumps before its loops, how many loops got them, and the jumps (for a run that takes them: engines/execute.ts). */
export interface AcceleratedProgram {
  readonly program: ImpProgram;
  readonly loops: number;
  readonly jumps: readonly LoopJump[];
}

/** Each program's acceleration, made once (the BMC step and the one execution both use it). */
const accelerated = new WeakMap<ImpProgram, AcceleratedProgram | undefined>();

function accelerate(p: ImpProgram): AcceleratedProgram | undefined {
  let loops = 0;
  let jumps = 0;
  const all: LoopJump[] = [];
  const procedures = p.procedures.map((proc): Procedure => {
    if (!proc.body) return proc;
    const scope = procedureScope(p, proc);
    const typeOf = (name: string) => scope.get(name)?.decl.type;
    const decls: VarDecl[] = [];
    const body = rewriteStmts(proc.body, (s) => {
      if (s.kind !== 'while') return undefined;
      const paths = pathsOf(s.body, MAX_PATHS);
      const made = (paths ?? []).flatMap((path) => jumpOver(s.cond, path, typeOf, `${JUMP_PREFIX}${jumps++}`) ?? []);
      if (made.length === 0) return undefined;
      loops++;
      for (const j of made) decls.push(...j.decls);
      all.push(...made.map((j) => j.jump));
      const sequence = made.flatMap((j) => j.stmts);
      return [...Array.from({ length: made.length }, () => sequence).flat(), s];
    });
    return decls.length ? { ...proc, locals: [...proc.locals, ...decls], body } : proc;
  });
  return loops ? { program: { ...p, procedures }, loops, jumps: all } : undefined;
}

/** The straight-line paths through `body`, a branch's condition an assume on each side; undefined beyond `limit` paths or with a loop or call inside. */
function pathsOf(body: readonly Stmt[], limit: number): Stmt[][] | undefined {
  let paths: Stmt[][] = [[]];
  for (const s of body) {
    if (s.kind === 'if') {
      const then = pathsOf(s.then, limit);
      const otherwise = pathsOf(s.else, limit);
      if (!then || !otherwise) return undefined;
      const assume = (cond: Expr): Stmt => ({ kind: 'assume', cond, loc: s.loc });
      const branches = [...then.map((b) => [assume(s.cond), ...b]), ...otherwise.map((b) => [assume({ kind: 'unary', op: '!', arg: s.cond, loc: s.loc }), ...b])];
      paths = paths.flatMap((p) => branches.map((b) => [...p, ...b]));
    } else if (s.kind === 'block') {
      const inner = pathsOf(s.body, limit);
      if (!inner) return undefined;
      paths = paths.flatMap((p) => inner.map((b) => [...p, ...b]));
    } else if (s.kind === 'while' || s.kind === 'call') return undefined;
    else paths = paths.map((p) => [...p, s]);
    if (paths.length > limit) return undefined;
  }
  return paths;
}

/** Per variable the body steps: the constant it adds each iteration, and its width. */
type Steps = ReadonlyMap<string, { readonly c: bigint; readonly width: BvWidth }>;

/** A variable that adds (or subtracts) the stepped variable `by` in each iteration, and whether `by` was stepped before. */
interface Drift {
  readonly by: string;
  readonly sign: 1n | -1n;
  readonly byStepped: boolean;
  readonly width: BvWidth;
}
type Drifts = ReadonlyMap<string, Drift>;

/**
 * A nondet value the body chooses afresh in each iteration (`v := havoc`,
 * then assumes about v alone), which only the loop's condition reads: the
 * iterations jumped over may choose any value that lets the loop go on.
 */
interface Choice {
  readonly name: string;
  readonly type: ImpType;
  /** The havoc's place (its nondet call). */
  readonly loc: Stmt['loc'];
  /** The assumes on the value chosen. */
  readonly assumes: Expr[];
}

/** The jump over m iterations of a loop with condition `cond` that all run `body` (straight-line; its variables named from `prefix`), or undefined when they do not qualify. */
function jumpOver(cond: Expr, body: readonly Stmt[], typeOf: (name: string) => ImpType | undefined, prefix: string): { decls: VarDecl[]; stmts: Stmt[]; jump: LoopJump } | undefined {
  const steps = new Map<string, { c: bigint; width: BvWidth }>();
  const drifts = new Map<string, Drift>();
  const sets = new Map<string, Expr>();
  // The asserts and assumes (each must hold in every iteration jumped over), with the variables stepped before each.
  const conditions: { cond: Expr; stepped: Set<string> }[] = [];
  const stepped = new Set<string>();
  // At most one choice: the harness repeats one value, not a pattern of several.
  let choice: Choice | undefined;
  const read = new Set<string>();
  const readsChoice = (e: Expr) => choice !== undefined && freeVars(e).has(choice.name);
  for (const s of body) {
    if (s.kind === 'skip') continue;
    if (s.kind === 'havoc') {
      const t = typeOf(s.target);
      // A value read before it is chosen would be the last iteration's.
      if (choice || !t || (t.kind !== 'bv' && t.kind !== 'bool') || read.has(s.target) || steps.has(s.target) || drifts.has(s.target) || sets.has(s.target)) return undefined;
      choice = { name: s.target, type: t, loc: s.loc, assumes: [] };
      continue;
    }
    if (s.kind === 'assert' || s.kind === 'assume') {
      if (readsChoice(s.cond)) {
        if (s.kind === 'assert' || freeVars(s.cond).size !== 1) return undefined;
        choice!.assumes.push(s.cond);
        continue;
      }
      freeVars(s.cond, read);
      conditions.push({ cond: s.cond, stepped: new Set(stepped) });
      continue;
    }
    if (s.kind !== 'assign' || steps.has(s.target) || drifts.has(s.target) || sets.has(s.target) || s.target === choice?.name || readsChoice(s.value)) return undefined;
    freeVars(s.value, read);
    const t = typeOf(s.target);
    const width = t?.kind === 'bv' && t.width < 64 ? t.width : undefined;
    const c = width && constantStep(s.target, s.value, width);
    const drift = width && c === undefined ? variableStep(s.target, s.value) : undefined;
    if (c !== undefined) {
      steps.set(s.target, { c, width: width! });
      stepped.add(s.target);
    } else if (drift) {
      drifts.set(s.target, { ...drift, byStepped: stepped.has(drift.by), width: width! });
      stepped.add(s.target);
    } else sets.set(s.target, s.value);
  }
  if (steps.size === 0) return undefined;
  // What a quadratic variable adds must be stepped by a constant, of its width.
  for (const [x, d] of drifts) if (steps.get(d.by)?.width !== d.width || x === d.by) return undefined;
  const maxJump = drifts.size ? MAX_QUADRATIC_JUMP : MAX_JUMP;
  // The condition's conjuncts on the choice alone; the others may not read it.
  const onChoice: Expr[] = [];
  const onState: Expr[] = [];
  for (const c of conjuncts(cond)) {
    if (!readsChoice(c)) onState.push(c);
    else if (freeVars(c).size === 1) onChoice.push(c);
    else return undefined;
  }
  const stateCond = onState.reduce<Expr>((a, b) => and(a, b), { kind: 'bool_lit', value: true, loc });
  // A variable set to the same value in every iteration (one of variables the
  // loop does not change) has that value after the jump; nothing else in the
  // loop may read it (it differs between the first iteration and the others).
  const changed = new Set([...steps.keys(), ...drifts.keys(), ...sets.keys()]);
  const readByConditions = new Set<string>();
  freeVars(stateCond, readByConditions);
  for (const c of conditions) freeVars(c.cond, readByConditions);
  for (const [x, e] of sets) {
    if (readByConditions.has(x) || [...freeVars(e)].some((y) => changed.has(y))) return undefined;
  }
  const m = `${prefix}${M_SUFFIX}`;
  const go = `${prefix}_go`;
  const mVar: Expr = { kind: 'var', name: m, loc };
  const facts: Expr[] = [app('ult', bv64(0n), mVar), app('ule', mVar, bv64(maxJump))];
  // The products the terms use, assigned once after m is chosen.
  const productDefs = new Map<string, { name: string; value: Expr }>();
  const product = (key: string, value: () => Expr): Expr => {
    if (!productDefs.has(key)) productDefs.set(key, { name: `${prefix}_p${productDefs.size}`, value: value() });
    return v(productDefs.get(key)!.name);
  };
  const products: Products = {
    triangle: () => product('triangle', () => triangle(mVar)),
    times: (by, view) => product(`${by}:${view}`, () => times(mVar, app(`${view === 's' ? 's' : 'z'}ext64`, v(by)))),
  };
  const span = (stepped: ReadonlySet<string>): Span => {
    const at = (fromM: boolean, k: bigint): At => ({ steps, drifts, maxJump, m: mVar, products, t: { fromM, k }, stepped });
    return { first: at(false, 0n), second: at(false, 1n), penultimate: at(true, -2n), last: at(true, -1n), atMostOne: app('ule', mVar, bv64(1n)) };
  };
  for (const [c, stepped] of [[stateCond, new Set<string>()] as const, ...conditions.map((a) => [a.cond, a.stepped] as const)]) {
    const held = heldThroughout(c, span(stepped), typeOf);
    // A path through a failing assert (an error call) is never jumped along.
    if (!held || held.some((f) => f.kind === 'bool_lit' && !f.value)) return undefined;
    facts.push(...held);
  }
  // The quadratic ones first: they read the stepped variables' values before the jump.
  const updates: Stmt[] = [
    ...[...drifts].map(([x, d]): Stmt => {
      const c = steps.get(d.by)!.c;
      // m·by + c·(m(m-1)/2 + m where by was stepped first), modulo 2^64 (then the width's modulus).
      const byTerms = plus(products.triangle(), d.byStepped ? mVar : bv64(0n));
      const added = plus(products.times(d.by, 's'), times(bv64(c), byTerms));
      return { kind: 'assign', target: x, value: { kind: 'binary', op: d.sign > 0n ? '+' : '-', left: v(x), right: truncTo(d.width, added), loc }, loc };
    }),
    ...[...steps].map(([x, { c, width }]): Stmt => ({
      kind: 'assign',
      target: x,
      value: plus(v(x), truncTo(width, times(bv64(c), mVar))),
      loc,
    })),
    ...[...sets].map(([x, value]): Stmt => ({ kind: 'assign', target: x, value, loc })),
  ];
  // The same fact is often made for the condition and an assert: once is enough.
  const distinct = [...new Map(facts.map((f) => [printExpr(f), f])).values()];
  const assume = (c: Expr): Stmt => ({ kind: 'assume', cond: c, loc });
  const definitions = [...productDefs.values()];
  const mHavoc: HavocStmt = { kind: 'havoc', target: m, loc };
  const jump: Stmt[] = [
    mHavoc,
    ...definitions.map(({ name, value }): Stmt => ({ kind: 'assign', target: name, value, loc })),
    ...distinct.map(assume),
  ];
  const decls: VarDecl[] = [
    { kind: 'var_decl', name: go, type: boolType, loc },
    { kind: 'var_decl', name: m, type: bvType(64), loc },
    ...definitions.map(({ name }): VarDecl => ({ kind: 'var_decl', name, type: bvType(64), loc })),
  ];
  if (choice) {
    // The first iteration runs on the value chosen before; the others on one
    // value w (the nondet call returns it m - 1 times), the last iteration's
    // choice is any the assumes allow (the loop's next test reads it).
    const w = `${prefix}${CHOICE_SUFFIX}`;
    const onW = [...choice.assumes, ...onChoice].map((c) => renameExpr(c, new Map([[choice!.name, w]])));
    const first: Expr = { kind: 'binary', op: '==', left: mVar, right: bv64(1n), loc };
    decls.push({ kind: 'var_decl', name: w, type: choice.type, loc });
    jump.push(...onChoice.map(assume), { kind: 'havoc', target: w, loc: choice.loc });
    if (onW.length) jump.push(assume({ kind: 'binary', op: '||', left: first, right: onW.reduce((a, b) => and(a, b)), loc }));
  }
  jump.push(...updates);
  if (choice) jump.push({ kind: 'havoc', target: choice.name, loc: choice.loc }, ...choice.assumes.map(assume));
  const goHavoc: HavocStmt = { kind: 'havoc', target: go, loc };
  return {
    decls,
    stmts: [goHavoc, { kind: 'if', cond: v(go), then: jump, else: [], loc }],
    jump: { go: goHavoc, m: mHavoc, definitions, facts: distinct, max: maxJump, withChoice: choice !== undefined },
  };
}

/** The conjuncts of `e` (its `&&` tree's leaves). */
function conjuncts(e: Expr): Expr[] {
  return e.kind === 'binary' && e.op === '&&' ? [...conjuncts(e.left), ...conjuncts(e.right)] : [e];
}

/** `c` when `value` is `x + c`, `c + x` or `x - c` for a literal c (as a signed step, at most MAX_STEP in size). */
function constantStep(x: string, value: Expr, width: BvWidth): bigint | undefined {
  if (value.kind !== 'binary' || (value.op !== '+' && value.op !== '-')) return undefined;
  const isX = (e: Expr) => e.kind === 'var' && e.name === x;
  const lit = (e: Expr) => (e.kind === 'bv_lit' && e.width === width ? BigInt.asIntN(width, e.value) : undefined);
  let c: bigint | undefined;
  if (isX(value.left)) c = lit(value.right);
  else if (value.op === '+' && isX(value.right)) c = lit(value.left);
  if (c === undefined) return undefined;
  if (value.op === '-') c = -c;
  return c > -MAX_STEP && c < MAX_STEP ? c : undefined;
}

/** `{by, sign}` when `value` is `x + by`, `by + x` or `x - by` for a variable `by`. */
function variableStep(x: string, value: Expr): { by: string; sign: 1n | -1n } | undefined {
  if (value.kind !== 'binary' || (value.op !== '+' && value.op !== '-')) return undefined;
  const isX = (e: Expr) => e.kind === 'var' && e.name === x;
  const other = isX(value.left) ? value.right : value.op === '+' && isX(value.right) ? value.left : undefined;
  return other?.kind === 'var' ? { by: other.name, sign: value.op === '+' ? 1n : -1n } : undefined;
}

/** t(t-1)/2 as a 64-bit term (exact for |t| < 2^31: t(t-1) is never negative). */
function triangle(t: Expr): Expr {
  return app('udiv', times(t, { kind: 'binary', op: '-', left: t, right: bv64(1n), loc }), bv64(2n));
}

/** `t` as a 64-bit term: k, m, m + k or m - k. */
function iterationTerm(t: Iteration, m: Expr): Expr {
  if (!t.fromM) return bv64(t.k);
  if (t.k === 0n) return m;
  return { kind: 'binary', op: t.k < 0n ? '-' : '+', left: m, right: bv64(t.k < 0n ? -t.k : t.k), loc };
}

/** An iteration of the jump: `k`, or `m + k` (`fromM`) for the jump's m. */
interface Iteration {
  readonly fromM: boolean;
  readonly k: bigint;
}

/**
 * The jump's products, each made once (one multiplier for the solver,
 * however many terms use it): m(m-1)/2, and m times a stepped variable's
 * value before the jump as the given view reads it.
 */
interface Products {
  triangle(): Expr;
  times(by: string, view: 's' | 'u'): Expr;
}

/** Where a condition is evaluated: iteration `t`, after the body has stepped the variables in `stepped`. */
interface At {
  readonly steps: Steps;
  readonly drifts: Drifts;
  /** The most iterations of the jump. */
  readonly maxJump: bigint;
  readonly m: Expr;
  readonly products: Products;
  readonly t: Iteration;
  readonly stepped: ReadonlySet<string>;
}

/** The iterations a jump spans: the first, second, next to last and last (a quadratic term is checked for monotony between them). */
interface Span {
  readonly first: At;
  readonly second: At;
  readonly penultimate: At;
  readonly last: At;
  /** That the jump does at most one iteration (then there is no step to be monotone). */
  readonly atMostOne: Expr;
}

const NEGATED: Readonly<Record<string, string>> = { slt: 'sge', sle: 'sgt', sgt: 'sle', sge: 'slt', ult: 'uge', ule: 'ugt', ugt: 'ule', uge: 'ult' };
const SIGNED: Readonly<Record<string, 's' | 'u'>> = { slt: 's', sle: 's', sgt: 's', sge: 's', ult: 'u', ule: 'u', ugt: 'u', uge: 'u' };

/**
 * Facts that make `cond` hold at every iteration from the first to the last
 * of `ends`: comparisons of exact 64-bit terms at both ends, plus the range
 * facts that make them exact; undefined when `cond` is not a conjunction of
 * comparisons of affine terms. An affine comparison that holds at both
 * ends holds in between; `a != b` does where `a - b` has the same sign at
 * both ends (a sufficient condition).
 */
function heldThroughout(cond: Expr, span: Span, typeOf: (name: string) => ImpType | undefined): Expr[] | undefined {
  const out: Expr[] = [];
  const ends = [span.first, span.last] as const;
  // The terms of both sides at both ends, in the view of the comparison.
  const termsOf = (op: string, a: Expr, b: Expr) => {
    const view = SIGNED[op] ?? 's';
    // At the ends the facts are assumed; the second and next to last iterations only tell the steps' signs.
    const at = (e: Expr, where: At, ranged: Term[]) => term(e, view, where, typeOf, where === span.first || where === span.last ? out : [], ranged);
    const points = [span.first, span.second, span.penultimate, span.last].map((where) => {
      const ranged: Term[] = [];
      const x = at(a, where, ranged);
      const y = x && at(b, where, ranged);
      return x && y && { x, y, ranged };
    });
    if (points.some((p) => !p)) return undefined;
    type Point = { x: Term; y: Term; ranged: Term[] };
    const [p0, p1, p2, p3] = points as [Point, Point, Point, Point];
    if (p0.x.quadratic || p0.y.quadratic) {
      if (p0.x.bound + p0.y.bound >= MAX_QUADRATIC_MAGNITUDE) return undefined;
      // Every quadratic term whose range is assumed (so that its value is exact throughout), and the sides' difference, are monotone.
      const monotone = (f: (p: Point) => Expr) => out.push(monotony(f(p0), f(p1), f(p2), f(p3), span.atMostOne));
      p0.ranged.forEach((r, i) => r.quadratic && monotone((p) => p.ranged[i]!.value));
      monotone((p) => ({ kind: 'binary', op: '-', left: p.x.value, right: p.y.value, loc }));
    }
    return [p0, p3].map((p) => [p.x.value, p.y.value] as const);
  };
  const comparison = (op: string, a: Expr, b: Expr): boolean => {
    const pairs = termsOf(op, a, b);
    if (!pairs) return false;
    if (op === '!=') {
      const [[a0, b0], [a1, b1]] = pairs as [readonly [Expr, Expr], readonly [Expr, Expr]];
      const both = (fn: string) => and(app(fn, a0, b0), app(fn, a1, b1));
      out.push({ kind: 'binary', op: '||', left: both('slt'), right: both('sgt'), loc });
      return true;
    }
    // Exact values of magnitude below 2^62 compare as signed 64-bit numbers.
    for (const [x, y] of pairs) out.push(op === '==' ? { kind: 'binary', op: '==', left: x, right: y, loc } : app(`s${op.slice(1)}`, x, y));
    return true;
  };
  const onBitVectors = (e: Expr & { kind: 'binary' }) => typeOf0(e.left, typeOf)?.kind === 'bv';
  const walk = (e: Expr): boolean => {
    if (e.kind === 'bool_lit') return e.value || (out.push(e), true);
    if (e.kind === 'binary' && e.op === '&&') return walk(e.left) && walk(e.right);
    if (e.kind === 'binary' && (e.op === '==' || e.op === '!=')) return onBitVectors(e) && comparison(e.op, e.left, e.right);
    if (e.kind === 'app' && e.fn in NEGATED) return comparison(e.fn, e.args[0]!, e.args[1]!);
    if (e.kind === 'unary' && e.op === '!') {
      const n = e.arg;
      if (n.kind === 'app' && n.fn in NEGATED) return comparison(NEGATED[n.fn]!, n.args[0]!, n.args[1]!);
      if (n.kind === 'binary' && (n.op === '==' || n.op === '!=')) return onBitVectors(n) && comparison(n.op === '==' ? '!=' : '==', n.left, n.right);
      // !(a || b) is !a && !b.
      if (n.kind === 'binary' && n.op === '||') return walk({ kind: 'unary', op: '!', arg: n.left, loc }) && walk({ kind: 'unary', op: '!', arg: n.right, loc });
      if (n.kind === 'unary' && n.op === '!') return walk(n.arg);
    }
    return false;
  };
  return walk(cond) ? out : undefined;
}

/**
 * That f (exact 64-bit values at the first, second, next to last and last
 * iteration; at most 2^62 in size) never rises and never falls over the
 * iterations: its change from one to the next, affine in the iteration,
 * has the same sign at the first step and at the last.
 */
function monotony(first: Expr, second: Expr, penultimate: Expr, last: Expr, atMostOne: Expr): Expr {
  const change = (a: Expr, b: Expr): Expr => ({ kind: 'binary', op: '-', left: b, right: a, loc });
  const [d0, d1] = [change(first, second), change(penultimate, last)];
  const zero = bv64(0n);
  const or = (a: Expr, b: Expr): Expr => ({ kind: 'binary', op: '||', left: a, right: b, loc });
  return or(atMostOne, or(and(app('sge', d0, zero), app('sge', d1, zero)), and(app('sle', d0, zero), app('sle', d1, zero))));
}

/** The bit-vector type of a variable or literal term (enough to tell `==` on bit-vectors from `==` on Booleans, whose sides are never both of these). */
function typeOf0(e: Expr, typeOf: (name: string) => ImpType | undefined): ImpType | undefined {
  if (e.kind === 'bv_lit') return bvType(e.width);
  if (e.kind === 'var') return typeOf(e.name);
  if (e.kind === 'binary' && ['+', '-', '*'].includes(e.op)) return typeOf0(e.left, typeOf) ?? typeOf0(e.right, typeOf);
  if (e.kind === 'app' && /^[sz]ext\d+$/.test(e.fn)) return bvType(Number(e.fn.slice(4)) as BvWidth);
  return undefined;
}

/** A term's exact 64-bit value, the largest magnitude it can have, its width, and whether it is quadratic in the iteration. */
interface Term {
  readonly value: Expr;
  readonly bound: bigint;
  readonly width: number;
  readonly quadratic: boolean;
}

/**
 * `e`'s mathematical value at `at`, read as signed (`s`) or unsigned (`u`),
 * as a 64-bit term, with the largest magnitude it can have; the facts that
 * its bit-vector value is that number go to `facts`, and the (sub-)terms
 * they are about to `ranged`, in an order that is the same at every `at`.
 * Undefined for a term that is neither affine in the loop's variables nor
 * one with a quadratic variable.
 */
function term(e: Expr, view: 's' | 'u', at: At, typeOf: (name: string) => ImpType | undefined, facts: Expr[], ranged: Term[] = []): Term | undefined {
  const result = (value: Expr, bound: bigint, width: number, quadratic: boolean): Term | undefined => {
    if (bound >= MAX_MAGNITUDE) return undefined;
    const t = { value, bound, width, quadratic };
    // The bit-vector reads as the number where the number is in the view's range.
    if (width < 64) facts.push(...inRange(value, view, width));
    else if (view === 'u') facts.push(app('sge', value, bv64(0n)));
    if (width < 64 || view === 'u') ranged.push(t);
    return t;
  };
  const sub = (x: Expr, v = view) => term(x, v, at, typeOf, facts, ranged);
  switch (e.kind) {
    case 'bv_lit': {
      // A literal read as its width's number is in its range.
      const n = view === 's' ? BigInt.asIntN(e.width, e.value) : e.value;
      const bound = n < 0n ? -n : n;
      return bound < MAX_MAGNITUDE ? { value: bv64(n), bound, width: e.width, quadratic: false } : undefined;
    }
    case 'var': {
      const t = typeOf(e.name);
      if (t?.kind !== 'bv') return undefined;
      const read = (name: string, width: number): Expr => (width === 64 ? v(name) : app(`${view === 's' ? 's' : 'z'}ext64`, v(name)));
      const range = t.width === 64 ? 1n << 63n : 1n << BigInt(t.width);
      // The iterations done when the term is read: t, or t + 1 where the body has stepped the variable already.
      const done: Iteration = { fromM: at.t.fromM, k: at.t.k + (at.stepped.has(e.name) ? 1n : 0n) };
      const n = at.maxJump + 1n;
      const s = at.steps.get(e.name);
      if (s) {
        // x + c·t
        const abs = s.c < 0n ? -s.c : s.c;
        return result(plus(read(e.name, t.width), times(bv64(s.c), iterationTerm(done, at.m))), range + abs * n, t.width, false);
      }
      const d = at.drifts.get(e.name);
      if (d) {
        // x ± (t·by + c·(t(t-1)/2 + t where by was stepped first)), by's value before the jump read in the same view;
        // with t = m + k: t·by = m·by + k·by and t(t-1)/2 = m(m-1)/2 + k·m + k(k-1)/2.
        const c = at.steps.get(d.by)!.c;
        const abs = c < 0n ? -c : c;
        const k = done.k;
        const kBy = times(bv64(k), read(d.by, d.width));
        const tBy = done.fromM ? plus(at.products.times(d.by, view), kBy) : kBy;
        const triangleK = bv64((k * (k - 1n)) / 2n);
        const tTriangle = done.fromM ? plus(plus(at.products.triangle(), times(bv64(k), at.m)), triangleK) : triangleK;
        const added = plus(tBy, times(bv64(c), plus(tTriangle, d.byStepped ? iterationTerm(done, at.m) : bv64(0n))));
        const value: Expr = { kind: 'binary', op: d.sign > 0n ? '+' : '-', left: read(e.name, t.width), right: added, loc };
        return result(value, range + n * range + abs * (n * n + n), t.width, true);
      }
      // A variable the loop does not change reads as itself (a 64-bit one may be too large).
      return t.width === 64 ? result(read(e.name, 64), range, 64, false) : { value: read(e.name, t.width), bound: range, width: t.width, quadratic: false };
    }
    case 'app': {
      const ext = /^([sz])ext(\d+)$/.exec(e.fn);
      if (!ext) return undefined;
      const inner = sub(e.args[0]!, ext[1] === 's' ? 's' : 'u');
      return inner && result(inner.value, inner.bound, Number(ext[2]), inner.quadratic);
    }
    case 'unary': {
      if (e.op !== '-') return undefined;
      const a = sub(e.arg);
      return a && result({ kind: 'unary', op: '-', arg: a.value, loc }, a.bound, a.width, a.quadratic);
    }
    case 'binary': {
      if (e.op === '+' || e.op === '-') {
        const a = sub(e.left);
        const b = a && sub(e.right);
        return a && b && result({ kind: 'binary', op: e.op, left: a.value, right: b.value, loc }, a.bound + b.bound, Math.max(a.width, b.width), a.quadratic || b.quadratic);
      }
      if (e.op === '*') {
        // A product with a literal: the literal times the other side.
        const [lit, other] = e.left.kind === 'bv_lit' ? [e.left, e.right] : e.right.kind === 'bv_lit' ? [e.right, e.left] : [];
        if (!lit || !other) return undefined;
        const l = sub(lit);
        const o = l && sub(other);
        return l && o && result(times(l.value, o.value), l.bound * o.bound, Math.max(l.width, o.width), o.quadratic);
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

/** `value` (an exact 64-bit term) lies in the range of a `width`-bit number read as `view`. */
function inRange(value: Expr, view: 's' | 'u', width: number): Expr[] {
  const w = BigInt(width);
  const [lo, hi] = view === 's' ? [-(1n << (w - 1n)), (1n << (w - 1n)) - 1n] : [0n, (1n << w) - 1n];
  return [app('sge', value, bv64(lo)), app('sle', value, bv64(hi))];
}

function v(name: string): Expr {
  return { kind: 'var', name, loc };
}
function bv64(n: bigint): Expr {
  return { kind: 'bv_lit', value: BigInt.asUintN(64, n), width: 64, loc };
}
function plus(a: Expr, b: Expr): Expr {
  return { kind: 'binary', op: '+', left: a, right: b, loc };
}
function times(a: Expr, b: Expr): Expr {
  return { kind: 'binary', op: '*', left: a, right: b, loc };
}
function and(a: Expr, b: Expr): Expr {
  return { kind: 'binary', op: '&&', left: a, right: b, loc };
}
function app(fn: string, ...args: Expr[]): Expr {
  return { kind: 'app', fn: fn as never, args, loc };
}
function truncTo(width: BvWidth, e: Expr): Expr {
  return app(`trunc${width}`, e);
}

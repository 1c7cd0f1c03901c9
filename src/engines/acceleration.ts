// Loop acceleration for BMC: before a loop whose body only adds constants
// to bit-vector variables (sets others to values the loop does not change,
// and asserts or assumes facts about them), the program may
// jump over m iterations at once. A violation that needs 2^31 iterations
// (a counter running into overflow) is then found at bound 1.
//
// The jump is exact: it reaches only states the loop reaches. After m
// iterations each variable x is x + c·m (bit-vector addition is modular, so
// this holds whatever wraps). The loop's condition and the body's asserts
// and assumes must hold in each of the m iterations; they are conjunctions of
// comparisons of affine terms, so where every term's value at iteration t
// is the same as its mathematical value (no wrap-around, checked at both
// ends: an affine function of t lies between its values at the ends), each
// comparison is affine in t and holds on an interval of t: holding at
// t = 0 and t = m - 1 it holds in between. The terms are evaluated in 64
// bits, where a static bound on their magnitude keeps them exact.
//
// Only a counterexample counts (the step that uses it replays it like any
// other): the accelerated program has the original's executions and more
// paths to them, none to a state the original cannot reach.

import { boolType, bvType, syntheticLoc, type BvWidth, type Expr, type ImpProgram, type ImpType, type Procedure, type Stmt, type VarDecl } from '../ivl/ast.js';
import { freeVars, renameExpr, rewriteStmts } from '../ivl/walk.js';
import { procedureScope } from '../ivl/typecheck.js';
import { printExpr } from '../ivl/printer.js';
import type { TraceHavoc } from './bmc.js';

/** The file name of the jumps' statements: a counterexample's havocs there are the jumps' own, no nondet call's. */
const ACCELERATION_FILE = '<acceleration>';
const loc = syntheticLoc(ACCELERATION_FILE);
/** The most iterations one jump covers: enough for a 32-bit unsigned counter to pass 2^32. */
const MAX_JUMP = 1n << 33n;
/** The largest constant a variable may change by per iteration. */
const MAX_STEP = 1n << 16n;
/** Terms evaluated in 64 bits stay below this magnitude (exact, with room for one more sum). */
const MAX_MAGNITUDE = 1n << 62n;

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
    if (h.target.startsWith(JUMP_PREFIX) && h.target.endsWith(CHOICE_SUFFIX)) {
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

/** The most paths through a loop's body that get a jump each. */
const MAX_PATHS = 4;

/**
 * The program with jumps before each loop that qualifies, and how many
 * loops did; undefined when none. A body with branches gets a jump per path
 * through it whose branch conditions qualify (m iterations that all take
 * that path); the jumps come in sequence, the sequence repeated once per
 * path, so that the loop's phases can follow each other in any order.
 */
export function accelerateLoops(p: ImpProgram): { readonly program: ImpProgram; readonly loops: number } | undefined {
  let loops = 0;
  let jumps = 0;
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
      const sequence = made.flatMap((j) => j.stmts);
      return [...Array.from({ length: made.length }, () => sequence).flat(), s];
    });
    return decls.length ? { ...proc, locals: [...proc.locals, ...decls], body } : proc;
  });
  return loops ? { program: { ...p, procedures }, loops } : undefined;
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
function jumpOver(cond: Expr, body: readonly Stmt[], typeOf: (name: string) => ImpType | undefined, prefix: string): { decls: VarDecl[]; stmts: Stmt[] } | undefined {
  const steps = new Map<string, { c: bigint; width: BvWidth }>();
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
      if (choice || !t || (t.kind !== 'bv' && t.kind !== 'bool') || read.has(s.target) || steps.has(s.target) || sets.has(s.target)) return undefined;
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
    if (s.kind !== 'assign' || steps.has(s.target) || sets.has(s.target) || s.target === choice?.name || readsChoice(s.value)) return undefined;
    freeVars(s.value, read);
    const t = typeOf(s.target);
    const c = t?.kind === 'bv' && t.width < 64 ? constantStep(s.target, s.value, t.width) : undefined;
    if (c !== undefined) {
      steps.set(s.target, { c, width: (t as { width: BvWidth }).width });
      stepped.add(s.target);
    } else sets.set(s.target, s.value);
  }
  if (steps.size === 0) return undefined;
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
  const changed = new Set([...steps.keys(), ...sets.keys()]);
  const readByConditions = new Set<string>();
  freeVars(stateCond, readByConditions);
  for (const c of conditions) freeVars(c.cond, readByConditions);
  for (const [x, e] of sets) {
    if (readByConditions.has(x) || [...freeVars(e)].some((y) => changed.has(y))) return undefined;
  }
  const m = `${prefix}${M_SUFFIX}`;
  const go = `${prefix}_go`;
  const mVar: Expr = { kind: 'var', name: m, loc };
  const zero = bv64(0n);
  const last: Expr = { kind: 'binary', op: '-', left: mVar, right: bv64(1n), loc };
  const facts: Expr[] = [app('ult', zero, mVar), app('ule', mVar, bv64(MAX_JUMP))];
  const ends = (stepped: ReadonlySet<string>): readonly [At, At] => [
    { steps, t: zero, stepped },
    { steps, t: last, stepped },
  ];
  for (const [c, stepped] of [[stateCond, new Set<string>()] as const, ...conditions.map((a) => [a.cond, a.stepped] as const)]) {
    const held = heldThroughout(c, ends(stepped), typeOf);
    // A path through a failing assert (an error call) is never jumped along.
    if (!held || held.some((f) => f.kind === 'bool_lit' && !f.value)) return undefined;
    facts.push(...held);
  }
  const updates: Stmt[] = [
    ...[...steps].map(([x, { c, width }]): Stmt => ({
      kind: 'assign',
      target: x,
      value: { kind: 'binary', op: '+', left: v(x), right: truncTo(width, { kind: 'binary', op: '*', left: bv64(c), right: mVar, loc }), loc },
      loc,
    })),
    ...[...sets].map(([x, value]): Stmt => ({ kind: 'assign', target: x, value, loc })),
  ];
  // The same fact is often made for the condition and an assert: once is enough.
  const distinct = [...new Map(facts.map((f) => [printExpr(f), f])).values()];
  const assume = (c: Expr): Stmt => ({ kind: 'assume', cond: c, loc });
  const jump: Stmt[] = [{ kind: 'havoc', target: m, loc }, ...distinct.map(assume)];
  const decls: VarDecl[] = [
    { kind: 'var_decl', name: go, type: boolType, loc },
    { kind: 'var_decl', name: m, type: bvType(64), loc },
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
  return { decls, stmts: [{ kind: 'havoc', target: go, loc }, { kind: 'if', cond: v(go), then: jump, else: [], loc }] };
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

/** Where a condition is evaluated: iteration `t` (a 64-bit term), after the body has stepped the variables in `stepped`. */
interface At {
  readonly steps: Steps;
  readonly t: Expr;
  readonly stepped: ReadonlySet<string>;
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
function heldThroughout(cond: Expr, ends: readonly [At, At], typeOf: (name: string) => ImpType | undefined): Expr[] | undefined {
  const out: Expr[] = [];
  // The terms of both sides at both ends, in the view of the comparison.
  const termsOf = (op: string, a: Expr, b: Expr) => {
    const view = SIGNED[op] ?? 's';
    const pairs = ends.map((at) => [term(a, view, at, typeOf, out), term(b, view, at, typeOf, out)] as const);
    return pairs.every(([x, y]) => x && y) ? pairs.map(([x, y]) => [x!.value, y!.value] as const) : undefined;
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

/** The bit-vector type of a variable or literal term (enough to tell `==` on bit-vectors from `==` on Booleans, whose sides are never both of these). */
function typeOf0(e: Expr, typeOf: (name: string) => ImpType | undefined): ImpType | undefined {
  if (e.kind === 'bv_lit') return bvType(e.width);
  if (e.kind === 'var') return typeOf(e.name);
  if (e.kind === 'binary' && ['+', '-', '*'].includes(e.op)) return typeOf0(e.left, typeOf) ?? typeOf0(e.right, typeOf);
  if (e.kind === 'app' && /^[sz]ext\d+$/.test(e.fn)) return bvType(Number(e.fn.slice(4)) as BvWidth);
  return undefined;
}

/**
 * `e`'s mathematical value at `at`, read as signed (`s`) or unsigned (`u`),
 * as a 64-bit term, with the largest magnitude it can have; the facts that
 * its bit-vector value is that number go to `facts`. Undefined for a term
 * that is not affine in the loop's variables.
 */
function term(e: Expr, view: 's' | 'u', at: At, typeOf: (name: string) => ImpType | undefined, facts: Expr[]): { value: Expr; bound: bigint; width: number } | undefined {
  const result = (value: Expr, bound: bigint, width: number) => {
    if (bound >= MAX_MAGNITUDE) return undefined;
    // The bit-vector reads as the number where the number is in the view's range.
    if (width < 64) facts.push(...inRange(value, view, width));
    else if (view === 'u') facts.push(app('sge', value, bv64(0n)));
    return { value, bound, width };
  };
  switch (e.kind) {
    case 'bv_lit': {
      // A literal read as its width's number is in its range.
      const n = view === 's' ? BigInt.asIntN(e.width, e.value) : e.value;
      const bound = n < 0n ? -n : n;
      return bound < MAX_MAGNITUDE ? { value: bv64(n), bound, width: e.width } : undefined;
    }
    case 'var': {
      const t = typeOf(e.name);
      if (t?.kind !== 'bv') return undefined;
      const read: Expr = t.width === 64 ? v(e.name) : app(`${view === 's' ? 's' : 'z'}ext64`, v(e.name));
      const range = t.width === 64 ? 1n << 63n : 1n << BigInt(t.width);
      const s = at.steps.get(e.name);
      // A variable the loop does not change reads as itself (a 64-bit one may be too large).
      if (!s) return t.width === 64 ? result(read, range, 64) : { value: read, bound: range, width: t.width };
      // x + c·t, and + c once more where the body has stepped x already.
      const iterations: Expr = at.stepped.has(e.name) ? { kind: 'binary', op: '+', left: at.t, right: bv64(1n), loc } : at.t;
      const value: Expr = { kind: 'binary', op: '+', left: read, right: { kind: 'binary', op: '*', left: bv64(s.c), right: iterations, loc }, loc };
      const abs = s.c < 0n ? -s.c : s.c;
      return result(value, range + abs * (MAX_JUMP + 1n), t.width);
    }
    case 'app': {
      const ext = /^([sz])ext(\d+)$/.exec(e.fn);
      if (!ext) return undefined;
      const inner = term(e.args[0]!, ext[1] === 's' ? 's' : 'u', at, typeOf, facts);
      return inner && result(inner.value, inner.bound, Number(ext[2]));
    }
    case 'unary': {
      if (e.op !== '-') return undefined;
      const a = term(e.arg, view, at, typeOf, facts);
      return a && result({ kind: 'unary', op: '-', arg: a.value, loc }, a.bound, a.width);
    }
    case 'binary': {
      if (e.op === '+' || e.op === '-') {
        const a = term(e.left, view, at, typeOf, facts);
        const b = a && term(e.right, view, at, typeOf, facts);
        return a && b && result({ kind: 'binary', op: e.op, left: a.value, right: b.value, loc }, a.bound + b.bound, Math.max(a.width, b.width));
      }
      if (e.op === '*') {
        // A product with a literal: the literal times the other side.
        const [lit, other] = e.left.kind === 'bv_lit' ? [e.left, e.right] : e.right.kind === 'bv_lit' ? [e.right, e.left] : [];
        if (!lit || !other) return undefined;
        const l = term(lit, view, at, typeOf, facts);
        const o = l && term(other, view, at, typeOf, facts);
        return l && o && result({ kind: 'binary', op: '*', left: l.value, right: o.value, loc }, l.bound * o.bound, Math.max(l.width, o.width));
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
function and(a: Expr, b: Expr): Expr {
  return { kind: 'binary', op: '&&', left: a, right: b, loc };
}
function app(fn: string, ...args: Expr[]): Expr {
  return { kind: 'app', fn: fn as never, args, loc };
}
function truncTo(width: BvWidth, e: Expr): Expr {
  return app(`trunc${width}`, e);
}

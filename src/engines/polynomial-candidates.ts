// Polynomial equalities guessed from runs, as DIG does: the program is run
// on small random inputs, the states at each loop head are collected, and
// the equalities of degree 2 that every one of them satisfies (the null
// space of the matrix of monomial values) become candidate invariants.
// Guesses only: k-induction keeps those Houdini proves, with the polynomial
// normal form of vc/ deciding their induction steps.
import type { BuiltinName, BvWidth, Expr, ImpProgram, ImpType, WhileStmt } from '../ivl/ast.js';
import { executeImp, type ImpState, type ImpValue } from '../ivl/interp.js';
import { assignedVars, loopsOf, mentionedVars, someStmt, visitStmts } from '../ivl/walk.js';
import { rng } from '../common/random.js';
import { kernel } from '../analysis/affine.js';
import type { LoopCandidateSource } from './candidates.js';

const RUNS = 24;
const MAX_RUNS = 400;
const STEPS_PER_RUN = 10_000;
const SAMPLES_PER_LOOP = 80;
/** Rows beyond the number of monomials that a fit uses (more only cost time). */
const EXTRA_ROWS = 16;
const MAX_VARS = 6;
const MAX_PER_LOOP = 4;
const MAX_LINEAR_PER_LOOP = 2;
const MAX_COEFFICIENT = 1000n;
const MIN_VALUES = 4;

type Sample = ReadonlyMap<string, bigint>;

/** The signed value of a bit-vector (the reading of C's signed integers). */
function signedOf(v: ImpValue | undefined): bigint | undefined {
  if (v?.kind !== 'bv') return undefined;
  return BigInt.asIntN(v.width, v.value);
}

/** States at loop heads after at least one iteration (where a variable's initial value no longer shows). */
const later = new WeakSet<Sample>();

/** Loop-head states of runs on small random inputs, per loop (by location). */
function sampleLoopHeads(program: ImpProgram, seed: number): Map<string, Sample[]> {
  const out = new Map<string, Sample[]>();
  const seen = new Set<string>();
  const r = rng(seed);
  // Half of the runs read 0 (false) for a third of their inputs: a loop
  // that runs while its input is nonzero ends then, and the code after it runs.
  let zeros = 0;
  const havoc = (_n: string, t: ImpType): ImpValue => {
    const zero = r() < zeros;
    if (t.kind === 'bool') return { kind: 'bool', value: !zero && r() < 0.9 };
    if (t.kind !== 'bv') return { kind: 'int', value: zero ? 0n : BigInt(Math.floor(r() * 40) - 8) };
    const v = zero ? 0 : r() < 0.5 ? Math.floor(r() * 12) - 2 : Math.floor(r() * 60);
    return { kind: 'bv', width: t.width, value: BigInt.asUintN(t.width, BigInt(v)) };
  };
  // More runs (up to a total of statements) while a loop has few states: one behind conditions on the inputs is rarely reached.
  const loops = program.procedures.reduce((n, p) => n + loopsOf(p.body ?? []).length, 0);
  let steps = 0;
  for (let run = 0; run < MAX_RUNS && steps < RUNS * STEPS_PER_RUN; run++) {
    if (run >= RUNS && out.size >= loops && [...out.values()].every((x) => x.length >= SAMPLES_PER_LOOP)) break;
    zeros = run % 2 === 0 ? 0 : 1 / 3;
    steps += executeImp(program, 'main', {}, {
      maxSteps: STEPS_PER_RUN,
      checkInvariants: false,
      havoc,
      onLoopHead: (loc, state: ImpState, iteration) => {
        const key = `${loc.line}:${loc.column}:${loc.offset}`;
        const samples = out.get(key) ?? [];
        if (samples.length >= SAMPLES_PER_LOOP) return;
        const sample: Sample = new Map<string, bigint>();
        if (iteration > 0) later.add(sample);
        for (const [name, v] of state) {
          const s = signedOf(v);
          if (s !== undefined) (sample as Map<string, bigint>).set(name, s);
        }
        const text = `${key}|${[...sample.values()].join(',')}`;
        if (seen.has(text)) return;
        seen.add(text);
        samples.push(sample);
        out.set(key, samples);
      },
    }).steps;
  }
  return out;
}

/** Monomials of degree at most `degree` over `vars` (lists of variable indexes; [] is 1). */
function monomials(count: number, degree: number): number[][] {
  const out: number[][] = [[]];
  for (let i = 0; i < count; i++) out.push([i]);
  if (degree >= 2) for (let i = 0; i < count; i++) for (let j = i; j < count; j++) out.push([i, j]);
  return out;
}

function valueOf(mono: readonly number[], vars: readonly string[], s: Sample): bigint {
  return mono.reduce((acc, i) => acc * s.get(vars[i]!)!, 1n);
}

/** Variables the loop body sets to a nondet value (directly, or copied from one). */
function freshEachIteration(loop: WhileStmt): Set<string> {
  const out = new Set<string>();
  visitStmts(loop.body, (x) => {
    if (x.kind === 'havoc') out.add(x.target);
    else if (x.kind === 'assign' && x.value.kind === 'var' && out.has(x.value.name)) out.add(x.target);
  });
  return out;
}

/** The distinct rows of monomial values the samples give (as many as a fit needs). */
function rowsOf(samples: readonly Sample[], monos: readonly number[][], vars: readonly string[]): bigint[][] {
  const rows = new Map<string, bigint[]>();
  for (const s of samples) {
    if (rows.size >= monos.length + EXTRA_ROWS) break;
    const row = monos.map((m) => valueOf(m, vars, s));
    rows.set(row.join(','), row);
  }
  return [...rows.values()];
}

/**
 * The loop's variables to relate: bit-vectors it mentions that vary over
 * the samples, without any that is a linear combination of the others
 * (their products would give equalities that only restate a linear one);
 * and the linear relations among all of them, when the states pin those
 * down (guesses like the polynomial ones).
 */
function relatedVars(loop: WhileStmt, types: ReadonlyMap<string, ImpType>, samples: readonly Sample[]): { vars: string[]; linear: { coefs: bigint[]; vars: string[] }[] } {
  const assigned = assignedVars(loop.body);
  const fresh = freshEachIteration(loop);
  let vars = [...mentionedVars([loop], false)]
    // The lowering's temporaries ($t…), inputs read in each iteration and
    // flags (values 0 and 1) only restate conditions.
    .filter((v) => !v.startsWith('$') && !fresh.has(v) && types.get(v)?.kind === 'bv' && samples.every((s) => s.has(v)))
    // A variable with few values fits any polynomial of that degree in it.
    .filter((v) => new Set(samples.map((s) => s.get(v))).size >= MIN_VALUES && samples.some((s) => later.has(s) && (s.get(v)! < 0n || s.get(v)! > 1n)))
    // The variables the loop assigns first: they carry its invariants.
    .sort((a, b) => Number(assigned.has(b)) - Number(assigned.has(a)) || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, MAX_VARS);
  let linear: { coefs: bigint[]; vars: string[] }[] | undefined;
  for (;;) {
    const monos = monomials(vars.length, 1);
    const rows = rowsOf(samples, monos, vars);
    const basis = kernel(rows, monos.length);
    const all = vars;
    linear ??= rows.length >= monos.length + 4 ? basis.map((coefs) => ({ coefs, vars: all })) : [];
    if (basis.length === 0) return { vars, linear };
    // Drop the last variable the first linear relation involves.
    let last = basis[0]!.length - 1;
    while (last > 0 && basis[0]![last] === 0n) last--;
    if (last === 0) return { vars, linear };
    vars = vars.filter((_, i) => i !== last - 1);
  }
}

/** `Σ positive terms == Σ negated negative terms` (`i + j == n`, `2*x == y*y - y + 2` as `2*x + y == y*y + 2`), in the widest variable's width. */
function polynomialExpr(coefs: readonly bigint[], monos: readonly number[][], vars: readonly string[], types: ReadonlyMap<string, ImpType>, loop: WhileStmt): Expr | undefined {
  const loc = loop.loc;
  const used = new Set(monos.flatMap((m, k) => (coefs[k] !== 0n ? m : [])));
  if (used.size === 0) return undefined;
  const width = Math.max(...[...used].map((i) => (types.get(vars[i]!) as { width: number }).width)) as BvWidth;
  const variable = (i: number): Expr => {
    const w = (types.get(vars[i]!) as { width: number }).width;
    const v: Expr = { kind: 'var', name: vars[i]!, loc };
    return w === width ? v : { kind: 'app', fn: `sext${width}` as BuiltinName, args: [v], loc };
  };
  const literal = (value: bigint): Expr => ({ kind: 'bv_lit', value: BigInt.asUintN(width, value), width, loc });
  const side = (sign: 1n | -1n): Expr => {
    let sum: Expr | undefined;
    monos.forEach((m, k) => {
      const c = coefs[k]! * sign;
      if (c <= 0n) return;
      let term: Expr | undefined = m.length === 0 || c !== 1n ? literal(c) : undefined;
      for (const i of m) term = term ? { kind: 'binary', op: '*', left: term, right: variable(i), loc } : variable(i);
      sum = sum ? { kind: 'binary', op: '+', left: sum, right: term!, loc } : term;
    });
    return sum ?? literal(0n);
  };
  return { kind: 'binary', op: '==', left: side(1n), right: side(-1n), loc };
}

/**
 * Candidate polynomial equalities (degree 2, with a product of variables)
 * at each loop, from runs of the program (at most RUNS × STEPS_PER_RUN
 * statements, once per program).
 */
export function polynomialCandidates(seed = 1): LoopCandidateSource {
  const cache = new WeakMap<ImpProgram, Map<string, Sample[]> | null>();
  return (loop, program) => {
    if (loop.kind !== 'while') return [];
    let samples = cache.get(program);
    if (samples === undefined) {
      // The runs start at `main` (the lowering's entry; without one, no runs).
      const main = program.procedures.find((p) => p.name === 'main')?.body;
      const loops = main !== undefined && program.procedures.some((p) => someStmt(p.body ?? [], (s) => s.kind === 'while'));
      samples = loops ? sampleLoopHeads(program, seed) : null;
      cache.set(program, samples);
    }
    const here = samples?.get(`${loop.loc.line}:${loop.loc.column}:${loop.loc.offset}`) ?? [];
    const main = program.procedures.find((p) => p.name === 'main');
    if (here.length === 0 || !main) return [];
    const types = new Map<string, ImpType>([...program.globals, ...main.params, ...main.returns, ...main.locals].map((d) => [d.name, d.type]));
    const { vars, linear } = relatedVars(loop, types, here);
    const out: Expr[] = [];
    const add = (coefs: readonly bigint[], monos: readonly number[][], over: readonly string[], max: number) => {
      // Large coefficients fit the sample by accident (invariants of programs have small ones).
      if (out.length >= max || coefs.some((c) => c > MAX_COEFFICIENT || c < -MAX_COEFFICIENT)) return;
      // An invariant relates variables: one in a single variable only says which values it took.
      if (new Set(monos.flatMap((m, k) => (coefs[k] !== 0n ? m : []))).size < 2) return;
      const e = polynomialExpr(coefs, monos, over, types, loop);
      if (e) out.push(e);
    };
    // Linear relations the loop's variables keep (`k + j == n`), in bit-vector arithmetic, where they also hold.
    for (const r of linear) add(r.coefs, monomials(r.vars.length, 1), r.vars, MAX_LINEAR_PER_LOOP);
    const polynomialMax = out.length + MAX_PER_LOOP;
    const monos = monomials(vars.length, 2);
    const rows = rowsOf(here, monos, vars);
    // Too few states to pin the equalities down: they would be accidents of the sample.
    if (rows.length < monos.length + 4) return out;
    for (const coefs of kernel(rows, monos.length)) {
      if (monos.some((m, k) => m.length === 2 && coefs[k] !== 0n)) add(coefs, monos, vars, polynomialMax);
    }
    return out;
  };
}

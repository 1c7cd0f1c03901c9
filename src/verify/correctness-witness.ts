// The correctness witness of a TRUE answer: a format 2.0 `invariant_set`
// with one `loop_invariant` per C loop, at the loop keyword.
//
// Invariants come from the abstract interpreter (src/analysis/) run on the
// lowered IMP program, plus any IMP invariants the engine used. Each IMP
// fact of a loop instance is written in C over the C variables in scope
// there (through the source map), only in forms that cannot overflow or
// divide by zero: comparisons of a variable with a constant or with another
// variable of the same type, differences of two at most 32-bit variables
// computed in `long long`, remainders by a positive constant. The C texts of
// all instances of a loop are then checked together on the lowered program
// (Houdini, as `tarsier select` does, every instance of the loop at once):
// only the survivors are written, so every written invariant holds at every
// instance. A loop without a survivor gets the invariant `1`, so the set is
// never empty.
import type { SourceLocation } from '../common/location.js';
import type { CProgram } from '../c/index.js';
import { analyzeProgram, type EqualityTerm, type LoopFact } from '../analysis/index.js';
import type { Expr, Stmt } from '../ivl/ast.js';
import { type CCandidate, type CView, loopInstanceViews, selectCInvariants } from '../invariants/index.js';
import { locKey, type LoweredProgram } from '../lower/index.js';
import type { InvariantSetEntry, LocatedInvariant, Metadata } from '../witness/model.js';

export interface CorrectnessWitnessInput {
  readonly program: CProgram;
  /** The program lowered for the property (default recursion depth). */
  readonly lowered: LoweredProgram;
  /** The program's name as the witness must spell it (`task.input_files`). */
  readonly fileName: string;
  readonly metadata: Metadata;
  /** Time limit of one solver call of the check (ms). */
  readonly timeoutMs: number;
  /** Time for the abstract interpretation (ms); it reports nothing when it runs out. */
  readonly analysisMs: number;
  /** Whether there is time to check candidates (false: only the trivial invariant `1` is written). */
  readonly check?: boolean;
  /** The invariants the engine assumed in its proof, per while of the program it checked (lowered as given). */
  readonly engine?: { readonly lowered: LoweredProgram; readonly invariants: readonly { readonly loop: Stmt; readonly exprs: readonly Expr[] }[] };
  readonly log?: (message: string) => void;
}

export interface CorrectnessWitness {
  readonly entry: InvariantSetEntry;
  /** Invariants written (conjuncts), without the trivial `1`. */
  readonly invariants: number;
  /** Candidates checked. */
  readonly candidates: number;
}

/** A C variable of one loop instance: its name, signedness and width. */
interface CVar {
  readonly name: string;
  readonly signed: boolean;
  readonly width: number;
}

const INT32_MAX = (1n << 31n) - 1n;
const INT32_MIN = -(1n << 31n);

/** A C integer constant with the value v, of a type at least as wide as `width` bits, for comparing with a variable of that signedness. */
function literal(v: bigint, signed: boolean, width: number): string | undefined {
  if (v >= 0n) {
    if (v <= INT32_MAX) return String(v);
    if (!signed && v < 1n << 32n) return `${v}U`;
    if (width === 64 && (signed ? v < 1n << 63n : v < 1n << 64n)) return `${v}${signed ? 'LL' : 'ULL'}`;
    return undefined;
  }
  if (!signed) return undefined;
  // Negative: written as a negated positive constant (never the type's minimum, whose negation overflows).
  if (v > INT32_MIN) return `-${-v}`;
  if (width === 64 && v > -(1n << 63n)) return `-${-v}LL`;
  return undefined;
}

/** One analysis fact as C text over the variables of an instance, or undefined when it has no safe C form. */
function factToC(f: LoopFact, vars: ReadonlyMap<string, CVar>, facts: readonly LoopFact[]): string | undefined {
  const viewFits = (x: CVar, view: string) => (view === 's' ? x.signed : view === 'u' ? !x.signed : false);
  switch (f.kind) {
    case 'bound': {
      const x = vars.get(f.var);
      if (!x || !viewFits(x, f.view)) return undefined;
      const c = literal(f.value, x.signed, x.width);
      return c === undefined ? undefined : `${x.name} ${f.op} ${c}`;
    }
    case 'difference': {
      const a = vars.get(f.a);
      const b = vars.get(f.b);
      if (!a || !b || !viewFits(a, f.view) || !viewFits(b, f.view)) return undefined;
      if (f.bound === 0n && a.width === b.width) return `${a.name} <= ${b.name}`;
      if (a.width > 32 || b.width > 32 || f.bound > INT32_MAX || f.bound < -INT32_MAX) return undefined;
      return `(long long)${a.name} - (long long)${b.name} <= ${f.bound}`;
    }
    case 'congruence': {
      const x = vars.get(f.var);
      if (!x || f.modulus > INT32_MAX) return undefined;
      // C's % of a negative value is negative: a signed variable needs a known lower bound 0.
      const nonNegative = !x.signed || facts.some((g) => g.kind === 'bound' && g.var === f.var && g.view === 's' && g.op !== '<=' && g.value >= 0n);
      return nonNegative ? `${x.name} % ${f.modulus} == ${f.residue}` : undefined;
    }
    case 'equality':
      return equalityToC(f.terms, f.constant, vars);
  }
}

/** Coefficients and constants of an equality in C: small enough that no sum of 32-bit values overflows `long long`. */
const MAX_COEFFICIENT = 1n << 20n;
const MAX_TERMS = 8;

/**
 * `Σ coeff·x + constant == 0` in C, every term computed in `long long` over
 * variables of at most 32 bits: with at most 8 terms of coefficients below
 * 2^20 no intermediate sum leaves the range of `long long`.
 */
function equalityToC(terms: readonly EqualityTerm[], constant: bigint, vars: ReadonlyMap<string, CVar>): string | undefined {
  if (terms.length > MAX_TERMS || constant >= 1n << 62n || constant <= -(1n << 62n)) return undefined;
  const side = (sign: bigint): string[] | undefined => {
    const out: string[] = [];
    for (const t of terms) {
      if ((t.coeff > 0n) !== (sign > 0n)) continue;
      const x = vars.get(t.var);
      const k = t.coeff * sign;
      if (!x || x.width > 32 || k >= MAX_COEFFICIENT) return undefined;
      if (!t.sameViews && (t.view === 's') !== x.signed) return undefined;
      out.push(k === 1n ? `(long long)${x.name}` : `${k} * (long long)${x.name}`);
    }
    return out;
  };
  const left = side(1n);
  const right = side(-1n);
  if (!left || !right) return undefined;
  // Σ positive == Σ negative - constant
  if (constant !== 0n) right.push(`${-constant}LL`);
  const text = (xs: string[]) => (xs.length === 0 ? '0' : xs.join(' + ').replace(/\+ -/g, '- '));
  return `${text(left)} == ${text(right)}`;
}

/** An IMP condition of the shapes the analysis and the engine's templates produce, in C (undefined for other shapes). */
export function exprToC(e: Expr, vars: ReadonlyMap<string, CVar>): string | undefined {
  const CMP: Record<string, [string, boolean | undefined]> = {
    sle: ['<=', true], slt: ['<', true], sge: ['>=', true], sgt: ['>', true],
    ule: ['<=', false], ult: ['<', false], uge: ['>=', false], ugt: ['>', false],
  };
  // An operand compared with signedness `signed` (undefined: either) beside another of `width` bits.
  const atom = (x: Expr, signed: boolean | undefined, other?: CVar): { text: string; v?: CVar } | undefined => {
    if (x.kind === 'var') {
      const v = vars.get(x.name);
      return v && (signed === undefined || v.signed === signed) ? { text: v.name, v } : undefined;
    }
    if (x.kind === 'bv_lit' && other) {
      const value = other.signed ? BigInt.asIntN(x.width, x.value) : x.value;
      const t = literal(value, other.signed, other.width);
      return t === undefined ? undefined : { text: t };
    }
    return undefined;
  };
  const compare = (op: string, l: Expr, r: Expr, signed: boolean | undefined): string | undefined => {
    const a = atom(l, signed);
    if (!a?.v) return undefined;
    const b = atom(r, signed ?? a.v.signed, a.v);
    if (!b || (b.v && (b.v.width !== a.v.width || b.v.signed !== a.v.signed))) return undefined;
    return `${a.text} ${op} ${b.text}`;
  };
  if (e.kind === 'app' && CMP[e.fn] && e.args.length === 2) {
    const plain = compare(CMP[e.fn]![0], e.args[0]!, e.args[1]!, CMP[e.fn]![1]);
    if (plain !== undefined) return plain;
    if (!CMP[e.fn]![1]) {
      // Unsigned comparisons of sums and multiples modulo 2^32 or 2^64 (the accumulators' bounds): C's unsigned types compare the same values.
      const ma = modularToC(e.args[0]!, vars);
      const mb = ma && modularToC(e.args[1]!, vars);
      return ma && mb && ma.width === mb.width ? `${ma.text} ${CMP[e.fn]![0]} ${mb.text}` : undefined;
    }
    // Signed comparisons of 64-bit sums and products of extended variables (the Horn engine's invariants).
    const a = arithToC(e.args[0]!, vars);
    const b = a && arithToC(e.args[1]!, vars);
    return a && b ? `${a.text} ${CMP[e.fn]![0]} ${b.text}` : undefined;
  }
  if (e.kind === 'binary' && e.op === '==>') {
    const a = exprToC(e.left, vars);
    const b = a === undefined ? undefined : exprToC(e.right, vars);
    return a === undefined || b === undefined ? undefined : `(!(${a}) || (${b}))`;
  }
  // Boolean combinations (the program's own conditions): C's operators on 0/1 values.
  if (e.kind === 'unary' && e.op === '!') {
    const a = exprToC(e.arg, vars);
    return a === undefined ? undefined : `!(${a})`;
  }
  if (e.kind === 'binary' && (e.op === '&&' || e.op === '||')) {
    const a = exprToC(e.left, vars);
    const b = a === undefined ? undefined : exprToC(e.right, vars);
    // Parenthesised whole: the witness joins invariants with `&&`.
    return a === undefined || b === undefined ? undefined : `((${a}) ${e.op} (${b}))`;
  }
  if (e.kind === 'binary' && (e.op === '==' || e.op === '!=')) {
    // urem(x, m) == r
    const l = e.left;
    if (e.op === '==' && l.kind === 'app' && l.fn === 'urem' && l.args[0]?.kind === 'var' && l.args[1]?.kind === 'bv_lit' && e.right.kind === 'bv_lit') {
      const v = vars.get(l.args[0].name);
      if (!v || v.signed || l.args[1].value === 0n) return undefined;
      return factToC({ kind: 'congruence', var: l.args[0].name, modulus: l.args[1].value, residue: e.right.value }, vars, []);
    }
    const plain = compare(e.op, e.left, e.right, undefined);
    if (plain !== undefined) return plain;
    const a = arithToC(e.left, vars);
    const b = a && arithToC(e.right, vars);
    if (a && b) return `${a.text} ${e.op} ${b.text}`;
    // Polynomials modulo 2^32 or 2^64 (the polynomial candidates): C's unsigned arithmetic wraps the same way.
    const ma = modularToC(e.left, vars);
    const mb = ma && modularToC(e.right, vars);
    return ma && mb && ma.width === mb.width ? `${ma.text} ${e.op} ${mb.text}` : undefined;
  }
  // sbv2int(a) - sbv2int(b) <= c (ubv2int alike)
  if (e.kind === 'binary' && e.op === '<=' && e.left.kind === 'binary' && e.left.op === '-') {
    const read = (x: Expr): { name: string; view: 's' | 'u' } | undefined =>
      x.kind === 'app' && (x.fn === 'sbv2int' || x.fn === 'ubv2int') && x.args[0]?.kind === 'var' ? { name: x.args[0].name, view: x.fn === 'sbv2int' ? 's' : 'u' } : undefined;
    const a = read(e.left.left);
    const b = read(e.left.right);
    const r = e.right;
    const c = r.kind === 'int_lit' ? r.value : r.kind === 'unary' && r.op === '-' && r.arg.kind === 'int_lit' ? -r.arg.value : undefined;
    if (!a || !b || a.view !== b.view || c === undefined) return undefined;
    return factToC({ kind: 'difference', a: a.name, b: b.name, view: a.view, bound: c }, vars, []);
  }
  return undefined;
}

/**
 * A 32- or 64-bit IMP term of `+`, `-`, `*`, literals and variables of that
 * width (or narrower signed ones sign-extended to 64 bits, narrower unsigned
 * ones zero-extended) as C arithmetic
 * in `unsigned int` or `unsigned long long`, which wraps modulo 2^32 or
 * 2^64 exactly as the bit-vector operations do.
 */
function modularToC(e: Expr, vars: ReadonlyMap<string, CVar>): { text: string; width: 32 | 64 } | undefined {
  const type = (w: 32 | 64) => (w === 32 ? 'unsigned int' : 'unsigned long long');
  switch (e.kind) {
    case 'bv_lit':
      return e.width === 32 || e.width === 64 ? { text: `${e.value}${e.width === 32 ? 'U' : 'ULL'}`, width: e.width } : undefined;
    case 'var': {
      const v = vars.get(e.name);
      return v && (v.width === 32 || v.width === 64) ? { text: `((${type(v.width)})${v.name})`, width: v.width } : undefined;
    }
    case 'app': {
      const x = e.args[0];
      const v = x?.kind === 'var' ? vars.get(x.name) : undefined;
      // A narrower unsigned variable zero-extended: its conversion to the unsigned type keeps its value.
      if ((e.fn === 'zext32' || e.fn === 'zext64') && v && !v.signed && v.width < (e.fn === 'zext32' ? 32 : 64)) {
        const w = e.fn === 'zext32' ? 32 : 64;
        return { text: `((${type(w)})${v.name})`, width: w };
      }
      if (e.fn !== 'sext64' || !v || !v.signed || v.width >= 64) return undefined;
      return { text: `((unsigned long long)(long long)${v.name})`, width: 64 };
    }
    case 'binary': {
      if (e.op !== '+' && e.op !== '-' && e.op !== '*') return undefined;
      const a = modularToC(e.left, vars);
      const b = a && modularToC(e.right, vars);
      return a && b && a.width === b.width ? { text: `(${a.text} ${e.op} ${b.text})`, width: a.width } : undefined;
    }
    default:
      return undefined;
  }
}

const LL_MIN = -(1n << 63n);
const LL_MAX = (1n << 63n) - 1n;

/**
 * A 64-bit IMP term built from variables of at most 32 bits extended to 64
 * (`sext64` of a signed C variable, `zext64` of an unsigned one), 64-bit
 * constants, `+`, `-` and `*`, as C arithmetic in `long long`: only when
 * the interval of every intermediate value lies in the range of `long long`,
 * so C computes exactly what IMP does (no overflow, no wrap-around).
 */
function arithToC(e: Expr, vars: ReadonlyMap<string, CVar>): { text: string; lo: bigint; hi: bigint } | undefined {
  const fits = (lo: bigint, hi: bigint) => lo >= LL_MIN && hi <= LL_MAX;
  switch (e.kind) {
    case 'bv_lit': {
      if (e.width !== 64) return undefined;
      const v = BigInt.asIntN(64, e.value);
      // The type's minimum has no literal (its negation overflows).
      if (v === LL_MIN) return undefined;
      return { text: v < 0n ? `(-${-v}LL)` : `${v}LL`, lo: v, hi: v };
    }
    case 'app': {
      const x = e.args[0];
      if ((e.fn !== 'sext64' && e.fn !== 'zext64') || x?.kind !== 'var') return undefined;
      const v = vars.get(x.name);
      if (!v || v.width > 32 || v.signed !== (e.fn === 'sext64')) return undefined;
      const w = BigInt(v.width);
      return v.signed ? { text: `(long long)${v.name}`, lo: -(1n << (w - 1n)), hi: (1n << (w - 1n)) - 1n } : { text: `(long long)${v.name}`, lo: 0n, hi: (1n << w) - 1n };
    }
    case 'unary': {
      if (e.op !== '-') return undefined;
      const a = arithToC(e.arg, vars);
      return a && fits(-a.hi, -a.lo) ? { text: `(-${a.text})`, lo: -a.hi, hi: -a.lo } : undefined;
    }
    case 'binary': {
      if (e.op !== '+' && e.op !== '-' && e.op !== '*') return undefined;
      const a = arithToC(e.left, vars);
      const b = a && arithToC(e.right, vars);
      if (!a || !b) return undefined;
      const products = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi];
      const [lo, hi] =
        e.op === '+' ? [a.lo + b.lo, a.hi + b.hi] : e.op === '-' ? [a.lo - b.hi, a.hi - b.lo] : [products.reduce((m, v) => (v < m ? v : m)), products.reduce((m, v) => (v > m ? v : m))];
      return fits(lo, hi) ? { text: `(${a.text} ${e.op} ${b.text})`, lo, hi } : undefined;
    }
    default:
      return undefined;
  }
}

function impVars(view: CView, lowered: LoweredProgram): Map<string, CVar> {
  const widths = new Map(lowered.sourceMap.variables.map((v) => [v.imp, v.width]));
  return new Map(view.map((v) => [v.imp, { name: v.name, signed: v.signed, width: widths.get(v.imp) ?? 64 }]));
}

/** Builds the invariant set of a TRUE answer (see the module comment). */
export async function buildCorrectnessWitness(input: CorrectnessWitnessInput): Promise<CorrectnessWitness> {
  const log = input.log ?? (() => {});
  const { program, lowered } = input;
  const instances = loopInstanceViews(program, lowered);
  const allLoops = new Map(lowered.sourceMap.loops.map((l) => [locKey(l.loc), l]));
  // Facts are written at C loops only, and only checked ones: without a loop or a check the analysis is not run (150 ms on a large loop-free program).
  const analysis = allLoops.size > 0 && input.check !== false ? analyzeProgram(lowered.imp, { entry: lowered.imp.procedures.find((p) => p.body)?.name, deadline: Date.now() + input.analysisMs }) : undefined;
  if (analysis?.gaveUp) log(`witness: analysis gave up: ${analysis.gaveUp}`);
  // Candidate C texts per C loop (by keyword location), over all its instances.
  const perLoop = new Map<string, { loc: SourceLocation; function: string; texts: Set<string>; toCheck: Set<string> }>();
  for (const [key, l] of allLoops) perLoop.set(key, { loc: l.loc, function: l.function, texts: new Set(), toCheck: new Set() });
  // Whether the proof was k-induction with invariants (not complete unrolling): see the unchecked case below.
  const proofUsedInvariants = input.engine !== undefined && input.engine.invariants.some((i) => i.exprs.length > 0);
  for (const [w, inst] of instances) {
    const result = analysis?.loops.get(w as Stmt);
    const slot = perLoop.get(locKey(inst.loopLoc));
    if (!result || !slot) continue;
    const vars = impVars(inst.view, lowered);
    for (const f of result.facts) {
      const text = factToC(f, vars, result.facts);
      if (text) slot.texts.add(text);
    }
  }
  if (input.engine) {
    const views = loopInstanceViews(program, input.engine.lowered);
    let mapped = 0;
    for (const inv of input.engine.invariants) {
      const inst = views.get(inv.loop);
      const slot = inst && perLoop.get(locKey(inst.loopLoc));
      if (!inst || !slot) continue;
      const vars = impVars(inst.view, input.engine.lowered);
      for (const e of inv.exprs) {
        const text = exprToC(e, vars);
        if (text) {
          slot.texts.add(text);
          mapped++;
        }
        // `cond ==> fact` (k-induction's form): the fact alone holds at the head of a `while (1)` (reached only
        // to run an iteration); at any other loop it is a guess for the check, never written unchecked.
        const fact = e.kind === 'binary' && e.op === '==>' ? exprToC(e.right, vars) : undefined;
        if (fact && !slot.texts.has(fact)) {
          slot.texts.add(fact);
          if (!inst.unconditional) slot.toCheck.add(fact);
        }
      }
    }
    log(`witness: ${mapped} of the engine's invariants have a C form`);
  }
  // A recursion cut by the lowering (`assume false` below the inlining depth)
  // hides the deeper executions from the check below: no invariants then.
  if (lowered.sourceMap.goals.some((g) => g.kind === 'recursion')) {
    log('witness: the program is recursive; only trivial invariants are written');
    for (const slot of perLoop.values()) slot.texts.clear();
  }
  const candidates: CCandidate[] = [];
  for (const slot of perLoop.values()) {
    for (const text of [...slot.texts].sort()) {
      candidates.push({ index: candidates.length, loc: slot.loc, text, loopLoc: slot.loc, function: slot.function, format: 'c_expression' });
    }
  }
  const selected = new Map<string, string[]>();
  if (candidates.length > 0 && input.check !== false) {
    // Two calls' time in all: the verdict is lost if the witness overruns the hard limit.
    const r = await selectCInvariants(program, lowered, candidates, { method: 'houdini', skipVerification: true, timeoutMs: input.timeoutMs, deadline: Date.now() + 2 * input.timeoutMs });
    // Out of time before the check ended, after an induction proof: the
    // candidates not refuted are written unchecked (each is an analysis fact
    // or an invariant of the proof, so it holds), where a C loop is one loop
    // of the lowered program (so the IMP fact is the C one): a validator with
    // its own time re-checks them, while `1` would leave it the whole proof.
    const instancesOf = new Map<string, number>();
    for (const inst of instances.values()) instancesOf.set(locKey(inst.loopLoc), (instancesOf.get(locKey(inst.loopLoc)) ?? 0) + 1);
    const unchecked = (v: (typeof r.verdicts)[number], c: CCandidate) =>
      proofUsedInvariants && v.reason === 'undecided' && instancesOf.get(locKey(c.loopLoc)) === 1 && !perLoop.get(locKey(c.loopLoc))!.toCheck.has(c.text);
    let uncheckedCount = 0;
    r.verdicts.forEach((v, i) => {
      const c = candidates[i]!;
      if (v.status !== 'selected' && !unchecked(v, c)) return;
      if (v.status !== 'selected') uncheckedCount++;
      const k = locKey(c.loopLoc);
      selected.set(k, [...(selected.get(k) ?? []), c.text]);
    });
    if (uncheckedCount > 0) log(`witness: ${uncheckedCount} invariants of the proof written unchecked (no time left to check them)`);
  }
  const content: LocatedInvariant[] = [];
  let count = 0;
  for (const [key, slot] of perLoop) {
    const texts = withoutRedundant(selected.get(key) ?? []);
    count += texts.length;
    content.push({
      kind: 'loop_invariant',
      location: { file_name: input.fileName, line: slot.loc.line, column: slot.loc.column, function: slot.function, columnBase: 1 },
      value: { text: texts.length > 0 ? texts.join(' && ') : '1', format: 'c_expression' },
    });
  }
  if (content.length === 0) content.push(trivialInvariant(program, input.fileName));
  log(`witness: ${count} of ${candidates.length} candidate invariants written at ${perLoop.size} loops`);
  return { entry: { entry_type: 'invariant_set', metadata: input.metadata, content }, invariants: count, candidates: candidates.length };
}

/**
 * The selected texts without the ones an equality between two variables
 * makes redundant (`i <= k`, `k >= i`, `k == i`, `(long long)k == (long long)i`
 * beside `i == k`): the same invariant, shorter for a validator.
 */
function withoutRedundant(texts: readonly string[]): string[] {
  const pair = /^(?:\(long long\))?([A-Za-z_]\w*) (<=|>=|==) (?:\(long long\))?([A-Za-z_]\w*)$/;
  const equal = new Set<string>();
  const out: string[] = [];
  for (const t of texts) {
    const m = pair.exec(t);
    // Only a plain `a == b` (with casts, it differs when one is unsigned and the other negative).
    if (m && m[2] === '==' && !t.includes('(') && !equal.has(`${m[1]} ${m[3]}`)) {
      equal.add(`${m[1]} ${m[3]}`).add(`${m[3]} ${m[1]}`);
      out.push(`${m[1]} == ${m[3]}`);
    }
  }
  for (const t of texts) {
    const m = pair.exec(t);
    if (!m || !equal.has(`${m[1]} ${m[3]}`)) out.push(t);
  }
  return [...new Set(out)].sort();
}

/** A program without loops: the invariant `1` at the first statement of main (an invariant set may not be empty). */
function trivialInvariant(program: CProgram, fileName: string): LocatedInvariant {
  const main = program.declarations.find((d) => d.kind === 'FunctionDefinition' && d.decl.name === 'main');
  const first = main?.kind === 'FunctionDefinition' ? main.body.items[0] : undefined;
  const loc = first?.loc ?? main?.loc ?? { line: 1, column: 1 };
  return {
    kind: 'location_invariant',
    location: { file_name: fileName, line: loc.line, column: loc.column, function: 'main', columnBase: 1 },
    value: { text: '1', format: 'c_expression' },
  };
}

// A normal form for nonlinear bit-vector equalities (and linear ones over
// many unknowns, MIN_LINEAR_UNKNOWNS). `+`, `-` and `*` on
// w-bit vectors are the ring of integers modulo 2^w, so a polynomial over
// that ring has one canonical form whatever the order its terms were built
// in. An equality `a = b` whose sides are polynomials (after the values of
// assigned constants are put in) becomes `P = 0` with P in that form. Then
// an induction step's hypothesis `y*y - 2*x + y = 0` and its goal
// `(y+1)*(y+1) - 2*(x+y+1) + (y+1) = 0` are the same term, which the solver
// sees at once, where bit-blasting two 64-bit multiplications does not end.

import { isNonlinearProduct, mkAnd, mkApp, mkBool, mkBv, mkConst, mkEq, mkImplies, mkIte, withArgs, type Term } from '../smt/terms.js';

/** How large a polynomial may grow before the equality is left as it was. */
const MAX_MONOMIALS = 48;
const MAX_DEGREE = 8;
/** How many assigned constants one read looks through. */
const MAX_EXPANSION = 64;
/** How many earlier equalities a new one is divided by. */
const MAX_KNOWN = 24;
/** How many reduction steps one division may take. */
const MAX_STEPS = 200;

/** A sum of coefficient × monomial; a monomial is a sorted list of atoms (by term id), repeated for powers. */
interface Polynomial {
  readonly width: number;
  readonly terms: ReadonlyMap<string, { readonly atoms: readonly Term[]; readonly coef: bigint }>;
}

type Terms = Map<string, { atoms: readonly Term[]; coef: bigint }>;

function keyOf(atoms: readonly Term[]): string {
  return atoms.map((a) => a.id).join(',');
}

function constant(v: bigint, width: number): Polynomial {
  const m = BigInt.asUintN(width, v);
  return { width, terms: m === 0n ? new Map() : new Map([['', { atoms: [], coef: m }]]) };
}

function add(p: Polynomial, q: Polynomial, sign: 1n | -1n): Polynomial {
  const out: Terms = new Map(p.terms);
  for (const [k, t] of q.terms) {
    const coef = BigInt.asUintN(p.width, (out.get(k)?.coef ?? 0n) + sign * t.coef);
    if (coef === 0n) out.delete(k);
    else out.set(k, { atoms: t.atoms, coef });
  }
  return { width: p.width, terms: out };
}

function degree(p: Polynomial): number {
  let d = 0;
  for (const t of p.terms.values()) d = Math.max(d, t.atoms.length);
  return d;
}

function multiply(p: Polynomial, q: Polynomial): Polynomial | undefined {
  if (degree(p) + degree(q) > MAX_DEGREE || p.terms.size * q.terms.size > MAX_MONOMIALS * 4) return undefined;
  const out: Terms = new Map();
  for (const a of p.terms.values()) {
    for (const b of q.terms.values()) {
      const atoms = [...a.atoms, ...b.atoms].sort((x, y) => x.id - y.id);
      const k = keyOf(atoms);
      const coef = BigInt.asUintN(p.width, (out.get(k)?.coef ?? 0n) + a.coef * b.coef);
      if (coef === 0n) out.delete(k);
      else out.set(k, { atoms, coef });
    }
  }
  return out.size > MAX_MONOMIALS ? undefined : { width: p.width, terms: out };
}

/** Conditions of `ite` atoms fixed while an equality is split into cases. */
interface Cases {
  readonly key: string;
  readonly fixed: ReadonlyMap<Term, boolean>;
}

const NO_CASES: Cases = { key: '', fixed: new Map() };

function withCase(cases: Cases, cond: Term, value: boolean): Cases {
  return { key: `${cases.key}${value ? '+' : '-'}${cond.id},`, fixed: new Map([...cases.fixed, [cond, value]]) };
}

/**
 * Linear equalities over this many unknowns or more are normalised too: a
 * sum of counters that one of a loop's branches steps (`i + j + k + l == n`)
 * is inductive path by path, which bit-blasting the adders of the merged
 * values does not see in seconds. Smaller ones stay as they are: the solver
 * does well with them, and their constants feed the encoder's propagation.
 */
const MIN_LINEAR_UNKNOWNS = 4;

/** The number of non-constant monomials of `p`. */
function unknownsIn(p: Polynomial): number {
  let n = 0;
  for (const t of p.terms.values()) if (t.atoms.length > 0) n++;
  return n;
}

/** How many `ite` conditions one equality may be split on (2^n cases). */
const MAX_SPLITS = 3;

/**
 * Reads bit-vector terms as polynomials. `valueOf` gives the term a
 * constant of the encoding stands for (an assignment's value or a merge's
 * `ite`: the encoding asserts their equality); anything that is not
 * `+ - *`, a literal, a shift by a literal or such a constant is an atom.
 */
export class PolynomialReader {
  private readonly memo = new Map<string, Map<Term, Polynomial | null>>();
  private readonly rewritten = new Map<Term, Term>();
  /** How many assigned constants the read in progress has looked through. */
  private depth = 0;
  /** Equalities `P = 0` met so far (the latest last), to derive others from. */
  private readonly known: { readonly poly: Polynomial; readonly eq: Term }[] = [];

  /**
   * `lemma` receives formulas that hold in every model (`H1 = 0 ∧ … ⇒ G = 0`
   * where G is a combination of the H): the encoding may assert them.
   */
  constructor(
    private readonly valueOf: (c: Term) => Term | undefined,
    private readonly lemma: (t: Term) => void = () => {},
  ) {}

  private remember(poly: Polynomial, eq: Term): void {
    if (poly.terms.size === 0 || this.known.some((k) => k.eq === eq)) return;
    this.known.push({ poly, eq });
    if (this.known.length > MAX_KNOWN) this.known.shift();
  }

  /**
   * A lemma `H1 = 0 ∧ … ⇒ G = 0` when G (any normalised equality) is a
   * combination Q1·H1 + … of equalities met before: an induction step's
   * goal is often its hypothesis times a factor (`x*z - x - y + 1` becomes
   * z times itself), or the sum of two hypotheses, which bit-blasting
   * cannot see.
   */
  private entail(g: Polynomial, eq: Term): void {
    const hs = this.known.filter((k) => k.poly.width === g.width && k.eq !== eq);
    this.remember(g, eq);
    if (hs.length === 0) return;
    const quotients = divide(g, hs.map((k) => k.poly));
    if (!quotients) return;
    const used = hs.filter((_, i) => quotients[i]!.terms.size > 0);
    if (used.length > 0) this.lemma(mkImplies(mkAnd(...used.map((k) => k.eq)), eq));
  }

  private read(t: Term, cases: Cases): Polynomial | undefined {
    let memo = this.memo.get(cases.key);
    if (!memo) this.memo.set(cases.key, (memo = new Map()));
    const hit = memo.get(t);
    if (hit !== undefined) return hit ?? undefined;
    const p = this.compute(t, cases);
    memo.set(t, p ?? null);
    return p;
  }

  private compute(t: Term, cases: Cases): Polynomial | undefined {
    const width = (t.sort as { width: number }).width;
    const atom = (): Polynomial => ({ width, terms: new Map([[String(t.id), { atoms: [t], coef: 1n }]]) });
    switch (t.op) {
      case 'bv':
        return constant(t.value!, width);
      case 'const': {
        // A long chain of assignments (an unrolled loop) is read up to a
        // depth: beyond it the constant is an atom (still exact, only less
        // normalised), and the recursion stays far from the stack's limit.
        const v = this.valueOf(t);
        if (!v || this.depth >= MAX_EXPANSION) return atom();
        this.depth++;
        try {
          return this.read(v, cases) ?? atom();
        } finally {
          this.depth--;
        }
      }
      case 'ite': {
        const taken = cases.fixed.get(t.args[0]!);
        return taken === undefined ? atom() : this.read(t.args[taken ? 1 : 2]!, cases);
      }
      case 'bvadd':
      case 'bvsub': {
        let p = this.read(t.args[0]!, cases);
        for (const a of t.args.slice(1)) {
          const q = this.read(a, cases);
          if (!p || !q) return undefined;
          p = add(p, q, t.op === 'bvadd' ? 1n : -1n);
          if (p.terms.size > MAX_MONOMIALS) return undefined;
        }
        return p;
      }
      case 'bvneg': {
        const p = this.read(t.args[0]!, cases);
        return p && add(constant(0n, width), p, -1n);
      }
      case 'bvmul': {
        let p = this.read(t.args[0]!, cases);
        for (const a of t.args.slice(1)) {
          const q = this.read(a, cases);
          if (!p || !q) return undefined;
          p = multiply(p, q);
        }
        return p;
      }
      case 'sign_extend':
      case 'zero_extend': {
        // ext(x + y) is ext(x) + ext(y) where the narrow sum does not wrap
        // (a C int promoted after the operation: `x * (z - 1)` with long long
        // x). That identity is a case, as an ite's condition is: the
        // equality is split on it, the sum in one case, the atom in the other.
        const operand = t.args[0]!;
        const inner = operand.op === 'const' ? (this.valueOf(operand) ?? operand) : operand;
        if (inner.op !== 'bvadd' && inner.op !== 'bvsub' && inner.op !== 'bvmul') return atom();
        const narrow = (inner.sort as { width: number }).width;
        const extend = (a: Term): Term =>
          a.op !== 'bv' ? withArgs(t, [a]) : mkBv(t.op === 'sign_extend' ? BigInt.asUintN(width, BigInt.asIntN(narrow, a.value!)) : a.value!, width);
        const spread = mkApp(inner.op, ...inner.args.map(extend));
        const guard = mkEq(t, spread);
        const taken = cases.fixed.get(guard);
        if (taken === undefined) {
          const split = mkIte(guard, spread, t);
          return { width, terms: new Map([[String(split.id), { atoms: [split], coef: 1n }]]) };
        }
        return taken ? this.read(spread, cases) : atom();
      }
      case 'bvshl': {
        const by = t.args[1]!;
        const p = this.read(t.args[0]!, cases);
        if (by.op !== 'bv' || !p) return atom();
        return by.value! >= BigInt(width) ? constant(0n, width) : multiply(p, constant(1n << by.value!, width));
      }
      default:
        return atom();
    }
  }

  /**
   * `t` with every bit-vector equality whose sides differ by a polynomial of
   * degree 2 or more, or by a linear one over MIN_LINEAR_UNKNOWNS unknowns
   * or more, put in normal form.
   */
  rewrite(t: Term): Term {
    const hit = this.rewritten.get(t);
    if (hit) return hit;
    let out = t;
    if (t.args.length > 0) {
      const args = t.args.map((a) => this.rewrite(a));
      out = withArgs(t, args);
      if (t.op === '=' && args[0]!.sort.kind === 'BitVec') out = this.equality(args[0]!, args[1]!, NO_CASES) ?? out;
    }
    this.rewritten.set(t, out);
    return out;
  }

  /**
   * `a = b` as `P = 0`, P in normal form (its first coefficient at most half
   * the modulus: `P = 0` and `-P = 0` are one equality). Where P has an
   * atom `ite(c, x, y)` (a variable a branch may have assigned), the
   * equality is split on c: `ite(c, P[x] = 0, P[y] = 0)`, so a loop body's
   * paths are each normalised. Undefined: linear over few unknowns (at the top), or too large.
   */
  private equality(a: Term, b: Term, cases: Cases): Term | undefined {
    const p = this.read(a, cases);
    const q = this.read(b, cases);
    if (!p || !q) return undefined;
    const diff = add(p, q, -1n);
    if (diff.terms.size === 0) return mkBool(true);
    if (cases === NO_CASES && degree(diff) < 2 && unknownsIn(diff) < MIN_LINEAR_UNKNOWNS) {
      this.remember(diff, mkEq(a, b));
      return undefined;
    }
    const choice = cases.fixed.size < MAX_SPLITS ? firstIte(diff) : undefined;
    if (choice) {
      const c = choice.args[0]!;
      const yes = this.equality(a, b, withCase(cases, c, true));
      const no = yes && this.equality(a, b, withCase(cases, c, false));
      return no && mkIte(c, yes, no);
    }
    const ordered = monomials(diff);
    const flip = ordered[0]!.coef > 1n << BigInt(diff.width - 1);
    const canonical = flip ? add(constant(0n, diff.width), diff, -1n) : diff;
    if (degree(canonical) === 0) return mkBool(false);
    const eq = mkEq(termOf(monomials(canonical), diff.width), mkBv(0n, diff.width));
    this.entail(canonical, eq);
    return eq;
  }
}

function firstIte(p: Polynomial): Term | undefined {
  for (const m of p.terms.values()) for (const a of m.atoms) if (a.op === 'ite') return a;
  return undefined;
}

/**
 * The graded lexicographic order on monomials (atoms ordered by term id):
 * higher degree first, then the higher power of the first atom where they
 * differ. It is compatible with multiplication, so division ends.
 */
function compareMonomials(x: readonly Term[], y: readonly Term[]): number {
  if (x.length !== y.length) return y.length - x.length;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]!.id - y[i]!.id;
  return 0;
}

function monomials(p: Polynomial): { readonly atoms: readonly Term[]; readonly coef: bigint }[] {
  return [...p.terms.values()].sort((x, y) => compareMonomials(x.atoms, y.atoms));
}

/** `m / d` when the monomial d divides m. */
function quotientOf(m: readonly Term[], d: readonly Term[]): Term[] | undefined {
  const rest = [...m];
  for (const a of d) {
    const i = rest.indexOf(a);
    if (i < 0) return undefined;
    rest.splice(i, 1);
  }
  return rest;
}

/** The inverse of an odd number modulo 2^width (Newton's iteration). */
function inverse(c: bigint, width: number): bigint {
  let x = c;
  for (let i = 0; i < 7; i++) x = BigInt.asUintN(width, x * (2n - c * x));
  return x;
}

/**
 * Quotients Q with g = Σ Q[i]·hs[i], by multivariate division (by a
 * monomial of each divisor whose coefficient is odd, a unit of the ring),
 * checked by multiplying back; undefined when the remainder is not zero.
 */
function divide(g: Polynomial, hs: readonly Polynomial[]): Polynomial[] | undefined {
  const w = g.width;
  // Each divisor's pivot: its greatest monomial with an odd coefficient. The
  // greatest of all when that one is odd (then each step only brings in
  // smaller monomials); otherwise steps may not end, and are counted.
  const leads = hs.map((h) => monomials(h).find((m) => (m.coef & 1n) === 1n));
  const quotients = hs.map(() => constant(0n, w));
  let r = g;
  for (let step = 0; r.terms.size > 0; step++) {
    if (step >= MAX_STEPS) return undefined;
    let reduced = false;
    for (const m of monomials(r)) {
      const i = leads.findIndex((l) => l !== undefined && quotientOf(m.atoms, l.atoms) !== undefined);
      if (i < 0) continue;
      const atoms = quotientOf(m.atoms, leads[i]!.atoms)!;
      const factor: Polynomial = { width: w, terms: new Map([[keyOf(atoms), { atoms, coef: BigInt.asUintN(w, m.coef * inverse(leads[i]!.coef, w)) }]]) };
      const product = multiply(factor, hs[i]!);
      if (!product) return undefined;
      r = add(r, product, -1n);
      quotients[i] = add(quotients[i]!, factor, 1n);
      reduced = true;
      break;
    }
    if (!reduced) return undefined;
  }
  // Multiplying back guards the identity the lemma rests on.
  let sum = constant(0n, w);
  for (let i = 0; i < hs.length; i++) {
    const product = multiply(quotients[i]!, hs[i]!);
    if (!product) return undefined;
    sum = add(sum, product, 1n);
  }
  return add(sum, g, -1n).terms.size === 0 ? quotients : undefined;
}

function termOf(ordered: readonly { atoms: readonly Term[]; coef: bigint }[], width: number): Term {
  const parts = ordered.map(({ atoms, coef }) => {
    if (atoms.length === 0) return mkBv(coef, width);
    const product = atoms.slice(1).reduce((acc, a) => mkApp('bvmul', acc, a), atoms[0]!);
    return coef === 1n ? product : mkApp('bvmul', mkBv(coef, width), product);
  });
  return parts.slice(1).reduce((acc, x) => mkApp('bvadd', acc, x), parts[0]!);
}

/** How many products get congruence lemmas (pairs grow with the square). */
const MAX_CONGRUENT_PRODUCTS = 120;

/**
 * The terms with every product of two non-literal bit-vectors replaced by a
 * constant of its own (one per distinct product; the normal form above
 * makes equal products one term). Every model of the terms is a model of
 * the result, so when the result is unsatisfiable the terms are too; the
 * solver then never bit-blasts a multiplier. Undefined: no such product.
 *
 * What multiplication is a function still says comes along as lemmas, true
 * of every model of the terms: products of equal factors (in either order
 * for two) are equal (`y == k` gives `k*y == y*y`), and a product with a
 * zero factor is zero.
 */
export function productsAsUnknowns(terms: readonly Term[]): Term[] | undefined {
  const memo = new Map<Term, Term>();
  const products: { unknown: Term; product: Term }[] = [];
  const walk = (t: Term): Term => {
    const hit = memo.get(t);
    if (hit) return hit;
    let out = t.args.length === 0 ? t : withArgs(t, t.args.map(walk));
    if (isNonlinearProduct(out)) {
      const product = out;
      out = mkConst(`tarsier!product!${t.id}`, t.sort);
      products.push({ unknown: out, product });
    }
    memo.set(t, out);
    return out;
  };
  const out = terms.map(walk);
  if (products.length === 0) return undefined;
  return [...out, ...congruenceLemmas(products.slice(0, MAX_CONGRUENT_PRODUCTS))];
}

function congruenceLemmas(products: readonly { unknown: Term; product: Term }[]): Term[] {
  const lemmas: Term[] = [];
  const split = (t: Term) => ({ literals: t.args.filter((a) => a.op === 'bv'), factors: t.args.filter((a) => a.op !== 'bv') });
  const parts = products.map((p) => ({ ...p, ...split(p.product) }));
  for (const p of parts) {
    if (p.unknown.sort.kind !== 'BitVec') continue;
    const zero = mkBv(0n, p.unknown.sort.width);
    for (const f of new Set(p.factors)) lemmas.push(mkImplies(mkEq(f, zero), mkEq(p.unknown, zero)));
  }
  for (let i = 0; i < parts.length; i++) {
    for (let j = i + 1; j < parts.length; j++) {
      const a = parts[i]!;
      const b = parts[j]!;
      if (a.unknown.sort !== b.unknown.sort || a.factors.length !== b.factors.length || a.literals.length !== b.literals.length) continue;
      if (!a.literals.every((l, k) => l === b.literals[k])) continue;
      const same = (order: readonly Term[]) => mkImplies(mkAnd(...a.factors.map((f, k) => mkEq(f, order[k]!))), mkEq(a.unknown, b.unknown));
      lemmas.push(same(b.factors));
      if (b.factors.length === 2 && b.factors[0] !== b.factors[1]) lemmas.push(same([b.factors[1]!, b.factors[0]!]));
    }
  }
  return lemmas;
}

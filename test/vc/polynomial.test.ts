import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSolver } from '../../src/smt/index.js';
import { BitVecSort, mkAnd, mkApp, mkBv, mkConst, mkEq, mkImplies, mkIte, mkSignExtend, mkZeroExtend, type Term } from '../../src/smt/terms.js';
import { PolynomialReader, productsAsUnknowns } from '../../src/vc/polynomial.js';

const W = 8;
const bv = (name: string) => mkConst(name, BitVecSort(W));
const add = (a: Term, b: Term) => mkApp('bvadd', a, b);
const sub = (a: Term, b: Term) => mkApp('bvsub', a, b);
const mul = (a: Term, b: Term) => mkApp('bvmul', a, b);
const lit = (v: number) => mkBv(v, W);

/** The value of a term over bit-vector constants (the operators these tests build). */
function value(t: Term, env: ReadonlyMap<string, bigint>): bigint | boolean {
  const width = (t.sort as { width?: number }).width ?? W;
  const m = (x: bigint) => BigInt.asUintN(width, x);
  const args = t.args.map((a) => value(a, env));
  switch (t.op) {
    case 'sign_extend':
      return m(BigInt.asIntN((t.args[0]!.sort as { width: number }).width, args[0] as bigint));
    case 'zero_extend':
      return args[0] as bigint;
    case 'const':
      return env.get(t.name!)!;
    case 'bv':
      return t.value!;
    case 'true':
      return true;
    case 'false':
      return false;
    case 'bvadd':
      return m((args as bigint[]).reduce((s, x) => s + x, 0n));
    case 'bvsub':
      return m((args[0] as bigint) - (args[1] as bigint));
    case 'bvneg':
      return m(-(args[0] as bigint));
    case 'bvmul':
      return m((args as bigint[]).reduce((s, x) => s * x, 1n));
    case 'bvshl':
      return m((args[0] as bigint) << (args[1] as bigint));
    case 'ite':
      return args[0] ? args[1]! : args[2]!;
    case '=':
      return args[0] === args[1];
    case 'not':
      return !args[0];
    case 'and':
      return args.every((x) => x === true);
    case '=>':
      return !args[0] || args[1] === true;
    default:
      throw new Error(`no value for ${t.op}`);
  }
}

/** A random polynomial term over the given atoms. */
function randomTerm(rand: () => number, atoms: readonly Term[], depth: number, width = W): Term {
  const literal = (v: number) => mkBv(BigInt.asUintN(width, BigInt(v)), width);
  if (depth === 0 || rand() < 0.25) return rand() < 0.3 ? literal(Math.floor(rand() * 256)) : atoms[Math.floor(rand() * atoms.length)]!;
  const a = randomTerm(rand, atoms, depth - 1, width);
  const b = randomTerm(rand, atoms, depth - 1, width);
  const k = rand();
  if (k < 0.3) return add(a, b);
  if (k < 0.5) return sub(a, b);
  if (k < 0.6) return mkApp('bvneg', a);
  if (k < 0.7) return mkApp('bvshl', a, literal(Math.floor(rand() * 3)));
  return mul(a, b);
}

function lcg(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
}

test("an induction step's goal is its hypothesis in normal form (ps2: y*y - 2x + y = 0)", () => {
  const [x, y, y1, x1] = ['x', 'y', 'y1', 'x1'].map(bv) as [Term, Term, Term, Term];
  const values = new Map<Term, Term>([
    [y1, add(y, lit(1))],
    [x1, add(y1, x)],
  ]);
  const reader = new PolynomialReader((c) => values.get(c));
  const p = (a: Term, b: Term) => mkEq(add(sub(mul(a, a), mul(lit(2), b)), a), lit(0));
  const hyp = reader.rewrite(p(y, x));
  const goal = reader.rewrite(p(y1, x1));
  assert.equal(goal, hyp);
  // Written the other way round (2x - y*y - y = 0), the same equality.
  assert.equal(reader.rewrite(mkEq(mul(lit(2), x), add(mul(y, y), y))), hyp);
  // A linear equality is left as it was.
  const linear = mkEq(x1, add(x, lit(3)));
  assert.equal(reader.rewrite(linear), linear);
});

test('an equality through a branch is split on its condition, each side normalised', () => {
  const [x, y, c, y1] = ['x', 'y', 'c', 'y1'].map(bv) as [Term, Term, Term, Term];
  const cond = mkEq(c, lit(0));
  // y1 is the merge of a branch: y + x where c = 0, else y.
  const values = new Map<Term, Term>([[y1, mkIte(cond, add(y, x), y)]]);
  const reader = new PolynomialReader((t) => values.get(t));
  const eq = mkEq(mul(y1, y1), mul(x, y));
  const t = reader.rewrite(eq);
  assert.equal(t.op, 'ite');
  assert.equal(t.args[0], cond);
  assert.equal(t.args[2], reader.rewrite(mkEq(mul(y, y), mul(x, y))));
  const rand = lcg(3);
  for (let k = 0; k < 50; k++) {
    const env = new Map(['x', 'y', 'c'].map((n) => [n, BigInt(Math.floor(rand() * 4))]));
    env.set('y1', value(values.get(y1)!, env) as bigint);
    assert.equal(value(t, env), value(eq, env));
  }
});

test('normalised equalities and derived lemmas agree with evaluation on random polynomials', () => {
  const rand = lcg(7);
  const atoms = ['a', 'b', 'c'].map(bv);
  for (let round = 0; round < 200; round++) {
    const lemmas: Term[] = [];
    const reader = new PolynomialReader(() => undefined, (l) => lemmas.push(l));
    const eqs = Array.from({ length: 3 }, () => mkEq(randomTerm(rand, atoms, 3), randomTerm(rand, atoms, 3)));
    // A multiple of the first equality's difference, so that division has something to find.
    const [l, r] = eqs[0]!.args.length === 2 ? (eqs[0]!.args as [Term, Term]) : [lit(0), lit(0)];
    eqs.push(mkEq(mul(sub(l, r), atoms[0]!), lit(0)));
    const rewritten = eqs.map((e) => reader.rewrite(e));
    for (let k = 0; k < 20; k++) {
      const env = new Map(['a', 'b', 'c'].map((n) => [n, BigInt(Math.floor(rand() * 256))]));
      eqs.forEach((e, i) => assert.equal(value(rewritten[i]!, env), value(e, env), `equality ${i} of round ${round}`));
      for (const lemma of lemmas) assert.equal(value(lemma, env), true, `lemma of round ${round}`);
    }
  }
});

test('an extension of a narrow sum or product is split on whether it is the sum of the extensions: geo1 with x * (z - 1), z an int; random equalities over such extensions keep their values', () => {
  const z = mkConst('z', BitVecSort(4));
  const [x, y] = ['x', 'y'].map(bv) as [Term, Term];
  const reader = new PolynomialReader(() => undefined);
  const narrow = mkEq(add(mul(x, mkSignExtend(4, mkApp('bvsub', z, mkBv(1, 4)))), lit(1)), y);
  const wide = mkEq(add(mul(x, sub(mkSignExtend(4, z), lit(1))), lit(1)), y);
  const split = reader.rewrite(narrow);
  assert.equal(split.op, 'ite');
  assert.equal(split.args[1], reader.rewrite(wide), 'where z - 1 does not wrap: the equality with sext(z) - 1');
  const rand = lcg(11);
  const small = ['a', 'b'].map((n) => mkConst(n, BitVecSort(4)));
  const narrowTerm = (): Term => randomTerm(rand, small, 2, 4);
  for (let round = 0; round < 200; round++) {
    const atoms = [bv('c'), mkSignExtend(4, narrowTerm()), mkZeroExtend(4, narrowTerm())];
    const eq = mkEq(randomTerm(rand, atoms, 3), randomTerm(rand, atoms, 3));
    const rewritten = new PolynomialReader(() => undefined).rewrite(eq);
    for (let k = 0; k < 20; k++) {
      const env = new Map([['c', BigInt(Math.floor(rand() * 256))], ['a', BigInt(Math.floor(rand() * 16))], ['b', BigInt(Math.floor(rand() * 16))]]);
      assert.equal(value(rewritten, env), value(eq, env), `round ${round}`);
    }
  }
});

test('a goal that is a multiple of a hypothesis gets the lemma hypothesis => goal (geo2)', () => {
  const [x, y, z] = ['x', 'y', 'z'].map(bv) as [Term, Term, Term];
  const lemmas: Term[] = [];
  const reader = new PolynomialReader(() => undefined, (l) => lemmas.push(l));
  // 1 + x*z - x - z*y = 0, and the same after x := x*z + 1, y := y*z.
  const p = (a: Term, b: Term) => mkEq(sub(sub(add(lit(1), mul(a, z)), a), mul(z, b)), lit(0));
  const hyp = reader.rewrite(p(x, y));
  const goal = reader.rewrite(p(add(mul(x, z), lit(1)), mul(y, z)));
  assert.notEqual(goal, hyp);
  assert.deepEqual(lemmas, [mkImplies(hyp, goal)]);
});

test('products of two non-literals become unknowns; linear terms stay', () => {
  const [x, y] = ['x', 'y'].map(bv) as [Term, Term];
  const out = productsAsUnknowns([mkEq(mul(x, y), lit(1)), mkEq(mul(lit(3), x), y)]);
  assert.ok(out);
  assert.equal(out![0]!.args[0]!.op, 'const');
  assert.equal(out![1], mkEq(mul(lit(3), x), y));
  assert.equal(productsAsUnknowns([mkEq(mul(lit(3), x), y)]), undefined);
});

test('a long chain of assignments (an unrolled loop) is read up to a depth, without exhausting the stack', () => {
  // x_k = x_{k-1} + 1 for 100,000 steps: reading all of it would recurse 100,000 deep.
  const values = new Map<Term, Term>();
  let x = bv('x0');
  for (let k = 1; k <= 100_000; k++) {
    const next = bv(`x${k}`);
    values.set(next, add(x, lit(1)));
    x = next;
  }
  const reader = new PolynomialReader((c) => values.get(c));
  const eq = mkEq(mul(x, x), bv('y'));
  const t = reader.rewrite(eq);
  assert.equal(t.op, '=');
  // Still an equality of the same value: x*x - y with x read through at most a bounded part of the chain.
  for (const v of [0n, 3n, 200n]) {
    const env = new Map<string, bigint>([['x0', v], ['y', 7n]]);
    let cur = v;
    for (let k = 1; k <= 100_000; k++) {
      cur = BigInt.asUintN(W, cur + 1n);
      env.set(`x${k}`, cur);
    }
    assert.equal(value(t, env), value(eq, env));
  }
});

test('a linear sum over four unknowns or more is normalised and split per branch: the step of i + j + k + v == l, one counter stepped per path, is its hypothesis', () => {
  const [i, j, k, v, l, c1, c2] = ['i', 'j', 'k', 'v', 'l', 'c1', 'c2'].map(bv) as Term[];
  const [i1, j1, k1, l1] = ['i1', 'j1', 'k1', 'l1'].map(bv) as Term[];
  const first = mkEq(c1!, lit(0));
  const second = mkEq(c2!, lit(0));
  // if (c1 == 0) i++; else if (c2 == 0) j++; else k++; l++   (v never stepped)
  const values = new Map<Term, Term>([
    [i1!, mkIte(first, add(i!, lit(1)), i!)],
    [j1!, mkIte(first, j!, mkIte(second, add(j!, lit(1)), j!))],
    [k1!, mkIte(first, k!, mkIte(second, k!, add(k!, lit(1))))],
    [l1!, add(l!, lit(1))],
  ]);
  const reader = new PolynomialReader((t) => values.get(t));
  const sum = (a: Term, b: Term, d: Term, e: Term, f: Term) => mkEq(add(add(add(a, b), d), e), f);
  const hyp = reader.rewrite(sum(i!, j!, k!, v!, l!));
  assert.notEqual(hyp, sum(i!, j!, k!, v!, l!), 'the hypothesis is put in normal form');
  const goal = reader.rewrite(sum(i1!, j1!, k1!, v!, l1!));
  // Split on the branches, every case is the hypothesis itself: so is the goal.
  assert.equal(goal, hyp);
  // Three unknowns: left as written.
  const small = mkEq(add(i!, j!), l!);
  assert.equal(reader.rewrite(small), small);
  // The rewritten terms mean what the originals do.
  const rand = lcg(11);
  for (let n = 0; n < 100; n++) {
    const env = new Map(['i', 'j', 'k', 'v', 'l', 'c1', 'c2'].map((name) => [name, BigInt(Math.floor(rand() * 256))]));
    for (const [name, t] of [['i1', i1!], ['j1', j1!], ['k1', k1!], ['l1', l1!]] as const) env.set(name, value(values.get(t)!, env) as bigint);
    assert.equal(value(goal, env), value(sum(i1!, j1!, k1!, v!, l1!), env));
    assert.equal(value(hyp, env), value(sum(i!, j!, k!, v!, l!), env));
  }
});

test('products as unknowns keep congruence: equal factors give equal products, a zero factor a zero product', async () => {
  const [k, y] = ['k', 'y'].map(bv) as [Term, Term];
  const out = productsAsUnknowns([mkEq(mul(k, y), lit(5)), mkEq(mul(y, y), lit(6))])!;
  const uky = out[0]!.args[0]!;
  const uyy = out[1]!.args[0]!;
  assert.ok(out.includes(mkImplies(mkAnd(mkEq(k, y), mkEq(y, y)), mkEq(uky, uyy))));
  assert.ok(out.includes(mkImplies(mkEq(k, lit(0)), mkEq(uky, lit(0)))));
  // Whatever the lemmas say holds of the products themselves: k = y = 3 gives 9 and 9.
  const solver = createSolver('z3-wasm');
  try {
    const check = async (extra: Term[]) => {
      await solver.push();
      try {
        for (const t of [...out, ...extra]) await solver.assert(t);
        return (await solver.checkSat([])).status;
      } finally {
        await solver.pop();
      }
    };
    assert.equal(await check([mkEq(k, y)]), 'unsat', 'k = y makes k*y = 5 and y*y = 6 contradict');
    assert.equal(await check([]), 'sat', 'without k = y the unknowns are free');
  } finally {
    await solver.dispose();
  }
});

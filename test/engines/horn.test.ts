// The Horn engine against concrete runs: on random 8-bit programs (additions
// wrap around), every invariant it reports holds at every visit of its loop
// head in runs of the IMP interpreter, and no program it proves fails an
// assert in any run. A small seeded count: each program costs a Horn solver
// call and a re-check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { proveByHorn } from '../../src/engines/index.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/shared.js';
import { modelDefinitions, readInvariant, toBitVectorForm } from '../../src/engines/chc-model.js';
import { parseSExprs } from '../../src/smt/index.js';
import { chcToSmtLib, encodeChc } from '../../src/engines/chc.js';
import { intSemantics } from '../../src/engines/chc-semantics.js';
import { parseImp, printExpr } from '../../src/ivl/index.js';
import type { Expr, ImpProgram, ImpType, WhileStmt } from '../../src/ivl/ast.js';
import { bvValue, evalExpr, executeImp, type ImpValue } from '../../src/ivl/interp.js';
import { rng } from '../../src/invariants/random.js';
import { locKey } from '../../src/lower/index.js';

/** A loop over 8-bit variables with affine and wrapping updates, then an assert that may or may not hold. */
function randomProgram(seed: number): string {
  const r = rng(seed * 7349 + 11);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const small = () => `${Math.floor(r() * 3) + 1}bv8`;
  const vars = ['x', 'y', 'z'];
  const update = (): string => {
    const t = pick(vars);
    return pick([`${t} := ${t} + ${small()};`, `${t} := ${pick(vars)};`, `${t} := ${t} + ${pick(vars)};`, `${t} := ${t} - 1bv8;`, `${t} := ${t} * 2bv8;`]);
  };
  const lines: string[] = [];
  for (const v of vars) lines.push(r() < 0.7 ? `  ${v} := ${Math.floor(r() * 3)}bv8;` : `  ${v} := havoc;`);
  lines.push('  n := havoc;', `  assume ule(n, ${Math.floor(r() * 40) + 1}bv8);`, '  i := 0bv8;', '  while (ult(i, n))', '  {');
  for (let k = 0; k < 1 + Math.floor(r() * 2); k++) {
    if (r() < 0.3) lines.push(`    if (ult(${pick(vars)}, ${pick(vars)})) {`, `      ${update()}`, '    }');
    else lines.push(`    ${update()}`);
  }
  lines.push('    i := i + 1bv8;', '  }');
  const a = pick(vars);
  const b = pick([...vars, 'i', 'n']);
  lines.push(`  assert ${pick(['ule', 'sle', 'uge'])}(${a}, ${b}) || ${a} == ${pick(['i', 'n', '0bv8'])};`);
  return `procedure main()\n{\n  var x, y, z, n, i: bv8;\n${lines.join('\n')}\n}\n`;
}

interface RunCheck {
  visits: number;
  violations: string[];
  failedAsserts: number;
}

/** Runs the program with random inputs; every invariant is evaluated at every visit of its loop head. */
function runWith(p: ImpProgram, invariants: ReadonlyMap<string, readonly Expr[]>, seed: number, runs: number): RunCheck {
  const r = rng(seed);
  const out: RunCheck = { visits: 0, violations: [], failedAsserts: 0 };
  for (let run = 0; run < runs; run++) {
    const havoc = (_n: string, t: ImpType): ImpValue => {
      if (t.kind === 'bv') return bvValue(BigInt(Math.floor(r() * (r() < 0.5 ? 8 : 256))), t.width);
      return { kind: 'bool', value: r() < 0.5 };
    };
    const result = executeImp(p, 'main', {}, {
      maxSteps: 20_000,
      havoc,
      onLoopHead: (loc, state) => {
        for (const e of invariants.get(locKey(loc)) ?? []) {
          out.visits++;
          const v = evalExpr(e, state);
          if (!(v.kind === 'bool' && v.value)) out.violations.push(`line ${loc.line}: ${printExpr(e)} is false (run ${run})`);
        }
      },
    });
    if (result.status === 'assertion-failed') out.failedAsserts++;
  }
  return out;
}

test('horn: invariants hold in concrete runs, and no proved program fails (30 random 8-bit programs)', async (t) => {
  let proved = 0;
  let visits = 0;
  for (let seed = 1; seed <= 30; seed++) {
    const text = randomProgram(seed);
    const p = parseImp(text, `horn-${seed}.imp`);
    // Unbounded integers only: the fast candidates, which the re-check in bit-vectors must filter.
    const end = Date.now() + 1000;
    const h = await proveByHorn(p, { left: () => end - Date.now(), semantics: ['int-ideal'] });
    if (h.verdict !== 'true') continue;
    proved++;
    const invariants = new Map(h.invariants.map((l) => [locKey(l.loc), l.exprs]));
    const c = runWith(p, invariants, seed, 40);
    assert.deepEqual(c.violations, [], text);
    assert.equal(c.failedAsserts, 0, `proved, but an assert fails in a run:\n${text}`);
    visits += c.visits;
  }
  // The generator makes both kinds; the engine must prove some (the simple counting ones).
  assert.ok(proved >= 5, `${proved} programs proved`);
  t.diagnostic(`${proved} of 30 programs proved; invariants checked at ${visits} loop-head visits`);
});

test('horn: implications between flags (a lock taken and released under one condition)', async () => {
  const p = parseImp(
    `procedure main()
{
  var p1, p2, lk1, lk2, c: bv32;
  c := havoc;
  while (c != 0bv32)
  {
    p1 := havoc;
    p2 := havoc;
    lk1 := 0bv32;
    lk2 := 0bv32;
    if (p1 != 0bv32) {
      lk1 := 1bv32;
    }
    if (p2 != 0bv32) {
      lk2 := 1bv32;
    }
    if (p1 != 0bv32) {
      assert lk1 == 1bv32;
      lk1 := 0bv32;
    }
    if (p2 != 0bv32) {
      assert lk2 == 1bv32;
      lk2 := 0bv32;
    }
    c := havoc;
  }
}
`,
    'locks.imp',
  );
  const end = Date.now() + 10_000;
  const h = await proveByHorn(p, { left: () => end - Date.now() });
  assert.equal(h.verdict, 'true', h.reason);
});

test('horn: a program that fails after many iterations is not proved', async () => {
  const p = parseImp(
    `procedure main()
{
  var i, x: bv32;
  i := 0bv32;
  x := 0bv32;
  while (ult(i, 1000bv32))
  {
    i := i + 1bv32;
    x := x + 2bv32;
  }
  assert x != 2000bv32;
}
`,
    'late.imp',
  );
  const end = Date.now() + 2000;
  const h = await proveByHorn(p, { left: () => end - Date.now() });
  assert.equal(h.verdict, 'unknown');
});

test('horn: integer arithmetic goes to 64-bit bit-vectors only where no intermediate value can overflow', () => {
  const widths = new Map([['a', 32], ['b', 32], ['w', 64]]);
  const p = parseImp('procedure main()\n{\n  var a, b: bv32;\n  var w: bv64;\n  assume sbv2int(a) * sbv2int(b) + 1 <= sbv2int(w);\n  assume sbv2int(a) + 3 <= ubv2int(b);\n}\n', 'form.imp');
  const [first, second] = p.procedures[0]!.body!.map((s) => (s.kind === 'assume' ? s.cond : undefined));
  // A 64-bit variable stays an integer (its product would not fit).
  assert.equal(printExpr(toBitVectorForm(first!, (n) => widths.get(n))), printExpr(first!));
  assert.equal(printExpr(toBitVectorForm(second!, (n) => widths.get(n))), 'sle(sext64(a) + 3bv64, zext64(b))');
});

const fixture = (name: string) => parseImp(readFileSync(join(repoRoot, 'test', 'fixtures', 'horn', name), 'utf8'), name);

test('horn: an outer loop whose model z3 gave with `exists` (predicates inlined eagerly) is read back, and the entry fact reaches the inner loop', async () => {
  const p = fixture('nested-entry.imp');
  const end = Date.now() + 10_000;
  const h = await proveByHorn(p, { left: () => end - Date.now(), semantics: ['int-ideal'] });
  assert.equal(h.verdict, 'true', h.verdict === 'unknown' ? h.reason : '');
  // The outer loop's invariant is no longer empty: it carries l > 0 to the inner loop.
  const outer = h.verdict === 'true' ? h.invariants.find((l) => l.loc.line === 21) : undefined;
  assert.ok(outer && outer.exprs.some((e) => printExpr(e).includes('sext64(l)')), outer && outer.exprs.map(printExpr).join(' && '));
});

test('horn: integer invariants that wrap around in bit-vectors are completed by candidates that Houdini keeps where inductive', async () => {
  const p = fixture('two-counters.imp');
  // Over integers i <= k suffices; in bit-vectors k + 1 wraps unless k = i (i < n keeps i + 1 in range).
  const without = Date.now() + 10_000;
  const h0 = await proveByHorn(p, { left: () => without - Date.now(), semantics: ['int-ideal'] });
  assert.equal(h0.verdict, 'unknown');
  const loc = p.procedures[0]!.body![0]!.loc;
  const v = (name: string): Expr => ({ kind: 'var', name, loc });
  const equal: Expr = { kind: 'binary', op: '==', left: v('k'), right: v('i'), loc };
  const wrong: Expr = { kind: 'app', fn: 'sle', args: [v('k'), { kind: 'bv_lit', value: 5n, width: 32, loc }], loc };
  const end = Date.now() + 10_000;
  const h = await proveByHorn(p, { left: () => end - Date.now(), semantics: ['int-ideal'], candidates: () => [equal, wrong] });
  assert.equal(h.verdict, 'true', h.verdict === 'unknown' ? h.reason : '');
  const all = h.verdict === 'true' ? h.invariants.flatMap((l) => l.exprs.map(printExpr)) : [];
  assert.ok(all.includes('k == i'), all.join(' && '));
  assert.ok(!all.includes(printExpr(wrong)), 'a candidate that is not inductive was kept');
});

test('horn: a hint conjoins the known solution to every clause the predicate is the premise of', () => {
  const p = fixture('two-counters.imp');
  const proc = p.procedures[0]!;
  const types = new Map([...proc.locals].map((d) => [d.name, d.type]));
  const system = encodeChc(p, intSemantics(types, new Map(), 'check'));
  const first = system.predicates[0]!;
  const params = first.vars.map((_, i) => `x!${i}`);
  const text = chcToSmtLib(system, [], new Map([[first.name, { params, body: ['>=', params[0]!, '0'] }]]));
  assert.match(text, new RegExp(`\\(define-fun \\|?hint!${first.name}\\|? \\(\\(x!0 Int\\)`));
  const premises = system.clauses.filter((c) => c.body?.pred === first).length;
  assert.ok(premises > 0);
  assert.equal(text.split(`(hint!${first.name} `).length - 1, premises);
});

test('horn: a linear comparison goes to bit-vectors with every coefficient positive (no negated sums for the bit-blaster)', () => {
  const widths = new Map([['a', 32], ['b', 32], ['c', 32]]);
  const p = parseImp('procedure main()\n{\n  var a, b, c: bv32;\n  assume sbv2int(a) - sbv2int(b) + -2 * sbv2int(c) < -2;\n  assume sbv2int(a) - sbv2int(a) == 0;\n}\n', 'positive.imp');
  const [first, second] = p.procedures[0]!.body!.map((s) => (s.kind === 'assume' ? s.cond : undefined));
  assert.equal(printExpr(toBitVectorForm(first!, (n) => widths.get(n))), 'slt(sext64(a) + 2bv64, sext64(b) + 2bv64 * sext64(c))');
  assert.equal(printExpr(toBitVectorForm(second!, (n) => widths.get(n))), '0bv64 == 0bv64');
});

test('horn: the conjuncts of a model under let (z3 shares sub-terms so) are read one by one', () => {
  const p = parseImp('procedure main()\n{\n  var x, y: bv32;\n  while (slt(x, y)) { x := x + 1bv32; }\n}\n', 'let.imp');
  const loop = p.procedures[0]!.body![0] as WhileStmt;
  const [def] = [...modelDefinitions(parseSExprs('(model (define-fun inv1 ((x!0 Int) (x!1 Int)) Bool (let ((a!1 (<= x!0 x!1))) (and a!1 (>= x!0 0) (exists ((z Int)) (= x!0 z))))))')).values()];
  const readings = [{ name: 'x', type: { kind: 'bv', width: 32 } as ImpType, view: 's' as const }, { name: 'y', type: { kind: 'bv', width: 32 } as ImpType, view: 's' as const }];
  const out = readInvariant(def!, { name: 'inv1', loop, vars: ['x', 'y'], sorts: [] }, readings).map(printExpr);
  // The quantified conjunct is left out; the other two stand alone.
  assert.deepEqual(out, ['sle(sext64(x), sext64(y))', 'sge(sext64(x), 0bv64)']);
});

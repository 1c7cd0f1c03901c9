// The abstract interpreter against concrete runs: every fact it reports at a
// loop head must hold at every visit of that loop head in every run of the
// IMP interpreter. Programs: the random int programs of src/invariants/random.ts,
// random 8-bit programs written here (wrap-around on every other step), and
// the lowered bench programs (skipped without ../shared).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { analyzeProgram, factToExpr, type LoopFact } from '../../src/analysis/index.js';
import { parseImp, printExpr } from '../../src/ivl/index.js';
import type { ImpProgram, ImpType, Stmt } from '../../src/ivl/ast.js';
import { bvValue, evalExpr, executeImp, intValue, type ImpValue } from '../../src/ivl/interp.js';
import { randomProgram, rng } from '../../src/invariants/random.js';
import { locKey } from '../../src/lower/index.js';
import { parseCFile } from '../../src/c/index.js';
import { lowerProgram } from '../../src/lower/index.js';
import { sharedPath, skipWithoutShared } from '../helpers/shared.js';
import { passesOf } from '../../src/properties/index.js';
import type { PropertyKind } from '../../src/task/index.js';

function typesOf(p: ImpProgram): Map<string, ImpType> {
  const main = p.procedures.find((q) => q.name === 'main')!;
  return new Map([...p.globals, ...main.params, ...main.returns, ...main.locals].map((d) => [d.name, d.type]));
}

interface Check {
  facts: number;
  visits: number;
  violations: string[];
}

/** Runs the program `runs` times with random havoc values and checks every fact at every visit of a loop head with a unique location. */
function checkRuns(p: ImpProgram, seed: number, runs: number, maxSteps: number, pickInt: (r: () => number) => bigint): Check {
  const analysis = analyzeProgram(p);
  assert.equal(analysis.gaveUp, undefined, analysis.gaveUp);
  const types = typesOf(p);
  const byLoc = new Map<string, Stmt[]>();
  for (const s of analysis.loops.keys()) byLoc.set(locKey(s.loc), [...(byLoc.get(locKey(s.loc)) ?? []), s]);
  const factsAt = new Map<string, { fact: LoopFact; expr: ReturnType<typeof factToExpr> }[]>();
  let facts = 0;
  for (const [k, ss] of byLoc) {
    if (ss.length !== 1) continue;
    const lr = analysis.loops.get(ss[0]!)!;
    const fs = lr.facts.map((fact) => ({ fact, expr: factToExpr(fact, types) })).filter((f) => f.expr);
    facts += fs.length;
    factsAt.set(k, fs);
  }
  const r = rng(seed);
  const out: Check = { facts, visits: 0, violations: [] };
  for (let run = 0; run < runs; run++) {
    const havoc = (_n: string, t: ImpType): ImpValue => {
      // Small values half of the time (the programs' assumptions bound their inputs), any value otherwise.
      if (t.kind === 'bv') return bvValue(r() < 0.5 ? BigInt(Math.floor(r() * 12) - 4) : BigInt(Math.floor(r() * 2 ** Math.min(t.width, 32))), t.width);
      if (t.kind === 'bool') return { kind: 'bool', value: r() < 0.5 };
      if (t.kind === 'int') return intValue(pickInt(r));
      if (t.kind === 'map') return { kind: 'map', default: havoc('', t.value), entries: new Map() };
      return { kind: 'real', num: 0n, den: 1n };
    };
    executeImp(p, 'main', {}, {
      maxSteps,
      havoc,
      checkInvariants: false,
      onLoopHead: (loc, state) => {
        const fs = factsAt.get(locKey(loc));
        if (!fs) return;
        out.visits++;
        for (const f of fs) {
          const v = evalExpr(f.expr!, state);
          if (!(v.kind === 'bool' && v.value)) out.violations.push(`${p.file}: line ${loc.line}: ${printExpr(f.expr!)} is false (run ${run})`);
        }
      },
    });
    if (out.violations.length > 0) break;
  }
  return out;
}

test('interval, congruence and difference facts on a counting loop', () => {
  const p = parseImp(
    `procedure main()
{
  var i, n: bv32;
  var x: int;
  n := havoc;
  assume ule(n, 10bv32);
  i := 0bv32;
  x := 0;
  while (ult(i, n))
  {
    i := i + 1bv32;
    x := x + 2;
  }
}
`,
    'count.imp',
  );
  const r = analyzeProgram(p);
  const [loop] = [...r.loops.values()];
  const text = loop!.facts.map((f) => printExpr(factToExpr(f, typesOf(p))!));
  for (const want of ['ule(i, 10bv32)', 'ule(n, 10bv32)', 'x >= 0', 'ule(i, n)', 'x % 2 == 0']) {
    assert.ok(text.includes(want), `missing ${want} in ${text.join('; ')}`);
  }
  // Wrap-around: i + 1 can overflow in the unsigned view only when i can be the maximum.
  assert.ok(!text.some((t) => t.startsWith('uge(i, 1bv32)')), text.join('; '));
});

test('affine equalities: sums, scaled counters and copies across loops', () => {
  const p = parseImp(
    `procedure main()
{
  var n, i, k, j, y: bv32;
  var a, b: int;
  n := havoc;
  assume sle(n, 1000bv32);
  i := 0bv32;
  k := 0bv32;
  y := 1bv32;
  a := 0;
  b := 5;
  while (slt(i, n))
  {
    i := i + 1bv32;
    k := k + 1bv32;
    y := y + 3bv32;
    a := a + 2;
    b := b - 4;
  }
  j := 0bv32;
  while (slt(j, n))
  {
    j := j + 1bv32;
    k := k - 1bv32;
  }
  assert sge(k, 0bv32) && sle(k, i) && sle(i, n) && sge(i, 0bv32) && sle(y, 3001bv32) && a >= 0 && b <= 5;
}
`,
    'affine.imp',
  );
  const r = analyzeProgram(p);
  const [first, second] = [...r.loops.values()];
  const text = (l: typeof first) => l!.facts.filter((f) => f.kind === 'equality').map((f) => printExpr(factToExpr(f, typesOf(p))!));
  // Over one width the equations are stated modulo 2^w (bounds say nothing wraps); between an int and others exactly.
  // Over one width the equations hold modulo 2^w (the bounds facts say that nothing wraps); with an int, exactly.
  for (const want of ['y == 3bv32 * i + 1bv32', '4 * sbv2int(i) + b == 5', 'a == 2 * sbv2int(i)', 'k == i']) assert.ok(text(first).includes(want), `${want} missing in ${text(first).join('; ')}`);
  assert.ok(text(second).includes('k + j == i'), text(second).join('; '));
});

test('flags of early returns are not joined away', () => {
  const p = parseImp(
    `procedure main()
{
  var n, i: bv32;
  var r: bool;
  r := false;
  n := havoc;
  if (ugt(n, 10bv32)) {
    r := true;
  }
  if (!r) {
    i := 1bv32;
    while (ule(i, n))
    {
      i := i + 1bv32;
    }
  }
}
`,
    'flags.imp',
  );
  const [loop] = [...analyzeProgram(p).loops.values()];
  const text = loop!.facts.map((f) => printExpr(factToExpr(f, typesOf(p))!));
  assert.ok(text.includes('ule(n, 10bv32)') && text.includes('ule(i, 11bv32)'), text.join('; '));
});

test('differential: random int programs (60 programs, 30 runs each)', (t) => {
  let facts = 0;
  let visits = 0;
  for (let seed = 1; seed <= 60; seed++) {
    const p = parseImp(randomProgram(seed, { loops: 1 + (seed % 2) }), `random-${seed}.imp`);
    const c = checkRuns(p, seed, 30, 20_000, (r) => BigInt(Math.floor(r() * 9) - 3));
    assert.deepEqual(c.violations, []);
    facts += c.facts;
    visits += c.visits;
  }
  assert.ok(facts > 200 && visits > 500, `${facts} facts, ${visits} visits`);
  t.diagnostic(`${facts} facts checked at ${visits} loop-head visits`);
});

/** A random program over 8-bit variables: additions wrap around, signed and unsigned comparisons mix. */
function randomBvProgram(seed: number): string {
  const r = rng(seed * 7919);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const lit = () => `${Math.floor(r() * 256)}bv8`;
  const small = () => `${Math.floor(r() * 4)}bv8`;
  const vars = ['x', 'y', 'z'];
  const cmp = () => `${pick(['slt', 'sle', 'ult', 'ule', 'sgt', 'uge'])}(${pick(vars)}, ${r() < 0.5 ? pick(vars) : lit()})`;
  const assign = (): string => {
    const t = pick(vars);
    switch (Math.floor(r() * 8)) {
      case 0: return `${t} := ${t} + ${small()};`;
      case 1: return `${t} := ${pick(vars)};`;
      case 2: return `${t} := ${t} - ${pick(vars)};`;
      case 3: return `${t} := ${lit()};`;
      case 4: return `${t} := trunc8(zext16(${pick(vars)}) + 200bv16);`;
      case 5: return `${t} := urem(${pick(vars)}, ${Math.floor(r() * 5) + 1}bv8);`;
      case 6: return `${t} := ${t} * 2bv8;`;
      default: return `${t} := ${t} + 255bv8;`;
    }
  };
  const lines: string[] = [];
  for (const v of vars) lines.push(r() < 0.5 ? `  ${v} := ${lit()};` : `  ${v} := havoc;`);
  lines.push('  n := havoc;', `  assume ule(n, ${Math.floor(r() * 6) + 1}bv8);`, '  i := 0bv8;', '  while (ult(i, n))', '  {');
  for (let k = 0; k < 1 + Math.floor(r() * 3); k++) {
    if (r() < 0.3) lines.push(`    if (${cmp()}) {`, `      ${assign()}`, '    } else {', `      ${assign()}`, '    }');
    else lines.push(`    ${assign()}`);
  }
  if (r() < 0.4) lines.push('    j := 0bv8;', `    while (ult(j, ${small()}))`, '    {', `      ${assign()}`, '      j := j + 1bv8;', '    }');
  lines.push('    i := i + 1bv8;', '  }');
  return `procedure main()\n{\n  var x, y, z, n, i, j: bv8;\n${lines.join('\n')}\n}\n`;
}

test('differential: random 8-bit programs with wrap-around (80 programs, 30 runs each)', (t) => {
  let facts = 0;
  let visits = 0;
  for (let seed = 1; seed <= 80; seed++) {
    const p = parseImp(randomBvProgram(seed), `bv-${seed}.imp`);
    const c = checkRuns(p, seed, 30, 20_000, () => 0n);
    assert.deepEqual(c.violations, [], randomBvProgram(seed));
    facts += c.facts;
    visits += c.visits;
  }
  assert.ok(facts > 300, `${facts} facts`);
  t.diagnostic(`${facts} facts checked at ${visits} loop-head visits`);
});

/** A random program of affine updates (8-bit variables that may wrap around, and ints), so that the analysis finds equalities between them. */
function randomAffineProgram(seed: number): string {
  const r = rng(seed * 104729);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const small = () => Math.floor(r() * 7) - 3;
  const bv = (c: number) => `${BigInt.asUintN(8, BigInt(c))}bv8`;
  const bvs = ['x', 'y', 'z'];
  const ints = ['a', 'b'];
  const assign = (): string => {
    if (r() < 0.35) {
      const t = pick(ints);
      const o = pick(ints);
      return pick([`${t} := ${t} + ${small()};`, `${t} := ${o} * ${small()} + ${small()};`, `${t} := ${t} - ${o};`, `${t} := sbv2int(${pick(bvs)}) + ${o};`]);
    }
    const t = pick(bvs);
    const o = pick(bvs);
    return pick([`${t} := ${t} + ${bv(small())};`, `${t} := ${o} + ${bv(small())};`, `${t} := ${bv(Math.floor(r() * 3) + 1)} * ${o} - ${t};`, `${t} := ${t} - ${o};`, `${t} := trunc8(zext16(${o}) + ${Math.floor(r() * 300)}bv16);`, `${t} := havoc;`]);
  };
  const cond = () => (r() < 0.5 ? `${pick(['slt', 'ule', 'sle'])}(${pick(bvs)}, ${pick(bvs)})` : `${pick(ints)} <= ${pick(ints)} + ${small()}`);
  const lines: string[] = [];
  for (const v of bvs) lines.push(r() < 0.6 ? `  ${v} := ${bv(small())};` : `  ${v} := havoc;`);
  for (const v of ints) lines.push(`  ${v} := ${small()};`);
  if (r() < 0.5) lines.push(`  assume ${pick(bvs)} == ${pick(bvs)} + ${bv(small())};`);
  lines.push('  n := havoc;', `  assume ule(n, ${Math.floor(r() * 8) + 1}bv8);`, '  i := 0bv8;', '  while (ult(i, n))', '  {');
  for (let k = 0; k < 1 + Math.floor(r() * 3); k++) {
    if (r() < 0.3) lines.push(`    if (${cond()}) {`, `      ${assign()}`, '    } else {', `      ${assign()}`, '    }');
    else lines.push(`    ${assign()}`);
  }
  if (r() < 0.3) lines.push('    j := 0bv8;', '    while (ult(j, 2bv8))', '    {', `      ${assign()}`, '      j := j + 1bv8;', '    }');
  lines.push('    i := i + 1bv8;', '  }');
  // Every variable in a condition, so that all are relational.
  lines.push(`  assert ${[...bvs, 'i'].map((v) => `ule(${v}, 255bv8)`).join(' && ')} && ${ints.map((v) => `${v} <= ${v}`).join(' && ')};`);
  return `procedure main()\n{\n  var x, y, z, n, i, j: bv8;\n  var a, b: int;\n${lines.join('\n')}\n}\n`;
}

test('differential: random affine programs (80 programs, 30 runs each)', (t) => {
  let equalities = 0;
  let visits = 0;
  for (let seed = 1; seed <= 80; seed++) {
    const text = randomAffineProgram(seed);
    const p = parseImp(text, `affine-${seed}.imp`);
    const c = checkRuns(p, seed, 30, 20_000, () => 0n);
    assert.deepEqual(c.violations, [], text);
    equalities += [...analyzeProgram(p).loops.values()].flatMap((l) => l.facts).filter((f) => f.kind === 'equality').length;
    visits += c.visits;
  }
  assert.ok(equalities > 40, `${equalities} equalities`);
  t.diagnostic(`${equalities} equalities among the facts checked at ${visits} loop-head visits`);
});

test('bench programs: the analysis terminates on every lowered program and its facts hold in random runs', { skip: skipWithoutShared }, (t) => {
  const manifest = readFileSync(sharedPath('bench', 'sv-benchmarks', 'MANIFEST.csv'), 'utf8').trim().split('\n').slice(1);
  const seen = new Set<string>();
  let programs = 0;
  let withFacts = 0;
  let facts = 0;
  let visits = 0;
  for (const line of manifest) {
    const [, program, property, , , dataModel] = line.split(',');
    if (property !== 'unreach-call' && property !== 'no-overflow') continue;
    if (seen.has(program! + property)) continue;
    seen.add(program! + property);
    let lowered;
    try {
      const c = parseCFile(sharedPath('bench', 'sv-benchmarks', program!), { dataModel: dataModel as 'ILP32' | 'LP64' });
      lowered = lowerProgram(c, { passes: passesOf(property as PropertyKind), dataModel: dataModel as 'ILP32' | 'LP64' });
    } catch {
      continue; // programs the front end rejects are tested elsewhere
    }
    if (lowered.unsupported) continue;
    programs++;
    const c = checkRuns(lowered.imp, programs, 3, 5_000, (r) => BigInt(Math.floor(r() * 200) - 100));
    assert.deepEqual(c.violations, []);
    if (c.facts > 0) withFacts++;
    facts += c.facts;
    visits += c.visits;
  }
  t.diagnostic(`${programs} programs, ${withFacts} with facts; ${facts} facts checked at ${visits} loop-head visits`);
  assert.ok(programs > 100 && withFacts > programs / 2, `${programs} programs, ${withFacts} with facts`);
});

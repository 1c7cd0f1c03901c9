// Termination: ranking functions (linear, lexicographic, nested loops),
// wrap-around that defeats an integer ranking function, and lassos reached
// only through a specific stem, with their 2.1 cycle witnesses.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/shared.js';
import { verify } from '../../src/verify/index.js';
import { lintWitness, readWitness } from '../../src/witness/index.js';
import { probeGcc } from '../../src/replay/index.js';
import { parseCFile } from '../../src/c/index.js';
import { lowerProgram } from '../../src/lower/index.js';
import { provedByRanking } from '../../src/engines/index.js';
import { createSolver } from '../../src/smt/index.js';
import { linVar, linConst, le, eq, lt, linAdd, synthesizeRanking, type LinearConstraint } from '../../src/analysis/index.js';
import { passesOf } from '../../src/properties/index.js';

const fx = (name: string) => join(repoRoot, 'test', 'fixtures', 'termination', name);
const prp = join(repoRoot, 'test', 'fixtures', 'verify', 'termination.prp');
const noGcc = probeGcc().gcc ? false : 'skipped: gcc is not available (FALSE needs replay)';

test('Farkas: x > 0, x\' = x - 1 has a linear ranking function that decreases with x', async () => {
  const solver = createSolver();
  try {
    const path: LinearConstraint[] = [lt(linConst(0n), linVar('x')), eq(linVar("x'"), linAdd(linVar('x'), linConst(-1n)))];
    const f = await synthesizeRanking(solver, { vars: [{ pre: 'x', post: "x'" }], paths: [path] });
    assert.ok(f);
    assert.equal(f.length, 1);
    assert.ok((f[0]!.coeffs.get('x') ?? 0n) > 0n);
  } finally {
    await solver.dispose();
  }
});

test('Farkas: two phases need two lexicographic components; x\' = x + 1 unbounded has none', async () => {
  const solver = createSolver();
  try {
    const vars = [
      { pre: 'x', post: "x'" },
      { pre: 'y', post: "y'" },
    ];
    const guard = lt(linConst(0n), linVar('x'));
    // y > 0: y decreases, x stays; y <= 0: x decreases, y is reset arbitrarily.
    const p1 = [guard, lt(linConst(0n), linVar('y')), eq(linVar("y'"), linAdd(linVar('y'), linConst(-1n))), eq(linVar("x'"), linVar('x'))];
    const p2 = [guard, le(linVar('y'), linConst(0n)), eq(linVar("x'"), linAdd(linVar('x'), linConst(-1n)))];
    const f = await synthesizeRanking(solver, { vars, paths: [p1, p2] });
    assert.equal(f?.length, 2);
    const up = [guard, eq(linVar("x'"), linAdd(linVar('x'), linConst(1n))), eq(linVar("y'"), linVar('y'))];
    assert.equal(await synthesizeRanking(solver, { vars, paths: [up] }), undefined);
  } finally {
    await solver.dispose();
  }
});

for (const [file, loops, components] of [
  ['linear.c', 1, [1]],
  ['lexicographic.c', 1, [2]],
  ['nested.c', 2, [1, 1]],
] as const) {
  test(`${file}: TRUE by ranking functions (${loops} loop(s))`, async () => {
    const r = await verify(fx(file), { prp, timeoutS: 60, witnessPath: null });
    assert.deepEqual(r.verdict, { kind: 'true' });
    assert.match(r.reason, /ranking function/);
    assert.equal(r.rankingFunctions?.length, loops);
    assert.deepEqual(r.rankingFunctions?.map((x) => x.components.length), components);
    assert.match(r.rankingFunctions![0]!.loop, new RegExp(`^${file}:\\d+:\\d+$`));
  });
}

test('wrap.c: the integer ranking function fails on bit-vectors (unsigned char wraps), so never TRUE', async () => {
  const c = parseCFile(fx('wrap.c'), { dataModel: 'ILP32' });
  const l = lowerProgram(c, { passes: passesOf('unreach-call'), dataModel: 'ILP32', recursionDepth: 1 });
  const proof = await provedByRanking(l.imp, { deadline: () => 60000, solver: () => createSolver() });
  assert.equal(proof.proved, false);
  assert.match(proof.proved ? '' : proof.reason, /does not hold with bit-vector semantics/);
  const r = await verify(fx('wrap.c'), { prp, timeoutS: 20, witnessPath: null });
  assert.notEqual(r.verdict.kind, 'true');
});

test('early-exit.c: a loop left by break is ranked with its flag\'s condition (proved inductive); with `i <= n` (n = UINT_MAX runs forever) it is not', async () => {
  const lowered = (text: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'tarsier-early-exit-'));
    try {
      writeFileSync(join(dir, 'p.c'), text);
      return lowerProgram(parseCFile(join(dir, 'p.c'), { dataModel: 'ILP32' }), { passes: passesOf('termination'), dataModel: 'ILP32', recursionDepth: 1 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const text = readFileSync(fx('early-exit.c'), 'utf8');
  const proof = await provedByRanking(lowered(text).imp, { deadline: () => 60000, solver: () => createSolver() });
  assert.equal(proof.proved, true, proof.proved ? '' : proof.reason);
  const forever = await provedByRanking(lowered(text.replace('i < n; i++', 'i <= n; i++')).imp, { deadline: () => 60000, solver: () => createSolver() });
  assert.equal(forever.proved, false);
});

test('loop-after-error.c: reach_error returns and the loop goes on forever at x == 5, so never TRUE (the path was cut there: a wrong TRUE)', async () => {
  const r = await verify(fx('loop-after-error.c'), { prp, timeoutS: 20, witnessPath: null });
  assert.notEqual(r.verdict.kind, 'true', r.reason);
});

test('stem.c: FALSE(termination) only through x == 7, with a 2.1 cycle witness that lints clean', { skip: noGcc }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-termination-test-'));
  try {
    const w = join(dir, 'witness.yml');
    const r = await verify(fx('stem.c'), { prp, timeoutS: 60, witnessPath: w, creationTime: '2026-01-01T00:00:00Z' });
    assert.deepEqual(r.verdict, { kind: 'false', property: 'termination' });
    assert.equal(r.replay?.status, 'confirmed');
    const text = readFileSync(w, 'utf8');
    const problems = lintWitness(text, w, { programText: readFileSync(fx('stem.c'), 'utf8'), programFile: 'stem.c' }).filter(
      (d) => d.severity === 'error' || d.severity === 'warning',
    );
    assert.deepEqual(problems, []);
    const doc = readWitness(text, w);
    const entry = doc.format === 'yaml' ? doc.entries[0] : undefined;
    assert.ok(entry && entry.entry_type === 'violation_sequence' && !('unknown' in entry));
    if (!entry || entry.entry_type !== 'violation_sequence' || 'unknown' in entry) return;
    assert.equal(entry.metadata.format_version, '2.1');
    const [stem, cycle] = [entry.content[0]!.waypoints[0]!, entry.content[1]!.waypoints[0]!];
    // The stem: __VERIFIER_nondet_int() on line 3 returns 7; the cycle: the while on line 5, forever.
    assert.deepEqual([stem.type, stem.action, stem.location.line, stem.constraint?.value], ['function_return', 'follow', 3, '\\result == 7']);
    assert.deepEqual([cycle.type, cycle.action, cycle.location.line, cycle.location.column], ['branching', 'cycle', 5, 3]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('stem.c: a non-termination witness that cannot be written leaves FALSE(termination) standing, saying why', { skip: noGcc }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-termination-test-'));
  try {
    const r = await verify(fx('stem.c'), { prp, timeoutS: 60, witnessPath: join(dir, 'gone', 'witness.yml') });
    assert.deepEqual(r.verdict, { kind: 'false', property: 'termination' });
    assert.equal(r.witnessPath, undefined);
    assert.match(r.witnessError ?? '', /^cannot write the witness .*gone\/witness\.yml: no such file$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

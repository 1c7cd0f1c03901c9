import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, repoRoot } from '../helpers/shared.js';
import { needTools } from '../helpers/tools.js';
import { verify } from '../../src/verify/index.js';
import { lintWitness, readWitness } from '../../src/witness/index.js';
import { probeGcc, replayCounterexample } from '../../src/replay/index.js';

const ex = (...p: string[]) => join(repoRoot, 'examples', ...p);
const fx = (...p: string[]) => join(repoRoot, 'test', 'fixtures', 'verify', ...p);
const noGcc = needTools('gcc');

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'tarsier-verify-test-'));
}

/** Lints a witness file against its program: errors and warnings. */
function lintProblems(witness: string, program: string): string[] {
  const text = readFileSync(witness, 'utf8');
  return lintWitness(text, witness, { programText: readFileSync(program, 'utf8'), programFile: program.split('/').pop() })
    .map((d) => `${d.line}:${d.column} ${d.message} [${d.rule}]`);
}

test('the example task with a bounded loop is TRUE', async () => {
  const r = await verify(ex('sum.yml'), { timeoutS: 60, witnessPath: null });
  assert.deepEqual(r.verdict, { kind: 'true' });
  assert.equal(r.property, 'unreach-call');
  // Which proof comes first depends on how busy the machine is: both are proofs.
  assert.match(r.reason, /complete unrolling|proved by 1-induction/);
});

test('the example FALSE task gives a witness that lints clean and replays', { skip: noGcc }, async () => {
  const dir = tmp();
  try {
    const w = join(dir, 'witness.yml');
    const r = await verify(ex('mult.yml'), { timeoutS: 60, witnessPath: w, creationTime: '2026-01-01T00:00:00Z' });
    assert.deepEqual(r.verdict, { kind: 'false', property: 'unreach-call' });
    assert.equal(r.witnessPath, w);
    assert.equal(r.replay?.status, 'confirmed');
    assert.deepEqual(lintProblems(w, ex('mult.c')), []);
    const doc = readWitness(readFileSync(w, 'utf8'), w);
    assert.equal(doc.format, 'yaml');
    const entry = doc.format === 'yaml' ? doc.entries[0] : undefined;
    assert.ok(entry && entry.entry_type === 'violation_sequence' && !('unknown' in entry));
    if (!entry || entry.entry_type !== 'violation_sequence' || 'unknown' in entry) return;
    const [first, last] = [entry.content[0]!.waypoints[0]!, entry.content[entry.content.length - 1]!.waypoints[0]!];
    // The nondet call `__VERIFIER_nondet_int()` on line 8 returns 100 (100 * 2^5 = 3200).
    assert.equal(first.type, 'function_return');
    assert.equal(first.location.line, 8);
    assert.equal(first.location.column, 33); // the `)` closing the call
    assert.equal(first.constraint?.value, '\\result == 100');
    // The target is the reach_error() call on line 15.
    assert.equal(last.type, 'target');
    assert.deepEqual([last.location.line, last.location.column, last.location.function], [15, 18, 'main']);
    // Replaying the witness's value independently confirms it.
    const again = replayCounterexample(ex('mult.c'), [{ function: '__VERIFIER_nondet_int', value: 100n }], {
      symptom: 'error-call',
      dataModel: 'ILP32',
    });
    assert.equal(again.status, 'confirmed');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('no-overflow: the other property of the same task is TRUE, an overflow program FALSE', { skip: noGcc }, async () => {
  const t = await verify(ex('mult.yml'), { property: 'no-overflow', timeoutS: 60, witnessPath: null });
  assert.deepEqual(t.verdict, { kind: 'true' });
  const dir = tmp();
  try {
    const w = join(dir, 'o.yml');
    const f = await verify(fx('overflow.c'), { prp: ex('no-overflow.prp'), timeoutS: 60, witnessPath: w });
    assert.deepEqual(f.verdict, { kind: 'false', property: 'no-overflow' });
    assert.equal(f.replay?.overflowAt?.line, 5);
    assert.deepEqual(lintProblems(w, fx('overflow.c')), []);
    const text = readFileSync(w, 'utf8');
    assert.match(text, /line: 5\n\s+column: 5\n/); // the declaration `int y = x + x;`
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('nested loops inside an inlined function: FALSE needs bound 4', { skip: noGcc }, async () => {
  const r = await verify(fx('nested.c'), { prp: ex('unreach-call.prp'), timeoutS: 60, witnessPath: null });
  assert.deepEqual(r.verdict, { kind: 'false', property: 'unreach-call' });
  assert.equal(r.bound, 4);
});

test('a property the table does not decide for programs with threads is UNKNOWN with the reason', async () => {
  const r = await verify(fx('threads.c'), { prp: ex('valid-memsafety.prp'), timeoutS: 10, witnessPath: null });
  assert.equal(r.verdict.kind, 'unknown');
  assert.match(r.reason, /valid-memsafety of a program with threads is not supported/);
});

test('CLI: verdict last, exit 0; bad inputs give one line and a non-zero exit', () => {
  // In a directory of its own: a TRUE writes its correctness witness to ./witness.yml by default.
  const cwd = tmp();
  const run = (...args: string[]) => spawnSync(process.execPath, [cliPath, 'verify', ...args], { encoding: 'utf8', cwd });
  const ok = run(ex('sum.yml'), '--timeout', '60');
  assert.equal(ok.status, 0);
  assert.equal(ok.stdout.trim().split('\n').pop(), 'Verification result: TRUE');

  const json = run(ex('sum.yml'), '--timeout', '60', '--format', 'json');
  const j = JSON.parse(json.stdout);
  assert.equal(j.verdict, 'true');
  assert.equal(j.witness, join(cwd, 'witness.yml'));
  assert.match(readFileSync(j.witness, 'utf8'), /entry_type: "invariant_set"/);

  const syntax = run(fx('syntax-error.c'), '--prop', ex('unreach-call.prp'));
  assert.equal(syntax.status, 1);
  assert.match(syntax.stderr.trim(), /^\S*syntax-error\.c:3:3: error: /);
  assert.equal(syntax.stderr.trim().split('\n').length, 1);

  const missing = run(fx('missing-program.yml'));
  assert.notEqual(missing.status, 0);
  assert.match(missing.stderr, /missing-program\.yml:2:\d+: error: .*does-not-exist\.c/);

  // A program without a property: the default checks, named in the output.
  const noProp = run(fx('overflow.c'), '--witness', join(cwd, 'default.yml'));
  assert.equal(noProp.status, 0, noProp.stderr);
  assert.match(noProp.stdout, /^Checks \(no property given\): .*signed overflow \(no-overflow\), division by zero \(div-by-zero\)$/m);
  assert.match(noProp.stdout, /Verification result: FALSE\(no-overflow\)\n$/);

  const badModel = run(fx('overflow.c'), '--prop', ex('no-overflow.prp'), '--data-model', 'X32');
  assert.equal(badModel.status, 2);
});

test('CLI: without --witness, a leak\'s GraphML witness goes to ./witness.graphml (the rules\' file name for its format)', { skip: needTools('gcc', 'gcc -m32 -fsanitize=address') }, () => {
  const cwd = tmp();
  const r = spawnSync(process.execPath, [cliPath, 'verify', ex('leak.c'), '--prop', ex('valid-memsafety.prp'), '--timeout', '60', '--format', 'json'], { encoding: 'utf8', cwd });
  const j = JSON.parse(r.stdout);
  assert.equal(j.result, 'FALSE(valid-memtrack)', j.reason);
  assert.equal(j.witness, join(cwd, 'witness.graphml'));
  assert.match(readFileSync(j.witness, 'utf8'), /<graphml/);
  assert.ok(!existsSync(join(cwd, 'witness.yml')));
  rmSync(cwd, { recursive: true, force: true });
});

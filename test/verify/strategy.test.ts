// The property table's strategy decides which steps run, in order; the
// `--verbose` profile names the CPU time of each step that ran.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { repoRoot } from '../helpers/shared.js';
import { needTools } from '../helpers/tools.js';
import { verify } from '../../src/verify/index.js';

const noGcc = needTools('gcc -m32', 'gcc -fsanitize');
const exec = (name: string) => join(repoRoot, 'test', 'fixtures', 'execution', name);

/** The phases of the profile line a run logs, in order. */
async function phases(program: string, property: string): Promise<{ verdict: string; phases: string[] }> {
  const lines: string[] = [];
  const r = await verify(program, { property, timeoutS: 30, witnessPath: null, log: (m) => lines.push(m) });
  const profile = lines.find((l) => l.startsWith('profile (CPU ms): '));
  assert.ok(profile, lines.join('\n'));
  const list = profile.slice('profile (CPU ms): '.length).split(';')[0]!.split(', ').map((p) => p.replace(/ \d+$/, ''));
  return { verdict: r.verdict.kind, phases: list };
}

test('a program without nondeterminism is decided by the execution step; BMC does not run', { skip: noGcc }, async () => {
  const r = await phases(exec('initialised-arrays.c'), 'unreach-call');
  assert.equal(r.verdict, 'true');
  assert.deepEqual(r.phases.slice(0, 4), ['start-up', 'parse', 'lower', 'execution']);
  assert.ok(!r.phases.includes('bmc'), r.phases.join(', '));
});

test('memory safety: the execution step stops at the first nondet value, then BMC decides', async () => {
  const r = await phases(join(repoRoot, 'examples', 'count.c'), 'valid-memsafety');
  assert.ok(r.phases.indexOf('execution') < r.phases.indexOf('bmc'), r.phases.join(', '));
  assert.ok(r.phases.includes('bmc'), r.phases.join(', '));
});

const fx = (name: string) => join(repoRoot, 'test', 'fixtures', 'verify', name);

test('a loop-free float program: the sampling step finds nothing, the interval step proves it; BMC does not run', async () => {
  const r = await phases(fx('float-range-safe.c'), 'unreach-call');
  assert.equal(r.verdict, 'true');
  // The execution step stops at the first nondet value.
  assert.deepEqual(r.phases.filter((p) => p !== 'execution').slice(2, 5), ['lower', 'sampling', 'intervals'], r.phases.join(', '));
  assert.ok(!r.phases.includes('bmc'), r.phases.join(', '));
});

test('a float program violated at the edge of its range: the sampling step finds it, gcc replays it', { skip: noGcc }, async () => {
  const r = await phases(fx('float-range-unsafe.c'), 'unreach-call');
  assert.equal(r.verdict, 'false');
  assert.ok(r.phases.includes('sampling') && r.phases.includes('replay'), r.phases.join(', '));
  assert.ok(!r.phases.includes('bmc'), r.phases.join(', '));
});

test('an integer overflow after a hundred iterations: the long-runs step finds it, gcc replays it, the last BMC does not run', { skip: noGcc }, async () => {
  const r = await phases(fx('deep-overflow.c'), 'no-overflow');
  assert.equal(r.verdict, 'false');
  const after = r.phases.slice(r.phases.indexOf('long-runs'));
  assert.ok(after.length > 0 && after.includes('replay') && !after.includes('bmc'), r.phases.join(', '));
});

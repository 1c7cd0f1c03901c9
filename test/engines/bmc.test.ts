import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/shared.js';
import { parseImp } from '../../src/ivl/index.js';
import { bmc, encodeBounded } from '../../src/engines/index.js';

function load(name: string) {
  const file = join(repoRoot, 'test', 'fixtures', 'engines', name);
  return parseImp(readFileSync(file, 'utf8'), file);
}
const soon = () => Date.now() + 60_000;

test('a loop with a constant bound is proved by complete unrolling', async () => {
  const r = await bmc(load('count-safe.imp'), { deadline: soon() });
  assert.equal(r.verdict, 'true');
  // 10 iterations need bound 16 in the sequence 1, 2, 4, 8, 16.
  assert.equal(r.bound, 16);
});

test('a reachable assert gives FALSE with the havoc value and the failing assert', async () => {
  const r = await bmc(load('count-bug.imp'), { deadline: soon() });
  assert.equal(r.verdict, 'false');
  if (r.verdict !== 'false') return;
  assert.equal(r.bound, 8);
  assert.equal(r.counterexample.goal.loc.line, 9);
  assert.equal(r.counterexample.havocs.length, 1);
  const n = r.counterexample.havocs[0]!;
  assert.equal(n.target, 'n');
  assert.equal(n.loc.line, 5);
  assert.ok(n.value >= 6n && n.value <= 100n, `n = ${n.value}`);
  // Loop condition evaluated 6 times, true each time.
  assert.deepEqual(r.counterexample.branches.map((b) => b.taken), [true, true, true, true, true, true]);
});

test('an unbounded loop gives UNKNOWN, never TRUE', async () => {
  const r = await bmc(load('unbounded.imp'), { deadline: soon(), maxBound: 8 });
  assert.equal(r.verdict, 'unknown');
  if (r.verdict === 'unknown') assert.match(r.reason, /bound 8/);
});

test('calls are inlined and contracts assumed', async () => {
  const r = await bmc(load('calls.imp'), { deadline: soon() });
  assert.equal(r.verdict, 'false');
  if (r.verdict === 'false') assert.equal(r.counterexample.goal.loc.line, 12);
});

test('an assert classified as a bound goal never makes FALSE', async () => {
  const p = parseImp('procedure main() { var x: bv8; x := havoc; if (x == 3bv8) { assert false; } }', 'cut.imp');
  const asBound = await bmc(p, { deadline: soon(), assertRole: () => 'bound', maxBound: 4 });
  assert.equal(asBound.verdict, 'unknown');
  const asError = await bmc(p, { deadline: soon() });
  assert.equal(asError.verdict, 'false');
  if (asError.verdict === 'false') assert.equal(asError.counterexample.havocs[0]!.value, 3n);
});

test('the encoding rejects unknown variables with their location', () => {
  const p = parseImp('procedure main() { assert y == 1; }', 'bad.imp');
  assert.throws(() => encodeBounded(p, { bound: 1 }), /unknown variable 'y'/);
});

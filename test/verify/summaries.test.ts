// Recursion summaries: unbounded recursion proved by a summary of each
// recursive function (Houdini over candidate conditions on the result),
// never where an error hides in the recursion or the calls depend on more
// than their arguments.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/shared.js';
import { needTools } from '../helpers/tools.js';
import { verify } from '../../src/verify/index.js';
import { validate } from '../../src/validate/index.js';
import { parseC } from '../../src/verify/frontend.js';
import { proveBySummaries } from '../../src/verify/summaries.js';
import { passesOf, violationKinds } from '../../src/properties/index.js';

const fx = (name: string) => join(repoRoot, 'test', 'fixtures', 'summaries', name);
const summaries = (name: string, property: 'unreach-call' | 'no-overflow' = 'unreach-call') => {
  const end = Date.now() + 60_000;
  return proveBySummaries(parseC(fx(name), 'ILP32'), { passes: passesOf(property), errorKinds: violationKinds(property), dataModel: 'ILP32', left: () => end - Date.now() });
};

test('mutual recursion capped at 3: each function gets the summary result <= 3, and main is proved with it', async () => {
  const r = await summaries('capped.c');
  assert.ok(r.proof, r.reason);
  for (const f of ['up', 'down']) {
    const cs = r.proof.summaries.get(f)!;
    const constantBound = (op: string, value: bigint) => cs.some((c) => c.op === op && c.bound.params.length === 0 && c.bound.constant === value);
    assert.ok(constantBound('<=', 3n), `${f}: ${JSON.stringify(cs, (_, v) => (typeof v === 'bigint' ? String(v) : v))}`);
    // result <= 2 fails for up(3) = 3 and must have been dropped.
    assert.ok(!constantBound('<=', 2n));
  }
});

test('addition by recursion: the summary result == a + b, over two parameters, proves main', async () => {
  const r = await summaries('add.c');
  assert.ok(r.proof, r.reason);
  assert.ok(r.proof.summaries.get('add')!.some((c) => c.op === '==' && c.bound.constant === 0n && c.bound.params.length === 2 && c.bound.params.every((p) => p.sign === 1)));
  assert.match(r.reason, /proved/);
});

test('no-overflow: the summary result <= 3 shows that up(x - 1) + 1 cannot overflow; a sum that does overflow deep in the recursion is not proved', async () => {
  const capped = await summaries('capped-signed.c', 'no-overflow');
  assert.ok(capped.proof, capped.reason);
  const sum = await summaries('sum-overflow.c', 'no-overflow');
  assert.equal(sum.proof, undefined);
  assert.match(sum.reason, /an error is reachable in sum called with arbitrary arguments/);
});

test('capped at 5 the error is reachable: the summaries do not prove main', async () => {
  const r = await summaries('capped-bug.c');
  assert.equal(r.proof, undefined);
  assert.match(r.reason, /do not prove main: an error is reachable/);
});

test('an error deep inside the recursion is found by the check of the function with arbitrary arguments', async () => {
  const r = await summaries('deep-error.c');
  assert.equal(r.proof, undefined);
  assert.match(r.reason, /an error is reachable in f called with arbitrary arguments/);
});

test('a recursive function that uses a global gets no summary, and the reason names it', async () => {
  const r = await summaries('global.c');
  assert.equal(r.proof, undefined);
  assert.match(r.reason, /g: uses the variable 'calls'/);
});

test('verify answers TRUE by summaries with a witness that validate confirms; the buggy variant is not TRUE', { skip: needTools('gcc') }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-summaries-'));
  try {
    const w = join(dir, 'capped.yml');
    const r = await verify(fx('capped.c'), { property: 'unreach-call', timeoutS: 30, witnessPath: w });
    assert.equal(r.verdict.kind, 'true', r.reason);
    assert.match(r.reason, /recursion summaries/);
    const v = await validate(fx('capped.c'), w, { property: 'unreach-call', timeoutS: 10 });
    assert.equal(v.outcome, 'confirmed', v.reason);
    const bug = await verify(fx('capped-bug.c'), { property: 'unreach-call', timeoutS: 30, witnessPath: null });
    assert.equal(bug.verdict.kind, 'false', bug.reason);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

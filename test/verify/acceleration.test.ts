import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/shared.js';
import { needTools } from '../helpers/tools.js';
import { verify } from '../../src/verify/index.js';
import { validate } from '../../src/validate/index.js';

const fx = (name: string) => join(repoRoot, 'test', 'fixtures', 'acceleration', name);
const noGcc = needTools('gcc', 'gcc -fsanitize');

test('violations after millions of loop iterations are found at bound 1 with the loop accelerated (one that goes on while a nondet call says so too), replayed, and a witness of each kind of jump confirmed', { skip: noGcc }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-acceleration-'));
  try {
    for (const [name, property, shown] of [
      ['deep-error.c', 'unreach-call', /^call of reach_error at deep-error\.c:10:23 \(BMC bound 1 with \d+ loop iterations jumped over, 1 nondet values; replay/],
      ['counter-overflow.c', 'no-overflow', /^signed overflow in int \+ int at counter-overflow\.c:7:5 \(BMC bound 1 with \d+ loop iterations jumped over, 1 nondet values; replay/],
      // Two phases, one per path through the body: 10^8 iterations of one, 2.5 * 10^7 of the other.
      ['phases.c', 'unreach-call', /^call of reach_error at phases\.c:10:24 \(BMC bound 1 with \d+ loop iterations jumped over, 1 nondet values; replay/],
      // sum += i: quadratic in the iterations.
      ['sum-overflow.c', 'no-overflow', /^signed overflow in int \+ int at sum-overflow\.c:7:11 \(BMC bound 1 with \d+ loop iterations jumped over, 1 nondet values; replay/],
      // A loop that goes on while a nondet call says so: each of the 2^20 iterations makes one.
      ['nondet-loop.c', 'unreach-call', /^call of reach_error at nondet-loop\.c:8:24 \(BMC bound 1 with \d+ loop iterations jumped over, 1048576 nondet values; replay/],
    ] as const) {
      const witness = join(dir, `${name}.yml`);
      const r = await verify(fx(name), { property, dataModel: 'LP64', timeoutS: 10, witnessPath: witness });
      assert.equal(r.verdict.kind, 'false', `${name}: ${r.reason}`);
      assert.match(r.reason, shown);
      // A witness of each kind of jump is validated (linear, quadratic, a nondet value repeated); the others share their form.
      if (name === 'counter-overflow.c' || name === 'phases.c') continue;
      const v = await validate(fx(name), witness, { property, dataModel: 'LP64', timeoutS: 10 });
      assert.equal(v.verdict.kind, 'false', `${name}: ${v.reason}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a loop the acceleration applies to that is safe stays TRUE (the jump adds no state the loop cannot reach)', { skip: noGcc }, async () => {
  for (const property of ['unreach-call', 'no-overflow']) {
    const r = await verify(fx('counter-safe.c'), { property, dataModel: 'LP64', timeoutS: 20, witnessPath: null });
    assert.equal(r.verdict.kind, 'true', `${property}: ${r.reason}`);
  }
});

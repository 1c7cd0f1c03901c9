// Termination through unbounded recursion: a parameter that decreases,
// well-founded, at every recursive call (after a proof that nothing
// overflows); never TRUE for a recursion that does not end or ends only by
// wrap-around.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { repoRoot } from '../helpers/shared.js';
import { verify } from '../../src/verify/index.js';

const fx = (name: string) => join(repoRoot, 'test', 'fixtures', 'termination', name);
const prp = join(repoRoot, 'test', 'fixtures', 'verify', 'termination.prp');

for (const [file, measure] of [
  ['recursion-unsigned.c', 'count: x (unsigned)'],
  ['recursion-signed.c', 'steps: x (signed, from at least 0)'],
  ['recursion-mutual.c', 'even: x (unsigned); odd: x (unsigned)'],
] as const) {
  test(`${file}: TRUE, the recursion measured by ${measure}`, async () => {
    const r = await verify(fx(file), { prp, timeoutS: 60, witnessPath: null });
    assert.deepEqual(r.verdict, { kind: 'true' });
    assert.match(r.reason, new RegExp(`decreases a measure \\(${measure.replace(/[()]/g, '\\$&')}\\)`));
  });
}

for (const [file, why] of [
  ['recursion-forever.c', /no parameter of spin decreases/],
  ['recursion-overflow.c', /recursion measures need a proof that nothing overflows/],
  ['recursion-mutual-forever.c', /no parameter of ping, pong decreases/],
  // reach_error returns: the call after it counts (it was cut off, a wrong TRUE).
  ['recursion-after-error.c', /no parameter of f decreases/],
] as const) {
  test(`${file}: never TRUE (${why.source})`, async () => {
    const r = await verify(fx(file), { prp, timeoutS: 20, witnessPath: null });
    assert.notEqual(r.verdict.kind, 'true');
    assert.match(r.reason, why);
  });
}

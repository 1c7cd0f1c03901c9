// Programs with threads (test/fixtures/threads): each property's answer on
// small programs with known answers. A FALSE is confirmed by a gcc run under
// the counterexample's schedule and comes with a GraphML witness whose edges
// carry thread ids; a TRUE covers every interleaving; a model with too few
// thread slots never answers TRUE.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/shared.js';
import { needTools } from '../helpers/tools.js';
import { verify } from '../../src/verify/index.js';
import { validate } from '../../src/validate/index.js';
import { nondetValue } from '../../src/replay/index.js';
import { replaySchedule } from '../../src/replay/threads.js';

const noGcc = needTools('gcc -m32');
const fixture = (name: string) => join(repoRoot, 'test', 'fixtures', 'threads', name);

async function run(name: string, property: string, witnessPath: string | null = null) {
  return verify(fixture(name), { property, timeoutS: 20, witnessPath });
}

for (const [name, expected] of [
  ['race-locked.c', 'true'],
  ['race-atomic.c', 'true'],
  ['race-joined.c', 'true'],
] as const) {
  test(`no-data-race: ${name} is ${expected}`, async () => {
    const r = await run(name, 'no-data-race');
    assert.equal(r.verdict.kind, expected, r.reason);
  });
}

test('no-data-race: two unsynchronised writes are a race, replayed, with a GraphML witness naming the threads', { skip: noGcc }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-threads-test-'));
  try {
    const w = join(dir, 'witness.graphml');
    const r = await run('race.c', 'no-data-race', w);
    assert.equal(r.verdict.kind, 'false', r.reason);
    assert.equal(r.replay?.status, 'confirmed', r.reason);
    assert.match(r.reason, /data race: write of 4 bytes/);
    const text = readFileSync(w, 'utf8');
    assert.match(text, /<data key="threadId">0<\/data>/);
    assert.match(text, /<data key="createThread">1<\/data>/);
    assert.match(text, /<data key="violation">true<\/data>/);
    // The witness's path, run as a schedule, shows the race again.
    const v = await validate(fixture('race.c'), w, { property: 'no-data-race', timeoutS: 30 });
    assert.equal(v.outcome, 'confirmed', v.reason);
    assert.deepEqual(v.verdict, { kind: 'false', property: 'no-data-race' });
    // The same path on the program whose writes hold a lock: refused as another program's, or unconfirmed.
    const locked = await validate(fixture('race-locked.c'), w, { property: 'no-data-race', timeoutS: 30 }).catch((e: Error) => e);
    assert.ok(locked instanceof Error || locked.outcome !== 'confirmed', locked instanceof Error ? locked.message : locked.reason);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('no-data-race: branches on nondet input and a heap block that may be missing: TRUE when every way is safe', async () => {
  const r = await run('locked-on-input.c', 'no-data-race');
  assert.equal(r.verdict.kind, 'true', r.reason);
});

test('no-data-race: a race that needs one input value is FALSE, replayed with that value (the schedule\'s own choices at the nondet call are not values)', { skip: noGcc }, async () => {
  const r = await run('race-on-input.c', 'no-data-race');
  assert.deepEqual(r.verdict, { kind: 'false', property: 'no-data-race' }, r.reason);
  assert.equal(r.replay?.status, 'confirmed', r.reason);
  assert.deepEqual(r.counterexample?.map((v) => v.value), [5n]);
});

test('a schedule whose thread would wait for another thread ends at once, saying so, instead of hanging until its time limit', { skip: noGcc }, () => {
  // With the input 0 the writer waits for the lock main holds; the schedule's last step lets main run on to its join.
  const steps = [{ thread: 1, operations: 3 }, { thread: 2, operations: 1 }, { thread: 1, operations: 1 }];
  const r = replaySchedule(fixture('race-on-input.c'), [nondetValue('__VERIFIER_nondet_int', 0n)], { symptom: 'data-race', dataModel: 'LP64', steps, created: [2], nondetFunctions: ['__VERIFIER_nondet_int'], atomicFunctions: [], timeoutMs: 20_000 });
  assert.equal(r.status, 'not-confirmed', r.reason);
  assert.equal(r.timedOut, undefined, r.reason);
  assert.match(r.reason, /would wait for another thread/);
  const raced = replaySchedule(fixture('race-on-input.c'), [nondetValue('__VERIFIER_nondet_int', 5n)], { symptom: 'data-race', dataModel: 'LP64', steps, created: [2], nondetFunctions: ['__VERIFIER_nondet_int'], atomicFunctions: [], timeoutMs: 20_000 });
  assert.equal(raced.status, 'confirmed', raced.reason);
});

test('unreach-call: a handshake that publishes before raising the flag is safe in every interleaving', async () => {
  const r = await run('handshake-ok.c', 'unreach-call');
  assert.equal(r.verdict.kind, 'true', r.reason);
});

test('unreach-call: a handshake that raises the flag first is FALSE, replayed under the schedule', { skip: noGcc }, async () => {
  const r = await run('handshake-bug.c', 'unreach-call');
  assert.equal(r.verdict.kind, 'false', r.reason);
  assert.equal(r.replay?.status, 'confirmed', r.reason);
});

test('unreach-call: threads created in a loop, more than the model has slots for, are never TRUE', async () => {
  const r = await verify(fixture('threads-in-loop.c'), { property: 'unreach-call', timeoutS: 3, witnessPath: null });
  assert.notEqual(r.verdict.kind, 'true', r.reason);
});

test('a program without threads has no data race; termination of a program with threads is not decided', async () => {
  const r = await verify(join(repoRoot, 'examples', 'count.c'), { property: 'no-data-race', timeoutS: 10, witnessPath: null });
  assert.equal(r.verdict.kind, 'true', r.reason);
  const t = await run('race-joined.c', 'termination');
  assert.equal(t.verdict.kind, 'unknown');
  assert.match(t.reason, /termination of a program with threads is not supported/);
});

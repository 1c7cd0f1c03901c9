// Correctness witnesses of TRUE answers: they lint clean against the
// program, sit at the loop keywords, hold at every inlined instance of a
// loop, and survive concrete gcc-built runs with checks of every invariant
// at its loop head. Where `tarsier validate` exists, it confirms them and
// does not confirm a witness with one invariant made false.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verify } from '../../src/verify/index.js';
import { falsifiedConjunct, invariantsOf, lintProblems, skipGcc } from '../helpers/correctness-witness.js';
import { cliPath, repoRoot } from '../helpers/shared.js';

const work = mkdtempSync(join(tmpdir(), 'tarsier-correctness-witness-'));
const fx = (...p: string[]) => join(repoRoot, 'test', 'fixtures', 'witness', ...p);
const prp = join(repoRoot, 'examples', 'unreach-call.prp');
const hasValidate = spawnSync(process.execPath, [cliPath, '--help'], { encoding: 'utf8' }).stdout.includes('validate');

/** `tarsier validate`'s last two lines for a witness (undefined: no validate command); `time limit` when it ran out of time. */
function validate(task: string, witness: string, property?: string): string | undefined {
  if (!hasValidate) return undefined;
  const args = [cliPath, 'validate', task, '--witness', witness, '--timeout', '30'];
  if (property) args.push('--property', property);
  else args.push('--prop', prp);
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 120_000 });
  const lines = (r.stdout ?? '').trim().split('\n');
  // The verdict line, after the line with the reason (for the failure message).
  return lines.some((l) => /^Witness unconfirmed: time limit reached/.test(l)) ? 'time limit' : lines.slice(-2).join(' | ');
}

test('a loop inlined at two calls gets an invariant that holds at both, at its keyword, and the witness lints clean', async () => {
  const w = join(work, 'two-calls.yml');
  const r = await verify(fx('two-calls.c'), { prp, timeoutS: 120, witnessPath: w, creationTime: '2026-01-01T00:00:00Z' });
  assert.deepEqual(r.verdict, { kind: 'true' });
  assert.equal(r.witnessPath, w);
  assert.deepEqual(lintProblems(w, fx('two-calls.c')), []);
  const invs = invariantsOf(w);
  const count = invs.find((i) => i.function === 'count')!;
  const main = invs.find((i) => i.function === 'main')!;
  assert.deepEqual([count.line, count.column, main.line, main.column], [9, 3, 23, 3]);
  const parts = count.text.split(' && ');
  // `i <= 5` holds at the first call only; `i <= 10` at both.
  assert.ok(parts.includes('i <= 10') && !parts.includes('i <= 5'), count.text);
  assert.ok(main.text.split(' && ').includes('j <= k'), main.text);
  const text = readFileSync(w, 'utf8');
  assert.match(text, /specification: "CHECK\( init\(main\(\)\), LTL\(G ! call\(reach_error\(\)\)\) \)"/);
  assert.match(text, /data_model: "ILP32"/);
  assert.match(text, /"two-calls.c": "[0-9a-f]{64}"/);
});

test('every invariant of the fixture holds in gcc-built runs, with no undefined behaviour in it', { skip: skipGcc }, async () => {
  const w = join(work, 'two-calls-2.yml');
  await verify(fx('two-calls.c'), { prp, timeoutS: 120, witnessPath: w });
  const invs = invariantsOf(w);
  assert.equal(falsifiedConjunct(fx('two-calls.c'), invs, 30, ['-fsanitize=undefined', '-fno-sanitize-recover=all']), undefined);
  // The check itself can fail: a false invariant is caught.
  const wrong = invs.map((i) => (i.function === 'count' ? { ...i, text: 'i <= 5' } : i));
  assert.match(falsifiedConjunct(fx('two-calls.c'), wrong, 5) ?? '', /i <= 5/);
});

test('the witness is confirmed by tarsier validate, and a false invariant is not', { skip: hasValidate ? false : 'skipped: tarsier validate is not there yet' }, async () => {
  const w = join(work, 'two-calls-3.yml');
  await verify(fx('two-calls.c'), { prp, timeoutS: 120, witnessPath: w });
  assert.match(validate(fx('two-calls.c'), w) ?? '', /Verification result: TRUE/);
  const bad = join(work, 'two-calls-bad.yml');
  // The loop invariant of count replaced by one that fails at i == 6 (count(10) gets there).
  const text = readFileSync(w, 'utf8');
  const badText = text.replace(/(function: "count"\n\s+value: )"[^"]*"/, '$1"i <= 5"');
  assert.notEqual(badText, text, 'the witness has an invariant of count');
  writeFileSync(bad, badText);
  assert.doesNotMatch(validate(fx('two-calls.c'), bad) ?? '', /Verification result: TRUE/);
});

test('an affine equality (Karr) proves a loop: written in long long, it holds in gcc-built runs and is confirmed; made false, it is not', { skip: skipGcc }, async () => {
  const w = join(work, 'sums.yml');
  const r = await verify(fx('sums.c'), { prp, timeoutS: 60, witnessPath: w });
  assert.deepEqual(r.verdict, { kind: 'true' });
  assert.deepEqual(lintProblems(w, fx('sums.c')), []);
  const invs = invariantsOf(w);
  const second = invs.find((i) => i.line === 17)!;
  const equality = second.text.split(' && ').find((p) => /long long/.test(p));
  assert.ok(equality && /\(long long\)i/.test(equality) && /\(long long\)j/.test(equality) && /\(long long\)k/.test(equality), second.text);
  assert.equal(falsifiedConjunct(fx('sums.c'), invs, 30, ['-fsanitize=undefined', '-fno-sanitize-recover=all']), undefined);
  if (!hasValidate) return;
  assert.match(validate(fx('sums.c'), w) ?? '', /Verification result: TRUE/);
  const bad = join(work, 'sums-bad.yml');
  writeFileSync(bad, readFileSync(w, 'utf8').replace(equality, `${equality.replace(/ == /, ' == 1 + ')}`));
  assert.notEqual(readFileSync(bad, 'utf8'), readFileSync(w, 'utf8'));
  assert.doesNotMatch(validate(fx('sums.c'), bad) ?? '', /Verification result: TRUE/);
});

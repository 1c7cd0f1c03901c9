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
import { forEachStatement, parseCFile, type CProgram } from '../../src/c/index.js';
import { HARNESS_C, instrumentChecks } from '../../src/invariants/index.js';
import { verify } from '../../src/verify/index.js';
import { lintWitness, readWitness } from '../../src/witness/index.js';
import type { InvariantSetEntry } from '../../src/witness/model.js';
import { cliPath, repoRoot, sharedPath, skipWithoutShared } from '../helpers/shared.js';

const work = mkdtempSync(join(tmpdir(), 'tarsier-correctness-witness-'));
const fx = (...p: string[]) => join(repoRoot, 'test', 'fixtures', 'witness', ...p);
const prp = join(repoRoot, 'examples', 'unreach-call.prp');
const gccOk = (() => {
  writeFileSync(join(work, 'harness.c'), HARNESS_C);
  return spawnSync('gcc', ['-c', '-o', join(work, 'harness.o'), join(work, 'harness.c')]).status === 0;
})();
const skipGcc = gccOk ? false : 'skipped: gcc is not available';
const hasValidate = spawnSync(process.execPath, [cliPath, '--help'], { encoding: 'utf8' }).stdout.includes('validate');

interface Inv {
  line: number;
  column: number;
  function: string;
  text: string;
}

function invariantsOf(witness: string): Inv[] {
  const doc = readWitness(readFileSync(witness, 'utf8'), witness);
  assert.equal(doc.format, 'yaml');
  const entries = doc.entries as InvariantSetEntry[];
  assert.equal(entries.length, 1);
  assert.equal(entries[0]!.entry_type, 'invariant_set');
  assert.equal(entries[0]!.metadata.producer.name, 'tarsier');
  return entries[0]!.content.map((c) => {
    assert.ok(c.kind === 'loop_invariant' || c.kind === 'location_invariant');
    return { line: c.location.line, column: c.location.column!, function: c.location.function!, text: c.value.text };
  });
}

function lintProblems(witness: string, program: string): string[] {
  return lintWitness(readFileSync(witness, 'utf8'), witness, { programText: readFileSync(program, 'utf8'), programFile: program.split('/').pop() })
    .filter((d) => d.severity === 'error' || d.severity === 'warning')
    .map((d) => `${d.line}:${d.column} ${d.message} [${d.rule}]`);
}

/** Byte offset of the loop keyword at a line and column. */
function loopOffset(program: CProgram, line: number, column: number): number | undefined {
  let found: number | undefined;
  for (const d of program.declarations) {
    if (d.kind !== 'FunctionDefinition') continue;
    forEachStatement(d.body, (s) => {
      if ((s.kind === 'While' || s.kind === 'For' || s.kind === 'DoWhile') && s.keywordLoc.line === line && s.keywordLoc.column === column) found = s.keywordLoc.offset;
    });
  }
  return found;
}

/** Runs the program with every conjunct of every loop invariant checked at its loop head; the failing conjunct, if any. */
function falsifiedConjunct(programPath: string, invs: readonly Inv[], runs: number, flags: readonly string[] = ['-fwrapv']): string | undefined {
  const program = parseCFile(programPath, { dataModel: 'LP64' });
  const checks: Array<{ loopLoc: { offset: number }; text: string; id: number }> = [];
  const texts: string[] = [];
  for (const inv of invs) {
    const offset = loopOffset(program, inv.line, inv.column);
    if (offset === undefined) continue;
    for (const part of inv.text.split(' && ')) {
      checks.push({ loopLoc: { offset }, text: part, id: texts.length });
      texts.push(`${inv.function}:${inv.line}: ${part}`);
    }
  }
  const inst = instrumentChecks(readFileSync(programPath, 'utf8'), checks);
  const src = join(work, programPath.endsWith('.i') ? 'p.i' : 'p.c');
  writeFileSync(src, inst.text);
  const exe = join(work, 'p');
  const cc = spawnSync('gcc', ['-m64', '-O0', '-w', ...flags, '-o', exe, src, join(work, 'harness.o')], { encoding: 'utf8' });
  assert.equal(cc.status, 0, cc.stderr);
  for (let seed = 1; seed <= runs; seed++) {
    const r = spawnSync(exe, [], { encoding: 'utf8', timeout: 2000, env: { ...process.env, TARSIER_SEED: String(seed) } });
    const m = /tarsier-check-failed (\d+)/.exec(r.stderr ?? '');
    if (m) return texts[Number(m[1])];
    if (/runtime error/.test(r.stderr ?? '')) return `undefined behaviour: ${r.stderr.split('\n')[0]}`;
  }
  return undefined;
}

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
  writeFileSync(bad, readFileSync(w, 'utf8').replace(/value: "i <= 10[^"]*"/, 'value: "i <= 5"'));
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

test('bench TRUE tasks (a sample): witnesses lint clean, hold in gcc-built runs, and are confirmed by validate where it exists', { skip: skipWithoutShared || skipGcc }, async (t) => {
  const root = sharedPath('bench', 'sv-benchmarks');
  const rows = readFileSync(join(root, 'MANIFEST.csv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split(','));
  const sample = rows.filter((r) => r[4] === 'true' && (r[2] === 'unreach-call' || r[2] === 'no-overflow') && !/xcsp|array/.test(r[6]!)).filter((_, i) => i % 20 === 0);
  let trueCount = 0;
  let confirmed = 0;
  for (const [task, program, property] of sample) {
    const w = join(work, 'bench.yml');
    const r = await verify(join(root, task!), { property, timeoutS: 10, witnessPath: w });
    if (r.verdict.kind !== 'true') continue;
    trueCount++;
    assert.deepEqual(lintProblems(w, join(root, program!)), [], task);
    const invs = invariantsOf(w);
    assert.equal(falsifiedConjunct(join(root, program!), invs, 10), undefined, task);
    const v = validate(join(root, task!), w, property);
    if (v === undefined) continue;
    // A machine too busy for the validator's time is no failure (tests do not fail because of a time).
    if (v === 'time limit') {
      t.diagnostic(`${task}: validation ran out of time`);
      continue;
    }
    assert.match(v, /Verification result: TRUE/, task);
    confirmed++;
    // One invariant made false at a loop that runs: never confirmed.
    const loop = invs.find((i) => falsifiedConjunct(join(root, program!), [{ ...i, text: '0' }], 10) !== undefined);
    if (!loop) continue;
    const bad = join(work, 'bench-bad.yml');
    const text = readFileSync(w, 'utf8');
    const at = text.indexOf(`line: ${loop.line}\n`);
    const valueAt = text.indexOf('value: "', at);
    writeFileSync(bad, text.slice(0, valueAt) + 'value: "0"' + text.slice(text.indexOf('\n', valueAt)));
    assert.doesNotMatch(validate(join(root, task!), bad, property) ?? '', /Verification result: TRUE/, task);
  }
  t.diagnostic(`${sample.length} tasks, ${trueCount} TRUE with a clean witness${hasValidate ? `, ${confirmed} confirmed` : ' (validate not there yet)'}`);
});

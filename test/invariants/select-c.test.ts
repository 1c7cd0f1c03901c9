// `tarsier select` on C programs and task files: candidates translated with
// C integer semantics at every lowered instance of their loop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, repoRoot } from '../helpers/shared.js';
import { readWitness } from '../../src/witness/read.js';
import { cCandidatesFromWitness, prepareCProgram, select, selectCInvariants } from '../../src/invariants/index.js';

const fixtures = join(repoRoot, 'test', 'fixtures', 'select-c');
const dir = mkdtempSync(join(tmpdir(), 'tarsier-select-c-'));
for (const f of ['sum.c', 'sum.yml', 'sum-invariants.yml', 'unreach-call.prp']) copyFileSync(join(fixtures, f), join(dir, f));

function tarsier(...args: string[]) {
  const r = spawnSync(process.execPath, [cliPath, ...args], { encoding: 'utf8', cwd: dir });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

// Per candidate of sum-invariants.yml: [YAML line, expected status].
const EXPECTED = [
  'sum-invariants.yml:17:16: selected: s == 2 * i (loop at sum.c:24:3)',
  'sum-invariants.yml:22:16: selected: i <= n (loop at sum.c:24:3)',
  'sum-invariants.yml:27:16: rejected (not preserved): s == i (loop at sum.c:24:3)',
  'sum-invariants.yml:32:16: rejected (not established on entry): s > 2 * i (loop at sum.c:24:3)',
  // i + INT_MAX overflows once i >= 1: undefined, so never selected.
  'sum-invariants.yml:37:16: rejected (not preserved): i + 2147483647 >= i (loop at sum.c:24:3)',
  'sum-invariants.yml:42:16: rejected (unsupported: address-of): &i != 0 (loop at sum.c:24:3)',
  // unsigned wrap-around: x = 0 - j (mod 2^32); `-1 < x` compares UINT_MAX < x.
  'sum-invariants.yml:47:16: selected: x + j == 0 (loop at sum.c:31:3)',
  'sum-invariants.yml:52:16: rejected (not preserved): x <= 0 (loop at sum.c:31:3)',
  'sum-invariants.yml:57:16: rejected (not established on entry): -1 < x (loop at sum.c:31:3)',
  // j is declared in the for's init clause.
  'sum-invariants.yml:62:16: selected: j <= k (loop at sum.c:31:3)',
  // count() is inlined twice: count(5) and count(nondet).
  'sum-invariants.yml:67:16: selected: c >= 0 (loop at sum.c:14:3)',
  'sum-invariants.yml:72:16: rejected (not preserved): c <= 5 (loop at sum.c:14:3)',
  'sum-invariants.yml:77:16: rejected (not established on entry): c <= m (loop at sum.c:14:3)',
];

test('C program: one line per candidate at its YAML position, then the proof and the verdict', () => {
  const r = tarsier('select', 'sum.c', '--candidates', 'sum-invariants.yml');
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, [...EXPECTED, 'The selected candidates prove every assertion.', 'Verification result: TRUE', ''].join('\n'));
});

test('task file, corrected encoding: the same selection; a loop inlined twice is checked at both instances', async () => {
  const prepared = prepareCProgram(join(dir, 'sum.yml'));
  assert.equal(prepared.dataModel, 'ILP32');
  assert.equal(prepared.property, 'unreach-call');
  const doc = readWitness(readFileSync(join(dir, 'sum-invariants.yml'), 'utf8'), join(dir, 'sum-invariants.yml'));
  const cands = cCandidatesFromWitness(doc, prepared.program);
  const r = await selectCInvariants(prepared.program, prepared.lowered, cands, { method: 'encoding' });
  const lines = r.verdicts.map((v) => {
    const c = cands[v.candidate];
    return `${c.loc.line}:${c.loc.column}: ${v.status === 'selected' ? 'selected' : `rejected (${v.reason})`}: ${c.text} (loop at sum.c:${c.loopLoc.line}:${c.loopLoc.column})`;
  });
  assert.deepEqual(lines, EXPECTED.map((l) => l.replace(/^sum-invariants\.yml:/, '')));
  assert.equal(r.verdict, 'TRUE');
  assert.deepEqual(
    r.verdicts.map((v) => v.instances),
    [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2],
  );
  // `c <= 5` holds at count(5) and fails at count(nondet): the second instance rejects it.
  assert.match(r.verdicts[11].detail ?? '', /at instance 2 of 2/);
  // Unsigned wrap-around in the counterexample of `x <= 0`: 0 - 1 is UINT_MAX.
  assert.deepEqual([r.verdicts[7].counterexample?.before?.x, r.verdicts[7].counterexample?.after?.x], ['0', '4294967295']);
  assert.equal(r.verdicts[7].impCounterexample?.after?.['x@main'], '4294967295bv32');
});

const HASH = 'b'.repeat(64);
function entry01(uuid: string, line: number, column: number, text: string): string {
  return `- entry_type: loop_invariant
  metadata:
    format_version: "0.1"
    uuid: "${uuid}"
    creation_time: "2024-05-01T12:00:00Z"
    producer: {name: "Gen", version: "1"}
    task:
      input_files: ["sum.c"]
      input_file_hashes: {sum.c: "${HASH}"}
      specification: "CHECK( init(main()), LTL(G ! call(reach_error())) )"
      data_model: "ILP32"
      language: "C"
  location: {file_name: "sum.c", file_hash: "${HASH}", line: ${line}, column: ${column}, function: "main"}
  loop_invariant: {string: "${text}", type: "assertion", format: "C"}
`;
}

test('0.1 entries (0-based columns): JSON output and certificates', () => {
  writeFileSync(
    join(dir, 'w01.yml'),
    entry01('11111111-2222-4333-8444-555555555555', 24, 2, 's == 2 * i') + entry01('66666666-2222-4333-8444-555555555555', 24, 0, 'i < n'),
  );
  const r = tarsier('select', 'sum.c', '--candidates', 'w01.yml', '--format', 'json', '--certificates', 'certs.yml', '--method', 'encoding');
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out);
  assert.deepEqual(Object.keys(j), ['candidates', 'proved', 'solverCalls']);
  assert.deepEqual(
    j.candidates.map((c: { line: number; column: number; status: string; reason: string | null }) => [c.line, c.column, c.status, c.reason]),
    [
      [14, 28, 'selected', null],
      [28, 28, 'rejected', 'not established on entry'],
    ],
  );
  // n == 0 on entry: i < n is false (the C variables in scope, as C values).
  assert.equal(j.candidates[1].counterexample.entry.i, '0');
  assert.equal(j.candidates[1].counterexample.entry.n, '0');
  assert.equal(j.proved, true);
  const certs = readWitness(readFileSync(join(dir, 'certs.yml'), 'utf8'), 'certs.yml');
  assert.deepEqual(
    (certs.format === 'yaml' ? certs.entries : []).map((e) =>
      'target' in e ? [e.target.uuid, e.certification.string] : [],
    ),
    [
      ['11111111-2222-4333-8444-555555555555', 'confirmed'],
      ['66666666-2222-4333-8444-555555555555', 'rejected'],
    ],
  );
});

test('a candidate at a line without a loop: one line, the YAML position, exit 1', () => {
  writeFileSync(join(dir, 'noloop.yml'), entry01('11111111-2222-4333-8444-555555555555', 21, 0, 'n >= 0'));
  const r = tarsier('select', 'sum.c', '--candidates', 'noloop.yml');
  assert.equal(r.code, 1);
  assert.equal(r.out, '');
  // The made-up hash of entry01 is flagged first: the witness is for another program.
  assert.equal(
    r.err,
    'noloop.yml: warning: the witness is for another program: its input_file_hashes do not include the SHA-256 of sum.c\n' +
      'noloop.yml:13:13: error: no loop at line 21, column 1 of the program\n',
  );
});

test('bad --data-model is a usage error', () => {
  const r = tarsier('select', 'sum.c', '--candidates', 'sum-invariants.yml', '--data-model', 'LP32');
  assert.equal(r.code, 2);
  assert.match(r.err, /--data-model must be ILP32 or LP64/);
});

test('loop conditions: side effects make the loop unsupported; a nondet call and && still give the condition at the head', async () => {
  const path = join(fixtures, 'cond.c');
  const prepared = prepareCProgram(path);
  const doc = readWitness(readFileSync(join(fixtures, 'cond-invariants.yml'), 'utf8'), 'cond-invariants.yml');
  const cands = cCandidatesFromWitness(doc, prepared.program);
  const r = await selectCInvariants(prepared.program, prepared.lowered, cands, { method: 'houdini' });
  // `while (i++ < 10)`: the lowered head comes after i++, C's before it (i >= 1 is false on entry in C).
  assert.deepEqual(
    r.verdicts.map((v) => [cands[v.candidate].text, v.status, v.reason ?? null]),
    [
      ['i >= 1', 'rejected', 'unsupported: the loop condition has side effects'],
      ['j <= 10', 'selected', null],
    ],
  );
});

test('a function inlined three times (once inside a loop): each copy of its loop uses its own variables', async () => {
  const prepared = prepareCProgram(join(fixtures, 'calls.c'));
  const doc = readWitness(readFileSync(join(fixtures, 'calls-invariants.yml'), 'utf8'), 'calls-invariants.yml');
  const cands = cCandidatesFromWitness(doc, prepared.program);
  const r = await selectCInvariants(prepared.program, prepared.lowered, cands, { method: 'houdini' });
  assert.deepEqual(
    r.verdicts.map((v) => [cands[v.candidate].text, v.status, v.instances]),
    [
      ['c <= m', 'selected', 3],
      ['c <= 10', 'selected', 3],
      ['c <= 7', 'rejected', 3],
      ['m == 3 || m == 10 || m == 7', 'selected', 3],
      ['c >= 0', 'selected', 3],
      // Needs f(3) == 3 and f(10) == 10: `c <= m` at the first two copies.
      ['a == 3 + 10 * k', 'selected', 1],
      ['k <= 2 && k >= 0', 'selected', 1],
    ],
  );
  // f(10), the copy inside main's loop, breaks `c <= 7`: its m is 10.
  assert.match(r.verdicts[2].detail ?? '', /at instance 2 of 3/);
  assert.deepEqual(r.verdicts[2].counterexample, { before: { c: '7', m: '10' }, after: { c: '8', m: '10' } });
  assert.equal(r.verdict, 'TRUE');
});

test('a failing path of the lowered program is UNKNOWN, not FALSE (select does not replay violations)', async () => {
  const path = join(dir, 'bug.c');
  writeFileSync(path, 'extern void reach_error(void);\nint main(void) {\n  int i = 0;\n  while (i < 3) {\n    i++;\n  }\n  if (i == 3) reach_error();\n  return 0;\n}\n');
  const prepared = prepareCProgram(path);
  const r = await selectCInvariants(prepared.program, prepared.lowered, [], { method: 'houdini' });
  assert.equal(r.verdict, 'UNKNOWN');
  assert.match(r.reason ?? '', /does not confirm/);
});

test('select, the library function: the same selection as the CLI, witness warnings through log, caller-made candidates', async () => {
  const logged: string[] = [];
  const r = await select(join(dir, 'sum.yml'), { candidates: join(dir, 'sum-invariants.yml'), method: 'houdini', log: (l) => logged.push(l) });
  assert.equal(r.prepared.property, 'unreach-call');
  assert.equal(r.prepared.dataModel, 'ILP32');
  const lines = r.verdicts.map((v) => {
    const c = r.candidates[v.candidate];
    return `${c.loc.line}:${c.loc.column}: ${v.status === 'selected' ? 'selected' : `rejected (${v.reason})`}: ${c.text} (loop at sum.c:${c.loopLoc.line}:${c.loopLoc.column})`;
  });
  assert.deepEqual(lines, EXPECTED.map((l) => l.replace(/^sum-invariants\.yml:/, '')));
  assert.equal(r.verdict, 'TRUE');
  assert.equal(logged.length, 0);
  // The witness's hash is of sum.c: another program text draws the warning.
  const other = join(dir, 'other.c');
  writeFileSync(other, readFileSync(join(dir, 'sum.c'), 'utf8') + '\n');
  await select(other, { candidates: join(dir, 'sum-invariants.yml'), method: 'houdini', skipVerification: true, log: (l) => logged.push(l) });
  assert.equal(logged.length, 1);
  assert.match(logged[0]!, /^warning: the witness is for another program/);
  // Candidates made by the caller for the prepared program; a property asked for is the one lowered.
  const made = await select(join(dir, 'sum.c'), {
    candidates: (p) => cCandidatesFromWitness(readWitness(readFileSync(join(dir, 'sum-invariants.yml'), 'utf8'), 'w.yml'), p.program).slice(0, 2),
    property: 'no-overflow',
    method: 'houdini',
    skipVerification: true,
  });
  assert.equal(made.prepared.property, 'no-overflow');
  assert.deepEqual(made.verdicts.map((v) => v.status), ['selected', 'selected']);
});

test('select on C checks unreach-call or no-overflow; another property is lowered for unreach-call with the verdict UNKNOWN', async () => {
  const prp = join(dir, 'termination.prp');
  writeFileSync(prp, 'CHECK( init(main()), LTL(F end) )\n');
  const r = await select(join(dir, 'sum.c'), { candidates: () => [], prp, method: 'houdini' });
  assert.equal(r.prepared.property, 'unreach-call');
  assert.match(r.prepared.propertyUnsupported ?? '', /termination is not checked by select/);
  assert.equal(r.verdict, 'UNKNOWN');
});

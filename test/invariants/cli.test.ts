// `tarsier select` end to end: text and JSON output, --emit, YAML candidates
// (0.1 entries and a 2.0 invariant_set), certificates, and bad input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath } from '../helpers/shared.js';
import { readWitness } from '../../src/witness/read.js';

const dir = mkdtempSync(join(tmpdir(), 'tarsier-select-'));
const EXAMPLE = `procedure main()
{
  var x, y, n: int;
  x := 0;
  y := 0;
  n := havoc;
  assume n >= 2;
  while (n > 0)
    candidate x == 0;
    candidate y == 0;
    candidate x >= 0 && y >= 0;
  {
    y := y + x;
    x := x + 1;
    n := n - 1;
  }
  assert y >= 0;
}
`;
const prog = join(dir, 'ex.imp');
writeFileSync(prog, EXAMPLE);

function tarsier(...args: string[]) {
  const r = spawnSync(process.execPath, [cliPath, ...args], { encoding: 'utf8', cwd: dir });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const HASH = 'a'.repeat(64);
function entry01(uuid: string, line: number, column: number, text: string): string {
  return `- entry_type: loop_invariant
  metadata:
    format_version: "0.1"
    uuid: "${uuid}"
    creation_time: "2024-05-01T12:00:00Z"
    producer: {name: "Gen", version: "1"}
    task:
      input_files: ["ex.imp"]
      input_file_hashes: {ex.imp: "${HASH}"}
      specification: "CHECK( init(main()), LTL(G ! call(reach_error())) )"
      data_model: "ILP32"
      language: "C"
  location: {file_name: "ex.imp", file_hash: "${HASH}", line: ${line}, column: ${column}, function: "main"}
  loop_invariant: {string: "${text}", type: "assertion", format: "C"}
`;
}

test('text: one line per candidate at its own position, then the proof and the verdict', () => {
  const r = tarsier('select', 'ex.imp');
  assert.equal(r.code, 0, r.err);
  assert.equal(
    r.out,
    [
      'ex.imp:9:15: rejected (not preserved): x == 0',
      'ex.imp:10:15: rejected (not preserved): y == 0',
      'ex.imp:11:15: selected: x >= 0 && y >= 0',
      'The selected candidates prove every assertion.',
      'Verification result: TRUE',
      '',
    ].join('\n'),
  );
});

test('json: exactly the fields of the issue; 2.0 invariant_set candidates (1-based columns)', () => {
  writeFileSync(
    join(dir, 's.yml'),
    `- entry_type: invariant_set
  metadata:
    format_version: "2.0"
    uuid: "77777777-2222-4333-8444-555555555555"
    creation_time: "2024-05-01T12:00:00Z"
    producer: {name: "Gen", version: "1"}
    task:
      input_files: ["ex.imp"]
      input_file_hashes: {ex.imp: "${HASH}"}
      specification: "CHECK( init(main()), LTL(G ! call(reach_error())) )"
      data_model: "ILP32"
      language: "C"
  content:
    - invariant:
        type: loop_invariant
        location: {file_name: "ex.imp", line: 8, column: 3, function: "main"}
        value: "n >= 0"
        format: c_expression
`,
  );
  const r = tarsier('select', 'ex.imp', '--method', 'encoding', '--format', 'json', '--candidates', 's.yml');
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out);
  assert.deepEqual(Object.keys(j), ['candidates', 'proved', 'solverCalls']);
  assert.deepEqual(Object.keys(j.candidates[0]), ['line', 'column', 'expression', 'status', 'reason', 'counterexample']);
  assert.deepEqual(
    j.candidates.map((c: { status: string; reason: string | null }) => [c.status, c.reason]),
    [
      ['rejected', 'not preserved'],
      ['rejected', 'not preserved'],
      ['selected', null],
      ['selected', null],
    ],
  );
  const last = j.candidates.at(-1);
  assert.deepEqual([last.line, last.column, last.expression, last.status], [17, 16, 'n >= 0', 'selected']);
  assert.equal(j.candidates[0].counterexample.before.x, '0');
  assert.equal(j.candidates[0].counterexample.after.x, '1');
  assert.equal(j.proved, true);
  assert.ok(Number.isInteger(j.solverCalls) && j.solverCalls > 0);
});

test('--emit prints IMP that `tarsier imp verify` accepts; its probes show which flags are forced', () => {
  const seed = tarsier('select', 'ex.imp', '--method', 'encoding-seed', '--emit');
  assert.equal(seed.code, 0, seed.err);
  writeFileSync(join(dir, 'seed.imp'), seed.out);
  const v = tarsier('imp', 'verify', 'seed.imp');
  assert.equal(v.code, 0, v.err);
  // The probe of x == 0 fails, the probe of y == 0 is proved (y == 0 is forced).
  assert.match(v.out, /: failed \(assert: on_L1_1\)/);
  assert.match(v.out, /: proved \(assert: on_L1_2\)/);
});

test('YAML 0.1 candidates (0-based columns) and certificates', () => {
  // `while` is at line 8, 1-based column 3: 0.1 column 2 (or 0: the first loop on the line).
  writeFileSync(join(dir, 'c.yml'), entry01('11111111-2222-4333-8444-555555555555', 8, 2, 'y >= x - 1') + entry01('66666666-2222-4333-8444-555555555555', 8, 0, 'y == 0'));
  const r = tarsier('select', 'ex.imp', '--candidates', 'c.yml', '--certificates', 'cert.yml');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^c\.yml:14:28: selected: y >= x - 1$/m);
  assert.match(r.out, /^c\.yml:28:28: rejected \(not preserved\): y == 0$/m);
  const certs = readWitness(readFileSync(join(dir, 'cert.yml'), 'utf8'), 'cert.yml');
  assert.equal(certs.format, 'yaml');
  // One producer name in everything Tarsier writes (verify's witnesses say `tarsier` too).
  for (const e of certs.format === 'yaml' ? certs.entries : []) assert.equal('metadata' in e ? e.metadata?.producer.name : undefined, 'tarsier');
  const got = (certs.format === 'yaml' ? certs.entries : []).map((e) =>
    e.entry_type === 'loop_invariant_certificate' && 'target' in e ? [e.target.uuid, e.target.type, e.target.file_hash, e.certification.string] : [],
  );
  assert.deepEqual(got, [
    ['11111111-2222-4333-8444-555555555555', 'loop_invariant', HASH, 'confirmed'],
    ['66666666-2222-4333-8444-555555555555', 'loop_invariant', HASH, 'rejected'],
  ]);
});

test('bad input: one line with a position, non-zero exit', () => {
  writeFileSync(join(dir, 'bad.yml'), entry01('11111111-2222-4333-8444-555555555555', 5, 0, 'x >= 0'));
  const r = tarsier('select', 'ex.imp', '--candidates', 'bad.yml');
  assert.equal(r.code, 1);
  assert.match(r.err, /^bad\.yml:13:13: error: no loop at line 5, column 1 of the program\n$/);
  writeFileSync(join(dir, 'bad2.yml'), entry01('11111111-2222-4333-8444-555555555555', 8, 2, 'x >= '));
  const r2 = tarsier('select', 'ex.imp', '--candidates', 'bad2.yml');
  assert.equal(r2.code, 1);
  assert.match(r2.err, /^bad2\.yml:14:28: error: candidate 'x >= ': /);
  const r3 = tarsier('select', 'ex.imp', '--method', 'magic');
  assert.equal(r3.code, 2);
  assert.match(r3.err, /^tarsier: error: --method must be houdini, encoding or encoding-seed, not 'magic'$/m);
  const r4 = tarsier('select', 'ex.imp', '--emit');
  assert.equal(r4.code, 2);
});

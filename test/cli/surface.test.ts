// The command line as a user meets it (issue 17): one vocabulary across
// commands, output paths checked before the work, complete machine-readable
// output, and clean errors. One test per point.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, repoRoot } from '../helpers/shared.js';
import { needTools } from '../helpers/tools.js';
import { verify } from '../../src/verify/index.js';

const dir = mkdtempSync(join(tmpdir(), 'tarsier-surface-'));
after(() => rmSync(dir, { recursive: true, force: true }));
for (const f of ['mult.c', 'mult.yml', 'sum.c', 'sum.yml', 'unreach-call.prp', 'no-overflow.prp']) copyFileSync(join(repoRoot, 'examples', f), join(dir, f));
const noGcc = needTools('gcc', 'gcc -m32');

function tarsier(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [cliPath, ...args], { cwd: dir, encoding: 'utf8', timeout: 300_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const JSON_KEYS = ['verdict', 'result', 'property', 'checks', 'reason', 'program', 'dataModel', 'witness', 'replay', 'bound', 'trace', 'cpuTimeS', 'wallTimeS', 'error'];

test('verify: a witness path that cannot be written is a usage error before any work', () => {
  const r = tarsier('verify', 'mult.yml', '--witness', 'no/such/dir/w.yml');
  assert.equal(r.code, 2);
  assert.equal(r.err, "no/such/dir/w.yml: error: --witness: the folder no/such/dir does not exist\n");
  assert.equal(r.out, '');
  const d = tarsier('verify', 'mult.yml', '--witness', '.');
  assert.equal(d.code, 2);
  assert.match(d.err, /^\.: error: --witness: is a directory, not a file\n$/);
});

test('verify: a failure to write the witness keeps the verdict (library)', { skip: noGcc }, async () => {
  const r = await verify(join(dir, 'mult.yml'), { witnessPath: join(dir, 'gone', 'w.yml'), timeoutS: 120 });
  assert.equal(r.verdict.kind, 'false');
  assert.equal(r.witnessPath, undefined);
  assert.match(r.witnessError ?? '', /^cannot write the witness .*gone\/w\.yml: no such file$/);
});

test('verify: --property KIND works for a bare program (the standard property texts)', () => {
  const r = tarsier('verify', 'sum.c', '--property', 'unreach-call', '--timeout', '120');
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out.trim().split('\n').pop(), 'Verification result: TRUE');
  const bad = tarsier('verify', 'sum.c', '--property', 'no-such');
  assert.equal(bad.code, 2);
  assert.match(bad.err, /^tarsier: error: the property must be one of unreach-call, no-overflow, /);
  const both = tarsier('verify', 'sum.c', '--property', 'unreach-call', '--prop', 'unreach-call.prp');
  assert.equal(both.code, 2);
});

test('one style for invalid option values; choices ignore case', () => {
  for (const [args, message] of [
    [['verify', 'sum.yml', '--format', 'xml'], "tarsier: error: --format must be text or json, not 'xml'"],
    [['parse', 'sum.c', '--data-model', 'x32'], "tarsier: error: --data-model must be ILP32 or LP64, not 'x32'"],
    [['imp', 'verify', 'x.imp', '--format', 'yaml'], "tarsier: error: --format must be text or json, not 'yaml'"],
    [['select', 'x.imp', '--method', 'magic'], "tarsier: error: --method must be houdini, encoding or encoding-seed, not 'magic'"],
    [['lint', 'x.yml', '--format', 'xml'], "tarsier: error: --format must be text or json, not 'xml'"],
    [['verify', 'sum.yml', '--timeout', 'soon'], "tarsier: error: --timeout must be a positive number of seconds, not 'soon'"],
    [['verify', 'sum.yml', '--no-such-option'], "tarsier: error: unknown option '--no-such-option'"],
  ] as const) {
    const r = tarsier(...args);
    assert.equal(r.code, 2, args.join(' '));
    assert.equal(r.err.split('\n')[0], message);
  }
  const lower = tarsier('parse', 'sum.c', '--data-model', 'lp64', '--dump', 'TYPES');
  assert.equal(lower.code, 0, lower.err);
});

test('verify --format json: the same object for a verdict, a time-out and an error', { skip: noGcc }, () => {
  const ok = JSON.parse(tarsier('verify', 'sum.yml', '--format', 'json', '--timeout', '120').out);
  assert.deepEqual(Object.keys(ok), JSON_KEYS);
  assert.equal(ok.verdict, 'true');
  assert.equal(ok.error, null);
  writeFileSync(join(dir, 'bad.c'), 'int main(void) {\n  int x = ;\n}\n');
  const e = tarsier('verify', 'bad.c', '--property', 'unreach-call', '--format', 'json');
  assert.equal(e.code, 1);
  const ej = JSON.parse(e.out);
  assert.deepEqual(Object.keys(ej), JSON_KEYS);
  assert.equal(ej.verdict, 'error');
  assert.deepEqual({ ...ej.error, message: typeof ej.error.message }, { file: join(dir, 'bad.c'), line: 2, column: 11, message: 'string' });
  const t = JSON.parse(tarsier('verify', 'mult.yml', '--format', 'json', '--timeout', '0.01').out);
  assert.deepEqual(Object.keys(t), JSON_KEYS);
  assert.equal(t.verdict, 'unknown');
  assert.match(t.reason, /^time limit reached/);
  // Known after the hard limit too: the task's property, its program and data model.
  assert.deepEqual([t.property, t.program, t.dataModel], ['unreach-call', join(dir, 'mult.c'), 'ILP32']);
});

test('a time-out says the bound up to which there is no violation', () => {
  writeFileSync(
    join(dir, 'spin.c'),
    'extern unsigned __VERIFIER_nondet_uint(void);\nvoid reach_error(void) {}\nint main(void) {\n  unsigned x = 0, n = __VERIFIER_nondet_uint();\n  while (x != n) x += 3;\n  if (x % 3 != 0) reach_error();\n  return 0;\n}\n',
  );
  const r = tarsier('verify', 'spin.c', '--property', 'unreach-call', '--timeout', '4');
  assert.equal(r.code, 0, r.err);
  const lines = r.out.trim().split('\n');
  assert.equal(lines.pop(), 'Verification result: UNKNOWN');
  assert.match(lines.pop()!, /^time limit reached(; no violation up to bound \d+| before bound 1 was checked)$/);
});

test('&&label and other unsupported constructs: UNKNOWN with the construct and its position', () => {
  writeFileSync(join(dir, 'label.c'), 'int main(void) {\n  void *p = &&done;\n  goto *p;\ndone:\n  return 0;\n}\n');
  const r = tarsier('verify', 'label.c', '--property', 'unreach-call');
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, 'unsupported: address of a label (&&label) at label.c:2:13\nVerification result: UNKNOWN\n');
});

test('a task whose property file is missing names the file', () => {
  writeFileSync(join(dir, 'noprp.yml'), "format_version: '2.0'\ninput_files: 'sum.c'\nproperties:\n  - property_file: absent.prp\n    expected_verdict: true\noptions:\n  language: C\n  data_model: ILP32\n");
  const r = tarsier('verify', 'noprp.yml');
  assert.equal(r.code, 1);
  assert.match(r.err, /noprp\.yml: error: no usable verification property: property file 'absent\.prp' does not exist\n$/);
});

test('non-UTF-8 input: the same exact offset in verify, parse and lint', () => {
  const bytes = Buffer.concat([Buffer.from('int main(void) {\n  int x = 1; /* '), Buffer.from([0xff]), Buffer.from(' */\n  return 0;\n}\n')]);
  writeFileSync(join(dir, 'latin.c'), bytes);
  writeFileSync(join(dir, 'latin.yml'), bytes);
  const want = 'error: file is not valid UTF-8 (byte 0xff at offset 33)\n';
  assert.equal(tarsier('parse', 'latin.c').err, `latin.c:2:17: ${want}`);
  assert.ok(tarsier('verify', 'latin.c', '--property', 'unreach-call').err.endsWith(`latin.c:2:17: ${want}`));
  assert.equal(tarsier('lint', 'latin.yml').err, `latin.yml:2:17: ${want}`);
});

test('lint: a one-line summary (--quiet silences it); long values are shortened', () => {
  const ok = tarsier('verify', 'mult.yml', '--witness', 'w.yml');
  if (ok.code === 0 && existsSync(join(dir, 'w.yml'))) {
    const r = tarsier('lint', 'w.yml', '--program', 'mult.c');
    assert.equal(r.code, 0, r.out);
    assert.equal(r.out, 'w.yml: 1 entry checked: 0 errors, 0 warnings\n');
    assert.equal(tarsier('lint', 'w.yml', '--quiet').out, '');
  }
  const long = 'x'.repeat(5000);
  writeFileSync(join(dir, 'long.yml'), `- entry_type: ${long}\n`);
  const r = tarsier('lint', 'long.yml');
  assert.equal(r.code, 1);
  for (const line of r.out.trim().split('\n')) assert.ok(line.length < 400, line.slice(0, 200));
  assert.match(r.out, /\(5000 characters\)/);
  assert.match(r.out, /^long\.yml: 1 entry checked: [1-9]\d* errors?, \d+ warnings?$/m);
});

test('convert: never writes what lint rejects; a missing program hash needs --program; --out must be a file', () => {
  const graphml = (hash: string) => `<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
 <key id="witness-type" for="graph" attr.name="witness-type" attr.type="string"/>
 <key id="programfile" for="graph" attr.name="programfile" attr.type="string"/>
 <key id="programhash" for="graph" attr.name="programhash" attr.type="string"/>
 <key id="specification" for="graph" attr.name="specification" attr.type="string"/>
 <key id="producer" for="graph" attr.name="producer" attr.type="string"/>
 <key id="creationtime" for="graph" attr.name="creationtime" attr.type="string"/>
 <key id="architecture" for="graph" attr.name="architecture" attr.type="string"/>
 <key id="entry" for="node" attr.name="isEntryNode" attr.type="boolean"><default>false</default></key>
 <key id="violation" for="node" attr.name="isViolationNode" attr.type="boolean"><default>false</default></key>
 <key id="startline" for="edge" attr.name="startline" attr.type="int"/>
 <key id="assumption" for="edge" attr.name="assumption" attr.type="string"/>
 <key id="assumption.resultfunction" for="edge" attr.name="assumption.resultfunction" attr.type="string"/>
 <graph edgedefault="directed">
  <data key="witness-type">violation_witness</data>
  <data key="programfile">mult.c</data>
  <data key="programhash">${hash}</data>
  <data key="specification">CHECK( init(main()), LTL(G ! call(reach_error())) )</data>
  <data key="producer">Someone 1.0</data>
  <data key="creationtime">2024-01-01T00:00:00Z</data>
  <data key="architecture">32bit</data>
  <node id="N0"><data key="entry">true</data></node>
  <node id="N1"/>
  <node id="N2"><data key="violation">true</data></node>
  <edge source="N0" target="N1"><data key="startline">8</data><data key="assumption">\\result == 100;</data><data key="assumption.resultfunction">__VERIFIER_nondet_int</data></edge>
  <edge source="N1" target="N2"><data key="startline">15</data></edge>
 </graph>
</graphml>
`;
  writeFileSync(join(dir, 'nohash.graphml'), graphml(''));
  const r = tarsier('convert', 'nohash.graphml', '--to', '2.0', '--out', 'c1.yml');
  assert.equal(r.code, 1);
  assert.match(r.err, /^nohash\.graphml: error: programhash '' is not a SHA-256 hash; give the program \(--program\)/);
  assert.equal(existsSync(join(dir, 'c1.yml')), false);
  const withProgram = tarsier('convert', 'nohash.graphml', '--to', '2.0', '--program', 'mult.c', '--out', 'c2.yml');
  assert.equal(withProgram.code, 0, withProgram.err);
  const lint = tarsier('lint', 'c2.yml', '--program', 'mult.c', '--quiet');
  assert.equal(lint.code, 0, lint.out);
  const d = tarsier('convert', 'nohash.graphml', '--to', '2.0', '--program', 'mult.c', '--out', '.');
  assert.equal(d.code, 2);
  assert.equal(d.err, '.: error: --out: is a directory, not a file\n');
});

test('select: FILE:LINE:COLUMN positions, notes on what was ignored, another program flagged', () => {
  const fx = join(repoRoot, 'test', 'fixtures', 'select-c');
  const r = tarsier('select', join(fx, 'sum.c'), '--candidates', join(fx, 'sum-invariants.yml'));
  assert.equal(r.code, 0, r.err);
  assert.match(r.out.split('\n')[0]!, /^\S*sum-invariants\.yml:17:16: selected: s == 2 \* i \(loop at \S*sum\.c:24:3\)$/);
  // A 2.0 witness with a location invariant and another program's hash.
  const text = readFileSync(join(fx, 'sum-invariants.yml'), 'utf8').replace(/[0-9a-f]{64}/, '0'.repeat(64));
  writeFileSync(join(dir, 'other.yml'), text);
  const o = tarsier('select', join(fx, 'sum.c'), '--candidates', 'other.yml');
  assert.match(o.err, /^other\.yml: warning: the witness is for another program: its input_file_hashes do not include the SHA-256 of /m);
  const loc = text.replace(/- invariant:\n(\s+)type: loop_invariant/, '- invariant:\n$1type: location_invariant');
  if (loc !== text) {
    writeFileSync(join(dir, 'loc.yml'), loc);
    assert.match(tarsier('select', join(fx, 'sum.c'), '--candidates', 'loc.yml').err, /note: location_invariant items of invariant_set: 1 ignored/);
  }
});

test('imp verify: an empty program is an error; a solver that cannot start is exit 2; --timeout is the total, --solver-timeout per call', () => {
  writeFileSync(join(dir, 'empty.imp'), '');
  const e = tarsier('imp', 'verify', 'empty.imp');
  assert.equal(e.code, 1);
  assert.equal(e.err, 'empty.imp: error: the program has no procedure to verify\n');
  writeFileSync(join(dir, 'p.imp'), 'procedure p(x: int) returns (y: int) ensures y == x + 1; { y := x + 1; }\n');
  const f = tarsier('imp', 'verify', 'p.imp', '--solver', '/bin/false');
  assert.equal(f.code, 2);
  assert.match(f.err, /^tarsier: error: solver '\/bin\/false' does not work/);
  const ok = tarsier('imp', 'verify', 'p.imp', '--timeout', '600', '--solver-timeout', '20');
  assert.equal(ok.code, 0, ok.err);
  assert.match(ok.out, /Verification result: TRUE\n$/);
  const s = tarsier('select', 'p.imp', '--solver', '/bin/false');
  assert.equal(s.code, 2);
});

test('--version and -V print the package version alone (no command is loaded for them) and exit 0', () => {
  const version = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
  for (const flag of ['--version', '-V']) {
    const r = tarsier(flag);
    assert.equal(r.code, 0);
    assert.equal(r.out, `${version}\n`);
    assert.equal(r.err, '');
  }
});

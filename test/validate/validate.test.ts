// `validate`: violation witnesses (Tarsier's own, ESBMC-style quirks,
// mutations that must never be confirmed), correctness witnesses (confirmed,
// refuted with a replayed run, a differential check against concrete runs),
// and bad input.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, repoRoot, sharedPath, skipWithoutShared } from '../helpers/shared.js';
import { validate } from '../../src/validate/index.js';
import { verify } from '../../src/verify/index.js';
import { probeGcc, replayCounterexample } from '../../src/replay/index.js';
import { readWitness, sha256OfFile } from '../../src/witness/index.js';
import { processTreeCpuMs } from '../../src/smt/index.js';
import { witnessHeader } from '../helpers/witness-text.js';

const noGcc = probeGcc().gcc ? false : 'skipped: gcc is not available (confirmations need replay)';
const ex = (...p: string[]) => join(repoRoot, 'examples', ...p);
const prp = ex('unreach-call.prp');

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'tarsier-validate-test-'));
}

function waypoint(type: string, line: number, column: number, fn: string, file: string, constraint?: string): string {
  const c = constraint === undefined ? '' : `\n            constraint:\n              value: "${constraint}"\n              format: "${type === 'function_return' ? 'acsl_expression' : 'c_expression'}"`;
  return `    - segment:
        - waypoint:
            type: "${type}"
            action: "follow"${c}
            location:
              file_name: "${file}"
              line: ${line}
              column: ${column}
              function: "${fn}"
`;
}

test("Tarsier's own violation witness is confirmed by running its values", { skip: noGcc }, async () => {
  const dir = tmp();
  try {
    const w = join(dir, 'w.yml');
    const v = await verify(ex('mult.yml'), { timeoutS: 60, witnessPath: w });
    assert.equal(v.verdict.kind, 'false');
    const r = await validate(ex('mult.yml'), w, { timeoutS: 60 });
    assert.equal(r.outcome, 'confirmed');
    assert.equal(r.method, 'execution');
    assert.deepEqual(r.verdict, { kind: 'false', property: 'unreach-call' });
    assert.deepEqual(r.inputs?.map((x) => x.value), [100n]);
    assert.equal(r.entries.dropped, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an answer that comes after the time limit is none: the same witness, with the CPU time already used counted, is unconfirmed', { skip: noGcc }, async () => {
  const dir = tmp();
  try {
    const w = join(dir, 'w.yml');
    assert.equal((await verify(ex('mult.yml'), { timeoutS: 60, witnessPath: w })).verdict.kind, 'false');
    // This process has used at least this much CPU time: counted from its start, the limit is spent before validate begins.
    const usedS = processTreeCpuMs() / 1000;
    const late = await validate(ex('mult.yml'), w, { timeoutS: usedS, cpuOriginMs: 0 });
    assert.equal(late.outcome, 'unconfirmed', late.reason);
    assert.deepEqual(late.verdict, { kind: 'unknown', reason: 'witness unconfirmed' });
    assert.match(late.reason, /^time limit reached: the witness was confirmed after [\d.]+ s of CPU time \(/);
    assert.ok(late.cpuTimeS > usedS);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a program without nondeterminism: a witness of its target alone is confirmed by running the program once', { skip: noGcc }, async () => {
  const dir = tmp();
  try {
    // 100000 iterations: beyond what a search unrolls in the time, one run decides.
    const program = (wanted: number) => `void reach_error(void) {}
int main(void) {
  unsigned int s = 0;
  for (int i = 0; i < 100000; i++) s += i;
  if (s == ${wanted}u) reach_error();
  return 0;
}
`;
    for (const [wanted, confirmed] of [[704982704, true], [704982705, false]] as const) {
      const c = join(dir, 'sum.c');
      writeFileSync(c, program(wanted));
      const w = join(dir, 'w.yml');
      writeFileSync(w, witnessHeader('sum.c', sha256OfFile(c)) + waypoint('target', 5, 26, 'main', 'sum.c'));
      const r = await validate(c, w, { prp, timeoutS: 5 });
      if (confirmed) {
        assert.equal(r.outcome, 'confirmed', r.reason);
        assert.equal(r.method, 'execution');
        assert.deepEqual(r.inputs, []);
      } else assert.notEqual(r.outcome, 'confirmed', r.reason);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an overflow that gcc folds away is placed by the model: confirmed at the first overflow, not at a target before it', { skip: noGcc }, async () => {
  const dir = tmp();
  try {
    // gcc computes 16 * n * p * q as 16 * (n * p * q) even at -O0: its
    // sanitizer reports the n * n of line 6 first, though 16 * n overflows
    // at line 5 (C's first undefined behaviour on the run).
    const c = join(dir, 'fold.c');
    writeFileSync(c, `extern int __VERIFIER_nondet_int(void);
int main(void) {
  int n = __VERIFIER_nondet_int();
  int p = 0, q = 1;
  int x = 16 * n * p * q;
  int y = n * n;
  return x + y;
}
`);
    const w = join(dir, 'w.yml');
    for (const [line, column, confirmed] of [[5, 11, true], [4, 3, false]] as const) {
      writeFileSync(w, witnessHeader('fold.c', sha256OfFile(c)).replace('G ! call(reach_error())', 'G ! overflow') + waypoint('function_return', 3, 33, 'main', 'fold.c', '\\\\result == 1000000000') + waypoint('target', line, column, 'main', 'fold.c'));
      const r = await validate(c, w, { prp: ex('no-overflow.prp'), dataModel: 'LP64', timeoutS: 10 });
      if (confirmed) {
        assert.equal(r.outcome, 'confirmed', r.reason);
        assert.match(r.reason, /in Tarsier's semantics of C, at 5:11/);
      } else {
        assert.notEqual(r.outcome, 'confirmed', r.reason);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a violation witness whose pinned value was changed is never confirmed (refuted: the waypoints admit no violation)', { skip: noGcc }, async () => {
  const dir = tmp();
  try {
    const hash = sha256OfFile(ex('mult.c'));
    const text = witnessHeader('mult.c', hash) + waypoint('function_return', 8, 33, 'main', 'mult.c', '\\\\result == 99') + waypoint('target', 15, 18, 'main', 'mult.c');
    const w = join(dir, 'w.yml');
    writeFileSync(w, text);
    const r = await validate(ex('mult.yml'), w, { timeoutS: 60 });
    assert.notEqual(r.outcome, 'confirmed');
    assert.equal(r.outcome, 'refuted');
    assert.deepEqual(r.verdict, { kind: 'true' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a violation witness checked against a fixed program is never confirmed', { skip: noGcc }, async () => {
  const dir = tmp();
  try {
    const fixed = readFileSync(ex('mult.c'), 'utf8').replace('if (x == 3200) reach_error();', 'if (x == 3201) reach_error();');
    const program = join(dir, 'mult.c');
    writeFileSync(program, fixed);
    const w = join(dir, 'w.yml');
    await verify(ex('mult.yml'), { timeoutS: 60, witnessPath: w });
    const r = await validate(program, w, { prp, timeoutS: 60 });
    assert.notEqual(r.outcome, 'confirmed');
    assert.ok(r.lint.findings.some((d) => d.rule === 'hash-mismatch'), 'the hash mismatch is reported, not refusing');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ESBMC-style witness: assumption at the assigning statement, target inside reach_error (read leniently, confirmed)', { skip: noGcc }, async () => {
  const dir = tmp();
  try {
    const program = join(dir, 'p.c');
    writeFileSync(
      program,
      [
        'extern void abort(void);',
        'extern void __assert_fail(const char *, const char *, unsigned int, const char *);',
        'void reach_error() { __assert_fail("0", "p.c", 3, "reach_error"); }',
        'extern int __VERIFIER_nondet_int(void);',
        'int main(void) {',
        '  int n = __VERIFIER_nondet_int();',
        '  int m;',
        '  m = __VERIFIER_nondet_int();',
        '  if (n > 5 && m == n + 1) reach_error();',
        '  return 0;',
        '}',
        '',
      ].join('\n'),
    );
    const hash = sha256OfFile(program);
    const text =
      witnessHeader('p.c', hash) +
      waypoint('assumption', 6, 3, 'main', 'p.c', 'n == 6') +
      waypoint('assumption', 8, 7, 'main', 'p.c', 'm == 7') +
      waypoint('target', 3, 22, 'reach_error', 'p.c');
    const w = join(dir, 'w.yml');
    writeFileSync(w, text);
    const emitted = join(dir, 'emitted.c');
    const r = await validate(program, w, { prp, timeoutS: 20, emitProgramPath: emitted });
    assert.equal(r.outcome, 'confirmed', r.reason);
    assert.deepEqual(r.inputs?.map((x) => x.value), [6n, 7n]);
    assert.equal(r.entries.lenient, 3);
    assert.match(readFileSync(emitted, 'utf8'), /__tarsier_seg == 0u && \(\(n == 6\) != 0\)/);
    // The same witness with a value that does not violate: never confirmed.
    writeFileSync(w, text.replace('m == 7', 'm == 8'));
    const bad = await validate(program, w, { prp, timeoutS: 60 });
    assert.notEqual(bad.outcome, 'confirmed');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the spec example violation witnesses of bug.c are confirmed with x = 20 or a found value', { skip: skipWithoutShared || noGcc }, async () => {
  const task = sharedPath('spec', 'examples', 'tasks', 'bug.yml');
  const full = await validate(task, sharedPath('spec', 'examples', 'valid', '2.0-violation-bug.yml'), { timeoutS: 60 });
  assert.equal(full.outcome, 'confirmed');
  assert.deepEqual(full.inputs?.map((x) => x.value), [20n]);
  const targetOnly = await validate(task, sharedPath('spec', 'examples', 'valid', '2.0-violation-bug-target-only.yml'), { timeoutS: 60 });
  assert.equal(targetOnly.outcome, 'confirmed');
  assert.ok((targetOnly.inputs?.[0]?.value ?? 0n) > 10n);
});

test('ESBMC witnesses of real false tasks: a sample is confirmed', { skip: skipWithoutShared || noGcc }, async () => {
  for (const [name, task] of [
    ['loops__sum01_bug02.yml', 'loops/sum01_bug02.yml'],
    ['recursive-simple__id_b3_o2-2.yml', 'recursive-simple/id_b3_o2-2.yml'],
  ] as const) {
    const r = await validate(sharedPath('bench', 'sv-benchmarks', 'c', task), sharedPath('witnesses', 'real', 'esbmc', name), { timeoutS: 60 });
    assert.equal(r.outcome, 'confirmed', `${name}: ${r.reason}`);
    assert.deepEqual(r.verdict, { kind: 'false', property: 'unreach-call' });
  }
});

const COUNT = [
  'extern unsigned int __VERIFIER_nondet_uint(void);',
  'extern void abort(void);',
  'void reach_error(void) { abort(); }',
  '',
  'int main(void) {',
  '  unsigned int n = __VERIFIER_nondet_uint();',
  '  unsigned int i = 0;',
  '  unsigned int s = 0;',
  '  if (n > 1000) {',
  '    return 0;',
  '  }',
  '  while (i < n) {',
  '    i++;',
  '    s += 2;',
  '  }',
  '  if (s != 2 * n) {',
  '    reach_error();',
  '  }',
  '  return 0;',
  '}',
  '',
].join('\n');

function invariantWitness(file: string, hash: string, invariants: readonly string[]): string {
  return (
    witnessHeader(file, hash, 'invariant_set') +
    invariants
      .map((v) => `    - invariant:\n        type: "loop_invariant"\n        location:\n          file_name: "${file}"\n          line: 12\n          column: 3\n          function: "main"\n        value: "${v}"\n        format: "c_expression"\n`)
      .join('')
  );
}

/** COUNT as count.c in `dir` and a witness w.yml of these loop invariants for it. */
function countWithWitness(dir: string, invariants: string[]): { program: string; w: string } {
  const program = join(dir, 'count.c');
  writeFileSync(program, COUNT);
  const w = join(dir, 'w.yml');
  writeFileSync(w, invariantWitness('count.c', sha256OfFile(program), invariants));
  return { program, w };
}

test('correctness witness: valid invariants confirm the witness and certificates are written', async () => {
  const dir = tmp();
  try {
    const { program, w } = countWithWitness(dir, ['s == 2 * i && i <= n && n <= 1000']);
    const certs = join(dir, 'certs.yml');
    const r = await validate(program, w, { prp, timeoutS: 120, certificatesPath: certs, creationTime: '2026-01-01T00:00:00Z' });
    assert.equal(r.outcome, 'confirmed', r.reason);
    assert.deepEqual(r.verdict, { kind: 'true' });
    assert.equal(r.invariants[0]?.status, 'confirmed');
    const doc = readWitness(readFileSync(certs, 'utf8'), certs);
    assert.ok(doc.format === 'yaml' && doc.entries.length === 1);
    const e = doc.format === 'yaml' ? doc.entries[0] : undefined;
    assert.ok(e && e.entry_type === 'loop_invariant_certificate' && 'certification' in e && e.certification.string === 'confirmed');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('correctness witness: the invariant 1 alone is confirmed as a constant, the property by the proof without it; on a program that fails, it stays unconfirmed', async () => {
  const dir = tmp();
  try {
    const { program, w } = countWithWitness(dir, ['1']);
    const r = await validate(program, w, { prp, timeoutS: 120 });
    assert.equal(r.outcome, 'confirmed', r.reason);
    assert.equal(r.invariants[0]?.status, 'confirmed');
    assert.equal(r.invariants[0]?.reason, 'a non-zero constant: true wherever it is placed');
    assert.match(r.reason, /proved by Tarsier without the witness/);
    // The same witness on the program with the wrong bound: the property fails, so the witness is not confirmed.
    const wrong = join(dir, 'count.c');
    writeFileSync(wrong, COUNT.replace('s != 2 * n', 's != 2 * n + 2'));
    writeFileSync(w, invariantWitness('count.c', sha256OfFile(wrong), ['1']));
    const f = await validate(wrong, w, { prp, timeoutS: 120 });
    assert.notEqual(f.outcome, 'confirmed', f.reason);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('correctness witness: with cpuOriginMs the budget counts the CPU time used before validate, which can leave none for the proof', async () => {
  const dir = tmp();
  try {
    const { program, w } = countWithWitness(dir, ['1']);
    // This process has used at least this much CPU time already: a limit of that size is spent from the start.
    const usedS = processTreeCpuMs() / 1000;
    const spent = await validate(program, w, { prp, timeoutS: usedS, cpuOriginMs: 0 });
    assert.ok(spent.cpuTimeS >= usedS, `cpuTimeS ${spent.cpuTimeS} counts from the process's start (${usedS} s before)`);
    assert.equal(spent.outcome, 'unconfirmed', spent.reason);
    assert.match(spent.reason, /no time left/);
    // Counted from validate's own start, the same limit (at least the 1 s the proof needs) confirms it.
    const own = await validate(program, w, { prp, timeoutS: Math.max(usedS, 30) });
    assert.equal(own.outcome, 'confirmed', own.reason);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('correctness witness: a false invariant is refuted with a replayed run, and every confirmed one holds in concrete runs', { skip: noGcc }, async () => {
  const dir = tmp();
  try {
    const program = join(dir, 'count.c');
    writeFileSync(program, COUNT);
    const hash = sha256OfFile(program);
    const w = join(dir, 'w.yml');
    // `i < n` fails at the last visit of the loop head (CPAchecker's invalid example), `s == i` after one iteration.
    const candidates = ['i < n', 's == i', 'i <= n', 's == 2 * i', 'i == 0'];
    for (const inv of candidates) {
      writeFileSync(w, invariantWitness('count.c', hash, [inv]));
      const emitted = join(dir, `checked.c`);
      const r = await validate(program, w, { prp, timeoutS: 20, emitProgramPath: emitted });
      const status = r.invariants[0]!.status;
      if (inv === 'i < n' || inv === 's == i' || inv === 'i == 0') {
        assert.equal(status, 'refuted', `${inv}: ${r.invariants[0]!.reason}`);
        assert.equal(r.outcome, 'refuted');
        assert.deepEqual(r.verdict, { kind: 'false', property: 'unreach-call' });
        assert.ok(r.invariants[0]!.inputs && r.invariants[0]!.inputs.length === 1);
      }
      if (status !== 'confirmed') continue;
      // The emitted program checks the invariant: no concrete run may violate it.
      for (const n of [0n, 1n, 7n, 1000n, 4294967295n]) {
        const run = replayCounterexample(emitted, [{ function: '__VERIFIER_nondet_uint', value: n }], { symptom: 'error-call', dataModel: 'ILP32' });
        assert.notEqual(run.status, 'confirmed', `${inv} confirmed but violated with n = ${n}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cliPath, 'validate', ...args], { encoding: 'utf8', timeout: 120000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('bad input: one line each, exit 1, no stack trace; a GraphML witness without a violation node is UNKNOWN', () => {
  const dir = tmp();
  try {
    const program = join(dir, 'mult.c');
    copyFileSync(ex('mult.c'), program);
    const hash = sha256OfFile(program);
    const cases: Array<[string, string, RegExp]> = [
      ['outside', witnessHeader('mult.c', hash) + waypoint('target', 90, 1, 'main', 'mult.c'), /outside the program/],
      ['other', witnessHeader('other.c', '0'.repeat(64)) + waypoint('target', 15, 18, 'main', 'other.c'), /another program/],
      ['no-target', witnessHeader('mult.c', hash) + waypoint('assumption', 9, 3, 'main', 'mult.c', 'x == 1'), /target/],
      ['not-c', invariantWitness('mult.c', hash, ['x == 2 * && y']), /expr-syntax|parse|operand/],
    ];
    for (const [name, text, message] of cases) {
      const w = join(dir, `${name}.yml`);
      writeFileSync(w, text);
      const r = cli([program, '--prop', prp, '--witness', w]);
      assert.equal(r.status, 1, `${name}: ${r.stdout}${r.stderr}`);
      assert.match(r.stdout + r.stderr, message, name);
      assert.doesNotMatch(r.stderr, /\n\s+at /, `${name}: no stack trace`);
    }
    const g = join(dir, 'g.graphml');
    writeFileSync(
      g,
      '<?xml version="1.0" encoding="UTF-8"?>\n<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><key id="witness-type" attr.name="witness-type" for="graph"/><key id="entry" attr.name="isEntryNode" for="node"><default>false</default></key><graph edgedefault="directed"><data key="witness-type">violation_witness</data><node id="A"><data key="entry">true</data></node><node id="B"/><edge source="A" target="B"/></graph></graphml>\n',
    );
    // A violation witness without a violation node is read, and confirms
    // nothing: UNKNOWN naming why (a validator's answer, not an input error).
    const r = cli([program, '--prop', prp, '--witness', g]);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /no path from the entry node to a violation node/);
    assert.match(r.stdout, /Verification result: UNKNOWN/);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the command line of tarsier bench --validate tarsier: verdict last, witness outcome before it', { skip: noGcc }, () => {
  const dir = tmp();
  try {
    const w = join(dir, 'w.yml');
    const hash = sha256OfFile(ex('mult.c'));
    writeFileSync(w, witnessHeader('mult.c', hash) + waypoint('function_return', 8, 33, 'main', 'mult.c', '\\\\result == 100') + waypoint('target', 15, 18, 'main', 'mult.c'));
    const page = join(dir, 'report.html');
    const r = cli([ex('mult.yml'), '--property', 'unreach-call', '--witness', w, '--timeout', '30', '--report', page]);
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines[lines.length - 1], 'Verification result: FALSE(unreach-call)');
    assert.match(lines[lines.length - 2]!, /^Witness confirmed: /);
    // --report: the page shows the program and the validation's outcome.
    const html = readFileSync(page, 'utf8');
    assert.match(html, /reach_error/);
    assert.match(html, /witness confirmed/i);
    // An output path that cannot be written is a usage error before any work.
    const bad = cli([ex('mult.yml'), '--property', 'unreach-call', '--witness', w, '--report', join(dir, 'no', 'such', 'r.html')]);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--report/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

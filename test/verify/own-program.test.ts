// A programmer's own C program: assert() as the property `assert`, the
// default checks of a program given without a property, and the trace of a
// FALSE answer, whose values a gcc run of the program reproduces.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { needTools, spawnProgram } from '../helpers/tools.js';
import { cliPath } from '../helpers/shared.js';
import { verify, type VerifyResult } from '../../src/verify/index.js';
import { harnessSource } from '../../src/replay/harness.js';

const noGcc = needTools('gcc');

/** Verifies `text` (written to a fresh folder as `name`), no witness written. */
async function check(name: string, text: string, property?: string): Promise<VerifyResult> {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-own-'));
  try {
    writeFileSync(join(dir, name), text);
    return await verify(join(dir, name), { ...(property ? { property } : {}), timeoutS: 60, witnessPath: null });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const verdictOf = (r: VerifyResult) => (r.verdict.kind === 'false' ? `false(${r.verdict.property})` : r.verdict.kind);

const LOOP_AND_FUNCTION = `#include <assert.h>
extern int __VERIFIER_nondet_int(void);
int scale(int v, int k) {
  int r = v * k;
  return r;
}
int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n < 0 || n > 100) return 0;
  int total = 0;
  for (int i = 0; i < 3; i++) {
    total += scale(n, i);
  }
  assert(total != 27);
  return 0;
}
`;

test('assert(): a failing assertion in a loop over a function is FALSE(assert); a holding one TRUE', { skip: noGcc }, async () => {
  const failing = await check('loop.c', LOOP_AND_FUNCTION, 'assert');
  assert.equal(verdictOf(failing), 'false(assert)', failing.reason);
  assert.match(failing.reason, /assertion 'total != 27' fails at loop\.c:14:/);
  // The same program under unreach-call: assert() is not reach_error, and the note says which property checks it.
  const other = await check('loop.c', LOOP_AND_FUNCTION, 'unreach-call');
  assert.equal(other.verdict.kind, 'true', other.reason);
  assert.match(other.reason, /the property assert checks assertions/);
  const holding = await check('holds.c', LOOP_AND_FUNCTION.replace('total != 27', 'total != 29'), 'assert');
  assert.equal(holding.verdict.kind, 'true', holding.reason);
  const inFunction = await check('fn.c', '#include <assert.h>\nvoid check(int v) { assert(v < 3); }\nint main(void) { for (int i = 0; i < 5; i++) check(i); return 0; }\n', 'assert');
  assert.equal(verdictOf(inFunction), 'false(assert)', inFunction.reason);
});

test('the trace of a FALSE: the path with the values of the inputs and variables, as a gcc run of the program has them', { skip: needTools('gcc', 'gcc -m32') }, async () => {
  const r = await check('loop.c', LOOP_AND_FUNCTION, 'assert');
  assert.ok(r.trace, r.reason);
  const trace = r.trace!;
  // Plain JSON: values are strings, nothing is a BigInt.
  assert.deepEqual(JSON.parse(JSON.stringify(trace)), trace);
  const input = trace.find((s) => s.kind === 'input')!;
  assert.equal(input.variable, '__VERIFIER_nondet_int');
  assert.ok(trace.some((s) => s.kind === 'call' && s.function === 'scale'));
  assert.ok(trace.some((s) => s.kind === 'branch' && s.line === 9 && s.taken === false));
  assert.ok(trace.some((s) => s.kind === 'loop' && s.line === 11 && s.iteration === 4));
  assert.equal(trace[trace.length - 1]!.kind, 'violation');
  // gcc: the program with a print of the variables after the loop, run on the trace's input.
  const assigned = (name: string) => trace.filter((s) => s.kind === 'assign' && s.variable === name).map((s) => s.value);
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-own-gcc-'));
  try {
    const printing = LOOP_AND_FUNCTION.replace('#include <assert.h>', '#include <assert.h>\n#include <stdio.h>')
      .replace('  assert(total', '  fprintf(stderr, "%d %d\\n", n, total);\n  assert(total')
      .replace('int r = v * k;', 'int r = v * k; fprintf(stderr, "r=%d\\n", r);');
    writeFileSync(join(dir, 'p.c'), printing);
    writeFileSync(join(dir, 'h.c'), harnessSource([{ function: '__VERIFIER_nondet_int', value: BigInt(input.value!) }], 'reach_error'));
    const cc = spawnSync('gcc', ['-m32', '-w', '-o', join(dir, 'p'), join(dir, 'p.c'), join(dir, 'h.c')], { encoding: 'utf8' });
    assert.equal(cc.status, 0, cc.stderr);
    // Standard error (unbuffered: the failing assertion aborts), without the harness's own lines.
    const out = spawnProgram(join(dir, 'p'), [], true, { encoding: 'utf8' }).stderr.split('\n').filter((l) => /^(r=)?-?\d+( -?\d+)?$/.test(l));
    assert.deepEqual(out.slice(0, 3), assigned('r').map((v) => `r=${v}`));
    const totals = assigned('total');
    assert.equal(out[3], `${input.value} ${totals[totals.length - 1]}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('without a property: the default checks find a violation of each kind, named by its kind', { skip: needTools('gcc', 'gcc -m32 -fsanitize=address') }, async () => {
  const nondet = 'extern int __VERIFIER_nondet_int(void);\n';
  const cases: Array<[string, string, string]> = [
    ['assert.c', `#include <assert.h>\n${nondet}int main(void) { int x = __VERIFIER_nondet_int(); if (x > 10) assert(x < 5); return 0; }\n`, 'false(assert)'],
    ['reach.c', `${nondet}void reach_error(void) {}\nint main(void) { if (__VERIFIER_nondet_int() == 3) reach_error(); return 0; }\n`, 'false(unreach-call)'],
    ['deref.c', `${nondet}int main(void) { int a[4]; int i = __VERIFIER_nondet_int(); if (i >= 0 && i <= 4) a[i] = 1; return 0; }\n`, 'false(valid-deref)'],
    ['free.c', '#include <stdlib.h>\nint main(void) { int *p = malloc(4); free(p); free(p); return 0; }\n', 'false(valid-free)'],
    ['leak.c', `#include <stdlib.h>\n${nondet}int main(void) { int *p = malloc(8); if (__VERIFIER_nondet_int()) return 1; free(p); return 0; }\n`, 'false(valid-memtrack)'],
    ['overflow.c', `${nondet}int main(void) { int x = __VERIFIER_nondet_int(); if (x > 0) return x * 2; return 0; }\n`, 'false(no-overflow)'],
    ['div.c', `${nondet}int main(void) { int d = __VERIFIER_nondet_int(); if (d < 3) return 100 / (d + 1); return 0; }\n`, 'false(div-by-zero)'],
  ];
  for (const [name, text, expected] of cases) {
    const r = await check(name, text);
    assert.equal(r.property, 'default');
    assert.equal(verdictOf(r), expected, `${name}: ${r.reason}`);
    assert.equal(r.replay?.status, 'confirmed', name);
  }
  const clean = await check('ok.c', `#include <assert.h>\n${nondet}int main(void) { int n = __VERIFIER_nondet_int(); if (n < 1 || n > 10) return 0; int s = 0; for (int i = 0; i < n; i++) s += 100 / (i + 1); assert(s > 0); return 0; }\n`);
  assert.equal(clean.verdict.kind, 'true', clean.reason);
});

test('the command line: the checks named, the trace before the reason, the trace on the --report page and in --format json', { skip: noGcc }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-own-cli-'));
  try {
    writeFileSync(join(dir, 'loop.c'), LOOP_AND_FUNCTION);
    const run = (...args: string[]) => spawnSync(process.execPath, [cliPath, 'verify', 'loop.c', '--timeout', '60', ...args], { cwd: dir, encoding: 'utf8' });
    const text = run('--report', 'page.html');
    const lines = text.stdout.trim().split('\n');
    assert.match(lines[0]!, /^Checks \(no property given\): failing assert\(\) \(assert\), /);
    assert.equal(lines[lines.length - 1], 'Verification result: FALSE(assert)');
    const at = lines.indexOf('Counterexample trace (line:column, function, step):');
    assert.ok(at > 0, text.stdout);
    assert.match(lines[lines.length - 3]!, /^ {2}14:3 +main +assertion 'total != 27' fails$/);
    assert.match(lines.slice(at).join('\n'), /^ {2}12:\d+ +scale +enters scale$/m);
    assert.match(lines.slice(at).join('\n'), /^ {2}9:3 +main +if \(n < 0 \|\| n > 100\): false$/m);
    assert.match(readFileSync(join(dir, 'page.html'), 'utf8'), /<section class="trace"><h3>Counterexample trace[^<]*<\/h3><pre class="code">[^<]*total != 27/);
    const json = JSON.parse(run('--format', 'json', '--property', 'assert').stdout) as { verdict: string; checks: unknown; trace: Array<{ kind: string }> };
    assert.equal(json.verdict, 'false(assert)');
    assert.equal(json.checks, null);
    assert.equal(json.trace[json.trace.length - 1]!.kind, 'violation');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('compound literals: a struct and an array literal, initialised at each evaluation', { skip: noGcc }, async () => {
  const program = (bad: string) => `extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}
struct p { int x, y; };
int main(void) {
  int n = __VERIFIER_nondet_int();
  struct p q = (struct p){n, 2};
  int s = 0;
  for (int i = 0; i < 3; i++) { int *a = (int[]){i, 10}; a[0] += 1; s += a[0] + a[1]; }
  if (q.y != 2 || s != 36${bad}) reach_error();
  return q.x - n;
}
`;
  const holds = await check('cl.c', program(''), 'unreach-call');
  assert.equal(holds.verdict.kind, 'true', holds.reason);
  const fails = await check('cl.c', program(' || q.x == 7'), 'unreach-call');
  assert.equal(verdictOf(fails), 'false(unreach-call)', fails.reason);
  assert.equal(fails.counterexample?.[0]?.value, 7n);
});

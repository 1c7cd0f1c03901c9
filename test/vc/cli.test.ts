import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, repoRoot } from '../helpers/shared.js';

function tarsier(...args: string[]) {
  const r = spawnSync(process.execPath, [cliPath, ...args], { encoding: 'utf8', cwd: repoRoot, timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function tmpFile(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-imp-'));
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
}

test('imp verify prints one line per goal, counterexamples, and the verdict', () => {
  const f = tmpFile(
    'p.imp',
    `procedure p(x: int) returns (y: int)
  requires x >= 0;
  ensures y > x || x != 2;
{
  y := x + 1;
  assert y != 5;
  while (y > 0) { y := y - 1; }
  assert y == 0;
}
`,
  );
  const r = tarsier('imp', 'verify', f);
  assert.equal(r.code, 0);
  assert.equal(
    r.out,
    [
      '6:3: failed (assert: y != 5)',
      '  counterexample:',
      '    entry: x = 4',
      '    5:3: y = 5',
      '8:3: unknown (assert: y == 0)',
      '  reason: depends on a loop without invariant (at 7:3); no failure with at most 3 iterations',
      '3:11: failed (postcondition: y > x || x != 2)',
      '  note: found with the loops without invariants unrolled (at most 3 iterations)',
      '  counterexample:',
      '    entry: x = 2',
      '    5:3: y = 3',
      '    7:19: y = 2',
      '    7:19: y = 1',
      '    7:19: y = 0',
      'Verification result: FALSE',
      '',
    ].join('\n'),
  );
});

test('imp verify --format json and a TRUE verdict', () => {
  const r = tarsier('imp', 'verify', join(repoRoot, 'test', 'fixtures', 'imp', 'correct.imp'), '--format', 'json', '--timeout', '30');
  assert.equal(r.code, 0);
  const j = JSON.parse(r.out) as { verdict: string; goals: { line: number; column: number; kind: string; status: string; procedure: string }[] };
  assert.equal(j.verdict, 'TRUE');
  assert.equal(j.goals.length, 6);
  assert.ok(j.goals.every((g) => g.status === 'proved'));
  assert.deepEqual(j.goals[0], { procedure: 'add', kind: 'postcondition', line: 7, column: 11, condition: 'total == old(total) + x', status: 'proved' });
});

test('imp verify: syntax and type errors exit 1 with file:line:column; usage errors exit 2', () => {
  const bad = tmpFile('bad.imp', 'procedure f() {\n  assert 1 +;\n}\n');
  let r = tarsier('imp', 'verify', bad);
  assert.equal(r.code, 1);
  assert.equal(r.err, `${bad}:2:13: error: expected an expression but found ';'\n`);
  assert.equal(r.out, '');
  const ill = tmpFile('ill.imp', 'procedure f(x: bv8) {\n  assert x < 3bv8;\n}\n');
  r = tarsier('imp', 'verify', ill);
  assert.equal(r.code, 1);
  assert.match(r.err, /ill\.imp:2:10: error: '<' is not defined on bit-vectors/);
  r = tarsier('imp', 'verify', join(repoRoot, 'no-such-file.imp'));
  assert.equal(r.code, 2);
  r = tarsier('imp', 'verify', bad, '--timeout', 'soon');
  assert.equal(r.code, 2);
  r = tarsier('imp', 'verify', bad, '--solver', 'no-such-solver-binary');
  assert.equal(r.code, 1);
  const good = tmpFile('good.imp', 'procedure f() { assert true; }\n');
  r = tarsier('imp', 'verify', good, '--solver', 'no-such-solver-binary');
  assert.equal(r.code, 2);
  assert.match(r.err, /solver 'no-such-solver-binary' not found/);
});

test('imp verify output is the same on every run', () => {
  const f = join(repoRoot, 'test', 'fixtures', 'imp', 'loops.imp');
  const a = tarsier('imp', 'verify', f);
  const b = tarsier('imp', 'verify', f);
  assert.equal(a.code, 0);
  assert.equal(a.out, b.out);
  assert.match(a.out, /Verification result: FALSE\n$/);
});

// Issue 25's smaller defects: a violation on a line with a macro (the
// witness's target column was the macro-expanded text's, and the lint
// rejected it), and a lasso at a loop made of a goto (no C loop location).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/shared.js';
import { needTools } from '../helpers/tools.js';
import { verify } from '../../src/verify/index.js';
import { validate } from '../../src/validate/index.js';

const noGcc = needTools('gcc -m32', 'gcc -fsanitize', 'cpp');
const fx = (...p: string[]) => join(repoRoot, 'test', 'fixtures', ...p);

test('a violation on a line with a macro: the witness points at the original columns, lints clean and is confirmed', { skip: noGcc }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-macro-'));
  try {
    for (const [property, at] of [['unreach-call', 'macro-line.c:8:40'], ['no-overflow', 'macro-line.c:10:25']] as const) {
      const w = join(dir, `${property}.yml`);
      const r = await verify(fx('verify', 'macro-line.c'), { property, timeoutS: 30, witnessPath: w });
      assert.equal(r.verdict.kind, 'false', r.reason);
      assert.ok(r.reason.includes(at), r.reason);
      const v = await validate(fx('verify', 'macro-line.c'), w, { property, timeoutS: 30 });
      assert.equal(v.outcome, 'confirmed', v.reason);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a lasso at a loop made of a goto: FALSE(termination) with a cycle witness at the statement after the label', { skip: noGcc }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-goto-'));
  try {
    const w = join(dir, 'w.yml');
    const r = await verify(fx('termination', 'goto-loop.c'), { property: 'termination', timeoutS: 30, witnessPath: w });
    assert.equal(r.verdict.kind, 'false', r.reason);
    assert.match(r.reason, /goto loop at goto-loop\.c:6:3/);
    assert.match(readFileSync(w, 'utf8'), /type: "assumption"\n\s+action: "cycle"\n\s+location:\n\s+file_name: "goto-loop.c"\n\s+line: 6\n\s+column: 3/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// The BenchExec tool-info module (contrib/benchexec/tarsier.py) is Python:
// its tests (test/contrib/test_benchexec_tool.py) run here, under python3's
// unittest, against a stand-in of BenchExec's API (BenchExec is not packaged
// by Debian), or against a BenchExec source tree named by TARSIER_BENCHEXEC.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { needTools } from '../helpers/tools.js';

const ROOT = join(import.meta.dirname, '../../..');

test('contrib/benchexec/tarsier.py: executable, program files, command lines, results (python3 unittest)', { skip: needTools('python3') }, () => {
  const r = spawnSync('python3', [join(ROOT, 'test/contrib/test_benchexec_tool.py'), '-v'], {
    encoding: 'utf8',
    env: { ...process.env, TARSIER_ROOT: ROOT, PYTHONDONTWRITEBYTECODE: '1' },
    timeout: 60_000,
  });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  // unittest reports on stderr: every test ran, none skipped.
  const ran = /Ran (\d+) tests?/.exec(r.stderr);
  assert.ok(ran && Number(ran[1]) >= 14, r.stderr);
  assert.match(r.stderr, /\nOK\s*$/);
});

// Standard output that cannot be written (`> /dev/full`): one error line,
// exit status 3, no stack trace (a closed pipe stays quiet: closed-stdout.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, repoRoot } from '../helpers/shared.js';

const noFull = existsSync('/dev/full') ? false : 'skipped: no /dev/full here';

test('a failed write to standard output: one line, exit 3', { skip: noFull }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-full-'));
  try {
    const ex = (name: string) => join(repoRoot, 'examples', name);
    for (const args of [
      ['verify', ex('sum.yml'), '--witness', join(dir, 'w.yml')],
      ['lint', ex('count-invariants-0.1.yml')],
    ]) {
      const full = openSync('/dev/full', 'w');
      try {
        const r = spawnSync(process.execPath, [cliPath, ...args], { stdio: ['ignore', full, 'pipe'], encoding: 'utf8', timeout: 120_000 });
        assert.equal(r.status, 3, `${args[0]}: ${r.stderr}`);
        assert.deepEqual(r.stderr.trim().split('\n'), ['tarsier: error: cannot write to standard output: no space left on the device'], args[0]);
      } finally {
        closeSync(full);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exitProgramI386, runsI386Programs } from '../../src/replay/i386.js';
import { missingOnThisMachine, toolProblem } from '../helpers/tools.js';

const readelf = spawnSync('readelf', ['--version']).status === 0;

test('the probe program is an i386 executable whose entry is its exit(42) code, as readelf and objdump read it', { skip: readelf ? false : 'skipped: readelf (binutils) is not installed' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-i386-test-'));
  try {
    const exe = join(dir, 'exit42');
    writeFileSync(exe, exitProgramI386());
    const header = spawnSync('readelf', ['-h', '-l', exe], { encoding: 'utf8' });
    assert.equal(header.status, 0, header.stderr);
    assert.match(header.stdout, /Class:\s+ELF32/);
    assert.match(header.stdout, /Type:\s+EXEC/);
    assert.match(header.stdout, /Machine:\s+Intel 80386/);
    assert.match(header.stdout, /Entry point address:\s+0x8048054/);
    assert.match(header.stdout, /LOAD\s+0x000000 0x08048000 0x08048000 0x00060 0x00060 R E 0x1000/);
    const code = spawnSync('objdump', ['-D', '-b', 'binary', '-m', 'i386', '--start-address=0x54', exe], { encoding: 'utf8' });
    if (code.status === 0) {
      assert.match(code.stdout, /mov\s+\$0x2a,%ebx/);
      assert.match(code.stdout, /mov\s+\$0x1,%eax/);
      assert.match(code.stdout, /int\s+\$0x80/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the kernel question agrees with gcc -m32: its programs run exactly where the probe program does', { skip: toolProblem('gcc -m32') === undefined || missingOnThisMachine('gcc -m32') ? false : 'skipped: gcc -m32 cannot link here, so it cannot tell' }, () => {
  assert.equal(runsI386Programs(), toolProblem('gcc -m32') === undefined);
});

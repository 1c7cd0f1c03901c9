import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { exitProgramI386, i386Runner, qemuI386Command, runsI386Programs } from '../../src/replay/i386.js';
import { repoRoot } from '../helpers/shared.js';

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

/** A gcc -m32 program built in `dir` from `source`, or undefined where gcc -m32 cannot link. */
function m32Program(dir: string, source: string, flags: string[] = []): string | undefined {
  writeFileSync(join(dir, 'p.c'), source);
  const c = spawnSync('gcc', ['-m32', ...flags, '-o', join(dir, 'p'), join(dir, 'p.c')], { encoding: 'utf8', timeout: 60_000 });
  return c.status === 0 ? join(dir, 'p') : undefined;
}

const m32Links = (() => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-i386-test-'));
  try {
    return m32Program(dir, 'int main(void) { return 0; }\n') !== undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
})();
const noM32 = m32Links ? false : 'skipped: gcc -m32 cannot link here, so it cannot tell';

test('the kernel question agrees with gcc -m32: its programs run by themselves exactly where the probe program does', { skip: noM32 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-i386-test-'));
  try {
    const exe = m32Program(dir, 'int main(void) { return sizeof(long) == 4 ? 0 : 1; }\n')!;
    assert.equal(runsI386Programs(), spawnSync(exe, [], { timeout: 10_000 }).status === 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the i386 runner: nothing where the kernel runs 32-bit programs, else qemu-i386, under which gcc -m32 programs run with their exit status and UBSan reports', { skip: noM32 }, () => {
  const runner = i386Runner();
  if (runsI386Programs()) assert.deepEqual(runner, []);
  else if (runner === undefined) assert.notEqual(spawnSync(qemuI386Command() ?? 'qemu-i386', ['--version']).status, 0, 'qemu-i386 runs, but not the probe program');
  else assert.deepEqual(runner, [qemuI386Command()]);
  if (runner === undefined) return;
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-i386-test-'));
  try {
    const exe = m32Program(dir, 'int main(int argc, char **argv) { int x = 2147483647; x += argc; return sizeof(long) == 4 ? 7 : 1; }\n', ['-fsanitize=signed-integer-overflow'])!;
    const r = spawnSync(runner[0] ?? exe, runner.length ? [...runner.slice(1), exe] : [], { encoding: 'utf8', timeout: 10_000, env: { ...process.env, UBSAN_OPTIONS: 'print_stacktrace=0' } });
    assert.equal(r.status, 7, r.stderr);
    assert.match(r.stderr, /runtime error: signed integer overflow/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('TARSIER_QEMU_I386 names the emulator; empty, none is tried', () => {
  const ask = (value: string) => {
    const code = `import('${pathToFileURL(join(repoRoot, 'dist', 'src', 'replay', 'i386.js')).href}').then((m) => console.log(JSON.stringify(m.i386Runner() ?? null)))`;
    const r = spawnSync(process.execPath, ['-e', code], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, TARSIER_QEMU_I386: value } });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as string[] | null;
  };
  const native = runsI386Programs();
  assert.deepEqual(ask(''), native ? [] : null);
  assert.deepEqual(ask(join(tmpdir(), 'no-such-qemu-i386')), native ? [] : null);
});

test('an emulated run stopped at its time limit leaves no process behind (the program runs inside qemu-i386)', { skip: !runsI386Programs() && i386Runner() !== undefined && m32Links ? false : 'skipped: this machine does not run 32-bit programs under qemu-i386' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-i386-test-'));
  try {
    // Two threads spinning forever.
    const exe = m32Program(dir, '#include <pthread.h>\nstatic void *spin(void *a) { for (;;) {} return a; }\nint main(void) { pthread_t t; pthread_create(&t, 0, spin, 0); for (;;) {} }\n', ['-pthread'])!;
    const r = spawnSync(i386Runner()![0]!, [exe], { timeout: 1000 });
    assert.equal((r.error as NodeJS.ErrnoException | undefined)?.code, 'ETIMEDOUT');
    const ps = spawnSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
    assert.doesNotMatch(ps.stdout, new RegExp(exe.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/shared.js';
import { needTools } from '../helpers/tools.js';
import { replayCounterexample, probeGcc, dataModelDependence, harnessSource } from '../../src/replay/index.js';
import { i386Runner, runsI386Programs } from '../../src/replay/i386.js';

const fixture = (name: string) => join(repoRoot, 'test', 'fixtures', 'replay', name);
const noGcc = needTools('gcc');

test('replay confirms a reach_error path and rejects a wrong one', { skip: noGcc }, () => {
  const good = replayCounterexample(
    fixture('reach.c'),
    [
      { function: '__VERIFIER_nondet_int', value: -7n },
      { function: '__VERIFIER_nondet_uchar', value: 200n },
    ],
    { symptom: 'error-call', dataModel: 'ILP32' },
  );
  assert.equal(good.status, 'confirmed', good.reason);
  const wrong = replayCounterexample(
    fixture('reach.c'),
    [
      { function: '__VERIFIER_nondet_int', value: -7n },
      { function: '__VERIFIER_nondet_uchar', value: 199n },
    ],
    { symptom: 'error-call', dataModel: 'ILP32' },
  );
  assert.equal(wrong.status, 'not-confirmed');
  // Values for other functions than those called: the run diverges.
  const diverged = replayCounterexample(fixture('reach.c'), [{ function: '__VERIFIER_nondet_uint', value: 1n }], {
    symptom: 'error-call',
    dataModel: 'LP64',
  });
  assert.equal(diverged.status, 'not-confirmed');
  assert.match(diverged.reason, /another path/);
});

test('a repeated nondet value is returned by that many calls in a row, and a call of another function in the middle of the run is a divergence', { skip: noGcc }, () => {
  const run = (values: { function: string; value: bigint; repeat?: bigint }[]) => replayCounterexample(fixture('count-calls.c'), values, { symptom: 'error-call', dataModel: 'LP64' });
  const int = (value: bigint, repeat?: bigint) => ({ function: '__VERIFIER_nondet_int', value, ...(repeat !== undefined ? { repeat } : {}) });
  const char = { function: '__VERIFIER_nondet_char', value: 0n };
  const exact = run([int(7n, 500n), char, int(7n, 500n), int(0n)]);
  assert.equal(exact.status, 'confirmed', exact.reason);
  assert.equal(run([int(7n, 500n), char, int(7n, 499n), int(0n)]).status, 'not-confirmed', '999 calls return 7: no error');
  // The run of 1000 values passes the char call at the 500th iteration.
  const diverged = run([int(7n, 1000n), char, int(0n)]);
  assert.equal(diverged.status, 'not-confirmed');
  assert.match(diverged.reason, /another path|differ/);
  assert.match(harnessSource([int(7n, 3n)], 'reach_error'), /tarsier_repeats\[\] = \{ 3ULL \}/);
});

test('replay detects a signed overflow with its line and column', { skip: noGcc }, () => {
  const r = replayCounterexample(fixture('overflow.c'), [{ function: '__VERIFIER_nondet_int', value: 2147483647n }], {
    symptom: 'signed-overflow',
    dataModel: 'ILP32',
  });
  assert.equal(r.status, 'confirmed', r.reason);
  assert.equal(r.overflowAt?.line, 4);
  const ok = replayCounterexample(fixture('overflow.c'), [{ function: '__VERIFIER_nondet_int', value: 5n }], {
    symptom: 'signed-overflow',
    dataModel: 'ILP32',
  });
  assert.equal(ok.status, 'not-confirmed');
});

test('replay confirms an overflowing signed left shift (the sanitizer\'s "left shift of" report)', { skip: noGcc }, () => {
  const r = replayCounterexample(fixture('shift.c'), [{ function: '__VERIFIER_nondet_int', value: 1000n }], {
    symptom: 'signed-overflow',
    dataModel: 'ILP32',
  });
  assert.equal(r.status, 'confirmed', r.reason);
  assert.deepEqual(r.overflowAt, { line: 5, column: 13 });
  assert.match(r.reason, /left shift of 1000 by 22 places cannot be represented/);
  // 511 << 22 fits in int: no overflow.
  const ok = replayCounterexample(fixture('shift.c'), [{ function: '__VERIFIER_nondet_int', value: 511n }], {
    symptom: 'signed-overflow',
    dataModel: 'ILP32',
  });
  assert.equal(ok.status, 'not-confirmed');
});

test('ILP32 programs using long replay only where -m32 links', { skip: noGcc }, () => {
  const r = replayCounterexample(fixture('long.c'), [{ function: '__VERIFIER_nondet_long', value: 4294967296n }], {
    symptom: 'error-call',
    dataModel: 'ILP32',
  });
  if (probeGcc().m32) assert.equal(r.status, 'not-confirmed');
  else {
    assert.equal(r.status, 'unavailable');
    assert.match(r.reason, /'long'/);
  }
  const r64 = replayCounterexample(fixture('long.c'), [{ function: '__VERIFIER_nondet_long', value: 4294967296n }], {
    symptom: 'error-call',
    dataModel: 'LP64',
  });
  assert.equal(r64.status, 'confirmed', r64.reason);
});

test('an ILP32 counterexample that needs a 32-bit unsigned long is confirmed by gcc -m32, under qemu-i386 where the kernel does not run 32-bit programs, and named so', { skip: needTools('gcc', 'gcc -m32') }, () => {
  const values = [{ function: '__VERIFIER_nondet_ulong', value: 4294967295n }];
  // -m64 cannot stand in: the program uses 'long', and there the sum does not wrap.
  assert.equal(dataModelDependence(readFileSync(fixture('ulong-wraps.c'), 'utf8')), 'long');
  const r = replayCounterexample(fixture('ulong-wraps.c'), values, { symptom: 'error-call', dataModel: 'ILP32' });
  assert.equal(r.status, 'confirmed', r.reason);
  assert.equal(r.mode, '-m32');
  if (runsI386Programs()) {
    assert.equal(r.emulator, undefined);
    assert.equal(r.reason, 'replay (gcc -m32): reach_error was called');
  } else {
    assert.equal(r.emulator, 'qemu-i386');
    assert.equal(r.reason, 'replay (gcc -m32 under qemu-i386): reach_error was called');
  }
  const lp64 = replayCounterexample(fixture('ulong-wraps.c'), values, { symptom: 'error-call', dataModel: 'LP64' });
  assert.equal(lp64.status, 'not-confirmed', lp64.reason);
  // A program that means the same in LP64 is not emulated: it runs natively as -m64 (much faster).
  assert.equal(dataModelDependence(readFileSync(fixture('overflow.c'), 'utf8')), undefined);
  const overflow = replayCounterexample(fixture('overflow.c'), [{ function: '__VERIFIER_nondet_int', value: 2147483647n }], { symptom: 'signed-overflow', dataModel: 'ILP32' });
  assert.equal(overflow.status, 'confirmed', overflow.reason);
  assert.equal(overflow.mode, runsI386Programs() ? '-m32' : '-m64');
  assert.equal(overflow.emulator, undefined);
  assert.match(overflow.reason, runsI386Programs() ? /^replay \(gcc -m32 -fsanitize=signed-integer-overflow,shift-base\): / : /^replay \(gcc -m64 -fsanitize=signed-integer-overflow,shift-base\): /);
  // The sanitizer's report comes through the emulator too.
  const wrapped = replayCounterexample(fixture('long-overflow.c'), [{ function: '__VERIFIER_nondet_long', value: 2147483647n }], { symptom: 'signed-overflow', dataModel: 'ILP32' });
  assert.equal(wrapped.status, 'confirmed', wrapped.reason);
  assert.equal(wrapped.mode, '-m32');
  assert.match(wrapped.reason, runsI386Programs() ? /^replay \(gcc -m32 -fsanitize=signed-integer-overflow,shift-base\): / : /^replay \(gcc -m32 -fsanitize=signed-integer-overflow,shift-base under qemu-i386\): /);
});

test('a memory replay in ILP32 never runs under qemu-i386 (AddressSanitizer hangs there): where the kernel does not run 32-bit programs it falls back to -m64 or is unavailable, as without the emulator', { skip: needTools('gcc', 'gcc -fsanitize') }, () => {
  const r = replayCounterexample(fixture('stack-index.c'), [{ function: '__VERIFIER_nondet_int', value: 2n }], { symptom: 'valid-deref', dataModel: 'ILP32' });
  assert.equal(r.status, 'confirmed', r.reason);
  assert.equal(r.emulator, undefined);
  assert.doesNotMatch(r.reason, /qemu/);
  assert.equal(r.mode, runsI386Programs() ? '-m32' : '-m64');
  assert.match(r.reason, /^replay \(gcc -m(32|64) -fsanitize=address\): AddressSanitizer: stack-buffer-overflow/);
  // A program whose meaning depends on the data model cannot fall back.
  const long = replayCounterexample(fixture('long.c'), [{ function: '__VERIFIER_nondet_long', value: 1n }], { symptom: 'valid-deref', dataModel: 'ILP32' });
  if (runsI386Programs()) assert.equal(long.status, 'not-confirmed', long.reason);
  else {
    assert.equal(long.status, 'unavailable');
    assert.equal(long.emulator, undefined);
    if (i386Runner() !== undefined) assert.equal(long.reason, "cannot replay: this kernel does not run 32-bit x86 programs (and AddressSanitizer's hang under qemu-i386), and the program uses 'long', whose meaning differs between ILP32 and LP64");
  }
});

test('data-model dependence ignores comments, strings and long long', () => {
  assert.equal(dataModelDependence('// long\nint x = sizeof_x; char *s = "long"; long long y;'), undefined);
  assert.equal(dataModelDependence('unsigned long z;'), 'long');
  assert.equal(dataModelDependence('int n = sizeof(int);'), 'sizeof');
  assert.equal(dataModelDependence('void reach_error() { ((void) sizeof ((0) ? 1 : 0)); }'), undefined);
  assert.throws(() => harnessSource([], 'bad name'));
});

test('a replay runs gcc once; gcc is probed only when the compile or the start fails: a gcc that cannot link -m32, or whose -m32 programs the kernel cannot run, falls back to -m64 where the data model does not matter; a missing gcc is unavailable', { skip: noGcc }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-fake-gcc-'));
  try {
    // A gcc whose -m32 links fail, as without the 32-bit C libraries.
    const fake = join(dir, 'gcc-no-m32');
    writeFileSync(fake, '#!/bin/sh\nfor a in "$@"; do [ "$a" = -m32 ] && { echo "ld: cannot find -lgcc: No such file or directory" >&2; exit 1; }; done\nexec gcc "$@"\n');
    chmodSync(fake, 0o755);
    // A gcc whose -m32 programs do not start: the system hands them to the shell (exit 2), qemu-i386 refuses them (exit 1).
    const unrunnable = join(dir, 'gcc-m32-unrunnable');
    writeFileSync(unrunnable, '#!/bin/sh\nm32=; out=; prev=\nfor a in "$@"; do [ "$a" = -m32 ] && m32=1; [ "$prev" = -o ] && out="$a"; prev="$a"; done\nif [ -n "$m32" ]; then printf \'(\\n\' > "$out"; chmod +x "$out"; exit 0; fi\nexec gcc "$@"\n');
    chmodSync(unrunnable, 0o755);
    // A gcc that counts its runs: a confirmed replay compiles once, and nothing else.
    const counting = join(dir, 'gcc-counting');
    writeFileSync(counting, `#!/bin/sh\necho run >> ${join(dir, 'runs')}\nexec gcc "$@"\n`);
    chmodSync(counting, 0o755);
    const values = [
      { function: '__VERIFIER_nondet_int', value: -7n },
      { function: '__VERIFIER_nondet_uchar', value: 200n },
    ];
    const once = replayCounterexample(fixture('reach.c'), values, { symptom: 'error-call', dataModel: 'LP64', gcc: counting });
    assert.equal(once.status, 'confirmed', once.reason);
    assert.equal(readFileSync(join(dir, 'runs'), 'utf8'), 'run\n');
    if (i386Runner() === undefined) {
      // A machine that runs no 32-bit programs is known at once: gcc is asked its version and builds the -m64 program, nothing else.
      const ilp32 = replayCounterexample(fixture('reach.c'), values, { symptom: 'error-call', dataModel: 'ILP32', gcc: counting });
      assert.equal(ilp32.status, 'confirmed', ilp32.reason);
      assert.equal(ilp32.mode, '-m64');
      assert.equal(readFileSync(join(dir, 'runs'), 'utf8'), 'run\nrun\nrun\n');
    } else if (!runsI386Programs()) {
      // A program that means the same in LP64 runs natively as -m64, one under qemu-i386 as -m32: each compiles once.
      const ilp32 = replayCounterexample(fixture('reach.c'), values, { symptom: 'error-call', dataModel: 'ILP32', gcc: counting });
      assert.equal(ilp32.status, 'confirmed', ilp32.reason);
      assert.equal(ilp32.mode, '-m64');
      assert.equal(readFileSync(join(dir, 'runs'), 'utf8'), 'run\nrun\n');
      const emulated = replayCounterexample(fixture('ulong-wraps.c'), [{ function: '__VERIFIER_nondet_ulong', value: 4294967295n }], { symptom: 'error-call', dataModel: 'ILP32', gcc: counting });
      assert.equal(emulated.status, 'confirmed', emulated.reason);
      assert.equal(emulated.mode, '-m32');
      assert.equal(readFileSync(join(dir, 'runs'), 'utf8'), 'run\nrun\nrun\n');
    }
    const reach = replayCounterexample(fixture('reach.c'), values, { symptom: 'error-call', dataModel: 'ILP32', gcc: fake });
    assert.equal(reach.status, 'confirmed', reach.reason);
    assert.equal(reach.mode, '-m64');
    const long = replayCounterexample(fixture('long.c'), [{ function: '__VERIFIER_nondet_long', value: 4294967296n }], { symptom: 'error-call', dataModel: 'ILP32', gcc: fake });
    assert.equal(long.status, 'unavailable');
    assert.match(long.reason, /(cannot be linked or run here|does not run 32-bit x86 programs).*'long'/);
    const shell = replayCounterexample(fixture('reach.c'), values, { symptom: 'error-call', dataModel: 'ILP32', gcc: unrunnable });
    assert.equal(shell.status, 'confirmed', shell.reason);
    assert.equal(shell.mode, '-m64');
    const none = replayCounterexample(fixture('reach.c'), [], { symptom: 'error-call', dataModel: 'ILP32', gcc: join(dir, 'no-such-gcc') });
    assert.equal(none.status, 'unavailable');
    assert.match(none.reason, /^cannot replay: gcc not available/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('replay gives float nondet values bit for bit and evaluates in IEEE single/double in both data models', { skip: needTools('gcc', 'gcc -m32') }, () => {
  const values = [
    { function: '__VERIFIER_nondet_double', value: 0x7fefffffffffffffn },
    { function: '__VERIFIER_nondet_float', value: 0xffc00001n },
  ];
  for (const dataModel of ['ILP32', 'LP64'] as const) {
    const r = replayCounterexample(fixture('float.c'), values, { symptom: 'error-call', dataModel });
    assert.equal(r.status, 'confirmed', `${dataModel}: ${r.reason}`);
  }
  const notNan = replayCounterexample(fixture('float.c'), [values[0]!, { function: '__VERIFIER_nondet_float', value: 0x3f800000n }], { symptom: 'error-call', dataModel: 'ILP32' });
  assert.equal(notNan.status, 'not-confirmed');
});

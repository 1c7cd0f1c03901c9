// Whether this machine's kernel executes 32-bit x86 programs, asked in a
// millisecond: some kernels (no IA-32 emulation) cannot, although gcc -m32
// links. Knowing it before the replay builds a -m32 program saves that
// build and a probe (about half a second for each ILP32 counterexample).
//
// The question is put to the kernel with the smallest program of that kind,
// made here byte by byte: one loadable segment whose code is exit(42)
// through the 32-bit system call gate. Only the kernel running it gives 42;
// where it cannot, the system hands the file to the shell, which fails.
// There the same program asks qemu-i386 (qemu-user), which emulates 32-bit
// x86 programs in user mode on any x86-64 kernel.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

const EXIT_CODE = 42;

/** An i386 ELF executable whose only effect is exit(EXIT_CODE) (plain bytes: the browser build has no Buffer). */
export function exitProgramI386(): Uint8Array {
  // mov ebx, 42; mov eax, 1 (exit); int 0x80
  const code = [0xbb, EXIT_CODE, 0, 0, 0, 0xb8, 1, 0, 0, 0, 0xcd, 0x80];
  const headerSize = 52;
  const segmentHeaderSize = 32;
  const size = headerSize + segmentHeaderSize + code.length;
  const base = 0x08048000; // the traditional load address of i386 programs
  const bytes = new Uint8Array(size);
  const b = new DataView(bytes.buffer);
  const u16 = (at: number, v: number) => b.setUint16(at, v, true);
  const u32 = (at: number, v: number) => b.setUint32(at, v, true);
  bytes.set([0x7f, 0x45, 0x4c, 0x46, 1 /* 32-bit */, 1 /* little endian */, 1 /* version */], 0);
  u16(16, 2); // executable
  u16(18, 3); // Intel 80386
  u32(20, 1); // version
  u32(24, base + headerSize + segmentHeaderSize); // entry: the code
  u32(28, headerSize); // program headers follow the ELF header
  u16(40, headerSize);
  u16(42, segmentHeaderSize);
  u16(44, 1); // one program header, no sections
  const ph = headerSize;
  u32(ph, 1); // loadable
  u32(ph + 4, 0); // the whole file ...
  u32(ph + 8, base); // ... at the base address
  u32(ph + 12, base);
  u32(ph + 16, size);
  u32(ph + 20, size);
  u32(ph + 24, 5); // readable, executable
  u32(ph + 28, 0x1000);
  bytes.set(code, headerSize + segmentHeaderSize);
  return bytes;
}

let answer: boolean | undefined;

/** Whether the kernel runs 32-bit x86 programs; asked once per process. */
export function runsI386Programs(): boolean {
  if (answer === undefined) answer = runsProbe([]);
  return answer;
}

/** Whether the probe program, run under `prefix` (none: by the kernel), exits with EXIT_CODE. */
function runsProbe(prefix: readonly string[]): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-i386-'));
  try {
    const exe = join(dir, 'exit42');
    writeFileSync(exe, exitProgramI386(), { mode: 0o755 });
    const [cmd, ...args] = [...prefix, exe];
    return spawnSync(cmd!, args, { timeout: 10_000, stdio: 'ignore' }).status === EXIT_CODE;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The user-mode emulator tried where the kernel cannot run i386 programs: `TARSIER_QEMU_I386` (empty: none), else qemu-i386 on the PATH. */
export function qemuI386Command(): string | undefined {
  const named = process.env.TARSIER_QEMU_I386;
  if (named === undefined) return 'qemu-i386';
  return named.trim() === '' ? undefined : named;
}

let runner: readonly string[] | undefined | null = null;

/**
 * What runs a 32-bit x86 program here, given the program's path after it:
 * `[]` where the kernel does, `[qemu-i386]` where it does not but qemu's
 * user-mode emulator runs the probe program (qemu-user: the program runs
 * inside the emulator's process, so stopping it stops the program), and
 * undefined where neither does. Asked once per process.
 *
 * The emulator is for plain programs (and UBSan's, and threads): the
 * shadow memory of AddressSanitizer's programs makes them hang under it.
 */
export function i386Runner(): readonly string[] | undefined {
  if (runner !== null) return runner;
  const qemu = qemuI386Command();
  if (runsI386Programs()) runner = [];
  else runner = qemu !== undefined && runsProbe([qemu]) ? [qemu] : undefined;
  return runner;
}

/** The emulator a runner runs programs in (`qemu-i386`), or undefined where the kernel runs them. */
export function emulatorOf(runner: readonly string[]): string | undefined {
  return runner.length ? basename(runner[0]!) : undefined;
}

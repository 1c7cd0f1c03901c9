// Whether this machine's kernel executes 32-bit x86 programs, asked in a
// millisecond: some kernels (no IA-32 emulation) cannot, although gcc -m32
// links. Knowing it before the replay builds a -m32 program saves that
// build and a probe (about half a second for each ILP32 counterexample).
//
// The question is put to the kernel with the smallest program of that kind,
// made here byte by byte: one loadable segment whose code is exit(42)
// through the 32-bit system call gate. Only the kernel running it gives 42;
// where it cannot, the system hands the file to the shell, which fails.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const EXIT_CODE = 42;

/** An i386 ELF executable whose only effect is exit(EXIT_CODE). */
export function exitProgramI386(): Buffer {
  // mov ebx, 42; mov eax, 1 (exit); int 0x80
  const code = [0xbb, EXIT_CODE, 0, 0, 0, 0xb8, 1, 0, 0, 0, 0xcd, 0x80];
  const headerSize = 52;
  const segmentHeaderSize = 32;
  const size = headerSize + segmentHeaderSize + code.length;
  const base = 0x08048000; // the traditional load address of i386 programs
  const b = Buffer.alloc(size);
  b.set([0x7f, 0x45, 0x4c, 0x46, 1 /* 32-bit */, 1 /* little endian */, 1 /* version */], 0);
  b.writeUInt16LE(2, 16); // executable
  b.writeUInt16LE(3, 18); // Intel 80386
  b.writeUInt32LE(1, 20); // version
  b.writeUInt32LE(base + headerSize + segmentHeaderSize, 24); // entry: the code
  b.writeUInt32LE(headerSize, 28); // program headers follow the ELF header
  b.writeUInt16LE(headerSize, 40);
  b.writeUInt16LE(segmentHeaderSize, 42);
  b.writeUInt16LE(1, 44); // one program header, no sections
  const ph = headerSize;
  b.writeUInt32LE(1, ph); // loadable
  b.writeUInt32LE(0, ph + 4); // the whole file ...
  b.writeUInt32LE(base, ph + 8); // ... at the base address
  b.writeUInt32LE(base, ph + 12);
  b.writeUInt32LE(size, ph + 16);
  b.writeUInt32LE(size, ph + 20);
  b.writeUInt32LE(5, ph + 24); // readable, executable
  b.writeUInt32LE(0x1000, ph + 28);
  b.set(code, headerSize + segmentHeaderSize);
  return b;
}

let answer: boolean | undefined;

/** Whether the kernel runs 32-bit x86 programs; asked once per process. */
export function runsI386Programs(): boolean {
  if (answer !== undefined) return answer;
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-i386-'));
  try {
    const exe = join(dir, 'exit42');
    writeFileSync(exe, exitProgramI386(), { mode: 0o755 });
    answer = spawnSync(exe, [], { timeout: 10_000, stdio: 'ignore' }).status === EXIT_CODE;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return answer;
}

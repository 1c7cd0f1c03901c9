// The external oracles of the soundness tests (gcc, gcc -m32, its
// sanitizers, cpp, z3, cvc5, valgrind). On a user's machine a test whose oracle is
// missing skips with the reason; under CI (CI=true) a missing oracle fails
// the run, naming it, so that a green CI always means the oracles ran.
//
// gcc -m32 programs run where the kernel runs 32-bit programs, and
// elsewhere under qemu-i386 (qemu-user, installed with the other tools);
// tests run them through `runI386` as the replay does. AddressSanitizer's
// -m32 programs hang under qemu-i386: on a kernel without 32-bit support
// no installation runs them, so their tests skip under CI too, and the run
// says so once.
import { test } from 'node:test';
import { spawnSync, type SpawnSyncOptionsWithStringEncoding, type SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { i386Runner, runsI386Programs } from '../../src/replay/i386.js';

export type Tool = 'gcc' | 'gcc -m32' | 'gcc -m32 -fsanitize=address' | 'gcc -fsanitize' | 'cpp' | 'z3' | 'cvc5' | 'valgrind' | 'python3';

/** Why a tool is missing; `machine` when no installation can supply it. */
interface Problem {
  reason: string;
  machine?: boolean;
}

/**
 * The command (and arguments) that runs a gcc -m32 program: the program
 * itself, or qemu-i386 before it where the kernel does not run 32-bit
 * programs. Only for tests that need 'gcc -m32', never for
 * AddressSanitizer's programs.
 */
export function runI386(exe: string): [string, ...string[]] {
  const [emulator, ...rest] = i386Runner() ?? [];
  return emulator === undefined ? [exe] : [emulator, ...rest, exe];
}

/** Runs a program gcc built, a -m32 one through `runI386`. */
export function spawnProgram(exe: string, args: readonly string[], m32: boolean, options: SpawnSyncOptionsWithStringEncoding): SpawnSyncReturns<string> {
  const [cmd, ...before] = m32 ? runI386(exe) : [exe];
  return spawnSync(cmd, [...before, ...args], options);
}

/** Compiles and runs a trivial program with these gcc flags (-m32 as `runI386` runs it). */
function gccRuns(flags: string[]): Problem | undefined {
  const m32 = flags.includes('-m32');
  if (m32 && i386Runner() === undefined) {
    // Where the kernel cannot run 32-bit programs, qemu-user can.
    return { reason: 'this kernel does not run 32-bit x86 programs and qemu-i386 is not installed (the qemu-user package)' };
  }
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-tool-'));
  try {
    writeFileSync(join(dir, 'p.c'), 'int main(void) { return 0; }\n');
    const c = spawnSync('gcc', [...flags, '-o', join(dir, 'p'), join(dir, 'p.c')], { encoding: 'utf8', timeout: 60_000 });
    if (c.error) return { reason: `gcc cannot start (${c.error.message})` };
    if (c.status !== 0) return { reason: `gcc ${flags.join(' ')} cannot build a program (${c.stderr.trim().split('\n')[0] ?? ''})` };
    const [cmd, ...args] = m32 ? runI386(join(dir, 'p')) : [join(dir, 'p')];
    const r = spawnSync(cmd, args, { timeout: 10_000 });
    if (r.status === 0) return undefined;
    return { reason: `this machine does not run programs built with gcc ${flags.join(' ')}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** AddressSanitizer's -m32 programs, which run only where the kernel runs 32-bit programs (they hang under qemu-i386). */
function asanM32Runs(): Problem | undefined {
  if (!runsI386Programs()) {
    return { reason: "this kernel does not run 32-bit x86 programs, and AddressSanitizer's gcc -m32 programs hang under qemu-i386", machine: true };
  }
  return gccRuns(['-m32', '-fsanitize=address']);
}

function runs(cmd: string, args: string[]): Problem | undefined {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 20_000 });
  if (r.error) return { reason: `${cmd} cannot start (${r.error.message})` };
  return r.status === 0 ? undefined : { reason: `${cmd} ${args.join(' ')} exits with ${r.status}` };
}

const probes: Record<Tool, () => Problem | undefined> = {
  gcc: () => gccRuns([]),
  'gcc -m32': () => gccRuns(['-m32']),
  'gcc -m32 -fsanitize=address': asanM32Runs,
  'gcc -fsanitize': () => gccRuns(['-fsanitize=signed-integer-overflow,shift']),
  cpp: () => runs('cpp', ['--version']),
  z3: () => runs('z3', ['--version']),
  cvc5: () => runs('cvc5', ['--version']),
  valgrind: () => runs('valgrind', ['--version']),
  python3: () => runs('python3', ['--version']),
};

const cache = new Map<Tool, Problem | undefined>();
const reported = new Set<Tool>();

function problemOf(tool: Tool): Problem | undefined {
  if (!cache.has(tool)) cache.set(tool, probes[tool]());
  return cache.get(tool);
}

/** Why `tool` is missing, or undefined when it works. */
export function toolProblem(tool: Tool): string | undefined {
  return problemOf(tool)?.reason;
}

export const inCI = process.env.CI === 'true' || process.env.CI === '1';

/**
 * The `skip` option of a test that needs these tools: false when they all
 * work; otherwise the reason. Under CI a missing tool that an installation
 * supplies also adds a failing test that names it (once per test file), so
 * that the run cannot pass; one the machine itself lacks adds a passing
 * test that says so.
 */
export function needTools(...tools: Tool[]): string | false {
  const missing = tools.filter((t) => problemOf(t) !== undefined);
  if (missing.length === 0) return false;
  const reason = `skipped: ${missing.map((t) => toolProblem(t)).join('; ')}`;
  if (inCI) {
    for (const t of missing) {
      if (reported.has(t)) continue;
      reported.add(t);
      const problem = problemOf(t)!;
      if (problem.machine) {
        test(`CI=true: the oracle '${t}' cannot exist on this machine (${problem.reason}); its tests skip`, () => {});
        continue;
      }
      test(`CI=true: the oracle '${t}' is required`, () => {
        throw new Error(`CI=true and '${t}' is missing: ${problem.reason} (run scripts/install-system-tools.sh)`);
      });
    }
  }
  return reason;
}

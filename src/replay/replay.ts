// Replays a counterexample concretely: compiles the program with gcc and the
// harness of harness.ts, runs it under a time limit and reports whether the
// violation happened. A verifier reports FALSE only when this confirms it.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gccModeFlag, type DataModel } from '../common/data-model.js';
import { dataModelDependence } from './data-model.js';
import { emulatorOf, i386Runner, qemuI386Command } from './i386.js';
import { ASSERTION_MARKER, DIVERGED_MARKER, HARNESS_EXIT, REACHED_MARKER, SEGMENT_AT_ERROR_MARKER, SEGMENT_AT_EXIT_MARKER, TARGET_MARKER, harnessSource, type NondetValue } from './harness.js';
import { countsBlocks, detectsLeaks, isMemorySymptom, memoryFlags, memoryVerdict, type MemoryProperty, type MemorySymptom } from './memory.js';

/**
 * What a replay looks for: how a run shows a violation. The property table
 * says which symptom shows a violation of each property (and of each goal
 * kind); each has its gcc flags, harness options and reading of the run here.
 * - `error-call`: the error function is called;
 * - `failed-assert`: an `assert()` fails;
 * - `signed-overflow`: the sanitizer reports a signed overflow (`+ - *`, a
 *   negation, `INT_MIN / -1`, a signed `<<`);
 * - `division-by-zero`: the sanitizer reports an integer division by zero
 *   (signed arithmetic wraps);
 * - `endless-run`: with the cycle's values repeated (`cycleStart`) the run
 *   is still going at the time limit, without signed overflow;
 * - `data-race`: a run under a schedule shows it (`replaySchedule`,
 *   threads.ts); a run without one confirms none;
 * - memory (memory.ts): an invalid access or free, a lost block or one
 *   still allocated at exit, or any of the first three.
 */
export type Symptom = 'error-call' | 'failed-assert' | 'signed-overflow' | 'division-by-zero' | 'endless-run' | 'data-race' | MemorySymptom;

export type { DataModel };

export interface ReplayOptions {
  /** What the run must show (the property table's replay of the violated property or goal). */
  symptom: Symptom;
  dataModel: DataModel;
  /** The error function whose call is `error-call` (default `reach_error`). */
  errorFunction?: string;
  /** Wall-clock limit of the run of the compiled program (default 10 s). */
  timeoutMs?: number;
  /**
   * `endless-run`: the values from this index on repeat forever after the
   * last one (the cycle of a lasso); the violation is confirmed when the run
   * is still going at the time limit, without signed overflow or division by zero.
   */
  cycleStart?: number;
  /** gcc executable (default `gcc`, or `TARSIER_GCC`). */
  gcc?: string;
  /** More gcc flags (e.g. sanitizers whose reports make a run inconclusive). */
  extraFlags?: readonly string[];
  /**
   * A command that runs the compiled program (e.g. valgrind and its options),
   * given the program's path last. A -m32 program under it runs only where
   * the kernel runs 32-bit programs (never inside qemu-i386: the command
   * would watch the emulator).
   */
  runUnder?: readonly string[];
  /**
   * The program is a validator's instrumented one: report its waypoint
   * counter at a violation (a sanitizer error, the error function's call)
   * and at exit, and whether its target was passed (`path`). Memory
   * replays are compiled with -g, so an invalid access or free also gets
   * its line (`violationLine`).
   */
  tracePath?: boolean;
}

/** What a validator's instrumented program told about its path (`tracePath`). */
export interface ReplayPath {
  /** The target was passed (after the waypoints before it) before any sanitizer report. */
  readonly targetPassed: boolean;
  /** Waypoints passed when the sanitizer reported an error. */
  readonly atError?: number;
  /** Waypoints passed at exit. */
  readonly atExit?: number;
}

export type ReplayStatus =
  /** The violation happened. */
  | 'confirmed'
  /** The program ran with the values but no violation happened. */
  | 'not-confirmed'
  /** Replay impossible here (no gcc, no 32-bit libraries, compile error). */
  | 'unavailable';

export interface ReplayResult {
  status: ReplayStatus;
  /** One line saying why. */
  reason: string;
  /** gcc's `-m32`/`-m64` that was used. */
  mode?: '-m32' | '-m64';
  /** The emulator the -m32 program ran in (qemu-i386), where the kernel does not run 32-bit programs. */
  emulator?: string;
  /** `signed-overflow` and `division-by-zero`: `line:column` of the overflow or division that the sanitizer reported. */
  overflowAt?: { line: number; column: number };
  /** Memory replays: the sub-property the run violated. */
  violated?: MemoryProperty;
  /** Memory replays: the program line of an invalid access or free (with `tracePath`, or -g). */
  violationLine?: number;
  path?: ReplayPath;
  exitCode?: number | null;
  stderr?: string;
  /** The run was stopped at its time limit. */
  timedOut?: boolean;
}

const gccProbeCache = new Map<string, { gcc: boolean; m32: boolean; detail: string }>();

/**
 * Whether gcc exists and whether its `-m32` programs link and run here (by
 * the kernel, or under qemu-i386 where the kernel cannot); cached per executable.
 */
export function probeGcc(gcc = defaultGcc()): { gcc: boolean; m32: boolean; detail: string } {
  const cached = gccProbeCache.get(gcc);
  if (cached) return cached;
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-probe-'));
  let result: { gcc: boolean; m32: boolean; detail: string };
  try {
    const src = join(dir, 'p.c');
    writeFileSync(src, 'int main(void) { return sizeof(long) == 4 ? 0 : 1; }\n');
    const v = spawnSync(gcc, ['--version'], { encoding: 'utf8', timeout: 20000 });
    if (v.error || v.status !== 0) {
      result = { gcc: false, m32: false, detail: `gcc not available (${v.error?.message ?? 'exit ' + v.status})` };
    } else {
      const runner = i386Runner();
      if (runner === undefined) {
        const qemu = qemuI386Command();
        result = { gcc: true, m32: false, detail: `this kernel does not run 32-bit x86 programs (gcc -m32 programs cannot start), and ${qemu === undefined ? 'no emulator is tried (TARSIER_QEMU_I386 is empty)' : `${qemu} (qemu-user) does not run them`}` };
      } else {
        const c = spawnSync(gcc, ['-m32', src, '-o', join(dir, 'p')], { encoding: 'utf8', timeout: 60000 });
        const [cmd, ...args] = [...runner, join(dir, 'p')];
        const ok = c.status === 0 && spawnSync(cmd!, args, { timeout: 10000 }).status === 0;
        const emulator = emulatorOf(runner);
        const under = emulator ? ` under ${emulator}` : '';
        result = ok
          ? { gcc: true, m32: true, detail: `gcc -m32 links and runs${under}` }
          : { gcc: true, m32: false, detail: `gcc -m32 programs cannot be linked or run here${under} (${under ? 'no 32-bit C libraries' : 'no 32-bit C libraries, or a kernel without 32-bit support'})` };
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  gccProbeCache.set(gcc, result);
  return result;
}

/**
 * Sanitizers whose programs cannot run under qemu-i386: AddressSanitizer's
 * (and LeakSanitizer's) shadow memory makes them hang there; ThreadSanitizer's
 * runtime has no i386 version at all.
 */
function hangsUnderEmulation(flag: string): boolean {
  return /^-fsanitize=(.*,)?(address|leak|thread|kernel-address|hwaddress)(,|$)/.test(flag);
}

/** The statuses of a shell that could not run a file (a syntax error, not executable, not found). */
const SHELL_FAILURES = [2, 126, 127];
/** The statuses of qemu-i386 that could not load a program (not an i386 executable, its loader missing). */
const EMULATOR_FAILURES = [1, 255];

function defaultGcc(): string {
  return process.env.TARSIER_GCC ?? 'gcc';
}

/** UBSan's report of a signed overflow (a signed `<<` among them): its line, column and kind. */
export const OVERFLOW_MESSAGE =
  /:(\d+):(\d+): runtime error: (signed integer overflow|negation of .* cannot be represented|division of .* by -1 cannot be represented|left shift of .*)/;

/**
 * The flags under which gcc evaluates floating point as Tarsier's semantics
 * says (docs/verify.md): IEEE single and double evaluation (SSE, not the
 * x87 unit's excess precision, in -m32; long double stays x87 extended; the
 * 64-bit integer conversions that -m32 still does on the x87 unit rounded to
 * their type, which gcc's GNU dialects skip without the standard's excess
 * precision rules), no
 * fused a * b + c, and operations done at run time in the current rounding
 * mode rather than folded at compile time in the default one.
 */
export function floatFlags(mode: '-m32' | '-m64'): string[] {
  return [...(mode === '-m32' ? ['-msse2', '-mfpmath=sse'] : []), '-fexcess-precision=standard', '-ffp-contract=off', '-frounding-math'];
}

const DIVISION_MESSAGE = /:(\d+):(\d+): runtime error: division by zero/;

/** What the sanitizer checks for `signed-overflow`: the overflows of the model (a signed `<<` is one, as in SV-COMP) and division by zero. */
const OVERFLOW_SANITIZERS = 'signed-integer-overflow,shift-base,integer-divide-by-zero';

/** The gcc flags that give a run looking for `symptom` the model's semantics and make the symptom visible (`tracePath`: with the lines of memory errors). */
function symptomFlags(symptom: Symptom, tracePath: boolean): string[] {
  if (isMemorySymptom(symptom)) return [...memoryFlags(symptom), ...(tracePath ? ['-g'] : [])];
  switch (symptom) {
    case 'signed-overflow':
    case 'endless-run':
      return [`-fsanitize=${OVERFLOW_SANITIZERS}`, '-fno-sanitize-recover=all'];
    case 'division-by-zero':
      // Signed overflow is not what the run looks for: wrap as the model does.
      return ['-fwrapv', '-fsanitize=integer-divide-by-zero', '-fno-sanitize-recover=all'];
    default:
      // An error call, a failed assertion: signed overflow is not what the run looks for; wrap as the model does.
      return ['-fwrapv'];
  }
}

/**
 * Compiles `programPath` with the harness returning `values` in order, runs
 * it and classifies the run. Never throws for a failing compile or run; the
 * result says why.
 */
export function replayCounterexample(
  programPath: string,
  values: readonly NondetValue[],
  options: ReplayOptions,
): ReplayResult {
  const gcc = options.gcc ?? defaultGcc();
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-replay-'));
  try {
    const harness = join(dir, 'tarsier_harness.c');
    const symptom = options.symptom;
    const memory = isMemorySymptom(symptom) ? symptom : undefined;
    const tracePath = options.tracePath === true;
    writeFileSync(harness, harnessSource(values, options.errorFunction ?? 'reach_error', { countBlocks: memory !== undefined && countsBlocks(memory), cycleStart: options.cycleStart, tracePath, assertions: symptom === 'failed-assert' }));
    const exe = join(dir, 'replay');
    const flags = ['-O0', '-w', '-fno-builtin', '-fcommon', ...symptomFlags(symptom, tracePath), ...(options.extraFlags ?? [])];
    const env = {
      ...process.env,
      UBSAN_OPTIONS: 'print_stacktrace=0:halt_on_error=1',
      ASAN_OPTIONS: `detect_leaks=${memory && detectsLeaks(memory) ? 1 : 0}:detect_stack_use_after_return=1:halt_on_error=1`,
    };
    let mode = gccModeFlag(options.dataModel);
    // What runs a -m32 program: the kernel, or qemu-i386 where the kernel
    // cannot; but not for AddressSanitizer's program (it hangs in the
    // emulator) nor under a command of the caller's (valgrind would watch
    // the emulator): those fall back to -m64 below as where neither runs.
    const i386 = mode === '-m32' ? i386Runner() : [];
    // Emulation is several times slower than a native run (8× on a long
    // loop here): a program that means the same in LP64 (data-model.ts) runs
    // natively as -m64, as where no emulator exists; only a program whose
    // meaning depends on ILP32 is emulated.
    if (mode === '-m32' && i386 !== undefined && i386.length > 0 && meansTheSameInLp64(programPath)) mode = '-m64';
    const emulable = options.runUnder === undefined && !flags.some(hangsUnderEmulation);
    const m32Runner = i386 !== undefined && (i386.length === 0 || emulable) ? i386 : undefined;
    const build = (m: '-m32' | '-m64') => {
      const gccArgs = [m, ...floatFlags(m), ...flags, '-finstrument-functions', '-x', 'c', resolve(programPath), harness, '-o', exe, '-lm'];
      const c = spawnSync(gcc, gccArgs, { encoding: 'utf8', timeout: 120000, cwd: dir });
      if (c.error || c.status !== 0) return { compile: c };
      const emulator = m === '-m32' ? (m32Runner ?? []) : [];
      const [cmd, ...args] = [...(options.runUnder ?? []), ...emulator, exe];
      // The emulator runs the program in its own process: the time limit's kill stops both.
      const run = spawnSync(cmd!, args, { encoding: 'utf8', timeout: options.timeoutMs ?? 10000, cwd: dir, input: '', maxBuffer: 16 * 1024 * 1024, env });
      // Not started at all: a program this machine cannot run although the
      // kernel's question (i386.ts) passed, e.g. a 32-bit one without its
      // runtime. The system may hand a file it cannot execute to the shell,
      // which fails with a shell's status (qemu-i386 with its own); then the
      // probe (cached) decides.
      const notStarted =
        ['ENOEXEC', 'EACCES', 'ENOENT'].includes((run.error as NodeJS.ErrnoException | undefined)?.code ?? '') ||
        (m === '-m32' && (emulator.length ? EMULATOR_FAILURES : SHELL_FAILURES).includes(run.status ?? -1) && !probeGcc(gcc).m32);
      return notStarted ? { compile: c } : { run };
    };
    // A machine that cannot run the -m32 program is known before gcc builds one.
    let built = mode === '-m32' && m32Runner === undefined ? undefined : build(mode);
    // gcc is probed only when this fails: is gcc missing, or can -m32 programs not be linked and run here?
    if (!built || built.compile) {
      const probe = probeGcc(gcc);
      if (!probe.gcc) return { status: 'unavailable', reason: `cannot replay: ${probe.detail}` };
      if (mode === '-m32' && (!probe.m32 || m32Runner === undefined)) {
        const why = probe.m32
          ? `this kernel does not run 32-bit x86 programs (${options.runUnder ? 'and a program run under another command is not emulated' : "and AddressSanitizer's hang under qemu-i386"})`
          : probe.detail;
        let text: string;
        try {
          text = readFileSync(programPath, 'utf8');
        } catch (e) {
          return { status: 'unavailable', reason: `cannot replay: ${(e as Error).message}` };
        }
        const dep = dataModelDependence(text);
        if (dep !== undefined) {
          return {
            status: 'unavailable',
            reason: `cannot replay: ${why}, and the program uses '${dep}', whose meaning differs between ILP32 and LP64`,
          };
        }
        mode = '-m64';
        built = build(mode);
      }
    }
    const run = built?.run;
    if (!run) {
      const c = built!.compile!;
      const msg = (c.stderr || c.error?.message || '').split('\n').find((l) => /error/.test(l)) ?? (c.status === 0 ? 'the compiled program could not be started' : 'unknown failure');
      return { status: 'unavailable', mode, reason: `cannot replay: gcc failed: ${msg.trim()}` };
    }
    const stderr = run.stderr ?? '';
    const emulator = mode === '-m32' && m32Runner ? emulatorOf(m32Runner) : undefined;
    const base = { mode, ...(emulator ? { emulator } : {}), exitCode: run.status, stderr: stderr.slice(0, 4000) };
    // How the run was made, for a confirmation's reason: `gcc -m32 <flags> under qemu-i386`.
    const how = (sanitizer = '') => `gcc ${mode}${sanitizer}${emulator ? ` under ${emulator}` : ''}`;
    const timedOut = run.error && (run.error as NodeJS.ErrnoException).code === 'ETIMEDOUT';
    if (symptom === 'endless-run') {
      if (timedOut && !stderr.includes(DIVERGED_MARKER) && !OVERFLOW_MESSAGE.test(stderr)) {
        return { ...base, status: 'confirmed', reason: `replay (${how()}): still running after ${(options.timeoutMs ?? 10000) / 1000} s with the cycle's values repeated` };
      }
      const why = stderr.includes(DIVERGED_MARKER) ? 'the run took another path' : `the program ended (exit ${run.status ?? run.signal})`;
      return { ...base, status: 'not-confirmed', reason: `replay: ${why}` };
    }
    if (timedOut) {
      return { ...base, status: 'not-confirmed', timedOut: true, reason: 'replay: the program did not end within the time limit' };
    }
    if (stderr.includes(DIVERGED_MARKER)) {
      return { ...base, status: 'not-confirmed', reason: 'replay: the run took another path (nondet calls differ from the counterexample)' };
    }
    if (memory) {
      return { ...base, ...memoryVerdict(memory, stderr, mode, run.status ?? run.signal, programPath), ...(tracePath ? { path: pathOf(stderr) } : {}) };
    }
    const path = tracePath ? { path: pathOf(stderr) } : {};
    if (symptom === 'failed-assert') {
      const failed = new RegExp(`${ASSERTION_MARKER} (.*):(\\d+): (.*)`).exec(stderr);
      if (run.status === HARNESS_EXIT.assertionFailed && failed) {
        return { ...base, status: 'confirmed', reason: `replay (${how()}): assertion '${failed[3]}' failed${failed[2] !== '0' ? ` at line ${failed[2]}` : ''}` };
      }
      return { ...base, status: 'not-confirmed', reason: `replay: no assertion failed (exit ${run.status ?? run.signal})` };
    }
    if (symptom === 'division-by-zero') {
      const m = DIVISION_MESSAGE.exec(stderr);
      if (m) return { ...base, status: 'confirmed', overflowAt: { line: Number(m[1]), column: Number(m[2]) }, reason: `replay (${how(' -fsanitize=integer-divide-by-zero')}): division by zero at line ${m[1]}` };
      return { ...base, status: 'not-confirmed', reason: `replay: no division by zero happened (exit ${run.status ?? run.signal})` };
    }
    if (symptom === 'error-call') {
      if (run.status === HARNESS_EXIT.reached && stderr.includes(REACHED_MARKER)) {
        return { ...base, ...path, status: 'confirmed', reason: `replay (${how()}): ${options.errorFunction ?? 'reach_error'} was called` };
      }
      return { ...base, status: 'not-confirmed', reason: `replay: the error function was not called (exit ${run.status ?? run.signal})` };
    }
    if (symptom === 'data-race') {
      return { ...base, status: 'not-confirmed', reason: `replay: a data race shows only in a run under a schedule (exit ${run.status ?? run.signal})` };
    }
    const m = OVERFLOW_MESSAGE.exec(stderr);
    if (m) {
      return {
        ...base,
        ...path,
        status: 'confirmed',
        overflowAt: { line: Number(m[1]), column: Number(m[2]) },
        reason: `replay (${how(' -fsanitize=signed-integer-overflow,shift-base')}): ${m[3]!.startsWith('signed') ? 'signed integer overflow' : m[3]} at line ${m[1]}`,
      };
    }
    return { ...base, status: 'not-confirmed', reason: `replay: no signed overflow happened (exit ${run.status ?? run.signal})` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Whether the program's text reads the same under ILP32 and LP64; false when it cannot be read. */
function meansTheSameInLp64(programPath: string): boolean {
  try {
    return dataModelDependence(readFileSync(programPath, 'utf8')) === undefined;
  } catch {
    return false;
  }
}

/** The path markers of an instrumented program's run. */
function pathOf(stderr: string): ReplayPath {
  const count = (marker: string) => {
    const m = new RegExp(`${marker} (\\d+)`).exec(stderr);
    return m ? { n: Number(m[1]), at: m.index } : undefined;
  };
  const report = stderr.search(/ERROR: (Address|Leak)Sanitizer|runtime error:|TARSIER-REPLAY: error function reached/);
  const target = stderr.indexOf(TARGET_MARKER);
  const atError = count(SEGMENT_AT_ERROR_MARKER);
  const atExit = count(SEGMENT_AT_EXIT_MARKER);
  return {
    targetPassed: target >= 0 && (report < 0 || target < report),
    ...(atError ? { atError: atError.n } : {}),
    ...(atExit ? { atExit: atExit.n } : {}),
  };
}

// Replay of memory-safety violations: AddressSanitizer shows invalid
// accesses and frees, LeakSanitizer lost blocks (valid-memtrack), and an
// allocator wrapped around the program's malloc/free counts the blocks still
// allocated at exit (valid-memcleanup, where a block a global still points
// to counts too).

import { basename } from 'node:path';
import { LIVE_BLOCKS_MARKER } from './harness.js';

/** The memory sub-properties a run can show violated (the goal kinds of the memory-safety pass). */
export const MEMORY_PROPERTIES = ['valid-deref', 'valid-free', 'valid-memtrack', 'valid-memcleanup'] as const;
export type MemoryProperty = (typeof MEMORY_PROPERTIES)[number];
/**
 * What a memory replay looks for: one sub-property, or `memory-error`, any
 * of an invalid access, an invalid free and a lost block (a validator does
 * not know in advance which one a witness shows).
 */
export type MemorySymptom = MemoryProperty | 'memory-error';

/** What `memory-error` accepts. */
const MEMORY_ERRORS: readonly MemoryProperty[] = ['valid-deref', 'valid-free', 'valid-memtrack'];

/** Sub-properties a run violates at its end (a block lost or still allocated), at no statement of their own. */
const AT_EXIT: readonly MemoryProperty[] = ['valid-memtrack', 'valid-memcleanup'];

/** Whether a replay looking for `symptom` is a memory replay (this module's). */
export function isMemorySymptom(symptom: string): symptom is MemorySymptom {
  return symptom === 'memory-error' || (MEMORY_PROPERTIES as readonly string[]).includes(symptom);
}

/** Whether the run shows a violation of `property` at its end rather than at a statement (a leak). */
export function shownAtExit(property: MemoryProperty): boolean {
  return AT_EXIT.includes(property);
}

/** gcc flags of a memory-safety replay. */
export function memoryFlags(symptom: MemorySymptom): string[] {
  const flags = ['-fsanitize=address', '-fno-omit-frame-pointer', '-fno-common'];
  if (symptom === 'valid-memcleanup') flags.push('-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free');
  return flags;
}

/** Whether the run looks for leaks (LeakSanitizer at exit). */
export function detectsLeaks(symptom: MemorySymptom): boolean {
  return symptom === 'valid-memtrack' || symptom === 'memory-error';
}

/** Whether the harness counts the blocks still allocated at exit. */
export function countsBlocks(symptom: MemorySymptom): boolean {
  return symptom === 'valid-memcleanup';
}

export interface SanitizerViolation {
  readonly property: MemoryProperty;
  readonly what: string;
  /** The line of the innermost stack frame in `programFile` (compiled with -g), for an invalid access or free. */
  readonly line?: number;
}

/** The sub-property an AddressSanitizer report violates (and, given the program's file, where in it). */
export function sanitizerViolation(stderr: string, programFile?: string): SanitizerViolation | undefined {
  // A block only leaked blocks point to (an indirect leak, as in a lost
  // cycle) is untracked too: the tracked blocks are those reached from the
  // program's variables.
  const leak = /ERROR: LeakSanitizer: detected memory leaks/.test(stderr) ? /(Direct|Indirect) leak/.exec(stderr) : null;
  if (leak) return { property: 'valid-memtrack', what: `LeakSanitizer: ${leak[1] === 'Direct' ? 'a direct leak' : 'an indirect leak (a lost cycle of blocks)'}` };
  const m = /ERROR: AddressSanitizer: (.*?)(?: on | in |$)/m.exec(stderr);
  if (!m) return undefined;
  const what = m[1]!;
  const line = programFile === undefined ? undefined : reportLine(stderr.slice(m.index), basename(programFile));
  const at = line === undefined ? {} : { line };
  if (/^(attempting (double-)?free|bad-free|alloc-dealloc-mismatch)/.test(what)) {
    return { property: 'valid-free', what: `AddressSanitizer: ${what}`, ...at };
  }
  if (/^(heap-buffer-overflow|stack-buffer-overflow|global-buffer-overflow|dynamic-stack-buffer-overflow|heap-use-after-free|stack-use-after-return|stack-use-after-scope|SEGV|stack-buffer-underflow|unknown-crash)/.test(what)) {
    return { property: 'valid-deref', what: `AddressSanitizer: ${what}`, ...at };
  }
  return undefined;
}

/** The line of the first frame of the report's first stack trace that lies in the file (library interceptors come before it). */
function reportLine(report: string, file: string): number | undefined {
  let inTrace = false;
  for (const l of report.split('\n')) {
    const frame = /^\s*#\d+ 0x[0-9a-f]+ in \S+ (.+?):(\d+)(?::\d+)?\s*$/.exec(l);
    if (frame && basename(frame[1]!) === file) return Number(frame[2]);
    if (/^\s*#\d+ /.test(l)) inTrace = true;
    else if (inTrace) return undefined;
  }
  return undefined;
}

/** Whether the replayed run shows `symptom` (for `memory-error`: which sub-property it violates, named in `violated`). */
export function memoryVerdict(
  symptom: MemorySymptom,
  stderr: string,
  mode: string,
  exit: number | string | null,
  programFile?: string,
): { status: 'confirmed' | 'not-confirmed'; reason: string; violated?: MemoryProperty; violationLine?: number } {
  if (countsBlocks(symptom)) {
    const m = new RegExp(`${LIVE_BLOCKS_MARKER} (\\d+)`).exec(stderr);
    if (m && !/ERROR: AddressSanitizer/.test(stderr)) {
      return { status: 'confirmed', violated: 'valid-memcleanup', reason: `replay (gcc ${mode}, counting allocator): ${m[1]} heap block(s) still allocated at exit` };
    }
    return { status: 'not-confirmed', reason: `replay: no heap block was still allocated at exit (exit ${exit})` };
  }
  const found = sanitizerViolation(stderr, programFile);
  const at = found?.line === undefined ? {} : { violationLine: found.line };
  if (found && (found.property === symptom || (symptom === 'memory-error' && MEMORY_ERRORS.includes(found.property)))) {
    return { status: 'confirmed', violated: found.property, ...at, reason: `replay (gcc ${mode} -fsanitize=address): ${found.what}${found.line === undefined ? '' : ` at line ${found.line}`}` };
  }
  return {
    status: 'not-confirmed',
    reason: found ? `replay: ${found.what}, which is not ${symptom}` : `replay: AddressSanitizer reported no ${symptom === 'memory-error' ? 'memory-safety' : symptom} violation (exit ${exit})`,
  };
}

// Replay of memory-safety violations: AddressSanitizer shows invalid
// accesses and frees, LeakSanitizer lost blocks (valid-memtrack), and an
// allocator wrapped around the program's malloc/free counts the blocks still
// allocated at exit (valid-memcleanup, where a block a global still points
// to counts too).

import { LIVE_BLOCKS_MARKER } from './harness.js';

export const MEMORY_PROPERTIES = ['valid-deref', 'valid-free', 'valid-memtrack', 'valid-memcleanup'] as const;
export type MemoryProperty = (typeof MEMORY_PROPERTIES)[number];

/** gcc flags of a memory-safety replay. */
export function memoryFlags(property: MemoryProperty): string[] {
  const flags = ['-fsanitize=address', '-fno-omit-frame-pointer', '-fno-common'];
  if (property === 'valid-memcleanup') flags.push('-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free');
  return flags;
}

/** The sub-property an AddressSanitizer report violates. */
export function sanitizerViolation(stderr: string): { property: MemoryProperty; what: string } | undefined {
  if (/ERROR: LeakSanitizer: detected memory leaks/.test(stderr) && /Direct leak/.test(stderr)) {
    return { property: 'valid-memtrack', what: 'LeakSanitizer: a direct leak' };
  }
  const m = /ERROR: AddressSanitizer: (.*?)(?: on | in |$)/m.exec(stderr);
  if (!m) return undefined;
  const what = m[1]!;
  if (/^(attempting (double-)?free|bad-free|alloc-dealloc-mismatch)/.test(what)) {
    return { property: 'valid-free', what: `AddressSanitizer: ${what}` };
  }
  if (/^(heap-buffer-overflow|stack-buffer-overflow|global-buffer-overflow|dynamic-stack-buffer-overflow|heap-use-after-free|stack-use-after-return|stack-use-after-scope|SEGV|stack-buffer-underflow|unknown-crash)/.test(what)) {
    return { property: 'valid-deref', what: `AddressSanitizer: ${what}` };
  }
  return undefined;
}

/** Whether the replayed run shows the violation of `property`. */
export function memoryVerdict(
  property: MemoryProperty,
  stderr: string,
  mode: string,
  exit: number | string | null,
): { status: 'confirmed' | 'not-confirmed'; reason: string } {
  if (property === 'valid-memcleanup') {
    const m = new RegExp(`${LIVE_BLOCKS_MARKER} (\\d+)`).exec(stderr);
    if (m && !/ERROR: AddressSanitizer/.test(stderr)) {
      return { status: 'confirmed', reason: `replay (gcc ${mode}, counting allocator): ${m[1]} heap block(s) still allocated at exit` };
    }
    return { status: 'not-confirmed', reason: `replay: no heap block was still allocated at exit (exit ${exit})` };
  }
  const found = sanitizerViolation(stderr);
  if (found?.property === property) {
    return { status: 'confirmed', reason: `replay (gcc ${mode} -fsanitize=address): ${found.what}` };
  }
  return {
    status: 'not-confirmed',
    reason: found ? `replay: ${found.what}, which is not ${property}` : `replay: AddressSanitizer reported no ${property} violation (exit ${exit})`,
  };
}

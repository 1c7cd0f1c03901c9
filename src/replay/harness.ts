// The C harness that replays a counterexample: it defines every
// `__VERIFIER_nondet_*` function to return the recorded values in order and
// detects the call of the error function through gcc's function
// instrumentation (`-finstrument-functions`), which works whether or not the
// program itself defines the error function.

/** One value returned by one `__VERIFIER_nondet_*` call on the path. */
export interface NondetValue {
  /** The called function, e.g. `__VERIFIER_nondet_int`. */
  function: string;
  /** The value, as a mathematical integer (sign as the C type reads it); for `float` and `double`, its IEEE bits. */
  value: bigint;
  /** How many calls in a row return it (absent: one); the iterations of a loop jumped over may make billions. */
  repeat?: bigint;
}

/** A nondet value that `JSON.stringify` writes as `{function, value: "<decimal>"}` (a BigInt has no JSON form): library results stay plain JSON. */
export function nondetValue(fn: string, value: bigint, repeat = 1n): NondetValue {
  const many = repeat !== 1n;
  return Object.defineProperty({ function: fn, value, ...(many ? { repeat } : {}) }, 'toJSON', {
    value: () => ({ function: fn, value: String(value), ...(many ? { repeat: String(repeat) } : {}) }),
    enumerable: false,
  });
}

/** How many nondet calls the values stand for (a repeated value counts each call). */
export function nondetCalls(values: readonly NondetValue[]): bigint {
  return values.reduce((n, v) => n + (v.repeat ?? 1n), 0n);
}

/** `f()=v`, with `(n times)` for a repeated value (for messages). */
export function describeNondet(v: NondetValue, sep = '='): string {
  return `${v.function}()${sep}${v.value}${v.repeat !== undefined ? ` (${v.repeat} times)` : ''}`;
}

/** Exit codes the harness uses; chosen to be unlikely program exit codes. */
export const HARNESS_EXIT = {
  reached: 86,
  diverged: 85,
  assumeFailed: 84,
  assertionFailed: 83,
} as const;

export const REACHED_MARKER = 'TARSIER-REPLAY: error function reached';
export const ASSERTION_MARKER = 'TARSIER-REPLAY: assertion failed:';

/** The functions a failing assert() calls (glibc's and musl's, glibc's perror variant, BSD's). */
const ASSERT_FAILURE_HOOKS = [
  'void __assert_fail(const char *e, const char *file, unsigned line, const char *fn) { (void)fn; tarsier_assertion(file, line, e); }',
  'void __assert_perror_fail(int err, const char *file, unsigned line, const char *fn) { (void)err; (void)fn; tarsier_assertion(file, line, "(errno)"); }',
  'void __assert(const char *e, const char *file, int line) { tarsier_assertion(file, (unsigned)line, e); }',
];
export const DIVERGED_MARKER = 'TARSIER-REPLAY: diverged';
export const LIVE_BLOCKS_MARKER = 'TARSIER-REPLAY: heap blocks still allocated at exit:';
/** Path markers of a validator's instrumented program (its waypoint counter `__tarsier_seg`). */
export const TARGET_MARKER = 'TARSIER-REPLAY: target passed';
export const SEGMENT_AT_ERROR_MARKER = 'TARSIER-REPLAY: waypoints passed at the error:';
export const SEGMENT_AT_EXIT_MARKER = 'TARSIER-REPLAY: waypoints passed at exit:';

/** The nondet functions of the competition rules and their C return types. */
export const NONDET_TYPES: Readonly<Record<string, string>> = {
  __VERIFIER_nondet_bool: '_Bool',
  __VERIFIER_nondet_char: 'char',
  __VERIFIER_nondet_uchar: 'unsigned char',
  __VERIFIER_nondet_short: 'short',
  __VERIFIER_nondet_ushort: 'unsigned short',
  __VERIFIER_nondet_int: 'int',
  __VERIFIER_nondet_uint: 'unsigned int',
  __VERIFIER_nondet_unsigned: 'unsigned int',
  __VERIFIER_nondet_u32: 'unsigned int',
  __VERIFIER_nondet_long: 'long',
  __VERIFIER_nondet_ulong: 'unsigned long',
  __VERIFIER_nondet_longlong: 'long long',
  __VERIFIER_nondet_ulonglong: 'unsigned long long',
  __VERIFIER_nondet_loff_t: 'long long',
  __VERIFIER_nondet_sector_t: 'unsigned long long',
  __VERIFIER_nondet_size_t: 'unsigned long',
  __VERIFIER_nondet_pointer: 'void *',
  __VERIFIER_nondet_pchar: 'char *',
};

/** The floating nondet functions: their C type and the unsigned type of their bits (the harness returns the bits' value). */
export const NONDET_FLOAT_TYPES: Readonly<Record<string, { readonly type: string; readonly bits: string }>> = {
  __VERIFIER_nondet_float: { type: 'float', bits: 'unsigned int' },
  __VERIFIER_nondet_double: { type: 'double', bits: 'unsigned long long' },
};

/**
 * gcc -m32 gets float and double results of libm in the x87 register, and
 * glibc's i386 square roots leave them in extended precision: (double)
 * sqrtf(x) then has more bits than a float. These definitions (weak: a
 * program's own wins) give IEEE's correctly rounded results through SSE.
 */
export const I386_MATH_OVERRIDES = [
  '#if defined(__i386__) && defined(__SSE2_MATH__)',
  '__attribute__((weak, no_instrument_function)) double sqrt(double x) { double r; __asm__("sqrtsd %1, %0" : "=x"(r) : "x"(x)); return r; }',
  '__attribute__((weak, no_instrument_function)) float sqrtf(float x) { float r; __asm__("sqrtss %1, %0" : "=x"(r) : "x"(x)); return r; }',
  '#endif',
];

function cString(s: string): string {
  return '"' + s.replace(/[\\"]/g, (c) => '\\' + c) + '"';
}

/**
 * The harness source. `errorFunction` is the function whose call violates
 * unreach-call (`reach_error` or the legacy `__VERIFIER_error`); for
 * no-overflow it is still hooked but the caller ignores it.
 */
export function harnessSource(values: readonly NondetValue[], errorFunction: string, options: { countBlocks?: boolean; cycleStart?: number; tracePath?: boolean; assertions?: boolean } = {}): string {
  const cycleStart = options.cycleStart;
  if (!/^[A-Za-z_]\w*$/.test(errorFunction)) throw new Error(`bad error function name ${errorFunction}`);
  const lines: string[] = [];
  lines.push('/* Generated by tarsier: replays one counterexample. */');
  // The few libc declarations it needs, without the headers: parsing those
  // was half the harness's compile time. (The harness is a unit of its own,
  // so these never meet the program's declarations.)
  lines.push(
    'typedef struct _IO_FILE FILE;',
    'extern FILE *stderr;',
    'int fputs(const char *, FILE *);',
    'int fputc(int, FILE *);',
    'int fflush(FILE *);',
    'int fprintf(FILE *, const char *, ...);',
    'int strcmp(const char *, const char *);',
    'void abort(void);',
    'void _exit(int);',
    'typedef __SIZE_TYPE__ size_t;',
    'typedef __UINTPTR_TYPE__ uintptr_t;',
  );
  lines.push('#define NI __attribute__((no_instrument_function))');
  lines.push(...I386_MATH_OVERRIDES);
  const vals = values.map((v) => `${BigInt.asUintN(64, v.value)}ULL`);
  const names = values.map((v) => cString(v.function));
  lines.push(`static const unsigned long long tarsier_vals[] = { ${vals.join(', ') || '0ULL'} };`);
  const repeats = values.map((v) => `${v.repeat ?? 1n}ULL`);
  lines.push(`static const char *const tarsier_names[] = { ${names.join(', ') || '""'} };`);
  lines.push(`static const unsigned long long tarsier_repeats[] = { ${repeats.join(', ') || '1ULL'} };`);
  lines.push(`static const unsigned tarsier_count = ${values.length}u;`);
  lines.push('static unsigned tarsier_next_index = 0;');
  // A value that repeats: how many more calls of which function return it.
  // Those calls take a fast path (the program is built without optimisation,
  // and a loop jumped over may make billions of them).
  lines.push('static unsigned long long tarsier_value, tarsier_left = 0;');
  lines.push('static const char *tarsier_left_for = 0;');
  // A lasso (non-termination): after the last value, the values from cycleStart on repeat forever.
  const wrap = cycleStart !== undefined && cycleStart < values.length ? cycleStart : -1;
  lines.push(`static const int tarsier_cycle_start = ${wrap};`);
  lines.push(`NI static void tarsier_say(const char *s) { fputs(s, stderr); fputc('\\n', stderr); fflush(stderr); }`);
  if (options.tracePath) lines.push('NI static void tarsier_segments_at_error(void);');
  lines.push(
    'NI static unsigned long long tarsier_next(const char *name) {',
    '  if (tarsier_next_index >= tarsier_count && tarsier_cycle_start >= 0) tarsier_next_index = (unsigned)tarsier_cycle_start;',
    '  if (tarsier_left != 0 || tarsier_next_index >= tarsier_count || strcmp(name, tarsier_names[tarsier_next_index]) != 0) {',
    `    fprintf(stderr, "${DIVERGED_MARKER} at nondet call %u (%s)\\n", tarsier_next_index, name);`,
    `    fflush(stderr); _exit(${HARNESS_EXIT.diverged});`,
    '  }',
    '  tarsier_value = tarsier_vals[tarsier_next_index];',
    '  tarsier_left = tarsier_repeats[tarsier_next_index++] - 1;',
    '  tarsier_left_for = name;',
    '  return tarsier_value;',
    '}',
  );
  // The next value for a function whose name is `n` (a static array: the fast path compares its address).
  const next = (fn: string) => `static const char n[] = ${cString(fn)}; unsigned long long r = tarsier_left != 0 && tarsier_left_for == n ? (tarsier_left--, tarsier_value) : tarsier_next(n);`;
  for (const [fn, type] of Object.entries(NONDET_TYPES)) {
    const conv = type.endsWith('*') ? `(${type})(uintptr_t)` : `(${type})`;
    lines.push(`NI ${type} ${fn}(void) { ${next(fn)} return ${conv}r; }`);
  }
  for (const [fn, { type, bits }] of Object.entries(NONDET_FLOAT_TYPES)) {
    lines.push(`NI ${type} ${fn}(void) { ${next(fn)} union { ${bits} bits; ${type} value; } v; v.bits = (${bits})r; return v.value; }`);
  }
  // Weak definitions: used only when the program declares but does not define them.
  lines.push(
    `__attribute__((weak)) NI void ${errorFunction}(void) { ${options.tracePath ? 'tarsier_segments_at_error(); ' : ''}tarsier_say(${cString(REACHED_MARKER)}); _exit(${HARNESS_EXIT.reached}); }`,
  );
  // The other error functions of the rules, as SV-COMP defines them (abort).
  for (const other of ['reach_error', '__VERIFIER_error']) {
    if (other !== errorFunction) lines.push(`__attribute__((weak)) NI void ${other}(void) { abort(); }`);
  }
  lines.push(
    `__attribute__((weak)) NI void __VERIFIER_assume(int c) { if (!c) { tarsier_say("TARSIER-REPLAY: assume failed"); _exit(${HARNESS_EXIT.assumeFailed}); } }`,
  );
  if (options.assertions) {
    // A failing assert() says where and exits with its own status, instead of
    // glibc's message and abort (the harness's definitions win over libc's).
    lines.push(
      `NI static void tarsier_assertion(const char *file, unsigned line, const char *e) { fprintf(stderr, "${ASSERTION_MARKER} %s:%u: %s\\n", file, line, e); fflush(stderr); _exit(${HARNESS_EXIT.assertionFailed}); }`,
      ...ASSERT_FAILURE_HOOKS.map((h) => `NI ${h}`),
    );
  }
  // An assert() of the rules' kind that the program declares but does not define.
  lines.push(`__attribute__((weak)) NI void __VERIFIER_assert(int c) { if (!c) ${options.assertions ? 'tarsier_assertion("", 0, "__VERIFIER_assert")' : 'abort()'}; }`);
  if (options.countBlocks) {
    // The program's own allocations (linked with --wrap), counted; the count is told at exit.
    lines.push(
      'void *__real_malloc(size_t); void *__real_calloc(size_t, size_t); void *__real_realloc(void *, size_t); void __real_free(void *);',
      'static long tarsier_live_blocks;',
      'NI void *__wrap_malloc(size_t n) { void *p = __real_malloc(n); if (p) tarsier_live_blocks++; return p; }',
      'NI void *__wrap_calloc(size_t k, size_t n) { void *p = __real_calloc(k, n); if (p) tarsier_live_blocks++; return p; }',
      'NI void *__wrap_realloc(void *q, size_t n) { void *p = __real_realloc(q, n); if (!q && p) tarsier_live_blocks++; if (q && !n) tarsier_live_blocks--; return p; }',
      'NI void __wrap_free(void *p) { if (p) tarsier_live_blocks--; __real_free(p); }',
      `__attribute__((destructor)) NI static void tarsier_at_exit(void) { if (tarsier_live_blocks > 0) { fprintf(stderr, "${LIVE_BLOCKS_MARKER} %ld\\n", tarsier_live_blocks); fflush(stderr); } }`,
    );
  }
  if (options.tracePath) {
    // A validator's instrumented program counts the waypoints passed in
    // `__tarsier_seg` and calls `__tarsier_target` where its target is
    // passed; the count is told when a sanitizer reports an error and at exit.
    lines.push(
      'extern unsigned int __tarsier_seg __attribute__((weak));',
      `NI void __tarsier_target(void) { tarsier_say(${cString(TARGET_MARKER)}); }`,
      `NI static void tarsier_segments_at_error(void) { if (&__tarsier_seg) { fprintf(stderr, "${SEGMENT_AT_ERROR_MARKER} %u\\n", __tarsier_seg); fflush(stderr); } }`,
      'NI void __asan_on_error(void) { tarsier_segments_at_error(); }',
      // UBSan (an overflow) has no such hook: the sanitizers' death callback tells it.
      'extern void __sanitizer_set_death_callback(void (*)(void)) __attribute__((weak));',
      '__attribute__((constructor)) NI static void tarsier_trace_init(void) { if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(tarsier_segments_at_error); }',
      `__attribute__((destructor)) NI static void tarsier_segments_at_exit(void) { if (&__tarsier_seg) { fprintf(stderr, "${SEGMENT_AT_EXIT_MARKER} %u\\n", __tarsier_seg); fflush(stderr); } }`,
    );
  }
  lines.push(
    // A schedule replay's runtime (threads.ts) learns of the calls of atomic functions.
    'extern void tarsier_function_hook(void *, int) __attribute__((weak));',
    'NI void __cyg_profile_func_enter(void *fn, void *site) {',
    '  (void)site;',
    `  if (fn == (void *)${errorFunction}) { ${options.tracePath ? 'tarsier_segments_at_error(); ' : ''}tarsier_say(${cString(REACHED_MARKER)}); _exit(${HARNESS_EXIT.reached}); }`,
    '  if (tarsier_function_hook) tarsier_function_hook(fn, 1);',
    '}',
    'NI void __cyg_profile_func_exit(void *fn, void *site) { (void)site; if (tarsier_function_hook) tarsier_function_hook(fn, 0); }',
  );
  return lines.join('\n') + '\n';
}

// Whether a C program means the same under ILP32 and LP64. gcc on this kind
// of machine may lack the 32-bit libraries (`gcc -m32` compiles but cannot
// link), so an ILP32 counterexample can only be replayed with `-m64` when no
// type of the program changes size between the two data models.

/** Identifiers whose presence makes the program's meaning data-model dependent. */
const MODEL_DEPENDENT = new Set([
  'sizeof', '_Alignof', '__alignof__', '__alignof', 'offsetof', '__builtin_offsetof',
  'size_t', 'ssize_t', 'ptrdiff_t', 'intptr_t', 'uintptr_t', 'time_t', 'off_t', 'clock_t',
  '__SIZE_TYPE__', '__PTRDIFF_TYPE__', '__INTPTR_TYPE__', '__UINTPTR_TYPE__',
  'malloc', 'calloc', 'realloc', 'alloca', '__builtin_alloca',
  '__VERIFIER_nondet_long', '__VERIFIER_nondet_ulong', '__VERIFIER_nondet_size_t',
  '__VERIFIER_nondet_pointer', '__VERIFIER_nondet_pchar', '__VERIFIER_nondet_pthread_t',
  'long double',
]);

/** Identifiers and keywords of the text, without comments, strings and preprocessor lines. */
export function identifierTokens(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  const n = text.length;
  let lineStart = true;
  while (i < n) {
    const c = text[i]!;
    if (c === '\n') { lineStart = true; i++; continue; }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\f' || c === '\v') { i++; continue; }
    if (lineStart && c === '#') {
      // Preprocessor line (with continuations); `# 12 "file"` markers too.
      while (i < n && text[i] !== '\n') { if (text[i] === '\\' && text[i + 1] === '\n') i++; i++; }
      continue;
    }
    lineStart = false;
    if (c === '/' && text[i + 1] === '/') { while (i < n && text[i] !== '\n') i++; continue; }
    if (c === '/' && text[i + 1] === '*') { const e = text.indexOf('*/', i + 2); i = e < 0 ? n : e + 2; continue; }
    if (c === '"' || c === "'") {
      i++;
      while (i < n && text[i] !== c && text[i] !== '\n') i += text[i] === '\\' ? 2 : 1;
      i++;
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < n && /\w/.test(text[j]!)) j++;
      out.push(text.slice(i, j));
      i = j;
      continue;
    }
    if (/[0-9]/.test(c)) { let j = i + 1; while (j < n && /[\w.]/.test(text[j]!)) j++; out.push('0'); i = j; continue; }
    out.push(c);
    i++;
  }
  return out;
}

/**
 * The first construct of `text` whose meaning differs between ILP32 and LP64,
 * or undefined when the program reads the same in both (conservative: a
 * plain `long`, `sizeof`, size types and allocation all count).
 */
export function dataModelDependence(text: string): string | undefined {
  const toks = identifierTokens(text);
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!;
    // `(void) sizeof (...)` (assert.h's expansion) discards the size.
    if (t === 'sizeof' && toks[i - 1] === ')' && toks[i - 2] === 'void' && toks[i - 3] === '(') continue;
    if (MODEL_DEPENDENT.has(t)) return t;
    if (t === 'long') {
      if (toks[i + 1] === 'long') { i++; continue; }
      if (toks[i + 1] === 'double') return 'long double';
      // `long unsigned long`, `long int long` are legal but rare: treat as dependent.
      return 'long';
    }
  }
  return undefined;
}

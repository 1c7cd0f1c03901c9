// Concrete cross-check of a selection on a C program: simple candidates are
// generated per loop (comparisons of the integer variables in scope), and
// the selected ones are compiled into the program as checks at the loop head
// (the first operand of a comma in the loop condition), so that gcc-built
// runs with random nondet values can falsify a candidate that was wrongly
// selected.
import type { CProgram, Expr as CExpr, FunctionDecl, Stmt as CStmt } from '../c/index.js';
import { forEachStatement, isInteger, parseExpressionAt, unqualified } from '../c/index.js';
import type { CCandidate } from './c-candidates.js';

type CLoop = Extract<CStmt, { kind: 'While' | 'For' }>;

function loopsOf(program: CProgram): Array<{ loop: CLoop; fn: FunctionDecl }> {
  const out: Array<{ loop: CLoop; fn: FunctionDecl }> = [];
  for (const d of program.declarations) {
    if (d.kind !== 'FunctionDefinition' || d.decl.loc.file !== program.file) continue;
    forEachStatement(d.body, (s) => {
      if (s.kind === 'While' || s.kind === 'For') out.push({ loop: s, fn: d.decl });
    });
  }
  return out;
}

/** Integer variables a candidate may name at a loop head (for-init declarations included), in order of declaration. */
function namesAt(program: CProgram, loop: CLoop, pool: readonly string[]): string[] {
  const at = loop.kind === 'For' && loop.init?.kind === 'Declaration' ? (loop.condition?.loc ?? loop.body.loc) : loop.keywordLoc;
  return pool.filter((n) => {
    const r = parseExpressionAt(program, at, n);
    if ('error' in r) return false;
    return isIntVar(r.expr.kind === 'ImplicitCast' ? r.expr.operand : r.expr);
  });
}

function isIntVar(e: CExpr): boolean {
  return e.kind === 'Identifier' && e.decl.kind === 'Var' && isInteger(unqualified(e.decl.type));
}

/**
 * Candidates for every `while` and `for` loop of the program's own file:
 * `v >= 0`, `v <= 0`, `v != 0`, `v > 0` per variable and `v <= w`, `v >= w`,
 * `v == w` per pair, at most `perLoop` per loop. `pool` lists variable names
 * to consider (e.g. the source map's). Positions are the loop keyword's.
 */
export function generateCandidates(program: CProgram, pool: readonly string[], perLoop = 30): CCandidate[] {
  const out: CCandidate[] = [];
  const unique = [...new Set(pool)].filter((n) => /^[A-Za-z_]\w*$/.test(n));
  for (const { loop, fn } of loopsOf(program)) {
    const names = namesAt(program, loop, unique).slice(0, 6);
    const texts: string[] = [];
    for (const v of names) texts.push(`${v} >= 0`, `${v} <= 0`, `${v} != 0`, `${v} > 0`);
    for (let i = 0; i < names.length; i++) for (let j = i + 1; j < names.length; j++) texts.push(`${names[i]} <= ${names[j]}`, `${names[i]} >= ${names[j]}`, `${names[i]} == ${names[j]}`);
    for (const text of texts.slice(0, perLoop)) {
      out.push({ index: out.length, loc: loop.keywordLoc, text, loopLoc: loop.keywordLoc, function: fn.name });
    }
  }
  return out;
}

/**
 * The program text with checks `((C) || __tarsier_fail(K))` of the given
 * candidates inserted at the head of their loops (a `while`'s condition or a
 * `for`'s condition clause, before the condition proper), and a declaration
 * of `__tarsier_fail` on top. Loops whose text cannot be located are left
 * alone; the returned count says how many checks were placed.
 */
export function instrumentChecks(text: string, checks: ReadonlyArray<{ loopLoc: { offset: number }; text: string; id: number }>): { text: string; placed: number } {
  const byOffset = new Map<number, string[]>();
  for (const c of checks) {
    if (c.loopLoc.offset < 0) continue;
    byOffset.set(c.loopLoc.offset, [...(byOffset.get(c.loopLoc.offset) ?? []), `((${c.text}) || __tarsier_fail(${c.id}))`]);
  }
  const edits: Array<{ at: number; insert: string }> = [];
  let placed = 0;
  for (const [offset, parts] of byOffset) {
    const at = conditionStart(text, offset);
    if (at === undefined) continue;
    const emptyFor = /^\s*;/.test(text.slice(at));
    edits.push({ at, insert: ` (${parts.join(', ')}), ${emptyFor ? '1' : ''}` });
    placed += parts.length;
  }
  edits.sort((a, b) => b.at - a.at);
  let out = text;
  for (const e of edits) out = out.slice(0, e.at) + e.insert + out.slice(e.at);
  return { text: `extern int __tarsier_fail(int);\n${out}`, placed };
}

/** Offset where a loop's condition starts: after `while (`, or after the first top-level `;` of `for (`. */
function conditionStart(text: string, keywordOffset: number): number | undefined {
  const kw = /^(while|for)\b/.exec(text.slice(keywordOffset, keywordOffset + 6));
  if (!kw) return undefined;
  let i = keywordOffset + kw[1].length;
  while (i < text.length && /\s/.test(text[i])) i++;
  if (text[i] !== '(') return undefined;
  i++;
  if (kw[1] === 'while') return i;
  let depth = 0;
  for (; i < text.length; i++) {
    const ch = text[i];
    if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') {
      if (depth === 0) return undefined;
      depth--;
    } else if (ch === ';' && depth === 0) return i + 1;
    else if (ch === '"' || ch === "'") return undefined;
  }
  return undefined;
}

/** A C file defining the `__VERIFIER_*` functions with random values (seeded by TARSIER_SEED) and `__tarsier_fail`. */
export const HARNESS_C = `#include <stdio.h>
#include <stdlib.h>
static unsigned long long s = 88172645463325252ULL;
static int seeded;
static unsigned long long rnd(void) {
  if (!seeded) { const char *e = getenv("TARSIER_SEED"); s ^= e ? strtoull(e, 0, 10) * 0x9E3779B97F4A7C15ULL : 0; seeded = 1; }
  s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s;
}
static long long pick(void) {
  switch (rnd() % 9) {
    case 0: return 0; case 1: return 1; case 2: return -1;
    case 3: return (long long)(rnd() % 10); case 4: return (long long)(rnd() % 100);
    case 5: return -(long long)(rnd() % 100); case 6: return (long long)rnd();
    case 7: return (long long)(rnd() % 2000); default: return (long long)(rnd() % 5);
  }
}
#define ND(T, N) __attribute__((weak)) T __VERIFIER_nondet_##N(void) { return (T)pick(); }
ND(int, int) ND(unsigned int, uint) ND(unsigned int, unsigned) ND(char, char) ND(unsigned char, uchar)
ND(short, short) ND(unsigned short, ushort) ND(long, long) ND(unsigned long, ulong)
ND(long long, longlong) ND(unsigned long long, ulonglong) ND(unsigned long, size_t)
__attribute__((weak)) _Bool __VERIFIER_nondet_bool(void) { return rnd() & 1; }
__attribute__((weak)) _Bool __VERIFIER_nondet__Bool(void) { return rnd() & 1; }
__attribute__((weak)) void __VERIFIER_assume(int c) { if (!c) exit(0); }
__attribute__((weak)) void reach_error(void) { exit(0); }
__attribute__((weak)) void __VERIFIER_error(void) { exit(0); }
int __tarsier_fail(int id) { fprintf(stderr, "tarsier-check-failed %d\\n", id); fflush(stderr); _Exit(99); }
`;

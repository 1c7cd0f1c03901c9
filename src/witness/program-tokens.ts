/**
 * A token-level view of a C program for the linter's `--program` checks
 * (witness-formats.md §9.2): where loop keywords, statement starts, branching
 * keywords and call parentheses are, which function contains a position, and
 * which identifiers occur where. Comments, string and character literals and
 * preprocessor lines are skipped. This is deliberately shallow (no parsing);
 * the C front end sharpens these checks through the `checkExpression` hook.
 */

export interface PToken {
  text: string;
  kind: 'id' | 'num' | 'op' | 'lit';
  line: number;
  /** 1-based, in characters of the line. */
  column: number;
  offset: number;
  /** Brace depth before this token. */
  braces: number;
  /** Parenthesis depth before this token. */
  parens: number;
  /** For `(`/`)`: the token before the matching `(` (its "opener"), e.g. `while`, or a function name. */
  opener?: string;
  /** Index of the function definition containing the token, if any. */
  fn?: number;
}

export interface PFunction {
  name: string;
  /** Token index range of the whole definition (declaration start to closing brace). */
  start: number;
  bodyStart: number;
  end: number;
}

export interface ProgramView {
  text: string;
  lines: string[];
  tokens: PToken[];
  functions: PFunction[];
  /** Tokens by line (indexes into `tokens`). */
  byLine: Map<number, number[]>;
  /** The program has `#include` lines: names may come from headers we do not see. */
  hasIncludes: boolean;
  identifiers: Set<string>;
  /** Names defined by `#define` (visible everywhere after their definition; we ignore the order). */
  macros: Set<string>;
}

const PUNCT3 = ['<<=', '>>=', '...'];
const PUNCT2 = ['->', '++', '--', '<<', '>>', '<=', '>=', '==', '!=', '&&', '||', '*=', '/=', '%=', '+=', '-=', '&=', '^=', '|=', '##'];

export function scanProgram(text: string): ProgramView {
  const tokens: PToken[] = [];
  const lines = text.split(/\r?\n/);
  let line = 1;
  let lineStart = 0;
  let i = 0;
  let atLineStart = true;
  let hasIncludes = false;
  const macros = new Set<string>();
  const newline = (at: number) => {
    line++;
    lineStart = at + 1;
    atLineStart = true;
  };
  while (i < text.length) {
    const c = text[i];
    if (c === '\n') {
      newline(i);
      i++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\f' || c === '\v') {
      i++;
      continue;
    }
    if (c === '#' && atLineStart) {
      // A preprocessor line, with backslash continuations.
      let j = i;
      const directive = /^#\s*(\w+)/.exec(text.slice(i, i + 40));
      if (directive?.[1] === 'include') hasIncludes = true;
      const def = /^#\s*define\s+([A-Za-z_]\w*)/.exec(text.slice(i, i + 200));
      if (def) macros.add(def[1]);
      while (j < text.length && text[j] !== '\n') {
        if (text[j] === '\\' && text[j + 1] === '\n') {
          newline(j + 1);
          j += 2;
          continue;
        }
        if (text[j] === '\\' && text[j + 1] === '\r' && text[j + 2] === '\n') {
          newline(j + 2);
          j += 3;
          continue;
        }
        j++;
      }
      i = j;
      continue;
    }
    atLineStart = false;
    if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      for (let j = i; j < stop; j++) if (text[j] === '\n') newline(j);
      atLineStart = false;
      i = stop;
      continue;
    }
    const tok = (t: string, kind: PToken['kind']) =>
      tokens.push({ text: t, kind, line, column: i - lineStart + 1, offset: i, braces: 0, parens: 0 });
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
      tok(text.slice(i, j + 1), 'lit');
      i = j + 1;
      continue;
    }
    const rest = text.slice(i, i + 64);
    let m: RegExpExecArray | null;
    if ((m = /^[A-Za-z_$]\w*/.exec(rest))) {
      tok(m[0], 'id');
      i += m[0].length;
    } else if ((m = /^(\.?\d)([\w.]|[eEpP][+-])*/.exec(rest))) {
      tok(m[0], 'num');
      i += m[0].length;
    } else {
      const p = PUNCT3.find((x) => text.startsWith(x, i)) ?? PUNCT2.find((x) => text.startsWith(x, i)) ?? c;
      tok(p, 'op');
      i += p.length;
    }
  }
  // Depths, parenthesis openers, function definitions.
  let braces = 0;
  let parens = 0;
  const parenStack: string[] = [];
  const functions: PFunction[] = [];
  let declStart = 0;
  let current: { name: string; start: number; bodyStart: number } | undefined;
  let lastTopClose: { index: number; opener: string } | undefined;
  tokens.forEach((t, k) => {
    t.braces = braces;
    t.parens = parens;
    if (t.text === '(') {
      const prev = tokens[k - 1];
      t.opener = prev ? prev.text : '';
      parenStack.push(t.opener);
      parens++;
    } else if (t.text === ')') {
      t.opener = parenStack.pop() ?? '';
      parens = Math.max(0, parens - 1);
      if (braces === 0 && parens === 0) lastTopClose = { index: k, opener: t.opener };
    } else if (t.text === '{') {
      if (braces === 0 && lastTopClose && isFunctionHeader(tokens, lastTopClose, k)) {
        current = { name: lastTopClose.opener, start: declStart, bodyStart: k };
      }
      braces++;
    } else if (t.text === '}') {
      braces = Math.max(0, braces - 1);
      if (braces === 0 && current) {
        functions.push({ ...current, end: k });
        current = undefined;
        declStart = k + 1;
      }
    } else if (t.text === ';' && braces === 0 && parens === 0) {
      declStart = k + 1;
      lastTopClose = undefined;
    }
  });
  if (current) functions.push({ ...current, end: tokens.length - 1 });
  functions.forEach((f, fi) => {
    for (let k = f.start; k <= f.end && k < tokens.length; k++) tokens[k].fn = fi;
  });
  const byLine = new Map<number, number[]>();
  tokens.forEach((t, k) => {
    const l = byLine.get(t.line);
    if (l) l.push(k);
    else byLine.set(t.line, [k]);
  });
  const identifiers = new Set(tokens.filter((t) => t.kind === 'id').map((t) => t.text));
  return { text, lines, tokens, functions, byLine, hasIncludes, identifiers, macros };
}

// `name ( params ) [attributes/K&R declarations] {` at file scope.
function isFunctionHeader(tokens: PToken[], close: { index: number; opener: string }, brace: number): boolean {
  if (!/^[A-Za-z_]\w*$/.test(close.opener) || ['if', 'while', 'for', 'switch', '__attribute__', 'sizeof'].includes(close.opener)) return false;
  // Between `)` and `{` only attributes or K&R parameter declarations (no `=`).
  for (let k = close.index + 1; k < brace; k++) if (tokens[k].text === '=') return false;
  return true;
}

/** The token that starts exactly at a 1-based line and column, if any. */
export function tokenAt(view: ProgramView, line: number, column: number): number | undefined {
  return view.byLine.get(line)?.find((k) => view.tokens[k].column === column);
}

const LOOP = new Set(['for', 'while', 'do']);
const BRANCH = new Set(['if', 'while', 'for', 'do', 'switch', '?']);

export function isLoopKeyword(view: ProgramView, k: number): boolean {
  return view.tokens[k].kind === 'id' && LOOP.has(view.tokens[k].text) && !isDoWhileTail(view, k);
}

export function isBranchingToken(view: ProgramView, k: number): boolean {
  return BRANCH.has(view.tokens[k].text) && !isDoWhileTail(view, k);
}

// The `while` of `do … while (c);` is not a loop of its own.
function isDoWhileTail(view: ProgramView, k: number): boolean {
  const t = view.tokens[k];
  if (t.text !== 'while' || k === 0) return false;
  const prev = view.tokens[k - 1];
  if (prev.text !== '}') return false;
  // Find the `{` matching prev and check for a `do` before it.
  let depth = 0;
  for (let j = k - 1; j >= 0; j--) {
    const x = view.tokens[j].text;
    if (x === '}') depth++;
    else if (x === '{' && --depth === 0) return view.tokens[j - 1]?.text === 'do';
  }
  return false;
}

const CONTROL = new Set(['if', 'while', 'for', 'switch']);

/** Token k starts a statement or a block-level declaration (inside a function body). */
export function isStatementStart(view: ProgramView, k: number): boolean {
  const t = view.tokens[k];
  if (t.braces === 0 || t.text === '}' || t.text === 'else' || t.text === ')' || t.text === ']') return false;
  // `;` alone is an empty statement; other punctuation cannot start one.
  if (t.kind === 'op' && [',', '=', '?', ':', '.', '->'].includes(t.text)) return false;
  const prev = view.tokens[k - 1];
  if (!prev) return false;
  if (prev.text === ';') return prev.parens === 0 || t.parens === 0;
  if (prev.text === '{' || prev.text === '}' || prev.text === 'else' || prev.text === 'do') return true;
  if (prev.text === ':') return prev.parens === 0;
  if (prev.text === ')') return CONTROL.has(prev.opener ?? '');
  return false;
}

/** Token k (a `)`) closes the argument list of a call. */
export function isCallParen(view: ProgramView, k: number): boolean {
  const t = view.tokens[k];
  if (t.text !== ')') return false;
  const o = t.opener ?? '';
  return (/^[A-Za-z_]\w*$/.test(o) && !CONTROL.has(o) && !['sizeof', 'return', '__attribute__', '_Alignof'].includes(o) && !isTypeWord(o)) || o === ')' || o === ']';
}

function isTypeWord(w: string): boolean {
  return ['int', 'char', 'void', 'long', 'short', 'unsigned', 'signed', 'float', 'double', '_Bool', 'const', 'volatile', 'struct', 'union', 'enum'].includes(w);
}

/** Token k starts a full expression (or a statement): where a `target` may point. */
export function isFullExpressionStart(view: ProgramView, k: number): boolean {
  if (isStatementStart(view, k)) return true;
  const prev = view.tokens[k - 1];
  if (!prev) return false;
  if (prev.text === '(' && CONTROL.has(prev.opener ?? '')) return true;
  if (prev.text === 'return' || prev.text === '=') return true;
  if (prev.text === ';' && prev.parens > 0) return true; // for-clauses
  return false;
}

/** The function definition containing a position (line, 1-based column), if any. */
export function functionAt(view: ProgramView, line: number, column: number): PFunction | undefined {
  return view.functions.find((f) => {
    const a = view.tokens[f.start];
    const b = view.tokens[f.end];
    const afterStart = line > a.line || (line === a.line && column >= a.column);
    const beforeEnd = line < b.line || (line === b.line && column <= b.column);
    return afterStart && beforeEnd;
  });
}

/**
 * Whether `name` may be visible inside function `fn` (or at file scope when
 * fn is undefined): it occurs at file scope outside any function and outside
 * parameter lists, or anywhere in that function's definition.
 */
export function nameMayBeVisible(view: ProgramView, name: string, fn: PFunction | undefined): boolean {
  if (view.macros.has(name)) return true;
  const index = nameIndex(view);
  if (index.fileScope.has(name)) return true;
  const fi = fn ? view.functions.indexOf(fn) : -1;
  return fi >= 0 && (index.byFunction.get(fi)?.has(name) ?? false);
}

const nameIndexes = new WeakMap<ProgramView, { fileScope: Set<string>; byFunction: Map<number, Set<string>> }>();

// Built once per program: a witness with thousands of expressions must not rescan the tokens.
function nameIndex(view: ProgramView): { fileScope: Set<string>; byFunction: Map<number, Set<string>> } {
  let index = nameIndexes.get(view);
  if (!index) {
    index = { fileScope: new Set(), byFunction: new Map() };
    for (const t of view.tokens) {
      if (t.kind !== 'id') continue;
      if (t.fn === undefined) {
        if (t.parens === 0) index.fileScope.add(t.text);
      } else {
        let set = index.byFunction.get(t.fn);
        if (!set) index.byFunction.set(t.fn, (set = new Set()));
        set.add(t.text);
      }
    }
    nameIndexes.set(view, index);
  }
  return index;
}

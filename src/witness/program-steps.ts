/**
 * Where a GraphML step lands in the program, on the token view of
 * program-tokens.ts: the statement a step on a line is, the statement that
 * runs after it, where a branch goes, the `)` of a call. GraphML gives lines
 * only and says what holds *after* a step; 2.x waypoints need the statement
 * *before* which something holds, so converting needs these successors.
 * Shallow like the token view: what it cannot place it says it cannot.
 */
import { functionAt, isStatementStart, type ProgramView } from './program-tokens.js';

const CLOSE: Record<string, string> = { '(': ')', '{': '}', '[': ']' };
/** Statements that are not simple steps (an assumption after them has no single next statement). */
const NOT_SIMPLE = new Set(['if', 'while', 'for', 'do', 'switch', 'return', 'goto', 'break', 'continue', 'case', 'default', '{', ';']);

/** The token that closes the bracket at k. */
function matching(view: ProgramView, k: number): number | undefined {
  const open = view.tokens[k]?.text;
  const close = open === undefined ? undefined : CLOSE[open];
  if (!close) return undefined;
  let depth = 0;
  for (let j = k; j < view.tokens.length; j++) {
    const t = view.tokens[j].text;
    if (t === open) depth++;
    else if (t === close && --depth === 0) return j;
  }
  return undefined;
}

/** The last token of the statement that starts at token k. */
export function statementEnd(view: ProgramView, k: number): number | undefined {
  const t = view.tokens[k];
  if (!t) return undefined;
  const afterParens = () => (view.tokens[k + 1]?.text === '(' ? matching(view, k + 1) : undefined);
  switch (t.text) {
    case '{':
      return matching(view, k);
    case 'if': {
      const close = afterParens();
      const thenEnd = close === undefined ? undefined : statementEnd(view, close + 1);
      if (thenEnd === undefined) return undefined;
      return view.tokens[thenEnd + 1]?.text === 'else' ? statementEnd(view, thenEnd + 2) : thenEnd;
    }
    case 'while':
    case 'for':
    case 'switch': {
      const close = afterParens();
      return close === undefined ? undefined : statementEnd(view, close + 1);
    }
    case 'do': {
      const bodyEnd = statementEnd(view, k + 1);
      if (bodyEnd === undefined || view.tokens[bodyEnd + 1]?.text !== 'while') return undefined;
      const close = matching(view, bodyEnd + 2);
      return close !== undefined && view.tokens[close + 1]?.text === ';' ? close + 1 : undefined;
    }
  }
  // A label (`L:`, `case 1:`, `default:`) belongs to the statement after it.
  if (t.kind === 'id' && (view.tokens[k + 1]?.text === ':' || t.text === 'case' || t.text === 'default')) {
    for (let j = k + 1; j < view.tokens.length; j++) {
      if (view.tokens[j].text === ':' && view.tokens[j].parens === t.parens) return statementEnd(view, j + 1);
      if (view.tokens[j].text === ';') break;
    }
  }
  for (let j = k; j < view.tokens.length; j++) {
    const x = view.tokens[j];
    if (x.text === ';' && x.braces === t.braces && x.parens === t.parens) return j;
    if (x.text === '}' && x.braces === t.braces) return undefined;
  }
  return undefined;
}

/** The first statement that runs when statement k runs: inside a block, its first item. */
export function entered(view: ProgramView, k: number | undefined): number | undefined {
  if (k === undefined || !view.tokens[k]) return undefined;
  if (view.tokens[k].text !== '{') return k;
  return view.tokens[k + 1]?.text === '}' ? undefined : entered(view, k + 1);
}

/** The statement after statement k in its block; undefined at the end of the block. */
export function nextInBlock(view: ProgramView, k: number): number | undefined {
  const end = statementEnd(view, k);
  if (end === undefined) return undefined;
  const n = end + 1;
  return n < view.tokens.length && view.tokens[n].text !== '}' && isStatementStart(view, n) ? n : undefined;
}

/** The statements that start on a line (outermost first). */
export function statementsOnLine(view: ProgramView, line: number): number[] {
  return (view.byLine.get(line) ?? []).filter((k) => isStatementStart(view, k));
}

/**
 * The one simple statement (expression or declaration) that starts on a
 * line and has no other statement beside it on that line, or why not.
 */
export function simpleStatementOnLine(view: ProgramView, line: number): number | string {
  const starts = statementsOnLine(view, line);
  if (starts.length === 0) return `no statement starts on line ${line}`;
  if (starts.length > 1) return `${starts.length} statements start on line ${line}`;
  const k = starts[0];
  if (NOT_SIMPLE.has(view.tokens[k].text)) return `the statement on line ${line} is '${view.tokens[k].text}', not a simple step`;
  return k;
}

/** The one `if`, `while` or `for` keyword on a line, or why not. */
export function branchKeywordOnLine(view: ProgramView, line: number): number | string {
  const ks = (view.byLine.get(line) ?? []).filter((k) => ['if', 'while', 'for'].includes(view.tokens[k].text) && isStatementStart(view, k));
  if (ks.length === 1) return ks[0];
  return ks.length === 0 ? `no if, while or for on line ${line}` : `${ks.length} branching statements on line ${line}`;
}

/** The statement that runs first when branching statement k (`if`, `while`, `for`) takes its branch, or does not. */
export function branchSuccessor(view: ProgramView, k: number, taken: boolean): number | undefined {
  const close = view.tokens[k + 1]?.text === '(' ? matching(view, k + 1) : undefined;
  if (close === undefined) return undefined;
  if (taken) return entered(view, close + 1);
  if (view.tokens[k].text === 'if') {
    const thenEnd = statementEnd(view, close + 1);
    if (thenEnd !== undefined && view.tokens[thenEnd + 1]?.text === 'else') return entered(view, thenEnd + 2);
  }
  const next = nextInBlock(view, k);
  return next === undefined ? undefined : entered(view, next);
}

/** Statement k is an expression statement or a declaration. */
export function isSimpleStatement(view: ProgramView, k: number): boolean {
  return !NOT_SIMPLE.has(view.tokens[k].text);
}

/** Statement k calls `name` (anywhere in it). */
export function statementCalls(view: ProgramView, k: number, name: string): boolean {
  const end = statementEnd(view, k);
  if (end === undefined) return false;
  for (let j = k; j < end; j++) if (view.tokens[j].text === name && view.tokens[j + 1].text === '(') return true;
  return false;
}

/**
 * Where an error-function call runs from statement k on: k itself, or the
 * first statement after it, when only simple statements (which the GraphML
 * automaton may pass without a step of its own) lie between.
 */
export function errorCallFrom(view: ProgramView, k: number | undefined, name: string): number | undefined {
  let s = entered(view, k);
  while (s !== undefined) {
    const word = view.tokens[s].text;
    if (statementCalls(view, s, name) && (!NOT_SIMPLE.has(word) || word === 'return')) return s;
    if (NOT_SIMPLE.has(word)) return undefined;
    s = entered(view, nextInBlock(view, s));
  }
  return undefined;
}

/** The `)` of the one call of `name` on a line, or undefined. */
export function callParenOnLine(view: ProgramView, line: number, name: string): number | undefined {
  const calls = (view.byLine.get(line) ?? []).filter((k) => view.tokens[k].text === name && view.tokens[k + 1]?.text === '(');
  return calls.length === 1 ? matching(view, calls[0] + 1) : undefined;
}

/** Position and enclosing function of token k, as a 2.x location (1-based column). */
export function positionOf(view: ProgramView, k: number): { line: number; column: number; function?: string } {
  const t = view.tokens[k];
  const fn = functionAt(view, t.line, t.column)?.name;
  return { line: t.line, column: t.column, ...(fn ? { function: fn } : {}) };
}

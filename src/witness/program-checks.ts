import type { DiagnosticSink, Severity } from './diagnostics.js';
import type { Constraint, GhostVariable, Location } from './model.js';
import {
  functionAt,
  isBranchingToken,
  isCallParen,
  isFullExpressionStart,
  isLoopKeyword,
  isStatementStart,
  nameMayBeVisible,
  type ProgramView,
} from './program-tokens.js';

/**
 * What a location must point to (witness-formats.md §3.2): a loop keyword,
 * a statement start (2.x exact; `statement01` is the looser 0.1 reading), a
 * branching keyword, a call's closing parenthesis, a target, or a function
 * definition (contracts).
 */
export type LocationRole = 'loop' | 'statement' | 'statement01' | 'branching' | 'call' | 'target' | 'function';

const ROLE_TEXT: Record<LocationRole, string> = {
  loop: 'a loop keyword (for, while, do)',
  statement: 'the first character of a statement or block-level declaration',
  statement01: 'a statement',
  branching: 'a branching keyword (if, while, for, do, switch) or ?',
  call: "the ')' closing a call's arguments",
  target: 'the start of a statement or full expression',
  function: 'a function definition',
};

const RULE: Record<LocationRole, string> = {
  loop: 'loop-not-found',
  statement: 'statement-not-found',
  statement01: 'statement-not-found',
  branching: 'branching-not-found',
  call: 'call-paren-not-found',
  target: 'target-not-found',
  function: 'statement-not-found',
};

/** Line/column range, function name and token-level target checks of one location (§9.2). */
export function checkProgramLocation(p: ProgramView, loc: Location, role: LocationRole, sink: DiagnosticSink): void {
  const lineCount = p.text.endsWith('\n') ? p.lines.length - 1 : p.lines.length;
  if (loc.line > lineCount) {
    sink.error('line-beyond-eof', loc.at, `line ${loc.line} is beyond the end of the program (${lineCount} lines)`);
    return;
  }
  const lineLen = p.lines[loc.line - 1].length;
  // Columns counted from 1; a 0.1 column is 0-based.
  const col1 = loc.column === undefined ? undefined : loc.column + (loc.columnBase === 0 ? 1 : 0);
  if (col1 !== undefined && col1 > Math.max(lineLen, 1)) {
    sink.error('line-beyond-eof', loc.at, `column ${loc.column} is beyond the end of line ${loc.line} (${lineLen} characters)`);
    return;
  }
  const onLine = p.byLine.get(loc.line) ?? [];
  const firstCol = onLine.length ? p.tokens[onLine[0]].column : 1;
  if (loc.function !== undefined && role !== 'function') {
    const fn = functionAt(p, loc.line, col1 ?? firstCol);
    if (fn && fn.name !== loc.function) {
      sink.error('function-mismatch', loc.at, `location.function is '${loc.function}' but line ${loc.line} is in function '${fn.name}'`);
    }
  }
  if (role === 'function') return;
  const fits = (k: number): boolean => {
    switch (role) {
      case 'loop':
        return isLoopKeyword(p, k);
      case 'statement':
      case 'statement01':
        return isStatementStart(p, k);
      case 'branching':
        return isBranchingToken(p, k);
      case 'call':
        return isCallParen(p, k);
      case 'target':
        return isFullExpressionStart(p, k);
    }
  };
  const matching = onLine.filter(fits);
  const what = ROLE_TEXT[role];
  if (loc.columnBase === 0) {
    // 0.1: "where the assertion is inserted": the line of the loop/statement, column 0 (CPAchecker)
    // or the keyword (Goblint). Goblint wrote 1-based columns into 0.1 entries after 2024-04.
    if (matching.some((k) => p.tokens[k].column === col1)) return;
    if (col1 !== undefined && matching.some((k) => p.tokens[k].column === col1 - 1)) {
      sink.warn('column-off-by-one', loc.at, `column ${loc.column} is one past ${what} at 0-based column ${col1 - 2}; 1-based columns in a 0.1 entry?`);
      return;
    }
    if (matching.some((k) => col1 === undefined || p.tokens[k].column >= col1)) return;
    sink.error(RULE[role], loc.at, `line ${loc.line}${col1 !== undefined ? ` from 0-based column ${loc.column}` : ''} has no ${what}`);
    return;
  }
  if (col1 === undefined) {
    if (matching.length === 0) sink.error(RULE[role], loc.at, `line ${loc.line} has no ${what}`);
    return;
  }
  if (matching.some((k) => p.tokens[k].column === col1)) return;
  const tokenHere = onLine.find((k) => p.tokens[k].column <= col1 && col1 < p.tokens[k].column + p.tokens[k].text.length);
  const found = tokenHere !== undefined ? `'${p.tokens[tokenHere].text}'` : 'no token';
  const hint = matching.some((k) => p.tokens[k].column === col1 + 1) ? ` (it is at column ${col1 + 1}: a 0-based column?)` : '';
  sink.error(RULE[role], loc.at, `line ${loc.line}, column ${col1} is ${found}, not ${what}${hint}`);
}

/**
 * The kind of a branching value must fit its keyword (§9.2): `true`/`false`
 * for `if`, loops and `?`; an integer or `default` for `switch`.
 */
export function checkBranchingValue(p: ProgramView, loc: Location, c: Constraint, sink: DiagnosticSink): void {
  const onLine = p.byLine.get(loc.line) ?? [];
  const col1 = loc.column === undefined ? undefined : loc.column + (loc.columnBase === 0 ? 1 : 0);
  const k = onLine.find((i) => isBranchingToken(p, i) && (col1 === undefined || p.tokens[i].column === col1));
  if (k === undefined) return; // reported as branching-not-found
  const keyword = p.tokens[k].text;
  const value = String(c.value).trim();
  const isBool = value === 'true' || value === 'false';
  if (keyword === 'switch' && isBool) {
    sink.error('boolean-at-switch', c.at ?? loc.at, `branching value '${value}' at a switch; give the value of the controlling expression or default`);
  } else if (keyword === 'switch' && value !== 'default') {
    const cases = switchCases(p, k);
    const n = parseCInteger(value);
    if (cases && n !== undefined && !cases.has(n)) {
      sink.warn('switch-value', c.at ?? loc.at, `branching value ${value} is no case of this switch; it selects the default branch`);
    }
  } else if (keyword !== 'switch' && !isBool) {
    sink.error('integer-at-if', c.at ?? loc.at, `branching value '${value}' at '${keyword}'; give true or false`);
  }
}

/** Integer case constants (`case 3:`, `case -1:`, `case 0x1F:`) of the switch at token k; undefined when some case is not a literal. */
function switchCases(p: ProgramView, k: number): Set<bigint> | undefined {
  const t = p.tokens;
  let j = k + 1;
  if (t[j]?.text !== '(') return undefined;
  // Skip the controlling expression, then expect the body's brace.
  let depth = 0;
  for (; j < t.length; j++) {
    if (t[j].text === '(') depth++;
    else if (t[j].text === ')' && --depth === 0) break;
  }
  if (t[++j]?.text !== '{') return undefined;
  const bodyDepth = t[j].braces;
  const cases = new Set<bigint>();
  for (j++; j < t.length && !(t[j].text === '}' && t[j].braces === bodyDepth + 1); j++) {
    if (t[j].text !== 'case') continue;
    let text = '';
    let m = j + 1;
    for (; m < t.length && t[m].text !== ':'; m++) text += t[m].text;
    const n = parseCInteger(text);
    if (n === undefined) return undefined; // a named or computed constant: cannot tell
    cases.add(n);
  }
  return cases;
}

function parseCInteger(text: string): bigint | undefined {
  const m = /^([-+]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)[uUlL]*$/.exec(text.trim());
  if (!m) return undefined;
  const digits = m[2];
  const v = /^0[0-7]+$/.test(digits) ? BigInt('0o' + digits.slice(1)) : BigInt(digits);
  return m[1] === '-' ? -v : v;
}

export function checkGhostNameClash(p: ProgramView, g: GhostVariable, sink: DiagnosticSink): void {
  if (p.identifiers.has(g.name) || p.macros.has(g.name)) {
    sink.error('ghost-name-clash', g.at, `ghost variable '${g.name}' has the name of an identifier of the program`);
  }
}

/**
 * Names of an expression that cannot be in scope at its location, from the
 * tokens alone: a name that occurs nowhere in the program (only a warning when
 * the program includes headers we do not read), or one that occurs only inside
 * other functions.
 */
export function undeclaredNames(
  p: ProgramView,
  identifiers: Array<{ name: string; offset: number }>,
  loc: Location | undefined,
  ghosts: string[],
): Array<{ severity: Severity; message: string }> {
  const out: Array<{ severity: Severity; message: string }> = [];
  const seen = new Set<string>();
  const col1 = loc?.column === undefined ? undefined : loc.column + (loc.columnBase === 0 ? 1 : 0);
  const onLine = loc ? (p.byLine.get(loc.line) ?? []) : [];
  const fn = loc ? functionAt(p, loc.line, col1 ?? (onLine.length ? p.tokens[onLine[0]].column : 1)) : undefined;
  for (const { name } of identifiers) {
    if (seen.has(name) || ghosts.includes(name)) continue;
    seen.add(name);
    if (!p.identifiers.has(name) && !p.macros.has(name)) {
      out.push(
        p.hasIncludes
          ? { severity: 'warning', message: `'${name}' is not declared in the program (it may come from an included header)` }
          : { severity: 'error', message: `'${name}' is not declared in the program` },
      );
    } else if (!nameMayBeVisible(p, name, fn)) {
      out.push({
        severity: 'error',
        message: fn ? `'${name}' is not visible in function '${fn.name}' (it is declared only in other functions)` : `'${name}' is not visible at file scope`,
      });
    }
  }
  return out;
}

/**
 * A self-contained syntax check of the C expressions found in witnesses
 * (invariants, constraints, ghost values): it needs no program, so it cannot
 * resolve typedef names or scopes (the C front end does that through the
 * linter's `checkExpression` hook). It reports what is certain from the text
 * alone: syntax errors, side effects (assignments, `++`/`--`, calls) and the
 * `ext_c_expression` keywords `\result` and `\at` where they are not allowed.
 */

export interface CExprToken {
  kind: 'id' | 'num' | 'str' | 'char' | 'op' | 'ext' | 'eof';
  text: string;
  offset: number;
}

export interface CExprFinding {
  rule: 'expr-syntax' | 'side-effect' | 'ext-keyword-in-c';
  message: string;
  /** 0-based offset in the expression text. */
  offset: number;
}

export interface CExprResult {
  findings: CExprFinding[];
  /** Identifiers naming variables (not members after `.`/`->`, not type names in casts, not `\at` labels). */
  identifiers: Array<{ name: string; offset: number }>;
}

const TYPE_WORDS = new Set([
  'void', 'char', 'short', 'int', 'long', 'float', 'double', 'signed', 'unsigned', '_Bool', 'bool', '_Complex',
  'struct', 'union', 'enum', 'const', 'volatile', 'restrict', '__int128', '__int128_t', '__uint128_t', '_Atomic',
]);
const KEYWORDS = new Set([...TYPE_WORDS, 'sizeof', '_Alignof', 'alignof', 'auto', 'break', 'case', 'continue', 'default', 'do', 'else',
  'extern', 'for', 'goto', 'if', 'inline', 'register', 'return', 'static', 'switch', 'typedef', 'while']);

const PUNCT = [
  '<<=', '>>=', '...', '->', '++', '--', '<<', '>>', '<=', '>=', '==', '!=', '&&', '||', '*=', '/=', '%=', '+=', '-=', '&=', '^=', '|=',
  '[', ']', '(', ')', '{', '}', '.', '&', '*', '+', '-', '~', '!', '/', '%', '<', '>', '^', '|', '?', ':', '=', ',', ';',
];
const ASSIGN_OPS = new Set(['=', '*=', '/=', '%=', '+=', '-=', '&=', '^=', '|=', '<<=', '>>=']);
const BINARY_PREC: Record<string, number> = {
  '||': 1, '&&': 2, '|': 3, '^': 4, '&': 5, '==': 6, '!=': 6, '<': 7, '>': 7, '<=': 7, '>=': 7,
  '<<': 8, '>>': 8, '+': 9, '-': 9, '*': 10, '/': 10, '%': 10,
};
const MAX_DEPTH = 200;

export function tokenizeCExpr(text: string): CExprToken[] | CExprFinding {
  const out: CExprToken[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const rest = text.slice(i, i + 64);
    let m: RegExpExecArray | null;
    if ((m = /^\\[A-Za-z_]\w*/.exec(rest))) {
      out.push({ kind: 'ext', text: m[0], offset: i });
    } else if ((m = /^[A-Za-z_]\w*/.exec(rest))) {
      out.push({ kind: 'id', text: m[0], offset: i });
    } else if ((m = /^(0[xX][0-9a-fA-F]+(\.[0-9a-fA-F]*)?([pP][+-]?\d+)?|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)[uUlLfF]*/.exec(rest))) {
      out.push({ kind: 'num', text: m[0], offset: i });
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === '\\' ? 2 : 1;
      if (j >= text.length) return { rule: 'expr-syntax', message: `unterminated ${c === '"' ? 'string' : 'character'} literal`, offset: i };
      out.push({ kind: c === '"' ? 'str' : 'char', text: text.slice(i, j + 1), offset: i });
      i = j + 1;
      continue;
    } else {
      const p = PUNCT.find((x) => text.startsWith(x, i));
      if (!p) return { rule: 'expr-syntax', message: `unexpected character '${c}'`, offset: i };
      out.push({ kind: 'op', text: p, offset: i });
      i += p.length;
      continue;
    }
    i += m[0].length;
  }
  out.push({ kind: 'eof', text: '', offset: text.length });
  return out;
}

class SyntaxFailure extends Error {
  constructor(readonly finding: CExprFinding) {
    super(finding.message);
  }
}

/**
 * Checks one expression. `ext` allows `\result` and `\at(e, Label)`
 * (`ext_c_expression`, `acsl_expression`).
 */
export function checkCExpression(text: string, ext: boolean): CExprResult {
  const toks = tokenizeCExpr(text);
  if (!Array.isArray(toks)) return { findings: [toks], identifiers: [] };
  const findings: CExprFinding[] = [];
  const identifiers: CExprResult['identifiers'] = [];
  let pos = 0;
  let depth = 0;
  const peek = (k = 0) => toks[Math.min(pos + k, toks.length - 1)];
  const next = () => toks[pos++ < toks.length - 1 ? pos - 1 : toks.length - 1];
  const fail = (t: CExprToken, message: string): never => {
    throw new SyntaxFailure({ rule: 'expr-syntax', message, offset: t.offset });
  };
  const describe = (t: CExprToken) => (t.kind === 'eof' ? 'the end of the expression' : `'${t.text}'`);
  const expect = (op: string) => {
    const t = next();
    if (t.kind !== 'op' || t.text !== op) fail(t, `expected '${op}' but found ${describe(t)}`);
  };
  const isOp = (t: CExprToken, op: string) => t.kind === 'op' && t.text === op;
  const startsTypeName = (k: number) => peek(k).kind === 'id' && TYPE_WORDS.has(peek(k).text);

  const enter = () => {
    if (++depth > MAX_DEPTH) fail(peek(), `expression nested more than ${MAX_DEPTH} levels deep`);
  };

  function typeName(): void {
    let any = false;
    while (peek().kind === 'id' && (TYPE_WORDS.has(peek().text) || (!any && !KEYWORDS.has(peek().text)))) {
      const t = next();
      any = true;
      if (t.text === 'struct' || t.text === 'union' || t.text === 'enum') {
        if (peek().kind !== 'id') fail(peek(), `expected a tag name after '${t.text}'`);
        next();
      }
    }
    if (!any) fail(peek(), `expected a type name but found ${describe(peek())}`);
    while (isOp(peek(), '*') || (peek().kind === 'id' && (peek().text === 'const' || peek().text === 'volatile'))) next();
  }

  function expression(): void {
    assignment();
    while (isOp(peek(), ',')) {
      next();
      assignment();
    }
  }

  function assignment(): void {
    conditional();
    if (peek().kind === 'op' && ASSIGN_OPS.has(peek().text)) {
      const op = next();
      findings.push({ rule: 'side-effect', message: `assignment '${op.text}' has a side effect`, offset: op.offset });
      assignment();
    }
  }

  function conditional(): void {
    enter();
    binary(1);
    if (isOp(peek(), '?')) {
      next();
      expression();
      expect(':');
      conditional();
    }
    depth--;
  }

  function binary(minPrec: number): void {
    unary();
    for (;;) {
      const t = peek();
      const prec = t.kind === 'op' ? BINARY_PREC[t.text] : undefined;
      if (prec === undefined || prec < minPrec) return;
      next();
      enter();
      binary(prec + 1);
      depth--;
    }
  }

  function unary(): void {
    enter();
    const t = peek();
    if (t.kind === 'op' && (t.text === '++' || t.text === '--')) {
      next();
      findings.push({ rule: 'side-effect', message: `'${t.text}' has a side effect`, offset: t.offset });
      unary();
    } else if (t.kind === 'op' && ['&', '*', '+', '-', '~', '!'].includes(t.text)) {
      next();
      unary();
    } else if (t.kind === 'id' && (t.text === 'sizeof' || t.text === '_Alignof' || t.text === 'alignof')) {
      next();
      if (isOp(peek(), '(') && startsTypeName(1)) {
        next();
        typeName();
        expect(')');
      } else unary();
    } else if (isOp(t, '(') && (startsTypeName(1) || typedefCast())) {
      next();
      typeName();
      expect(')');
      unary();
    } else postfix();
    depth--;
  }

  // `(name) x`: a cast to a typedef name when a cast operand follows (an identifier, a number, `(`, `!`, `~`).
  function typedefCast(): boolean {
    const a = peek(1);
    const b = peek(2);
    const c = peek(3);
    if (a.kind !== 'id' || KEYWORDS.has(a.text) || !isOp(b, ')') && !(isOp(b, '*') && isOp(c, ')'))) return false;
    const after = isOp(b, ')') ? c : peek(4);
    return after.kind === 'id' || after.kind === 'num' || after.kind === 'char' || (after.kind === 'op' && ['(', '!', '~'].includes(after.text));
  }

  function postfix(): void {
    const head = primary();
    for (;;) {
      const t = peek();
      if (isOp(t, '[')) {
        next();
        expression();
        expect(']');
      } else if (isOp(t, '(')) {
        next();
        if (head?.kind === 'ext' && head.text === '\\at') {
          assignment();
          expect(',');
          const label = next();
          if (label.kind !== 'id') fail(label, `expected a label (Pre, Old, AnyPrev, LastPrev) but found ${describe(label)}`);
          expect(')');
        } else {
          findings.push({ rule: 'side-effect', message: `function call${head?.kind === 'id' ? ` '${head.text}(…)'` : ''} in an expression`, offset: t.offset });
          if (!isOp(peek(), ')')) {
            assignment();
            while (isOp(peek(), ',')) {
              next();
              assignment();
            }
          }
          expect(')');
        }
      } else if (isOp(t, '.') || isOp(t, '->')) {
        next();
        if (peek().kind !== 'id') fail(peek(), `expected a member name after '${t.text}'`);
        next();
      } else if (isOp(t, '++') || isOp(t, '--')) {
        next();
        findings.push({ rule: 'side-effect', message: `'${t.text}' has a side effect`, offset: t.offset });
      } else return;
    }
  }

  function primary(): CExprToken | undefined {
    const t = next();
    switch (t.kind) {
      case 'id':
        if (KEYWORDS.has(t.text)) fail(t, `unexpected keyword '${t.text}'`);
        identifiers.push({ name: t.text, offset: t.offset });
        return t;
      case 'num':
      case 'char':
        return t;
      case 'str':
        while (peek().kind === 'str') next();
        return t;
      case 'ext':
        if (t.text !== '\\result' && t.text !== '\\at' && t.text !== '\\old') fail(t, `unknown keyword '${t.text}'`);
        if (!ext) findings.push({ rule: 'ext-keyword-in-c', message: `'${t.text}' is not allowed in a c_expression (use ext_c_expression)`, offset: t.offset });
        if (t.text === '\\at' && !isOp(peek(), '(')) fail(peek(), `expected '(' after '\\at'`);
        return t;
      case 'op':
        if (t.text === '(') {
          expression();
          expect(')');
          return undefined;
        }
        return fail(t, `expected an operand but found ${describe(t)}`);
      default:
        return fail(t, `expected an operand but found ${describe(t)}`);
    }
  }

  try {
    if (peek().kind === 'eof') fail(peek(), 'the expression is empty');
    expression();
    if (peek().kind !== 'eof') fail(peek(), `unexpected ${describe(peek())} after the expression`);
  } catch (e) {
    if (!(e instanceof SyntaxFailure)) throw e;
    return { findings: [...findings, e.finding], identifiers };
  }
  return { findings, identifiers };
}

/** `\result <op> <constant expression>` (2.0 `function_return` constraints). */
export function isResultComparison(text: string): boolean {
  const m = /^\s*\\result\s*(==|!=|<=|>=|<|>)\s*(.+)$/.exec(text);
  if (!m) return false;
  const r = checkCExpression(m[2], false);
  return r.findings.length === 0 && r.identifiers.length === 0;
}

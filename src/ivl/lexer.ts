// Tokens of IMP's concrete syntax. Comments are `// ...` and `/* ... */`.
import { TarsierError } from '../common/errors.js';
import { LineIndex, type SourceLocation } from '../common/location.js';

export type TokenKind = 'ident' | 'int' | 'real' | 'bv' | 'hexfloat' | 'punct' | 'eof';

export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

// Longest first, so that `<==>` wins over `<==` over `<=` over `<`.
const PUNCTS = [
  '<==>',
  '==>',
  '<==',
  '||',
  '&&',
  '==',
  '!=',
  '<=',
  '>=',
  '<<',
  ':=',
  '<',
  '>',
  '+',
  '-',
  '*',
  '/',
  '%',
  '!',
  '~',
  '&',
  '|',
  '^',
  '(',
  ')',
  '{',
  '}',
  '[',
  ']',
  ',',
  ';',
  ':',
];

export function syntaxError(file: string, lines: LineIndex, offset: number, message: string): TarsierError {
  const p = lines.position(offset);
  return new TarsierError('imp-syntax', message, { file, line: p.line, column: p.column });
}

export function tokenize(text: string, file: string, lines: LineIndex): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = text.length;
  const isDigit = (c: string) => c >= '0' && c <= '9';
  const isIdentStart = (c: string) => /[A-Za-z_$]/.test(c);
  const isIdent = (c: string) => /[A-Za-z0-9_$.'#@]/.test(c);
  while (i < n) {
    const c = text[i];
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n' || c === '\f') {
      i++;
      continue;
    }
    if (c === '/' && text[i + 1] === '/') {
      while (i < n && text[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      if (close < 0) throw syntaxError(file, lines, i, 'unterminated comment');
      i = close + 2;
      continue;
    }
    const start = i;
    const hexFloat = /^0[xX][0-9a-fA-F]*(?:\.[0-9a-fA-F]*)?[pP][+-]?\d+/.exec(text.slice(i, i + 200));
    if (hexFloat) {
      // `0x1.8p+1`: the value inside a float literal `fp32(...)`.
      i += hexFloat[0].length;
      tokens.push({ kind: 'hexfloat', text: hexFloat[0], start, end: i });
      if (i < n && isIdentStart(text[i])) throw syntaxError(file, lines, i, `unexpected character '${text[i]}' after a number`);
      continue;
    }
    if (isDigit(c)) {
      while (i < n && isDigit(text[i])) i++;
      if (text[i] === '.' && isDigit(text[i + 1] ?? '')) {
        i++;
        while (i < n && isDigit(text[i])) i++;
        tokens.push({ kind: 'real', text: text.slice(start, i), start, end: i });
      } else if (text.startsWith('bv', i) && isDigit(text[i + 2] ?? '')) {
        i += 2;
        while (i < n && isDigit(text[i])) i++;
        tokens.push({ kind: 'bv', text: text.slice(start, i), start, end: i });
      } else {
        tokens.push({ kind: 'int', text: text.slice(start, i), start, end: i });
      }
      if (i < n && isIdentStart(text[i])) throw syntaxError(file, lines, i, `unexpected character '${text[i]}' after a number`);
      continue;
    }
    if (isIdentStart(c)) {
      while (i < n && isIdent(text[i])) i++;
      tokens.push({ kind: 'ident', text: text.slice(start, i), start, end: i });
      continue;
    }
    const p = PUNCTS.find((q) => text.startsWith(q, i));
    if (!p) {
      const shown = c.charCodeAt(0) < 32 ? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}` : c;
      throw syntaxError(file, lines, i, `unexpected character '${shown}'`);
    }
    i += p.length;
    tokens.push({ kind: 'punct', text: p, start, end: i });
  }
  tokens.push({ kind: 'eof', text: '', start: n, end: n });
  return tokens;
}

export function tokenLoc(file: string, lines: LineIndex, start: number, end: number): SourceLocation {
  const s = lines.position(start);
  const e = lines.position(end);
  return { file, line: s.line, column: s.column, offset: start, end: e };
}

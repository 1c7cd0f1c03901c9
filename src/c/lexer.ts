/**
 * The C lexer: preprocessed text to tokens. Line markers (`# 12 "file.c"`,
 * `#line 12 "file.c"`) are consumed here and recorded in a SourceMap that
 * turns offsets of the lexed text into locations in the original files.
 * `#pragma` and `#ident` lines are skipped; any other directive means the
 * text still needs the preprocessor, which is an error here.
 */
import { TarsierError } from '../common/errors.js';
import { columnMapping } from './macro-columns.js';
import { LineIndex, type SourceLocation, type SourcePosition } from '../common/location.js';

export type TokenKind = 'ident' | 'number' | 'char' | 'string' | 'punct' | 'eof';

export interface Token {
  readonly kind: TokenKind;
  /** For strings and chars the literal as written (with prefix and quotes). */
  readonly text: string;
  /** Offsets into the lexed text. */
  readonly start: number;
  readonly end: number;
}

interface Segment {
  /** First line (1-based) of the lexed text this segment covers. */
  readonly fromLine: number;
  readonly file: string;
  /** Original line number of `fromLine`. */
  readonly originalLine: number;
}

/** Offsets of the lexed text to original file positions. */
export class SourceMap {
  private readonly index: LineIndex;
  private readonly originalIndex?: LineIndex;
  constructor(
    readonly text: string,
    readonly file: string,
    private readonly segments: readonly Segment[],
    /** The text of the main file before preprocessing, to give offsets into it. */
    originalText?: string,
  ) {
    this.index = new LineIndex(text);
    if (originalText !== undefined && segments.length > 0) this.originalIndex = new LineIndex(originalText);
  }

  /** True when no line marker changed the mapping (offsets are the original file's). */
  get identity(): boolean {
    return this.segments.length === 0;
  }

  private mapPos(offset: number): { file: string; pos: SourcePosition } {
    const p = this.index.position(offset);
    if (this.segments.length === 0) return { file: this.file, pos: p };
    let lo = 0;
    let hi = this.segments.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.segments[mid].fromLine <= p.line) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (found < 0) return { file: this.file, pos: p };
    const s = this.segments[found];
    const line = s.originalLine + (p.line - s.fromLine);
    if (!this.originalIndex || s.file !== this.file) return { file: s.file, pos: { line, column: p.column, offset: -1 } };
    // Macros expanded on the line move the columns: map them back to the original text's.
    const column = this.originalColumn(p.line, line, p.column);
    return { file: s.file, pos: { line, column, offset: this.originalIndex.offsetOf(line, column) ?? -1 } };
  }

  /** Column mappings of the lexed lines whose text differs from their original line (undefined: the same text). */
  private readonly columnMaps = new Map<number, ((column: number) => number) | undefined>();

  private originalColumn(lexedLine: number, originalLine: number, column: number): number {
    if (!this.columnMaps.has(lexedLine)) {
      const original = originalLine <= this.originalIndex!.lineCount ? this.originalIndex!.lineText(originalLine) : '';
      this.columnMaps.set(lexedLine, columnMapping(this.index.lineText(lexedLine), original));
    }
    const map = this.columnMaps.get(lexedLine);
    return map ? map(column) : column;
  }

  private lineStarts?: number[];

  /** 0-based line index of an offset (identity fast path, no intermediate objects). */
  private lineIndexOf(offset: number): number {
    let starts = this.lineStarts;
    if (!starts) {
      starts = [0];
      const t = this.text;
      for (let i = t.indexOf('\n'); i >= 0; i = t.indexOf('\n', i + 1)) starts.push(i + 1);
      this.lineStarts = starts;
    }
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The location of the range [start, end) of the lexed text. */
  location(start: number, end?: number): SourceLocation {
    if (this.segments.length === 0) {
      const la = this.lineIndexOf(start);
      const column = start - this.lineStarts![la] + 1;
      if (end === undefined) return { file: this.file, line: la + 1, column, offset: start };
      const lb = this.lineIndexOf(end);
      return { file: this.file, line: la + 1, column, offset: start, end: { line: lb + 1, column: end - this.lineStarts![lb] + 1, offset: end } };
    }
    const a = this.mapPos(start);
    if (end === undefined) return { file: a.file, line: a.pos.line, column: a.pos.column, offset: a.pos.offset };
    const b = this.mapPos(end);
    return { file: a.file, line: a.pos.line, column: a.pos.column, offset: a.pos.offset, end: b.pos };
  }
}

const PUNCTS2 = new Set([
  '->', '++', '--', '<<', '>>', '<=', '>=', '==', '!=', '&&', '||', '*=', '/=', '%=', '+=', '-=', '&=', '^=', '|=', '##',
]);
const PUNCTS1 = '[](){}.&*+-~!/%<>^|?:;=,#';
const PUNCT1_CODES = new Set([...PUNCTS1].map((ch) => ch.charCodeAt(0)));
const PUNCT1_TEXT: string[] = [];
for (const ch of PUNCTS1) PUNCT1_TEXT[ch.charCodeAt(0)] = ch;
const PUNCT2_FIRST = new Set([...PUNCTS2].map((p) => p.charCodeAt(0)));

function isIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36 || c >= 128;
}
function isIdentPart(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57);
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** A `#pragma pack` taking effect at an offset (value undefined: the default). */
export interface PackChange {
  readonly offset: number;
  readonly value?: number;
}

export interface LexResult {
  readonly tokens: Token[];
  readonly map: SourceMap;
  /** `#pragma pack` changes in source order. */
  readonly packs: readonly PackChange[];
}

const MARKER = /^[ \t]*#[ \t]*(?:line[ \t]+)?(\d+)(?:[ \t]+"((?:[^"\\]|\\.)*)")?/;

/** Tokenises a whole translation unit. Throws TarsierError with the original position. */
export function lex(text: string, file: string, originalText?: string): LexResult {
  const tokens: Token[] = [];
  const segments: Segment[] = [];
  const n = text.length;
  let i = 0;
  let line = 1;
  let atLineStart = true;
  let currentFile = file;
  const packs: PackChange[] = [];
  const packStack: Array<number | undefined> = [];
  let packValue: number | undefined;
  const fail = (offset: number, message: string): never => {
    const map = new SourceMap(text, file, segments);
    throw new TarsierError('c-syntax', message, map.location(offset));
  };
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      line++;
      i++;
      atLineStart = true;
      continue;
    }
    if (c === 32 || c === 9 || c === 13 || c === 12 || c === 11) {
      i++;
      continue;
    }
    if (c === 92 && (text.charCodeAt(i + 1) === 10 || (text.charCodeAt(i + 1) === 13 && text.charCodeAt(i + 2) === 10))) {
      // A line splice outside a token (rare in preprocessed text).
      i += text.charCodeAt(i + 1) === 10 ? 2 : 3;
      line++;
      continue;
    }
    if (c === 47 && text.charCodeAt(i + 1) === 47) {
      while (i < n && text.charCodeAt(i) !== 10) i++;
      continue;
    }
    if (c === 47 && text.charCodeAt(i + 1) === 42) {
      const close = text.indexOf('*/', i + 2);
      if (close < 0) fail(i, 'unterminated comment');
      for (let k = i; k < close; k++) if (text.charCodeAt(k) === 10) line++;
      i = close + 2;
      continue;
    }
    if (c === 35 && atLineStart) {
      let eol = text.indexOf('\n', i);
      if (eol < 0) eol = n;
      const directive = text.slice(i, eol);
      const m = MARKER.exec(directive);
      if (m) {
        if (m[2] !== undefined) currentFile = m[2].replace(/\\(.)/g, '$1');
        segments.push({ fromLine: line + 1, file: currentFile, originalLine: Number(m[1]) });
      } else {
        const name = /^#[ \t]*([A-Za-z_]*)/.exec(directive)?.[1] ?? '';
        const pack = /^#[ \t]*pragma[ \t]+pack[ \t]*\(([^)]*)\)/.exec(directive);
        if (pack) {
          // #pragma pack(N) / pack() / pack(push[, N]) / pack(pop): the maximum member alignment from here on.
          const args = pack[1].split(',').map((a) => a.trim()).filter((a) => a !== '');
          const num = args.find((a) => /^\d+$/.test(a));
          if (args[0] === 'push') {
            packStack.push(packValue);
            if (num !== undefined) packValue = Number(num);
          } else if (args[0] === 'pop') {
            packValue = packStack.pop();
            if (num !== undefined) packValue = Number(num);
          } else if (args.length === 0) packValue = undefined;
          else if (num !== undefined && args.length === 1) packValue = Number(num);
          else fail(i, `unsupported construct: #pragma pack(${pack[1]})`);
          if (packValue !== undefined && ![1, 2, 4, 8, 16].includes(packValue)) fail(i, `alignment must be a small power of two, not ${packValue}`);
          packs.push({ offset: i, value: packValue });
        }
        if (name !== 'pragma' && name !== 'ident' && name !== '') {
          fail(i, `preprocessing directive #${name} needs the preprocessor (parse the file with parseCFile / tarsier parse)`);
        }
      }
      i = eol;
      continue;
    }
    atLineStart = false;
    const start = i;
    // String and character literals with optional prefixes L, u, U, u8.
    let q = -1;
    if (c === 34 || c === 39) q = i;
    else if ((c === 76 || c === 85 || c === 117) && (text.charCodeAt(i + 1) === 34 || text.charCodeAt(i + 1) === 39)) q = i + 1;
    else if (c === 117 && text.charCodeAt(i + 1) === 56 && text.charCodeAt(i + 2) === 34) q = i + 2;
    if (q >= 0) {
      const qc = text.charCodeAt(q);
      let k = q + 1;
      while (k < n) {
        const d = text.charCodeAt(k);
        if (d === 92) {
          k += 2;
          continue;
        }
        if (d === qc) break;
        if (d === 10) fail(start, qc === 34 ? 'missing terminating " character' : "missing terminating ' character");
        k++;
      }
      if (k >= n) fail(start, qc === 34 ? 'missing terminating " character' : "missing terminating ' character");
      i = k + 1;
      tokens.push({ kind: qc === 34 ? 'string' : 'char', text: text.slice(start, i), start, end: i });
      continue;
    }
    if (isIdentStart(c)) {
      i++;
      while (i < n && isIdentPart(text.charCodeAt(i))) i++;
      tokens.push({ kind: 'ident', text: text.slice(start, i), start, end: i });
      continue;
    }
    if (isDigit(c) || (c === 46 && isDigit(text.charCodeAt(i + 1)))) {
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if ((d === 43 || d === 45) && /[eEpP]/.test(text[i - 1])) {
          i++;
          continue;
        }
        if (isIdentPart(d) || d === 46) {
          i++;
          continue;
        }
        break;
      }
      tokens.push({ kind: 'number', text: text.slice(start, i), start, end: i });
      continue;
    }
    // Punctuators, longest match first, without building candidate strings.
    const c1 = text.charCodeAt(i + 1);
    let len = 0;
    if (c === 46 && c1 === 46 && text.charCodeAt(i + 2) === 46) len = 3; // ...
    else if ((c === 60 || c === 62) && c1 === c && text.charCodeAt(i + 2) === 61) len = 3; // <<= >>=
    else if (PUNCT2_FIRST.has(c) && PUNCTS2.has(text.slice(i, i + 2))) len = 2;
    else if (PUNCT1_CODES.has(c)) len = 1;
    if (len > 0) {
      i += len;
      tokens.push({ kind: 'punct', text: len === 1 ? PUNCT1_TEXT[c] : text.slice(start, i), start, end: i });
      continue;
    }
    fail(i, `stray '${strayText(text.codePointAt(i)!)}' in program`);
  }
  tokens.push({ kind: 'eof', text: '', start: n, end: n });
  return { tokens, map: new SourceMap(text, file, segments, originalText), packs };
}

/** Decodes the escapes of a character or string literal body; returns code units. */
export function decodeEscapes(body: string, onError: (message: string) => never): number[] {
  const out: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const ch = body.charCodeAt(i);
    if (ch !== 92) {
      if (ch < 128) out.push(ch);
      else for (const b of Buffer.from(body[i], 'utf8')) out.push(b);
      continue;
    }
    const e = body[++i];
    switch (e) {
      case 'n': out.push(10); break;
      case 't': out.push(9); break;
      case 'r': out.push(13); break;
      case 'a': out.push(7); break;
      case 'b': out.push(8); break;
      case 'f': out.push(12); break;
      case 'v': out.push(11); break;
      case 'e': case 'E': out.push(27); break;
      case '\\': out.push(92); break;
      case "'": out.push(39); break;
      case '"': out.push(34); break;
      case '?': out.push(63); break;
      case 'x': {
        let j = i + 1;
        while (j < body.length && /[0-9a-fA-F]/.test(body[j])) j++;
        if (j === i + 1) onError('\\x used with no following hex digits');
        out.push(Number.parseInt(body.slice(i + 1, j), 16));
        i = j - 1;
        break;
      }
      case 'u': case 'U': {
        const len = e === 'u' ? 4 : 8;
        const hex = body.slice(i + 1, i + 1 + len);
        if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== len) onError(`incomplete universal character name \\${e}${hex}`);
        for (const b of Buffer.from(String.fromCodePoint(Number.parseInt(hex, 16)), 'utf8')) out.push(b);
        i += len;
        break;
      }
      default: {
        if (e !== undefined && e >= '0' && e <= '7') {
          let j = i;
          while (j < body.length && j < i + 3 && body[j] >= '0' && body[j] <= '7') j++;
          out.push(Number.parseInt(body.slice(i, j), 8));
          i = j - 1;
        } else onError(`unknown escape sequence '\\${e ?? ''}'`);
      }
    }
  }
  return out;
}

/** A stray character as gcc names it: a control character or DEL as its octal escape (`\1`), anything else as written. */
function strayText(code: number): string {
  return code < 0x20 || code === 0x7f ? `\\${code.toString(8)}` : String.fromCodePoint(code);
}

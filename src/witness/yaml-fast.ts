import { Document, Pair, Scalar, YAMLMap, YAMLSeq, LineCounter } from 'yaml';

/**
 * A fast reader for the plain subset of YAML that witness writers produce
 * (block mappings and sequences, one-line flow collections, plain and quoted
 * one-line scalars, comments). It builds the same nodes, with the same
 * ranges, as the `yaml` package, which is several times slower on large
 * witnesses. Anything outside the subset (anchors, aliases, tags, block or
 * multi-line scalars, multi-line flow collections, complex keys, directives,
 * several documents, duplicate keys, tabs in indentation) makes it return
 * undefined, and the caller uses the `yaml` package, which also reports
 * errors. A differential test checks both agree on every witness we have.
 */
export function parseFastYaml(text: string): { doc: Document.Parsed; lines: LineCounter } | undefined {
  try {
    return new FastParser(text).run();
  } catch (e) {
    if (e === BAIL) return undefined;
    throw e;
  }
}

const BAIL = Symbol('bail');
const bail = (): never => {
  throw BAIL;
};

type Node = YAMLMap | YAMLSeq | Scalar;

interface Line {
  /** Offset of the first non-blank character. */
  start: number;
  indent: number;
  /** Offset just past the last character of the line (before `\n`/`\r\n`). */
  end: number;
}

const INT = /^[-+]?[0-9]+$/;
const OCT = /^0o[0-7]+$/;
const HEX = /^0x[0-9a-fA-F]+$/;
const FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;

class FastParser {
  private lines: Line[] = [];
  private li = 0;
  private readonly counter = new LineCounter();

  constructor(private readonly text: string) {}

  run(): { doc: Document.Parsed; lines: LineCounter } {
    const t = this.text;
    // Tabs as separators and a BOM have rules of their own: left to the yaml package.
    if (t.charCodeAt(0) === 0xfeff || t.includes('\t')) bail();
    let pos = 0;
    while (pos <= t.length) {
      this.counter.addNewLine(pos);
      let nl = t.indexOf('\n', pos);
      if (nl < 0) nl = t.length;
      let end = nl > pos && t.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      let i = pos;
      while (i < end && t.charCodeAt(i) === 32) i++;
      if (i < end && t.charCodeAt(i) === 9) bail();
      const c = t[i];
      if (i < end && c !== '#') {
        if (i === pos && (t.startsWith('---', i) || t.startsWith('...', i) || c === '%')) bail();
        // Trailing blanks are not part of the line's content.
        while (end > i && (t.charCodeAt(end - 1) === 32 || t.charCodeAt(end - 1) === 9)) end--;
        this.lines.push({ start: i, indent: i - pos, end });
      }
      pos = nl + 1;
    }
    if (this.lines.length === 0 || this.lines[0].indent !== 0) bail();
    const root = this.block(0);
    if (this.li !== this.lines.length) bail();
    const doc = new Document() as unknown as Document.Parsed;
    doc.contents = root as unknown as Document.Parsed['contents'];
    return { doc, lines: this.counter };
  }

  private depth = 0;

  /** A block node whose first line is the current line, at exactly `indent`. */
  private block(indent: number): Node {
    const line = this.lines[this.li];
    if (line.indent !== indent || ++this.depth > 64) bail();
    const node = this.isDash(line.start, line.end) ? this.blockSeq(indent) : this.blockMap(indent);
    this.depth--;
    return node;
  }

  private isDash(at: number, end: number): boolean {
    return this.text[at] === '-' && (at + 1 === end || this.text[at + 1] === ' ');
  }

  private blockSeq(indent: number): YAMLSeq {
    const seq = new YAMLSeq();
    seq.range = [this.lines[this.li].start, 0, 0];
    while (this.li < this.lines.length) {
      const line = this.lines[this.li];
      if (line.indent !== indent || !this.isDash(line.start, line.end)) break;
      let i = line.start + 1;
      while (i < line.end && this.text[i] === ' ') i++;
      if (i === line.end) {
        // `-` alone: the item is the block that follows, more indented.
        this.li++;
        const next = this.lines[this.li];
        if (!next || next.indent <= indent) bail();
        seq.items.push(this.block(next.indent));
      } else {
        // `- x`: the item starts on this line, at column i; treat it as a line of its own.
        const itemIndent = indent + (i - line.start);
        this.lines[this.li] = { start: i, indent: itemIndent, end: line.end };
        if (this.isDash(i, line.end)) bail(); // `- - x`: rare, left to the yaml package
        if (++this.depth > 64) bail();
        seq.items.push(this.lineItem(itemIndent));
        this.depth--;
      }
    }
    return seq;
  }

  /** The node starting on the current line at `indent`: a block mapping or a lone scalar/flow value. */
  private lineItem(indent: number): Node {
    const line = this.lines[this.li];
    if (this.keyEnd(line.start, line.end) !== undefined) return this.blockMap(indent);
    const v = this.inlineValue(line.start, line.end);
    this.li++;
    return v;
  }

  private blockMap(indent: number): YAMLMap {
    const map = new YAMLMap();
    map.range = [this.lines[this.li].start, 0, 0];
    const seen = new Set<unknown>();
    while (this.li < this.lines.length) {
      const line = this.lines[this.li];
      if (line.indent !== indent) {
        if (line.indent > indent) bail();
        break;
      }
      if (this.isDash(line.start, line.end)) break;
      const colon = this.keyEnd(line.start, line.end) ?? bail();
      let keyEnd = colon;
      while (keyEnd > line.start && this.text[keyEnd - 1] === ' ') keyEnd--;
      const key = this.scalar(line.start, keyEnd);
      const k = key.value;
      if (seen.has(k)) bail();
      seen.add(k);
      let i = colon + 1;
      while (i < line.end && this.text[i] === ' ') i++;
      let value: Node | null;
      if (i === line.end || this.text[i] === '#') {
        this.li++;
        const next = this.lines[this.li];
        if (next && next.indent > indent) value = this.block(next.indent);
        else if (next && next.indent === indent && this.isDash(next.start, next.end)) value = this.blockSeq(indent);
        else value = null;
      } else {
        value = this.inlineValue(i, line.end, indent);
        this.li++;
      }
      map.items.push(new Pair(key, value ?? this.nullAt(this.afterBlanks(colon + 1))));
    }
    return map;
  }

  private afterBlanks(at: number): number {
    let i = at;
    while (this.text[i] === ' ') i++;
    return i;
  }

  // `key:` with nothing after it: the yaml package gives a null scalar whose range starts after the colon.
  private nullAt(at: number): Scalar {
    const s = new Scalar(null);
    s.source = '';
    s.range = [at, at, at];
    return s;
  }

  /** Offset of the `:` ending a key that starts at `at`, or undefined when the line is no `key: …`. */
  private keyEnd(at: number, end: number): number | undefined {
    const t = this.text;
    let i = at;
    const c = t[i];
    if (c === '"' || c === "'") {
      i = this.quotedEnd(i, end);
      return t[i] === ':' && (i + 1 === end || t[i + 1] === ' ') ? i : undefined;
    }
    if ('[]{},#&*!|>?%@`'.includes(c)) return undefined;
    for (; i < end; i++) {
      if (t[i] === ':' && (i + 1 === end || t[i + 1] === ' ')) return i;
      if (t[i] === '#' && t[i - 1] === ' ') return undefined;
    }
    return undefined;
  }

  /** A value that starts at `at` and ends with the line (a comment may follow). */
  private inlineValue(at: number, end: number, parentIndent?: number): Node {
    const c = this.text[at];
    if (c === '[' || c === '{') {
      const [node, after] = this.flow(at, end);
      this.rest(after, end);
      return node;
    }
    if (']},#&*!|>?%@`'.includes(c) || (c === '-' && (at + 1 === end || this.text[at + 1] === ' '))) bail();
    if (c === '"' || c === "'") {
      const close = this.quotedClose(at, end);
      if (close === undefined) {
        if (parentIndent === undefined) bail();
        return this.multiLineQuoted(at, end, parentIndent!);
      }
      this.rest(close, end);
      return this.scalar(at, close);
    }
    // A plain scalar runs to the end of the line or to ` #`.
    let e = at;
    for (let i = at; i < end; i++) {
      if (this.text[i] === '#' && this.text[i - 1] === ' ') break;
      if (this.text[i] === ':' && (i + 1 === end || this.text[i + 1] === ' ')) bail(); // `a: b: c`
      if (this.text[i] !== ' ') e = i + 1;
    }
    return this.scalar(at, e);
  }

  /** Only blanks or a comment may follow a value. */
  private rest(at: number, end: number): void {
    let i = at;
    while (i < end && this.text[i] === ' ') i++;
    if (i < end && !(this.text[i] === '#' && i > at)) bail();
  }

  /**
   * A quoted scalar continued on the following lines (Goblint writes its
   * command line so). Folding as YAML does it: each line break with the
   * blanks around it becomes one space. Blank or comment-like lines inside,
   * and escaped line breaks, are left to the yaml package.
   */
  private multiLineQuoted(at: number, end: number, parentIndent: number): Scalar {
    const t = this.text;
    const q = t[at];
    const parts = [t.slice(at + 1, end)];
    let k = this.li;
    for (;;) {
      const prev = this.lines[k];
      const next = this.lines[++k];
      if (!next || next.indent <= parentIndent) bail();
      // The next content line must be the next physical line.
      const between = t.slice(prev.end, next.start);
      if (between.split('\n').length !== 2) bail();
      const close = this.quotedClose(next.start - 1, next.end, q);
      if (close === undefined) {
        parts.push(t.slice(next.start, next.end));
        continue;
      }
      parts.push(t.slice(next.start, close - 1));
      this.rest(close, next.end);
      this.li = k;
      for (const part of parts.slice(0, -1)) if (q === '"' && /\\$/.test(part)) bail();
      const body = parts.map((p, i) => (i === 0 ? p.replace(/[ \t]+$/, '') : i === parts.length - 1 ? p.replace(/^[ \t]+/, '') : p.trim())).join(' ');
      const s = this.quotedScalar(q + body + q);
      s.range = [at, close, close];
      return s;
    }
  }

  /** Offset just past the closing quote of a quoted scalar starting at `at`, or undefined when it does not close before `end`. */
  private quotedClose(at: number, end: number, quote?: string): number | undefined {
    const t = this.text;
    const q = quote ?? t[at];
    for (let i = at + 1; i < end; i++) {
      if (q === '"' && t[i] === '\\') i++;
      else if (t[i] === q) {
        if (q === "'" && t[i + 1] === "'") i++;
        else return i + 1;
      }
    }
    return undefined;
  }

  /** Offset just past the closing quote of a quoted scalar starting at `at`. */
  private quotedEnd(at: number, end: number): number {
    const t = this.text;
    const q = t[at];
    for (let i = at + 1; i < end; i++) {
      if (q === '"' && t[i] === '\\') i++;
      else if (t[i] === q) {
        if (q === "'" && t[i + 1] === "'") i++;
        else return i + 1;
      }
    }
    return bail();
  }

  /** A one-line flow collection; returns the node and the offset after it. */
  private flow(at: number, end: number, depth = 0): [Node, number] {
    if (depth > 64) bail();
    const t = this.text;
    const open = t[at];
    const close = open === '[' ? ']' : '}';
    const node = open === '[' ? new YAMLSeq() : new YAMLMap();
    node.flow = true;
    let i = at + 1;
    const skip = () => {
      while (i < end && t[i] === ' ') i++;
    };
    const seen = new Set<unknown>();
    const item = (): [Node, number] => {
      const c = t[i];
      if (c === '[' || c === '{') return this.flow(i, end, depth + 1);
      if (c === '"' || c === "'") {
        const e = this.quotedEnd(i, end);
        return [this.scalar(i, e), e];
      }
      if ('&*!|>?%@`,]}#'.includes(c)) bail();
      let e = i;
      let j = i;
      for (; j < end; j++) {
        const d = t[j];
        if (d === ',' || d === ']' || d === '}' || (d === ':' && (t[j + 1] === ' ' || t[j + 1] === ',' || t[j + 1] === ']' || t[j + 1] === '}'))) break;
        if (d === '#' && t[j - 1] === ' ') bail();
        if (d === '[' || d === '{') bail();
        if (d !== ' ') e = j + 1;
      }
      return [this.scalar(i, e), e];
    };
    skip();
    while (t[i] !== close) {
      if (i >= end) bail();
      const [first, after] = item();
      i = after;
      skip();
      if (open === '{') {
        if (t[i] !== ':' || !(first instanceof Scalar)) bail();
        i++;
        skip();
        let value: Node;
        if (t[i] === ',' || t[i] === '}') value = this.nullAt(i);
        else {
          const [v, a] = item();
          value = v;
          i = a;
        }
        const k = (first as Scalar).value;
        if (seen.has(k)) bail();
        seen.add(k);
        (node as YAMLMap).items.push(new Pair(first, value));
      } else {
        if (t[i] === ':') bail(); // implicit single-pair mappings in flow sequences
        (node as YAMLSeq).items.push(first);
      }
      skip();
      if (t[i] === ',') {
        i++;
        skip();
      } else if (t[i] !== close) bail();
    }
    node.range = [at, i + 1, i + 1];
    return [node, i + 1];
  }

  /** A scalar from source text `[at, end)`, resolved by the YAML 1.2 core schema. */
  private scalar(at: number, end: number): Scalar {
    const src = this.text.slice(at, end);
    const s = src[0] === '"' || src[0] === "'" ? this.quotedScalar(src) : this.plainScalar(src);
    s.range = [at, end, end];
    return s;
  }

  private plainScalar(src: string): Scalar {
    const s = new Scalar(resolvePlain(src));
    s.type = Scalar.PLAIN;
    if (typeof s.value !== 'string') s.source = src;
    return s;
  }

  /** A quoted scalar from its (one-line) source text with the quotes. */
  private quotedScalar(src: string): Scalar {
    let s: Scalar;
    if (src[0] === '"') {
      const body = src.slice(1, -1);
      // Only escapes that JSON shares with YAML; others are left to the yaml package.
      if (/[\u0000-\u001f]/.test(body)) bail();
      for (const m of body.matchAll(/\\(.)/g)) if (!'"\\/bfnrtu'.includes(m[1])) bail();
      s = new Scalar(JSON.parse(src) as string);
      s.type = Scalar.QUOTE_DOUBLE;
    } else {
      s = new Scalar(src.slice(1, -1).replace(/''/g, "'"));
      s.type = Scalar.QUOTE_SINGLE;
    }
    return s;
  }
}

function resolvePlain(src: string): unknown {
  switch (src) {
    case '':
    case '~':
    case 'null':
    case 'Null':
    case 'NULL':
      return null;
    case 'true':
    case 'True':
    case 'TRUE':
      return true;
    case 'false':
    case 'False':
    case 'FALSE':
      return false;
    case '.inf':
    case '.Inf':
    case '.INF':
    case '+.inf':
    case '+.Inf':
    case '+.INF':
      return Infinity;
    case '-.inf':
    case '-.Inf':
    case '-.INF':
      return -Infinity;
    case '.nan':
    case '.NaN':
    case '.NAN':
      return NaN;
  }
  if (INT.test(src)) {
    const n = Number(src);
    return Number.isSafeInteger(n) ? n : bail();
  }
  if (OCT.test(src)) return parseInt(src.slice(2), 8);
  if (HEX.test(src)) return parseInt(src.slice(2), 16);
  if (FLOAT.test(src)) return Number(src);
  return src;
}

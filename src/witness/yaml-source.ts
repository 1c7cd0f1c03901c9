import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { TarsierError } from '../common/errors.js';
import type { WitnessPos } from './model.js';
import { parseFastYaml } from './yaml-fast.js';

/** Limits that keep reading bounded in time and memory on hostile input. */
export const WITNESS_LIMITS = {
  /** Characters of witness text (a 10,000-invariant witness is about 3 MB). */
  maxChars: 64 * 1024 * 1024,
  /** Nesting of collections; real witnesses nest at most 8 deep. */
  maxDepth: 64,
  /** Alias resolutions while converting (stops "billion laughs"). */
  maxAliasCount: 100,
};

/** A parsed YAML witness with what is needed to turn offsets into positions. */
export interface YamlSource {
  readonly file: string;
  readonly text: string;
  readonly doc: Document.Parsed;
  readonly lines: LineCounter;
}

export interface YamlProblem {
  rule: 'yaml-syntax' | 'duplicate-key' | 'root-not-sequence';
  at: WitnessPos;
  message: string;
}

export function posAt(src: YamlSource, offset: number): WitnessPos {
  const p = src.lines.linePos(offset);
  return { line: p.line, column: p.col };
}

/** Position of a node's first character. */
export function nodePos(src: YamlSource, node: unknown): WitnessPos | undefined {
  const range = (node as { range?: [number, number, number] } | undefined)?.range;
  return range ? posAt(src, range[0]) : undefined;
}

/**
 * Parses witness text as one YAML 1.2 document, returning the problems that
 * make it unreadable (syntax, duplicate keys, nesting or alias limits) instead
 * of throwing. A text over the size limit throws (exit status 2): it is not
 * read at all.
 */
export function parseYamlSource(text: string, file: string): { source?: YamlSource; problems: YamlProblem[] } {
  if (text.length > WITNESS_LIMITS.maxChars) {
    throw new TarsierError(
      'too-large',
      `witness is too large (${text.length} characters; the limit is ${WITNESS_LIMITS.maxChars})`,
      { file },
      2,
    );
  }
  const flowDepth = deepFlowNesting(text);
  if (flowDepth) {
    const before = text.slice(0, flowDepth.offset);
    const line = before.split('\n').length;
    return {
      problems: [
        {
          rule: 'yaml-syntax',
          at: { line, column: flowDepth.offset - (before.lastIndexOf('\n') + 1) + 1 },
          message: `collections are nested more than ${WITNESS_LIMITS.maxDepth} levels deep`,
        },
      ],
    };
  }
  // The common case, plain block YAML as tools write it, is read by a fast path; everything
  // else (and every error) goes through the yaml package.
  const fast = parseFastYaml(text);
  if (fast) {
    const src: YamlSource = { file, text, doc: fast.doc, lines: fast.lines };
    if (fast.doc.contents === null) {
      return { source: src, problems: [{ rule: 'root-not-sequence', at: { line: 1, column: 1 }, message: 'the witness is empty: expected a sequence of entries' }] };
    }
    return { source: src, problems: [] };
  }
  const lines = new LineCounter();
  let doc: Document.Parsed;
  try {
    doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false, version: '1.2' });
  } catch (e) {
    // The composer recurses per nesting level; a RangeError means hostile depth.
    const message = e instanceof RangeError ? `document is nested too deeply to read` : `cannot parse YAML: ${String(e)}`;
    return { problems: [{ rule: 'yaml-syntax', at: { line: 1, column: 1 }, message }] };
  }
  const src: YamlSource = { file, text, doc, lines };
  if (doc.errors.length > 0) {
    // The composer can run out of stack on hostile nesting; that is one problem, not many.
    const overflow = doc.errors.find((e) => /call stack/i.test(e.message));
    if (overflow) {
      return { problems: [{ rule: 'yaml-syntax', at: posAt(src, overflow.pos[0]), message: 'document is nested too deeply to read' }] };
    }
    // Later syntax errors are mostly consequences of the first; duplicate keys are independent.
    const syntax = doc.errors.find((e) => e.code !== 'DUPLICATE_KEY');
    const shown = syntax ? [syntax] : doc.errors;
    return {
      problems: shown.map((e) => ({
        rule: e.code === 'DUPLICATE_KEY' ? ('duplicate-key' as const) : ('yaml-syntax' as const),
        at: e.linePos ? { line: e.linePos[0].line, column: e.linePos[0].col } : posAt(src, e.pos[0]),
        message: e.code === 'DUPLICATE_KEY' ? duplicateKeyMessage(src, e.pos[0]) : firstLine(e.message),
      })),
    };
  }
  const deep = tooDeep(doc.contents);
  if (deep) {
    return {
      problems: [
        {
          rule: 'yaml-syntax',
          at: nodePos(src, deep) ?? { line: 1, column: 1 },
          message: `collections are nested more than ${WITNESS_LIMITS.maxDepth} levels deep`,
        },
      ],
    };
  }
  if (hasAlias(doc.contents)) {
    try {
      doc.toJS({ maxAliasCount: WITNESS_LIMITS.maxAliasCount });
    } catch (e) {
      return {
        problems: [
          {
            rule: 'yaml-syntax',
            at: { line: 1, column: 1 },
            message: `aliases expand too much (more than ${WITNESS_LIMITS.maxAliasCount} alias uses; an alias bomb?)`,
          },
        ],
      };
    }
  }
  if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) {
    return {
      source: src,
      problems: [{ rule: 'root-not-sequence', at: { line: 1, column: 1 }, message: 'the witness is empty: expected a sequence of entries' }],
    };
  }
  return { source: src, problems: [] };
}

function firstLine(message: string): string {
  return message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
}

function duplicateKeyMessage(src: YamlSource, offset: number): string {
  const key = /^[^:\n]*/.exec(src.text.slice(offset))?.[0].trim().replace(/^["']|["']$/g, '');
  return key ? `duplicate key '${key}' in a mapping (YAML forbids it)` : 'duplicate key in a mapping (YAML forbids it)';
}

/** A cheap scan for `[[[[…` / `{{{{…` bombs before the recursive composer sees them. */
function deepFlowNesting(text: string): { offset: number } | undefined {
  let depth = 0;
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === "'") {
      // A quote opens a quoted scalar only at the start of a token.
      const prev = i > 0 ? text[i - 1] : ' ';
      if (' \t\n[{,:-'.includes(prev)) quote = c;
    } else if (c === '#' && (i === 0 || ' \t\n'.includes(text[i - 1]))) {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? text.length : nl;
    } else if (c === '[' || c === '{') {
      if (++depth > WITNESS_LIMITS.maxDepth) return { offset: i };
    } else if ((c === ']' || c === '}') && depth > 0) depth--;
  }
  return undefined;
}

function tooDeep(root: unknown): Node | undefined {
  const stack: Array<[unknown, number]> = [[root, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (isMap(node) || isSeq(node)) {
      if (depth > WITNESS_LIMITS.maxDepth) return node as Node;
      for (const item of node.items) {
        if (isPair(item)) {
          stack.push([item.key, depth + 1]);
          stack.push([item.value, depth + 1]);
        } else stack.push([item, depth + 1]);
      }
    }
  }
  return undefined;
}

function hasAlias(root: unknown): boolean {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isAlias(node)) return true;
    if (isMap(node) || isSeq(node)) {
      for (const item of node.items) {
        if (isPair(item)) stack.push(item.key, item.value);
        else stack.push(item);
      }
    }
  }
  return false;
}

// ------------------------------------------------------------ node accessors

/** Resolves an alias to its anchored node (alias use is bounded by the check above). */
export function deref(src: YamlSource, node: unknown): unknown {
  return isAlias(node) ? node.resolve(src.doc) : node;
}

/** The value node of `key` in a mapping node, if any. */
export function field(src: YamlSource, map: unknown, key: string): unknown {
  const m = deref(src, map);
  if (!isMap(m)) return undefined;
  for (const pair of m.items) {
    const k = deref(src, pair.key);
    if (isScalar(k) && scalarText(k) === key) return pair.value === null ? nullNode(pair) : pair.value;
  }
  return undefined;
}

/** The key node of `key` in a mapping, for positions. */
export function keyNode(src: YamlSource, map: unknown, key: string): unknown {
  const m = deref(src, map);
  if (!isMap(m)) return undefined;
  return m.items.find((p) => {
    const k = deref(src, p.key);
    return isScalar(k) && scalarText(k) === key;
  })?.key;
}

// `key:` with nothing after it has a null value node; keep it distinguishable from absence.
function nullNode(pair: { key: unknown }): unknown {
  const range = (pair.key as { range?: [number, number, number] }).range;
  return { nullValue: true, range };
}

/**
 * The text of a scalar as a string: strings as they are; numbers, booleans and
 * timestamps as their **source text** (`2.0` stays "2.0", never "2").
 */
export function scalarText(node: unknown): string | undefined {
  if (!isScalar(node)) return undefined;
  if (typeof node.value === 'string') return node.value;
  if (node.value === null) return undefined;
  return node.source ?? String(node.value);
}

export function isNullNode(node: unknown): boolean {
  return !!node && typeof node === 'object' && 'nullValue' in node;
}

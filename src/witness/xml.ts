import { TarsierError } from '../common/errors.js';
import { LineIndex } from '../common/location.js';
import type { WitnessPos } from './model.js';

/** A parsed XML element; namespaces are kept as written (`prefix:name`). */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  /** Concatenated character data directly inside this element. */
  text: string;
  /** `<x/>` rather than `<x></x>`. */
  selfClosing: boolean;
  at: WitnessPos;
}

const MAX_DEPTH = 64;

/**
 * A small non-validating XML parser, enough for GraphML: elements, attributes,
 * character data, CDATA, comments, processing instructions, the five
 * predefined entities and character references. A DOCTYPE is skipped and
 * never expanded (no entity bombs, no external entities). Iterative, with a
 * depth limit; every syntax error is a TarsierError with a position.
 */
export function parseXml(text: string, file: string): XmlElement {
  const index = new LineIndex(text);
  const pos = (offset: number): WitnessPos => {
    const p = index.position(offset);
    return { line: p.line, column: p.column };
  };
  const fail = (offset: number, message: string): never => {
    const p = pos(offset);
    throw new TarsierError('xml-syntax', message, { file, line: p.line, column: p.column });
  };
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  while (i < text.length) {
    const lt = text.indexOf('<', i);
    const chunkEnd = lt < 0 ? text.length : lt;
    if (chunkEnd > i) {
      const chunk = text.slice(i, chunkEnd);
      if (stack.length > 0) stack[stack.length - 1].text += decodeEntities(chunk, i, fail);
      else if (chunk.trim() !== '') fail(i + chunk.search(/\S/), 'text outside the root element');
    }
    if (lt < 0) break;
    i = lt;
    if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4);
      if (end < 0) fail(i, 'unterminated comment');
      i = end + 3;
    } else if (text.startsWith('<![CDATA[', i)) {
      const end = text.indexOf(']]>', i + 9);
      if (end < 0) fail(i, 'unterminated CDATA section');
      if (stack.length === 0) fail(i, 'CDATA outside the root element');
      stack[stack.length - 1].text += text.slice(i + 9, end);
      i = end + 3;
    } else if (text.startsWith('<?', i)) {
      const end = text.indexOf('?>', i + 2);
      if (end < 0) fail(i, 'unterminated processing instruction');
      i = end + 2;
    } else if (text.startsWith('<!', i)) {
      // DOCTYPE (possibly with an internal subset in brackets): skipped, never expanded.
      let depth = 0;
      let j = i + 2;
      for (; j < text.length; j++) {
        const c = text[j];
        if (c === '[') depth++;
        else if (c === ']') depth--;
        else if (c === '>' && depth <= 0) break;
      }
      if (j >= text.length) fail(i, 'unterminated declaration');
      i = j + 1;
    } else if (text.startsWith('</', i)) {
      const m = /^<\/([^\s>]+)\s*>/.exec(text.slice(i, i + 512));
      if (!m) fail(i, 'malformed end tag');
      const open = stack.pop();
      if (!open) fail(i, `end tag </${m![1]}> without a start tag`);
      if (open!.name !== m![1]) fail(i, `end tag </${m![1]}> does not match <${open!.name}> (line ${open!.at.line})`);
      i += m![0].length;
    } else {
      const start = i;
      const nameMatch = /^<([A-Za-z_][\w.:-]*)/.exec(text.slice(i, i + 256));
      if (!nameMatch) fail(i, "'<' does not start a tag");
      i += nameMatch![0].length;
      const attrs: Record<string, string> = {};
      let selfClosing = false;
      for (;;) {
        while (i < text.length && /\s/.test(text[i])) i++;
        if (i >= text.length) fail(start, `unterminated start tag <${nameMatch![1]}>`);
        if (text[i] === '>') {
          i++;
          break;
        }
        if (text.startsWith('/>', i)) {
          selfClosing = true;
          i += 2;
          break;
        }
        const am = /^([A-Za-z_][\w.:-]*)\s*=\s*("([^"]*)"|'([^']*)')/.exec(text.slice(i, i + 65536));
        if (!am) fail(i, `malformed attribute in <${nameMatch![1]}>`);
        if (am![1] in attrs) fail(i, `attribute '${am![1]}' given twice`);
        attrs[am![1]] = decodeEntities(am![3] ?? am![4] ?? '', i, fail);
        i += am![0].length;
      }
      const el: XmlElement = { name: nameMatch![1], attrs, children: [], text: '', selfClosing, at: pos(start) };
      if (stack.length > 0) stack[stack.length - 1].children.push(el);
      else if (root) fail(start, 'a second root element');
      else root = el;
      if (!selfClosing) {
        stack.push(el);
        if (stack.length > MAX_DEPTH) fail(start, `elements are nested more than ${MAX_DEPTH} levels deep`);
      }
    }
  }
  if (stack.length > 0) fail(text.length, `element <${stack[stack.length - 1].name}> is not closed`);
  if (!root) fail(0, 'no root element');
  return root!;
}

function decodeEntities(s: string, offset: number, fail: (offset: number, message: string) => never): string {
  if (!s.includes('&')) return s;
  return s.replace(/&([^;\s&]{0,10});?/g, (whole, name: string) => {
    if (!whole.endsWith(';')) return fail(offset, `bad entity reference '${whole}'`);
    switch (name) {
      case 'amp':
        return '&';
      case 'lt':
        return '<';
      case 'gt':
        return '>';
      case 'quot':
        return '"';
      case 'apos':
        return "'";
    }
    const m = /^#(x[0-9a-fA-F]+|\d+)$/.exec(name);
    if (m) {
      const code = m[1][0] === 'x' ? parseInt(m[1].slice(1), 16) : parseInt(m[1], 10);
      if (code > 0 && code <= 0x10ffff) return String.fromCodePoint(code);
    }
    return fail(offset, `unknown entity '&${name};'`);
  });
}

/** The local part of a possibly prefixed name. */
export function localName(name: string): string {
  const c = name.indexOf(':');
  return c < 0 ? name : name.slice(c + 1);
}

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

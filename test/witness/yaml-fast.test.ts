// The fast YAML path builds exactly what the yaml package builds (values, node kinds, positions), or declines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import { sharedPath, skipWithoutShared } from '../helpers/shared.js';
import { parseFastYaml } from '../../src/witness/yaml-fast.js';

/** Kind, value and start position of every node, in document order. */
function shape(node: unknown, lc: LineCounter, out: string[] = []): string[] {
  const at = (n: unknown) => {
    const r = (n as { range?: [number, number, number] }).range;
    if (!r) return '?';
    const p = lc.linePos(r[0]);
    return `${p.line}:${p.col}`;
  };
  if (isMap(node)) {
    out.push(`map@${at(node)}`);
    for (const p of node.items) {
      shape(p.key, lc, out);
      if (p.value === null) out.push('null-value');
      else shape(p.value, lc, out);
    }
  } else if (isSeq(node)) {
    out.push(`seq@${at(node)}`);
    for (const i of node.items) shape(i, lc, out);
  } else if (isScalar(node)) {
    const v = node.value;
    out.push(`scalar@${at(node)}=${typeof v}:${String(v)}${typeof v === 'string' ? '' : `/${node.source}`}`);
  } else if (isPair(node)) out.push('pair?');
  else out.push(`other:${String(node)}`);
  return out;
}

function compare(text: string, name: string, mustBeFast: boolean): boolean {
  const fast = parseFastYaml(text);
  if (!fast) {
    assert.ok(!mustBeFast, `${name}: the fast path declined`);
    return false;
  }
  const lc = new LineCounter();
  const slow = parseDocument(text, { lineCounter: lc, uniqueKeys: true, version: '1.2' });
  assert.deepEqual(slow.errors, [], `${name}: the fast path accepted a text the yaml package rejects`);
  assert.deepEqual(fast.doc.toJS(), slow.toJS(), `${name}: values`);
  assert.deepEqual(shape(fast.doc.contents, fast.lines), shape(slow.contents, lc), `${name}: nodes and positions`);
  return true;
}

test('fast and full YAML readers agree on every example and real witness', { skip: skipWithoutShared }, () => {
  const walk = (d: string): string[] => readdirSync(d).flatMap((f) => (statSync(join(d, f)).isDirectory() ? walk(join(d, f)) : [join(d, f)]));
  const files = [...walk(sharedPath('spec/examples')), ...walk(sharedPath('witnesses/real'))].filter((f) => /\.ya?ml$/.test(f));
  let fastCount = 0;
  for (const f of files) if (compare(readFileSync(f, 'utf8'), f, false)) fastCount++;
  // The examples and Goblint's witnesses are plain block YAML: nearly all take the fast path.
  assert.ok(fastCount >= files.length - 3, `${fastCount} of ${files.length} took the fast path`);
});

test('fast path: scalars resolve as in the YAML 1.2 core schema, with source texts', () => {
  const text = [
    '- a: 2.0',
    '  b: 1.10',
    '  c: true',
    '  d: ~',
    '  e:',
    '  f: 0x1F',
    '  g: -12',
    '  h: "x: #1 \\"q\\" \\\\ \\u00e9"',
    "  i: 'it''s'",
    '  j: 2024-05-01T12:00:00Z',
    '  k: CHECK( init(main()), LTL(G ! call(reach_error())) ) # comment',
    '  l: {file_name: "a.c", line: 3, column: , z: [1, "2", x y]}',
    '  m:',
    '  - x',
    '  -   y: 1',
    '      z: [ ]',
    '  "n n": .inf',
    '  o: 1e3',
    "  p: 'a ''quoted''  ",
    "      continued line",
    "    end'  # comment",
    '  q: "two',
    '    lines \\"x\\""',
    '# trailing comment',
  ].join('\r\n');
  assert.ok(compare(text, 'scalars', true));
});

test('fast path declines what it does not handle, so that the yaml package decides', () => {
  for (const t of [
    '- a: &x 1\n  b: *x\n',
    '- a: !!str 1\n',
    '- a: |\n    text\n',
    '- a: long\n    continued\n',
    '- a: [1,\n    2]\n',
    '- a: 1\n  a: 2\n',
    '---\n- a: 1\n',
    '- a: "\\x41"\n',
    '- a: b: c\n',
    '- - 1\n',
    '\t- a: 1\n',
    '- a: "unclosed\n',
    '? complex\n: key\n',
    'plain scalar\n',
    ' - a: 1\n',
    "- a: 'x\n\n  y'\n",
    "- a: 'x\n# c\n  y'\n",
    '- a: "x \\\n  y"\n',
    "- a: 'x\ny'\n",
  ]) {
    assert.equal(parseFastYaml(t), undefined, JSON.stringify(t));
  }
});

test('mutated witnesses: whenever the fast path accepts, the yaml package accepts and builds the same nodes', { skip: skipWithoutShared }, () => {
  const dir = sharedPath('spec/examples/valid');
  const texts = readdirSync(dir).filter((f) => f.endsWith('.yml')).map((f) => readFileSync(join(dir, f), 'utf8'));
  const pieces = [' ', '\n', ':', ': ', '- ', '#', ' #', '"', "'", '[', ']', '{', '}', ',', 'a', '1', '\t', '&a', '*a', '!', '|', '?', '\\', '---', 'é', '~'];
  let seed = 20240501;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  let accepted = 0;
  for (let k = 0; k < 1500; k++) {
    let t = texts[rnd(texts.length)];
    for (let m = 0, n = 1 + rnd(3); m < n; m++) {
      const pos = rnd(t.length);
      const op = rnd(3);
      t = op === 0 ? t.slice(0, pos) + t.slice(pos + 1 + rnd(3)) : t.slice(0, pos) + pieces[rnd(pieces.length)] + t.slice(pos + (op === 2 ? 1 : 0));
    }
    if (compare(t, `mutation ${k}`, false)) accepted++;
  }
  assert.ok(accepted > 300, `${accepted} mutations took the fast path`);
});

// Violation witnesses read soundly: a witness is confirmed only by a run
// that passes its waypoints at their places and in their order and then
// violates the property at its target. For each property, Tarsier's own
// witness of a program where every nondet value must be exactly right is
// confirmed, and every mutation that leaves no violating run satisfying the
// witness is not: a pinned value changed, two values swapped or attached to
// each other's calls, the target moved to an unreachable error call or to a
// statement that cannot violate the property. Hand-written witnesses with
// assumption and branching waypoints are mutated the same way.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/shared.js';
import { validate } from '../../src/validate/index.js';
import { verify } from '../../src/verify/index.js';
import { probeGcc } from '../../src/replay/index.js';
import { sha256OfFile } from '../../src/witness/index.js';
import { witnessHeader } from '../helpers/witness-text.js';
import { needTools } from '../helpers/tools.js';

const noGcc = probeGcc().gcc ? false : 'skipped: gcc is not available (confirmations need replay)';
const fx = (name: string) => join(repoRoot, 'test', 'fixtures', 'validate', name);

interface Mutation {
  readonly name: string;
  readonly apply: (text: string) => string;
}

/** `\result == from` → `\result == to` (the n-th occurrence of that value when several). */
const value = (from: number, to: number): Mutation => ({
  name: `value ${from} -> ${to}`,
  apply: (t) => replaceOnce(t, `\\\\result == ${from}"`, `\\\\result == ${to}"`),
});
/** The two function_return values swapped (each call gets the other's value). */
const swapValues = (a: number, b: number): Mutation => ({
  name: `values ${a} and ${b} swapped`,
  apply: (t) => t.replace(`\\\\result == ${a}"`, '@A@').replace(`\\\\result == ${b}"`, `\\\\result == ${a}"`).replace('@A@', `\\\\result == ${b}"`),
});
/** The two waypoints' locations swapped: each value attached to the other's call, in the same order. */
const swapLines = (a: number, b: number): Mutation => ({
  name: `locations of lines ${a} and ${b} swapped`,
  apply: (t) => t.replace(`line: ${a}\n`, '@A@').replace(`line: ${b}\n`, `line: ${a}\n`).replace('@A@', `line: ${b}\n`),
});
/** The target moved to another line and column. */
const target = (line: number, column: number): Mutation => ({
  name: `target at ${line}:${column}`,
  apply: (t) => {
    const at = t.indexOf('type: "target"');
    const rest = t.slice(at).replace(/line: \d+\n(\s*)column: \d+/, `line: ${line}\n$1column: ${column}`);
    return t.slice(0, at) + rest;
  },
});

function replaceOnce(text: string, from: string, to: string): string {
  assert.ok(text.includes(from), `the witness has ${from}`);
  return text.replace(from, to);
}

async function check(program: string, property: string, witnessText: string, dir: string, name: string): Promise<string> {
  const w = join(dir, `${name.replace(/\W+/g, '_')}.yml`);
  writeFileSync(w, witnessText);
  const r = await validate(program, w, { property, timeoutS: 15 });
  return `${r.outcome}: ${r.reason}`;
}

const CASES: readonly { program: string; property: string; mutations: readonly Mutation[] }[] = [
  {
    program: 'pins-reach.c',
    property: 'unreach-call',
    mutations: [
      value(3, 5),
      value(4, 5),
      { name: 'value 3 -> below 3', apply: (t) => replaceOnce(t, '\\\\result == 3"', '\\\\result < 3"') },
      swapValues(3, 4),
      swapLines(5, 7),
      target(10, 15),
      target(11, 3),
    ],
  },
  {
    program: 'pins-overflow.c',
    property: 'no-overflow',
    mutations: [value(100, 101), value(200, 201), swapValues(100, 200), swapLines(4, 6), target(8, 3), target(10, 3)],
  },
  {
    program: 'pins-deref.c',
    property: 'valid-memsafety',
    mutations: [value(7, 1), value(2, 3), swapValues(7, 2), swapLines(5, 7), target(9, 3)],
  },
  {
    program: 'pins-free.c',
    property: 'valid-memsafety',
    mutations: [value(5, 6), target(8, 3)],
  },
];

for (const c of CASES) {
  test(`${c.property}: Tarsier's witness for ${c.program} is confirmed, and none of its mutations is`, { skip: c.property.startsWith('valid-') ? needTools('gcc', 'gcc -m32 -fsanitize=address') : noGcc }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tarsier-mutations-'));
    try {
      const w = join(dir, 'witness.yml');
      const v = await verify(fx(c.program), { property: c.property, timeoutS: 30, witnessPath: w, creationTime: '2026-01-01T00:00:00Z' });
      assert.equal(v.verdict.kind, 'false', v.reason);
      const original = readFileSync(w, 'utf8');
      assert.match(await check(fx(c.program), c.property, original, dir, 'original'), /^confirmed/);
      for (const m of c.mutations) {
        const mutated = m.apply(original);
        assert.notEqual(mutated, original, m.name);
        assert.doesNotMatch(await check(fx(c.program), c.property, mutated, dir, m.name), /^confirmed/, `${c.program}: ${m.name}`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

/** A 2.0 violation sequence of pins-reach.c with the given waypoints (one segment each). */
function handWritten(program: string, waypoints: readonly string[]): string {
  const file = 'pins-reach.c';
  return witnessHeader(file, sha256OfFile(program)) + waypoints.join('');
}

/** One waypoint (of a segment), `avoid` when the type is prefixed with `!`. */
function wp(type: string, line: number, column: number, constraint?: string): string {
  const avoid = type.startsWith('!');
  const c = constraint === undefined ? '' : `\n            constraint:\n              value: "${constraint}"\n              format: "${type.endsWith('function_return') ? 'acsl_expression' : 'c_expression'}"`;
  return `        - waypoint:
            type: "${type.replace('!', '')}"
            action: "${avoid ? 'avoid' : 'follow'}"${c}
            location:
              file_name: "pins-reach.c"
              line: ${line}
              column: ${column}
              function: "main"
`;
}
/** A segment of waypoints (avoid ones first, one follow last). */
const seg = (...waypoints: string[]) => `    - segment:\n${waypoints.join('')}`;

test('assumption, branching, avoid and function_enter waypoints: the witness is confirmed, a changed constraint or target is not', { skip: noGcc }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-mutations-'));
  const program = fx('pins-reach.c');
  try {
    // a == 3 before line 6, the b-call entered (not with a != 3 before line 7 meanwhile), the branch
    // at line 8 not taken, b == 4 before line 9, the target at line 9.
    const good = [
      seg(wp('assumption', 6, 3, 'a == 3')),
      seg(wp('!assumption', 7, 3, 'a != 3'), wp('function_enter', 7, 33)),
      seg(wp('branching', 8, 3, 'false')),
      seg(wp('assumption', 9, 3, 'b == 4')),
      seg(wp('target', 9, 3)),
    ];
    assert.match(await check(program, 'unreach-call', handWritten(program, good), dir, 'good'), /^confirmed/);
    const with_ = (k: number, s: string) => good.map((g, i) => (i === k ? s : g));
    const bad: [string, string[]][] = [
      ['a == 5', with_(0, seg(wp('assumption', 6, 3, 'a == 5')))],
      ['avoid a == 3 where a is 3', with_(1, seg(wp('!assumption', 7, 3, 'a == 3'), wp('function_enter', 7, 33)))],
      ['avoid entering the b-call', [good[0]!, seg(wp('!function_enter', 7, 33), wp('branching', 8, 3, 'false')), good[3]!, good[4]!]],
      ['branch taken', with_(2, seg(wp('branching', 8, 3, 'true')))],
      ['b == 5', with_(3, seg(wp('assumption', 9, 3, 'b == 5')))],
      ['order reversed', [good[3]!, good[0]!, good[1]!, good[2]!, good[4]!]],
      ['target at the unreachable call', with_(4, seg(wp('target', 10, 15)))],
      ['target at return 0', with_(4, seg(wp('target', 11, 3)))],
    ];
    for (const [name, waypoints] of bad) {
      assert.doesNotMatch(await check(program, 'unreach-call', handWritten(program, waypoints), dir, name), /^confirmed/, name);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("issue 25: a no-overflow witness whose values cause no overflow is not confirmed, and says why without claiming lenient readings", { skip: noGcc }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-mutations-'));
  try {
    const w = join(dir, 'witness.yml');
    const v = await verify(fx('sum-overflow.c'), { property: 'no-overflow', timeoutS: 30, witnessPath: w });
    assert.equal(v.verdict.kind, 'false', v.reason);
    const text = readFileSync(w, 'utf8').replace(/\\\\result == -?\d+"/g, '\\\\result == 5"');
    writeFileSync(w, text);
    const r = await validate(fx('sum-overflow.c'), w, { property: 'no-overflow', timeoutS: 15 });
    assert.notEqual(r.outcome, 'confirmed', r.reason);
    assert.equal(r.entries.lenient, 0);
    assert.doesNotMatch(r.reason, /leniently/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('GraphML leak witnesses: a changed assumption is not confirmed', { skip: needTools('gcc', 'gcc -m32 -fsanitize=address') }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-mutations-'));
  try {
    for (const property of ['valid-memsafety', 'valid-memcleanup']) {
      const w = join(dir, 'witness.graphml');
      const v = await verify(fx('pins-leak.c'), { property, timeoutS: 30, witnessPath: w });
      assert.equal(v.verdict.kind, 'false', v.reason);
      const original = readFileSync(w, 'utf8');
      const ok = await validate(fx('pins-leak.c'), w, { property, timeoutS: 15 });
      assert.equal(ok.outcome, 'confirmed', ok.reason);
      writeFileSync(w, replaceOnce(original, '\\result == 9;', '\\result == 8;'));
      const r = await validate(fx('pins-leak.c'), w, { property, timeoutS: 15 });
      assert.notEqual(r.outcome, 'confirmed', `${property}: ${r.reason}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// The goto elimination against gcc: programs with jumps of every kind
// (forward, backward, into blocks, loops and if branches, out of loops,
// switch with case labels inside loops as in Duff's device, labels inside
// switch bodies) are compiled as written and as the pass rewrites them
// (printed back to C), and must compute the same results for every input.
// Random programs: TARSIER_FUZZ_COUNT=<n> (and TARSIER_FUZZ_SEED) run more.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BlockItem, CompoundStmt } from '../../src/c/ast.js';
import { parseCProgram } from '../../src/c/index.js';
import { eliminateGotos } from '../../src/c/goto-elimination.js';
import { rng } from '../../src/invariants/random.js';
import { printFunction } from '../helpers/c-print.js';
import { INPUTS, JumpGen } from '../helpers/jump-programs.js';
import { needTools } from '../helpers/tools.js';

const skipGcc = needTools('gcc');
const FIXTURES = new URL('../../../test/c/fixtures/', import.meta.url).pathname;

/** Every switch left has its case labels at the top level of its body, and no goto is left. */
function structured(body: CompoundStmt): string | undefined {
  let problem: string | undefined;
  const visit = (s: BlockItem, inSwitchTop: boolean): void => {
    switch (s.kind) {
      case 'Goto': problem ??= `goto ${s.label} left`; return;
      case 'Label': return visit(s.body, inSwitchTop);
      case 'Case': case 'Default':
        if (!inSwitchTop) problem ??= 'case label below the top of its switch';
        return visit(s.body, inSwitchTop);
      case 'Compound': for (const x of s.items) visit(x, false); return;
      case 'If': visit(s.then, false); if (s.else) visit(s.else, false); return;
      case 'While': case 'DoWhile': case 'For': visit(s.body, false); return;
      case 'Switch': {
        const items: readonly BlockItem[] = s.body.kind === 'Compound' ? s.body.items : [s.body];
        for (const x of items) visit(x, true);
        return;
      }
      default: return;
    }
  };
  visit(body, false);
  return problem;
}

/** The program as written and as rewritten (every function body), each compiled and run; their outputs. */
function compareWithGcc(text: string, dir: string, main: string): { original: string; rewritten: string; rewrittenText: string } {
  const prog = parseCProgram(text, 'p.c', { dataModel: 'LP64' });
  const ids = { value: 1_500_000_000 };
  const functions = prog.functions.filter((f) => f.body);
  const rewrittenText = functions
    .map((f) => {
      const body = eliminateGotos(f.body!, 'LP64', ids);
      const problem = structured(body);
      assert.equal(problem, undefined, `${f.name}: ${problem}\n${text}`);
      return printFunction(f, body);
    })
    .join('\n\n');
  const run = (source: string, exe: string): string => {
    writeFileSync(join(dir, `${exe}.c`), `${source}\n${main}`);
    const cc = spawnSync('gcc', ['-O0', '-fwrapv', '-w', '-o', join(dir, exe), join(dir, `${exe}.c`)], { encoding: 'utf8' });
    assert.equal(cc.status, 0, `${cc.stderr}\n${source}`);
    const r = spawnSync(join(dir, exe), [], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(r.status, 0, `${exe} exited with ${r.status} ${r.signal}\n${source}`);
    return r.stdout;
  };
  return { original: run(text, 'original'), rewritten: run(rewrittenText, 'rewritten'), rewrittenText };
}

// ---- handwritten programs ------------------------------------------------------------------------

test('handwritten jumps (Duff\'s device, into loops and branches, backward out of blocks, CIL style) keep their results', { skip: skipGcc }, () => {
  const text = readFileSync(join(FIXTURES, 'gotos.c'), 'utf8');
  const names = [...text.matchAll(/^int (f\w*)\(int a, int b\)/gm)].map((m) => m[1]);
  assert.ok(names.length >= 8, 'the fixture defines the functions');
  const main = `#include <stdio.h>\nint main(void) {\n${names
    .map((n) => `  for (int a = -3; a < 12; a++) for (int b = -2; b < 9; b++) printf("${n} %d %d %d\\n", a, b, ${n}(a, b));`)
    .join('\n')}\n  return 0;\n}\n`;
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-goto-'));
  try {
    const { original, rewritten, rewrittenText } = compareWithGcc(text, dir, main);
    assert.ok(original.split('\n').length > 100);
    assert.equal(rewritten, original, rewrittenText);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// ---- random programs --------------------------------------------------------------------------------

function fuzz(seed: number, count: number, perFile = 10): void {
  const r = rng(seed);
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-goto-'));
  try {
    for (let done = 0; done < count; done += perFile) {
      const n = Math.min(perFile, count - done);
      const gen = new JumpGen(r);
      const names = Array.from({ length: n }, (_, k) => `f${done + k}`);
      const text = names.map((name) => gen.fn(name).join('\n')).join('\n\n') + '\n';
      const main = `#include <stdio.h>\nint main(void) {\n${names
        .map((name) => INPUTS.map((v) => `  printf("${name} %d\\n", ${name}(${v.join(', ')}));`).join('\n'))
        .join('\n')}\n  return 0;\n}\n`;
      const { original, rewritten, rewrittenText } = compareWithGcc(text, dir, main);
      if (rewritten !== original) {
        const a = original.split('\n');
        const b = rewritten.split('\n');
        const k = a.findIndex((line, i) => line !== b[i]);
        const fname = a[k]?.split(' ')[0];
        const source = text.split('\n\n').find((f) => f.startsWith(`int ${fname}(`));
        const after = rewrittenText.split('\n\n').find((f) => f.startsWith(`int ${fname}(`));
        assert.fail(`seed ${seed}: ${fname}: gcc "${a[k]}", rewritten "${b[k]}"\n${source}\n---- rewritten:\n${after}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('random programs with goto, switch and Duff\'s device keep their results after the goto elimination', { skip: skipGcc }, () => {
  const seed = Number(process.env.TARSIER_FUZZ_SEED ?? 20261128);
  const count = Number(process.env.TARSIER_FUZZ_COUNT ?? 100);
  fuzz(seed, count, 20);
});


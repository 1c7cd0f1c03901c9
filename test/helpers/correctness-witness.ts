// Checks of a correctness witness shared by the tests: its invariants as
// data, its lint findings against the program, and a gcc-built run of the
// program with every conjunct checked at its loop head.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forEachStatement, parseCFile, type CProgram } from '../../src/c/index.js';
import { HARNESS_C, instrumentChecks } from '../../src/invariants/index.js';
import { lintWitness, readWitness } from '../../src/witness/index.js';
import type { InvariantSetEntry } from '../../src/witness/model.js';

const work = mkdtempSync(join(tmpdir(), 'tarsier-witness-checks-'));

/** Whether gcc builds the run harness (the runs below need it). */
export const gccOk = (() => {
  writeFileSync(join(work, 'harness.c'), HARNESS_C);
  return spawnSync('gcc', ['-c', '-o', join(work, 'harness.o'), join(work, 'harness.c')]).status === 0;
})();
export const skipGcc: string | false = gccOk ? false : 'skipped: gcc is not available';

export interface Inv {
  line: number;
  column: number;
  function: string;
  text: string;
}

export function invariantsOf(witness: string): Inv[] {
  const doc = readWitness(readFileSync(witness, 'utf8'), witness);
  assert.equal(doc.format, 'yaml');
  const entries = doc.entries as InvariantSetEntry[];
  assert.equal(entries.length, 1);
  assert.equal(entries[0]!.entry_type, 'invariant_set');
  assert.equal(entries[0]!.metadata.producer.name, 'tarsier');
  return entries[0]!.content.map((c) => {
    assert.ok(c.kind === 'loop_invariant' || c.kind === 'location_invariant');
    return { line: c.location.line, column: c.location.column!, function: c.location.function!, text: c.value.text };
  });
}

export function lintProblems(witness: string, program: string): string[] {
  return lintWitness(readFileSync(witness, 'utf8'), witness, { programText: readFileSync(program, 'utf8'), programFile: program.split('/').pop() })
    .filter((d) => d.severity === 'error' || d.severity === 'warning')
    .map((d) => `${d.line}:${d.column} ${d.message} [${d.rule}]`);
}

/** Byte offset of the loop keyword at a line and column. */
export function loopOffset(program: CProgram, line: number, column: number): number | undefined {
  let found: number | undefined;
  for (const d of program.declarations) {
    if (d.kind !== 'FunctionDefinition') continue;
    forEachStatement(d.body, (s) => {
      if ((s.kind === 'While' || s.kind === 'For' || s.kind === 'DoWhile') && s.keywordLoc.line === line && s.keywordLoc.column === column) found = s.keywordLoc.offset;
    });
  }
  return found;
}

/** Runs the program with every conjunct of every loop invariant checked at its loop head; the failing conjunct, if any. */
export function falsifiedConjunct(programPath: string, invs: readonly Inv[], runs: number, flags: readonly string[] = ['-fwrapv']): string | undefined {
  const program = parseCFile(programPath, { dataModel: 'LP64' });
  const checks: Array<{ loopLoc: { offset: number }; text: string; id: number }> = [];
  const texts: string[] = [];
  for (const inv of invs) {
    const offset = loopOffset(program, inv.line, inv.column);
    if (offset === undefined) continue;
    for (const part of conjuncts(inv.text)) {
      checks.push({ loopLoc: { offset }, text: part, id: texts.length });
      texts.push(`${inv.function}:${inv.line}: ${part}`);
    }
  }
  const inst = instrumentChecks(readFileSync(programPath, 'utf8'), checks);
  const dir = mkdtempSync(join(work, 'run-'));
  const src = join(dir, programPath.endsWith('.i') ? 'p.i' : 'p.c');
  writeFileSync(src, inst.text);
  const exe = join(dir, 'p');
  const cc = spawnSync('gcc', ['-m64', '-O0', '-w', ...flags, '-o', exe, src, join(work, 'harness.o')], { encoding: 'utf8' });
  assert.equal(cc.status, 0, cc.stderr);
  for (let seed = 1; seed <= runs; seed++) {
    const r = spawnSync(exe, [], { encoding: 'utf8', timeout: 2000, env: { ...process.env, TARSIER_SEED: String(seed) } });
    const m = /tarsier-check-failed (\d+)/.exec(r.stderr ?? '');
    if (m) return texts[Number(m[1])];
    if (/runtime error/.test(r.stderr ?? '')) return `undefined behaviour: ${r.stderr.split('\n')[0]}`;
  }
  return undefined;
}


/** The conjuncts of an invariant: split at the `&&` outside parentheses. */
export function conjuncts(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') depth--;
    else if (depth === 0 && text.startsWith(' && ', i)) {
      out.push(text.slice(start, i));
      start = i + 4;
    }
  }
  out.push(text.slice(start));
  return out;
}

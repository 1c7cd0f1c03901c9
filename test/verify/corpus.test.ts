// Runs `tarsier verify` on a fast subset of the tasks of
// ../shared/bench/sv-benchmarks with a short CPU-time limit and checks that
// no answer contradicts the expected verdict, that every FALSE comes with a
// witness that lints clean and whose nondet values, replayed with gcc, reach
// the violation, and that Tarsier still decides what it decided when the
// floors below were taken. The whole corpus is `npm run bench:verify`.
// The rows take turns on the solver back ends present (the built-in
// WebAssembly Z3, and z3 and cvc5 when installed), so each is held to the
// same expected verdicts.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, sharedPath, skipWithoutShared } from '../helpers/shared.js';
import { needTools } from '../helpers/tools.js';
import { lintWitness, readWitness } from '../../src/witness/index.js';
import { replayCounterexample, type NondetValue } from '../../src/replay/index.js';
import { propertyRow } from '../../src/properties/index.js';
import type { PropertyKind } from '../../src/task/index.js';
import { findExecutable } from '../../src/smt/index.js';
import { pinnedFloat } from '../../src/c/float-literal.js';

/**
 * CPU seconds per run. The rows of MUST_ANSWER took under 1.7 s when they
 * were added: their generous limit keeps a loaded machine (whose wall-time
 * guard is 2 limits + 5 s) from turning them into UNKNOWN; they cost only
 * what they use. The sampled rows, mostly UNKNOWN, get the short one.
 */
const MUST_LIMIT_S = 10;
const SAMPLE_LIMIT_S = 3;
/** The limit of the second run of a must-answer row that timed out. */
const RETRY_LIMIT_S = 60;
const JOBS = 2;
const SOLVERS = ['z3-wasm', ...['z3', 'cvc5'].filter((s) => findExecutable(s) !== undefined)];

/**
 * Rows (`task (property)`) that Tarsier answers today (TRUE or FALSE, and
 * right): each must stay answered. Add the rows a change makes answered.
 */
const MUST_ANSWER = [
  'c/bitvector/parity.yml (no-overflow)',
  'c/loop-acceleration/multivar_1-2.yml (unreach-call)',
  'c/loop-acceleration/underapprox_1-1.yml (unreach-call)',
  'c/loop-acceleration/underapprox_1-2.yml (unreach-call)',
  'c/loop-acceleration/underapprox_2-1.yml (unreach-call)',
  'c/loop-acceleration/underapprox_2-2.yml (unreach-call)',
  'c/loop-invariants/bin-suffix-5.yml (no-overflow)',
  'c/loop-invariants/linear-inequality-inv-a.yml (no-overflow)',
  'c/loop-invariants/odd.yml (no-overflow)',
  'c/loop-invgen/down.yml (unreach-call)',
  'c/loop-lit/cggmp2005.yml (unreach-call)',
  'c/loop-lit/gcnr2008.yml (unreach-call)',
  'c/loop-simple/nested_1.yml (unreach-call)',
  'c/recursive-simple/fibo_2calls_2-1.yml (unreach-call)',
  'c/recursive-simple/fibo_2calls_4-1.yml (unreach-call)',
  'c/recursive-simple/id2_i5_o5-2.yml (unreach-call)',
  'c/recursive-simple/id_i10_o10-2.yml (unreach-call)',
  'c/xcsp/aim-100-1-6-unsat-1.yml (unreach-call)',
];

/** Decided answers per directory of the subset, at least (today's counts; raise them as Tarsier improves). */
const DECIDED_FLOOR: Record<string, number> = {
  bitvector: 1,
  'loop-acceleration': 5,
  'loop-invariants': 3,
  'loop-invgen': 1,
  'loop-lit': 2,
  'loop-simple': 1,
  'recursive-simple': 4,
  xcsp: 1,
};

/** Of the rows not in MUST_ANSWER, every this many-th is run too (wrong answers are looked for there). */
const SAMPLE_EVERY = 20;

interface Row {
  task: string;
  program: string;
  property: string;
  expected: string;
  dataModel: string;
}

const rowName = (r: Row) => `${r.task} (${r.property})`;

function rows(): Row[] {
  const lines = readFileSync(sharedPath('bench', 'sv-benchmarks', 'MANIFEST.csv'), 'utf8').trim().split('\n');
  const head = lines[0]!.split(',');
  const col = (n: string) => head.indexOf(n);
  const all = lines.slice(1).map((l) => {
    const f = l.split(',');
    return {
      task: f[col('task_yml')]!,
      program: f[col('program')]!,
      property: f[col('property')]!,
      expected: f[col('expected_verdict')]!,
      dataModel: f[col('data_model')]!,
    };
  });
  const supported = all.filter((r) => r.property === 'unreach-call' || r.property === 'no-overflow');
  const must = new Set(MUST_ANSWER);
  const rest = supported.filter((r) => !must.has(rowName(r)));
  return [...supported.filter((r) => must.has(rowName(r))), ...rest.filter((_, i) => i % SAMPLE_EVERY === 0)];
}

function run(args: string[], limitS: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [cliPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    // A guard against a hang only: the run ends by its own CPU limit, which a
    // loaded machine stretches in wall time.
    const killer = setTimeout(() => child.kill('SIGKILL'), (4 * limitS + 60) * 1000);
    child.on('close', (code) => {
      clearTimeout(killer);
      done({ code, stdout, stderr });
    });
  });
}

/**
 * The nondet values a witness pins: each `function_return` waypoint's
 * `\result == V`, with the callee read from the program text before the `)`
 * the waypoint points at.
 */
function valuesFromWitness(witnessText: string, programText: string): NondetValue[] {
  const doc = readWitness(witnessText, 'witness.yml');
  if (doc.format !== 'yaml') throw new Error('not a YAML witness');
  const lines = programText.split('\n');
  const out: NondetValue[] = [];
  for (const e of doc.entries) {
    if (e.entry_type !== 'violation_sequence' || 'unknown' in e) continue;
    for (const seg of e.content) {
      for (const w of seg.waypoints) {
        if (w.type !== 'function_return') continue;
        const line = lines[w.location.line - 1]!;
        const before = line.slice(0, (w.location.column ?? 1) - 1);
        const callee = /([A-Za-z_]\w*)\s*\(\s*$/.exec(before)?.[1];
        if (!callee) throw new Error(`no call before ${w.location.line}:${w.location.column}`);
        const constraint = String(w.constraint?.value);
        // A float nondet's value is pinned bit for bit (a hexadecimal constant, an infinity, NaN).
        const floating = /nondet_(float|double)$/.exec(callee)?.[1];
        const value = floating ? pinnedFloat(constraint, floating) : /^\\result == (-?\d+)$/.exec(constraint)?.[1];
        if (value === undefined) throw new Error(`unexpected constraint ${constraint}`);
        out.push({ function: callee, value: BigInt(value) });
      }
    }
  }
  return out;
}

test('verify on the benchmark tasks: no wrong answer, every FALSE with a clean, replayable witness, the floors kept', { skip: skipWithoutShared || needTools('gcc', 'gcc -m32'), timeout: 1_800_000 }, async () => {
  const bench = sharedPath('bench', 'sv-benchmarks');
  const todo = rows();
  assert.equal(todo.filter((r) => MUST_ANSWER.includes(rowName(r))).length, MUST_ANSWER.length, 'every row of MUST_ANSWER is in the manifest');
  const unanswered: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-corpus-'));
  const counts = new Map<string, { true: number; false: number; unknown: number }>();
  const failures: string[] = [];
  const outOfTime: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      const i = next++;
      const r = todo[i]!;
      const witness = join(dir, `w${i}.yml`);
      const solver = SOLVERS[i % SOLVERS.length]!;
      const must = MUST_ANSWER.includes(rowName(r));
      const verify = (limit: number) => run(['verify', join(bench, r.task), '--property', r.property, '--timeout', String(limit), '--witness', witness, '--format', 'json', '--solver', solver], limit);
      let out = await verify(must ? MUST_LIMIT_S : SAMPLE_LIMIT_S);
      // A row that must stay answered but ran out of time (a loaded machine)
      // is run once more with a generous limit: no test fails because of time.
      if (must && out.code === 0 && /"verdict":"unknown".*time limit/.test(out.stdout)) out = await verify(RETRY_LIMIT_S);
      const where = `${rowName(r)} (${solver})`;
      if (out.code !== 0) {
        failures.push(`${where}: exit ${out.code}: ${out.stderr.trim().split('\n')[0]}`);
        continue;
      }
      const j = JSON.parse(out.stdout.trim().split('\n').pop()!);
      const d = r.task.split('/')[1]!;
      const c = counts.get(d) ?? { true: 0, false: 0, unknown: 0 };
      counts.set(d, c);
      if (j.verdict === 'true') {
        c.true++;
        if (r.expected !== 'true') failures.push(`${where}: TRUE but expected ${r.expected}`);
      } else if (j.verdict.startsWith('false')) {
        c.false++;
        if (r.expected !== 'false') failures.push(`${where}: FALSE but expected ${r.expected}`);
        if (j.verdict !== `false(${r.property})`) failures.push(`${where}: answer ${j.verdict}`);
        if (j.replay !== 'confirmed') failures.push(`${where}: FALSE without confirmed replay`);
        const programPath = join(bench, r.program);
        const programText = readFileSync(programPath, 'utf8');
        const text = readFileSync(witness, 'utf8');
        const lint = lintWitness(text, witness, { programText, programFile: programPath.split('/').pop() });
        if (lint.length > 0) failures.push(`${where}: witness lint: ${lint[0]!.message} [${lint[0]!.rule}]`);
        const rep = replayCounterexample(programPath, valuesFromWitness(text, programText), {
          symptom: propertyRow(r.property as PropertyKind).validation!.replay,
          dataModel: r.dataModel as 'ILP32' | 'LP64',
        });
        if (rep.status !== 'confirmed') failures.push(`${where}: the witness's values do not replay: ${rep.reason}`);
      } else {
        c.unknown++;
        // Out of time even at the retry limit: the machine is too loaded to
        // tell; the row is reported and counts as decided for the floor.
        if (must && /time limit/.test(j.reason)) outOfTime.push(where);
        else if (must) unanswered.push(`${where}: ${j.reason}`);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: JOBS }, worker));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const summary = [...counts.entries()].sort().map(([d, c]) => `${d}: ${c.true} TRUE, ${c.false} FALSE, ${c.unknown} UNKNOWN`);
  console.log(`corpus (${todo.length} rows, ${MUST_LIMIT_S} or ${SAMPLE_LIMIT_S} s each, solvers ${SOLVERS.join(', ')} in turn):\n  ${summary.join('\n  ')}`);
  for (const o of outOfTime) console.log(`${o}: out of time even at ${RETRY_LIMIT_S} s on this machine; not checked`);
  assert.deepEqual(failures, []);
  // A verifier answering UNKNOWN everywhere would pass the above: the answers of today must stay.
  assert.deepEqual(unanswered, [], 'rows of MUST_ANSWER answered UNKNOWN');
  const below = Object.entries(DECIDED_FLOOR)
    .map(([d, floor]) => [d, floor, (counts.get(d)?.true ?? 0) + (counts.get(d)?.false ?? 0) + outOfTime.filter((o) => o.split('/')[1] === d).length] as const)
    .filter(([, floor, decided]) => decided < floor)
    .map(([d, floor, decided]) => `${d}: ${decided} decided, floor ${floor}`);
  assert.deepEqual(below, [], 'directories below their floor');
});

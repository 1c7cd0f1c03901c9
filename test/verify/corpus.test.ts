// Runs `tarsier verify` on tasks of ../shared/bench/sv-benchmarks with a
// short time limit and checks that no answer contradicts the expected
// verdict, and that every FALSE comes with a witness that lints clean and
// whose nondet values, replayed with gcc, reach the violation.
// By default every third (task, property) row of a supported property is
// run (to stay within a few minutes on 2 cores); TARSIER_CORPUS_ALL=1 runs all.
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
import { lintWitness, readWitness } from '../../src/witness/index.js';
import { probeGcc, replayCounterexample, type NondetValue } from '../../src/replay/index.js';
import { findExecutable } from '../../src/smt/index.js';

const TIME_LIMIT_S = 3;
const JOBS = 2;
const SOLVERS = ['z3-wasm', ...['z3', 'cvc5'].filter((s) => findExecutable(s) !== undefined)];

interface Row {
  task: string;
  program: string;
  property: string;
  expected: string;
  dataModel: string;
}

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
  return process.env.TARSIER_CORPUS_ALL ? supported : supported.filter((_, i) => i % 3 === 0);
}

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [cliPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const killer = setTimeout(() => child.kill("SIGKILL"), (2 * TIME_LIMIT_S + 30) * 1000);
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
        const m = /^\\result == (-?\d+)$/.exec(String(w.constraint?.value));
        if (!m) throw new Error(`unexpected constraint ${w.constraint?.value}`);
        const line = lines[w.location.line - 1]!;
        const before = line.slice(0, (w.location.column ?? 1) - 1);
        const callee = /([A-Za-z_]\w*)\s*\(\s*$/.exec(before)?.[1];
        if (!callee) throw new Error(`no call before ${w.location.line}:${w.location.column}`);
        out.push({ function: callee, value: BigInt(m[1]!) });
      }
    }
  }
  return out;
}

test('verify on the benchmark tasks: no wrong answer, every FALSE with a clean, replayable witness', { skip: skipWithoutShared, timeout: 1_800_000 }, async () => {
  const bench = sharedPath('bench', 'sv-benchmarks');
  const todo = rows();
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-corpus-'));
  const counts = new Map<string, { true: number; false: number; unknown: number }>();
  const failures: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      const i = next++;
      const r = todo[i]!;
      const witness = join(dir, `w${i}.yml`);
      const solver = SOLVERS[i % SOLVERS.length]!;
      const out = await run(['verify', join(bench, r.task), '--property', r.property, '--timeout', String(TIME_LIMIT_S), '--witness', witness, '--format', 'json', '--solver', solver]);
      const where = `${r.task} (${r.property}, ${solver})`;
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
        if (probeGcc().gcc) {
          const rep = replayCounterexample(programPath, valuesFromWitness(text, programText), {
            property: r.property as 'unreach-call' | 'no-overflow',
            dataModel: r.dataModel as 'ILP32' | 'LP64',
          });
          if (rep.status !== 'confirmed') failures.push(`${where}: the witness's values do not replay: ${rep.reason}`);
        }
      } else {
        c.unknown++;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: JOBS }, worker));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const summary = [...counts.entries()].sort().map(([d, c]) => `${d}: ${c.true} TRUE, ${c.false} FALSE, ${c.unknown} UNKNOWN`);
  console.log(`corpus (${todo.length} rows, ${TIME_LIMIT_S} s each, solvers ${SOLVERS.join(', ')} in turn):\n  ${summary.join('\n  ')}`);
  assert.deepEqual(failures, []);
  // The run must decide something: a verifier answering UNKNOWN everywhere would pass vacuously.
  const decided = [...counts.values()].reduce((a, c) => a + c.true + c.false, 0);
  assert.ok(decided >= 5, `only ${decided} tasks decided`);
});

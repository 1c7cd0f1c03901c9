// The acceptance test of correctness witnesses on the benchmark tasks: for
// every row Tarsier proves TRUE (PROVED below), the witness lints clean
// against the program, its invariants hold in gcc-built runs, `tarsier
// validate` confirms it, and the same witness with one invariant made false
// (negated, at a location the runs reach) is not confirmed (a fifth of the
// rows in `npm test`, all with TARSIER_ALL_ROWS=1). The time share
// a validator has (a third of the verification's) is the bench's to measure
// (`npm run bench:verify`, column w-conf); here the limits are generous, so
// no test fails because of time.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readWitness } from '../../src/witness/index.js';
import { falsifiedConjunct, invariantsOf, lintProblems, skipGcc, type Inv } from '../helpers/correctness-witness.js';
import { cliPath, sharedPath, skipWithoutShared } from '../helpers/shared.js';
import { needTools } from '../helpers/tools.js';

/**
 * Rows (`task (property)`) Tarsier proves TRUE within 10 s today: each must
 * stay proved, with a witness that validation confirms. Add the rows a
 * change proves (`npm run bench:verify` lists them).
 */
// fibo_20-2, fibo_25-2, Mono1_1-2 and mono-crafted_1, 3, 8 and 10 left the
// list with issue 25: they were TRUE by one gcc run, which is no proof; the
// model's own run of their one execution did not end within 10 s. The
// fibo rows are back: their recursive calls run as calls.
const PROVED = [
  'c/bitvector/parity.yml (no-overflow)',
  'c/loop-invariants/bin-suffix-5.yml (no-overflow)',
  'c/loop-invariants/linear-inequality-inv-a.yml (no-overflow)',
  'c/loop-invariants/odd.yml (no-overflow)',
  'c/loop-zilu/benchmark02_linear.yml (no-overflow)',
  'c/loop-zilu/benchmark05_conjunctive.yml (no-overflow)',
  'c/loop-acceleration/array_1-2.yml (unreach-call)',
  'c/loop-acceleration/diamond_1-1.yml (unreach-call)',
  'c/loop-acceleration/phases_2-2.yml (unreach-call)',
  'c/loop-acceleration/underapprox_1-2.yml (unreach-call)',
  'c/loop-acceleration/underapprox_2-2.yml (unreach-call)',
  'c/loop-invariants/bin-suffix-5.yml (unreach-call)',
  'c/loop-invariants/odd.yml (unreach-call)',
  'c/loop-invgen/down.yml (unreach-call)',
  'c/loop-invgen/up.yml (unreach-call)',
  'c/loop-lit/cggmp2005.yml (unreach-call)',
  'c/loop-lit/gj2007b.yml (unreach-call)',
  'c/loop-lit/gr2006.yml (unreach-call)',
  'c/loop-simple/nested_1.yml (unreach-call)',
  'c/loop-simple/nested_4.yml (unreach-call)',
  'c/loop-simple/nested_5.yml (unreach-call)',
  'c/loop-zilu/benchmark02_linear.yml (unreach-call)',
  'c/loop-zilu/benchmark05_conjunctive.yml (unreach-call)',
  'c/loop-zilu/benchmark10_conjunctive.yml (unreach-call)',
  'c/loops-crafted-1/mono-crafted_12.yml (unreach-call)',
  'c/loops-crafted-1/mono-crafted_6.yml (unreach-call)',
  'c/loops/array-1.yml (unreach-call)',
  'c/loops/matrix-1.yml (unreach-call)',
  'c/recursive-simple/afterrec-2.yml (unreach-call)',
  'c/recursive-simple/afterrec_2calls-2.yml (unreach-call)',
  'c/recursive-simple/fibo_10-2.yml (unreach-call)',
  'c/recursive-simple/fibo_20-2.yml (unreach-call)',
  'c/recursive-simple/fibo_25-2.yml (unreach-call)',
  'c/recursive-simple/fibo_2calls_10-1.yml (unreach-call)',
  'c/recursive-simple/fibo_2calls_4-1.yml (unreach-call)',
  'c/recursive-simple/fibo_2calls_5-1.yml (unreach-call)',
  'c/recursive-simple/fibo_2calls_6-1.yml (unreach-call)',
  'c/recursive-simple/fibo_2calls_8-1.yml (unreach-call)',
  'c/recursive-simple/fibo_5-1.yml (unreach-call)',
  'c/recursive-simple/fibo_7-1.yml (unreach-call)',
  'c/recursive-simple/id2_i5_o5-2.yml (unreach-call)',
  'c/recursive-simple/id_i10_o10-2.yml (unreach-call)',
  'c/recursive-simple/id_i5_o5-2.yml (unreach-call)',
  'c/recursive-simple/sum_20x0-2.yml (unreach-call)',
  'c/recursive-simple/sum_2x3-2.yml (unreach-call)',
  'c/xcsp/Dubois-015.yml (unreach-call)',
  'c/xcsp/Dubois-018.yml (unreach-call)',
  'c/xcsp/Dubois-021.yml (unreach-call)',
  'c/xcsp/Dubois-024.yml (unreach-call)',
  'c/xcsp/Dubois-027.yml (unreach-call)',
  'c/xcsp/Dubois-030.yml (unreach-call)',
  'c/xcsp/Dubois-045.yml (unreach-call)',
  'c/xcsp/Dubois-060.yml (unreach-call)',
  'c/xcsp/Dubois-075.yml (unreach-call)',
  'c/xcsp/Dubois-090.yml (unreach-call)',
  'c/xcsp/Haystacks-06.yml (unreach-call)',
  'c/xcsp/aim-100-1-6-unsat-1.yml (unreach-call)',
  'c/xcsp/aim-100-1-6-unsat-4.yml (unreach-call)',
  'c/xcsp/aim-100-2-0-unsat-2.yml (unreach-call)',
  'c/xcsp/aim-200-1-6-unsat-1.yml (unreach-call)',
  'c/xcsp/aim-200-1-6-unsat-4.yml (unreach-call)',
  'c/xcsp/aim-200-2-0-unsat-2.yml (unreach-call)',
  'c/recursive-simple/id2_b3_o5.yml (unreach-call)',
  'c/recursive-simple/id_b3_o5-2.yml (unreach-call)',
  // Decided by their one execution (with the model's semantics).
  'c/array-cav19/array_init_both_ends_multiple_sum.yml (unreach-call)',
  'c/array-cav19/array_init_pair_sum_const.yml (unreach-call)',
  'c/loop-crafted/simple_array_index_value_1-1.yml (unreach-call)',
  'c/loop-crafted/simple_array_index_value_3.yml (unreach-call)',
];

/**
 * Rows proved within 60 s but not always within 10 s on this machine: only
 * with TARSIER_ALL_ROWS=1 (in `npm test` each would cost a 60 s retry).
 */
const PROVED_SLOWLY = [
  'c/loop-industry-pattern/ofuf_2.yml (unreach-call)',
  'c/loop-industry-pattern/ofuf_3.yml (unreach-call)',
  'c/loop-invgen/MADWiFi-encode_ie_ok.yml (unreach-call)',
  'c/loops-crafted-1/nested3-1.yml (unreach-call)',
];

const ALL_ROWS = process.env.TARSIER_ALL_ROWS === '1';
/**
 * `npm test` checks the rows of PROVED whose name hashes to 0 modulo
 * SAMPLE_EVERY (each row costs a verification, gcc-built runs and two
 * validations; a hash, so that a row added or removed leaves the others'
 * choice as it was); TARSIER_ALL_ROWS=1 checks them all, and PROVED_SLOWLY.
 */
// 6, not 5: `npm test` had grown past ten minutes on this machine (the sample is 8 rows now, 11 at 5).
const SAMPLE_EVERY = ALL_ROWS ? 1 : 6;

function sampled(name: string): boolean {
  let h = 0;
  for (const c of name) h = (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0;
  return h % SAMPLE_EVERY === 0;
}

const VERIFY_LIMIT_S = 10;
/** A row left UNKNOWN on a loaded machine runs once more with this limit. */
const RETRY_LIMIT_S = 60;
const VALIDATE_LIMIT_S = 60;
const JOBS = 2;

interface Row {
  task: string;
  program: string;
  property: string;
  expected: string;
}

const rowName = (r: Row) => `${r.task} (${r.property})`;

function rows(): Row[] {
  const lines = readFileSync(sharedPath('bench', 'sv-benchmarks', 'MANIFEST.csv'), 'utf8').trim().split('\n');
  const head = lines[0]!.split(',');
  const col = (n: string) => head.indexOf(n);
  return lines.slice(1).map((l) => {
    const f = l.split(',');
    return { task: f[col('task_yml')]!, program: f[col('program')]!, property: f[col('property')]!, expected: f[col('expected_verdict')]! };
  });
}

function run(args: string[], limitS: number): Promise<string> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [cliPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    // A guard against a hang only: the run ends by its own CPU limit, which a
    // loaded machine stretches in wall time.
    const killer = setTimeout(() => child.kill('SIGKILL'), (4 * limitS + 60) * 1000);
    child.on('close', () => {
      clearTimeout(killer);
      done(out);
    });
  });
}

const verdictLine = (out: string) => out.trim().split('\n').pop() ?? '';

/** Validates a witness; once more with a larger limit when the first run ran out of time. */
async function validate(task: string, property: string, witness: string): Promise<string> {
  const once = (limit: number) => run(['validate', task, '--property', property, '--witness', witness, '--timeout', String(limit)], limit);
  const out = await once(VALIDATE_LIMIT_S);
  return /time limit reached/.test(out) && !/Verification result: (TRUE|FALSE)/.test(out) ? once(2 * VALIDATE_LIMIT_S) : out;
}

/**
 * The witness with the invariant at `inv` replaced by its negation. The
 * original holds in every run (checked before), so the negation is false
 * wherever a run reaches it.
 */
function negated(text: string, inv: Inv): string {
  const at = text.indexOf(`line: ${inv.line}\n`);
  const valueAt = text.indexOf('value: "', at);
  const end = text.indexOf('"\n', valueAt);
  assert.ok(at >= 0 && valueAt >= 0 && end > valueAt, `no value after line ${inv.line}`);
  return `${text.slice(0, valueAt)}value: "!(${inv.text})${text.slice(end)}`;
}

test('every TRUE of the bench: its witness lints clean, holds in runs, is confirmed by validate, and with one invariant made false is not', { skip: skipWithoutShared || skipGcc, timeout: 3_600_000 }, async (t) => {
  const bench = sharedPath('bench', 'sv-benchmarks');
  const all = rows();
  const listed = ALL_ROWS ? [...PROVED, ...PROVED_SLOWLY] : PROVED;
  const proved = all.filter((r) => listed.includes(rowName(r)));
  assert.equal(proved.length, listed.length, 'every row listed is in the manifest');
  assert.ok(proved.every((r) => r.expected === 'true'), 'the lists hold only rows whose expected verdict is true');
  const todo = proved.filter((r) => sampled(rowName(r)));
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-witness-bench-'));
  const failures: string[] = [];
  let next = 0;
  let mutated = 0;
  const undecided: string[] = [];
  const worker = async () => {
    while (next < todo.length) {
      const i = next++;
      const r = todo[i]!;
      const where = rowName(r);
      const task = join(bench, r.task);
      const program = join(bench, r.program);
      const w = join(dir, `w${i}.yml`);
      const verify = (limit: number) => run(['verify', task, '--property', r.property, '--timeout', String(limit), '--witness', w], limit);
      let out = await verify(VERIFY_LIMIT_S);
      // UNKNOWN on a loaded machine (a time limit, or a solver call cut short): once more with a generous limit.
      if (verdictLine(out) === 'Verification result: UNKNOWN') out = await verify(RETRY_LIMIT_S);
      // Still out of time at the larger limit: the machine is too loaded to
      // tell (the bench measures it); anything else but TRUE is a failure.
      if (verdictLine(out) === 'Verification result: UNKNOWN' && /time limit reached/.test(out)) {
        undecided.push(where);
        continue;
      }
      if (verdictLine(out) !== 'Verification result: TRUE') {
        failures.push(`${where}: ${out.trim().split('\n').slice(-2).join(' | ')}`);
        continue;
      }
      const lint = lintProblems(w, program);
      if (lint.length > 0) {
        failures.push(`${where}: witness lint: ${lint[0]}`);
        continue;
      }
      const invs = invariantsOf(w);
      const wrong = falsifiedConjunct(program, invs, 10);
      if (wrong) {
        failures.push(`${where}: an invariant fails in a gcc-built run: ${wrong}`);
        continue;
      }
      const v = await validate(task, r.property, w);
      if (verdictLine(v) !== 'Verification result: TRUE') {
        failures.push(`${where}: not confirmed: ${v.trim().split('\n').slice(-2).join(' | ')}`);
        continue;
      }
      // One invariant made false where a run reaches it: a loop invariant
      // whose negation some run violates, or the location invariant of a
      // program without loops (at the first statement of main).
      const text = readFileSync(w, 'utf8');
      const doc = readWitness(text, w);
      const kinds = doc.format === 'yaml' ? doc.entries.flatMap((e) => (!('unknown' in e) && e.entry_type === 'invariant_set' ? e.content.map((c) => c.kind) : [])) : [];
      const target = invs.find((inv, k) => (kinds[k] === 'location_invariant' ? true : falsifiedConjunct(program, [{ ...inv, text: '0' }], 10) !== undefined));
      if (!target) {
        t.diagnostic(`${where}: no run reaches an invariant of the witness; nothing to make false`);
        continue;
      }
      const bad = join(dir, `w${i}-bad.yml`);
      writeFileSync(bad, negated(text, target));
      mutated++;
      const vb = await validate(task, r.property, bad);
      if (/Verification result: TRUE/.test(vb)) failures.push(`${where}: confirmed with ${target.text} negated at line ${target.line}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: JOBS }, worker));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  t.diagnostic(`${todo.length} of ${proved.length} rows, ${mutated} witnesses made false`);
  for (const u of undecided) t.diagnostic(`${u}: out of time even at ${RETRY_LIMIT_S} s on this machine; not checked`);
  assert.deepEqual(failures, []);
  // The mutation must have bitten somewhere (a test that checks nothing passes too).
  assert.ok(mutated >= todo.length / 2, `only ${mutated} of ${todo.length} witnesses could be made false (${undecided.length} rows out of time)`);
});

// `npm run bench:verify -- --timeout 60 [--jobs 2] [--filter text] [--tasks FILE] [--property P] [--solver auto|z3-wasm|z3|cvc5] [--no-validate] [--profile] [--out results.json]`
// Runs `tarsier verify` on every (task, property) row of
// ../shared/bench/sv-benchmarks/MANIFEST.csv as a child process, scores the
// answers with the competition's table and prints per-directory counts, the
// score and the CPU time. Every FALSE is also linted and replayed by the
// verifier itself before it is answered. Beside the table: the reference
// tools of ../shared/bench/peers/unreach-call-10s.csv (their score, and
// Tarsier's CPU time over theirs on the tasks both answer correctly).
// --tasks FILE: only the task files listed there (one a line, as in the
// manifest). --no-validate: witnesses are linted but not validated (faster).
// --profile: runs with --verbose and sums the CPU time per phase that each
// run reports (start-up, parse, lower, bmc, ...), over all runs and over the
// correct ones.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { POINTS, parseVerdictString, scoreResult, type PropertyKind, type Verdict } from '../src/task/index.js';
import { correctnessWitnessRequired, violationNames } from '../src/properties/index.js';

const USAGE =
  'usage: npm run bench:verify -- [--timeout S (60)] [--jobs N (2)] [--filter TEXT] [--tasks FILE] [--property P] [--solver auto|z3-wasm|z3|cvc5] [--no-validate] [--profile] [--out results.json] [--shared DIR]';
const GNU_TIME = '/usr/bin/time';
const CPU_MARK = 'tarsier-bench-cpu';
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cli = join(repoRoot, 'bin', 'tarsier.js');

interface Row {
  task: string;
  program: string;
  property: string;
  subproperty: string;
  expected: string;
  directory: string;
}

function args(): { timeout: number; jobs: number; filter?: string; tasks?: string; property?: string; out?: string; shared: string; solver?: string; validate: boolean; profile: boolean } {
  const a = process.argv.slice(2);
  const valued = ['--timeout', '--jobs', '--filter', '--tasks', '--property', '--out', '--solver', '--shared'];
  const switches = ['--no-validate', '--profile'];
  if (a.includes('--help') || a.includes('-h')) {
    console.log(USAGE);
    process.exit(0);
  }
  // An unknown or misspelt flag would otherwise start a run over every row.
  for (let i = 0; i < a.length; i++) {
    if (valued.includes(a[i]!) && i + 1 < a.length) i++;
    else if (!switches.includes(a[i]!)) {
      console.error(`bench:verify: error: unknown argument '${a[i]}'\n${USAGE}`);
      process.exit(2);
    }
  }
  const get = (name: string) => {
    const i = a.indexOf(name);
    return i >= 0 ? a[i + 1] : undefined;
  };
  return {
    timeout: Number(get('--timeout') ?? 60),
    jobs: Number(get('--jobs') ?? 2),
    filter: get('--filter'),
    tasks: get('--tasks'),
    validate: !a.includes('--no-validate'),
    profile: a.includes('--profile'),
    property: get('--property'),
    out: get('--out'),
    solver: get('--solver'),
    shared: get('--shared') ?? process.env.TARSIER_SHARED ?? resolve(repoRoot, '../shared'),
  };
}

function readManifest(dir: string): Row[] {
  const lines = readFileSync(join(dir, 'MANIFEST.csv'), 'utf8').trim().split('\n');
  const head = lines[0]!.split(',');
  const col = (n: string) => head.indexOf(n);
  return lines.slice(1).map((l) => {
    const f = l.split(',');
    return {
      task: f[col('task_yml')]!,
      program: f[col('program')]!,
      property: f[col('property')]!,
      subproperty: f[col('subproperty')]!,
      expected: f[col('expected_verdict')]!,
      directory: f[col('directory')]!,
    };
  });
}

interface Outcome {
  row: Row;
  verdict: Verdict;
  reason: string;
  cpu: number;
  wall: number;
  points: number;
  category: string;
  /** For a correct answer: its witness lints clean against the program; and `tarsier validate` confirms it (undefined: no validate command). */
  witnessLints?: boolean;
  witnessConfirmed?: boolean;
  /** Why `tarsier validate` did not confirm the witness (its reason, or how it failed). */
  witnessNote?: string;
  /** Whether the rules ask for a witness with this answer (see witnessRequired). */
  witnessRequired: boolean;
  /** With --profile: CPU ms per phase, as the run reported it. */
  phases?: Record<string, number>;
}

/** The phases of a `verify --verbose` profile line: `profile (CPU ms): start-up 250, parse 10, ...; total 460`. */
function parsePhases(stderr: string): Record<string, number> | undefined {
  const m = /^profile \(CPU ms\): (.*); total \d+$/m.exec(stderr);
  if (!m) return undefined;
  const out: Record<string, number> = {};
  for (const part of m[1]!.split(', ')) {
    const k = /^(.*) (\d+)$/.exec(part);
    if (k) out[k[1]!] = Number(k[2]);
  }
  return out;
}

const HAS_VALIDATE = spawnSync(process.execPath, [cli, '--help'], { encoding: 'utf8' }).stdout.includes('validate');

/**
 * The rules (seed 004, "Witnesses") require a correctness witness where the
 * property table says so (unreach-call and no-overflow), except in the
 * Concurrency categories (a demonstration there); a TRUE for the other
 * properties counts without one. Every FALSE needs its violation witness.
 */
function witnessRequired(row: Row, bench: string): boolean {
  if (row.expected !== 'true') return true;
  // A program that starts threads: the rules' Concurrency categories.
  if (/\bpthread_create\b/.test(readFileSync(join(bench, row.program), 'utf8'))) return false;
  return correctnessWitnessRequired(row.property as PropertyKind);
}

/**
 * Lints a witness against the program and, when the command exists,
 * validates it (budget: a third of the verification's; validate answers
 * UNKNOWN where it decides only after that much CPU time).
 */
function checkWitness(bench: string, row: Row, witness: string, timeout: number, validate: boolean): { lints: boolean; confirmed?: boolean; note?: string } {
  if (!existsSync(witness)) return { lints: false, confirmed: false };
  const lint = spawnSync(process.execPath, [cli, 'lint', witness, '--program', join(bench, row.program), '--quiet'], { encoding: 'utf8' });
  // --quiet: nothing is printed for a witness without errors or warnings.
  const lints = lint.status === 0 && lint.stdout.trim() === '';
  if (!HAS_VALIDATE || !validate) return { lints };
  const limit = Math.max(1, Math.ceil(timeout / 3));
  const v = spawnSync(process.execPath, [cli, 'validate', join(bench, row.task), '--property', row.property, '--witness', witness, '--timeout', String(limit), '--format', 'json'], {
    encoding: 'utf8',
    timeout: (timeout + 30) * 1000,
  });
  let answer: { result?: string; reason?: string } = {};
  try {
    answer = JSON.parse(v.stdout ?? '');
  } catch {
    // no answer (a crash): not confirmed
  }
  const confirmed = row.expected === 'true' ? answer.result === 'TRUE' : answer.result?.startsWith('FALSE') === true;
  const failure = v.error ? v.error.message : `exit ${v.status ?? v.signal}: ${(v.stderr ?? '').trim().split('\n').pop() ?? ''}`;
  return { lints, confirmed, ...(confirmed ? {} : { note: answer.reason ?? `no answer (${failure})` }) };
}

function runOne(bench: string, row: Row, timeout: number, tmp: string, index: number, solver: string | undefined, validate: boolean, profile: boolean): Promise<Outcome> {
  return new Promise((done) => {
    const t0 = Date.now();
    // In a folder of its own, verify writes the witness under the file name
    // the rules give its format (witness.yml or witness.graphml), as in the competition.
    const runDir = join(tmp, `run${index}`);
    mkdirSync(runDir);
    // GNU time reports the CPU time of the whole process tree (start-up,
    // worker threads, solver processes, gcc), as the reference figures count it.
    const timed = existsSync(GNU_TIME);
    const child = spawn(
      timed ? GNU_TIME : process.execPath,
      [
        ...(timed ? ['-f', `${CPU_MARK} %U %S`, process.execPath] : []),
        cli, 'verify', resolve(bench, row.task), '--property', row.property, '--timeout', String(timeout), '--format', 'json',
        ...(solver ? ['--solver', solver] : []),
        ...(profile ? ['--verbose'] : []),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], cwd: runDir },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    // Hard limit: the verifier must end by itself; kill it a little after.
    const killer = setTimeout(() => child.kill("SIGKILL"), (2 * timeout + 30) * 1000);
    child.on('close', (code) => {
      clearTimeout(killer);
      const wall = (Date.now() - t0) / 1000;
      let verdict: Verdict = { kind: 'unknown' };
      let reason = '';
      let cpu = Math.min(wall, timeout);
      let own = 0;
      let witness = '';
      try {
        const j = JSON.parse(out.trim().split('\n').pop() ?? '');
        witness = typeof j.witness === 'string' ? j.witness : '';
        verdict = parseVerdictString(j.verdict) ?? { kind: 'unknown' };
        reason = j.reason ?? '';
        if (typeof j.cpuTimeS === 'number') own = cpu = j.cpuTimeS;
      } catch {
        reason = `exit ${code}: ${(err || out).trim().split('\n')[0] ?? ''}`;
      }
      const m = new RegExp(`^${CPU_MARK} ([\\d.]+) ([\\d.]+)$`, 'm').exec(err);
      // GNU time misses solver processes killed at the time limit (they are
      // reaped by init, not by us): the verifier's own count stands then.
      if (m) cpu = Math.min(timeout, Math.max(own, Number(m[1]) + Number(m[2])));
      const expected = row.expected === 'true' ? { verdict: true } : row.expected === 'false' ? { verdict: false, subproperty: row.subproperty || undefined } : undefined;
      const kind = row.property as PropertyKind;
      const s = scoreResult(expected, verdict, { property: { kind, violationNames: violationNames(kind) } });
      const required = witnessRequired(row, bench);
      const w = s.category === 'correct' && required ? checkWitness(bench, row, witness, timeout, validate) : undefined;
      done({
        row, verdict, reason, cpu, wall, points: s.points, category: s.category, witnessRequired: required,
        witnessLints: w?.lints, witnessConfirmed: w?.confirmed, ...(w?.note ? { witnessNote: w.note } : {}), phases: profile ? parsePhases(err) : undefined,
      });
    });
  });
}

async function main(): Promise<void> {
  const o = args();
  const bench = join(o.shared, 'bench', 'sv-benchmarks');
  if (!existsSync(join(bench, 'MANIFEST.csv'))) {
    console.error(`bench:verify: ${bench}/MANIFEST.csv not found (set TARSIER_SHARED)`);
    process.exit(2);
  }
  let rows = readManifest(bench);
  if (o.filter) rows = rows.filter((r) => r.task.includes(o.filter!) || r.property.includes(o.filter!));
  // --property P: only the rows of that property (e.g. termination).
  if (o.property) rows = rows.filter((r) => r.property === o.property);
  if (o.tasks) {
    const listed = new Set(readFileSync(o.tasks, 'utf8').split('\n').map((l) => l.trim()).filter(Boolean));
    rows = rows.filter((r) => listed.has(r.task));
  }
  const tmp = mkdtempSync(join(tmpdir(), 'tarsier-bench-verify-'));
  const results: Outcome[] = new Array(rows.length);
  let next = 0;
  let finished = 0;
  const worker = async () => {
    while (next < rows.length) {
      const i = next++;
      results[i] = await runOne(bench, rows[i]!, o.timeout, tmp, i, o.solver, o.validate, o.profile);
      finished++;
      const r = results[i]!;
      const v = r.verdict.kind === 'false' ? `false(${r.verdict.property ?? ''})` : r.verdict.kind;
      process.stderr.write(
        `[${finished}/${rows.length}] ${r.row.task} ${r.row.property}: ${v} (expected ${r.row.expected}) ${r.category} ${r.cpu.toFixed(1)}s${r.category === 'correct' && !r.witnessRequired ? ' (no witness required)' : ''}${r.witnessLints === undefined ? '' : ` witness ${r.witnessLints ? 'lints' : 'LINT ERRORS'}${r.witnessConfirmed === undefined ? '' : r.witnessConfirmed ? ', confirmed' : `, not confirmed${r.witnessNote ? ` (${r.witnessNote.length > 120 ? `${r.witnessNote.slice(0, 120)}…` : r.witnessNote})` : ''}`}`}${r.category === 'wrong' ? ' <<< WRONG' : ''}\n`,
      );
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, o.jobs) }, worker));
  rmSync(tmp, { recursive: true, force: true });

  const dirs = [...new Set(results.map((r) => r.row.directory))].sort();
  const pad = (s: string | number, n: number) => String(s).padStart(n);
  console.log(`tarsier verify on ${rows.length} (task, property) pairs, timeout ${o.timeout} s, ${o.jobs} jobs`);
  console.log(
    `${'directory'.padEnd(24)} ${pad('tasks', 5)} ${pad('TRUE✓', 6)} ${pad('w-lint', 6)} ${pad('w-conf', 6)} ${pad('FALSE✓', 6)} ${pad('unkn', 5)} ${pad('wrong', 5)} ${pad('score', 6)} ${pad('conf.', 6)} ${pad('cpu s', 8)}`,
  );
  // The score when only results with a confirmed witness count (wrong answers
  // always count; so do correct results for which the rules require no witness).
  const confirmedScore = (rs: Outcome[]) =>
    rs.reduce((a, r) => a + (r.category !== 'correct' || !r.witnessRequired || r.witnessConfirmed ? r.points : 0), 0);
  const line = (name: string, rs: Outcome[]) => {
    const ct = rs.filter((r) => r.category === 'correct' && r.verdict.kind === 'true').length;
    const cf = rs.filter((r) => r.category === 'correct' && r.verdict.kind === 'false').length;
    const wr = rs.filter((r) => r.category === 'wrong').length;
    const un = rs.length - ct - cf - wr;
    const score = rs.reduce((a, r) => a + r.points, 0);
    const cpu = rs.reduce((a, r) => a + r.cpu, 0);
    const trues = rs.filter((r) => r.category === 'correct' && r.verdict.kind === 'true' && r.witnessRequired);
    const tl = trues.filter((r) => r.witnessLints).length;
    const tc = HAS_VALIDATE && o.validate ? String(trues.filter((r) => r.witnessConfirmed).length) : '-';
    const cs = HAS_VALIDATE && o.validate ? String(confirmedScore(rs)) : '-';
    console.log(
      `${name.padEnd(24)} ${pad(rs.length, 5)} ${pad(ct, 6)} ${pad(tl, 6)} ${pad(tc, 6)} ${pad(cf, 6)} ${pad(un, 5)} ${pad(wr, 5)} ${pad(score, 6)} ${pad(cs, 6)} ${pad(cpu.toFixed(1), 8)}`,
    );
  };
  for (const d of dirs) line(d, results.filter((r) => r.row.directory === d));
  line('TOTAL', results);
  const correctCpu = results.filter((r) => r.category === 'correct').reduce((a, r) => a + r.cpu, 0);
  console.log(`score ${results.reduce((a, r) => a + r.points, 0)} (+${POINTS.correctTrue} correct TRUE, +${POINTS.correctFalse} correct FALSE, ${POINTS.incorrectFalse} wrong FALSE, ${POINTS.incorrectTrue} wrong TRUE); CPU time of correct results ${correctCpu.toFixed(1)} s`);
  const wrong = results.filter((r) => r.category === 'wrong');
  for (const w of wrong) console.log(`WRONG: ${w.row.task} ${w.row.property}: ${JSON.stringify(w.verdict)} expected ${w.row.expected}: ${w.reason}`);
  if (o.profile) printPhases(results);
  comparePeers(join(o.shared, 'bench', 'peers', 'unreach-call-10s.csv'), results);
  if (o.out) writeFileSync(o.out, JSON.stringify(results, null, 1));
}

/** CPU seconds per phase, summed over the runs that reported a profile (all of them, and the correct ones). */
function printPhases(results: readonly Outcome[]): void {
  const sum = (rs: readonly Outcome[]) => {
    const out = new Map<string, number>();
    for (const r of rs) for (const [k, v] of Object.entries(r.phases ?? {})) out.set(k, (out.get(k) ?? 0) + v);
    return out;
  };
  const all = sum(results);
  const correct = sum(results.filter((r) => r.category === 'correct'));
  const profiled = results.filter((r) => r.phases).length;
  console.log(`CPU time per phase (s), from the profiles of ${profiled} runs (the rest ended at the hard limit):`);
  console.log(`${'phase'.padEnd(22)} ${'all'.padStart(8)} ${'correct'.padStart(8)}`);
  for (const [k, v] of [...all].sort((a, b) => b[1] - a[1])) {
    console.log(`${k.padEnd(22)} ${(v / 1000).toFixed(1).padStart(8)} ${((correct.get(k) ?? 0) / 1000).toFixed(1).padStart(8)}`);
  }
}

/**
 * The reference tools' figures on the rows of the peers file that were run
 * here: each tool's score, and Tarsier's CPU time divided by the tool's on
 * the tasks both answer correctly.
 */
function comparePeers(file: string, results: readonly Outcome[]): void {
  if (!existsSync(file)) {
    console.log(`(no reference figures: ${file} not found)`);
    return;
  }
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  const head = lines[0]!.split(',');
  const tools = head.filter((h) => h.endsWith('_result')).map((h) => h.replace(/_result$/, ''));
  const ours = new Map(results.filter((r) => r.row.property === 'unreach-call').map((r) => [r.row.task, r]));
  const rows = lines.slice(1).map((l) => l.split(',')).filter((f) => ours.has(f[head.indexOf('task')]!));
  if (rows.length === 0) {
    console.log('(no unreach-call row of the reference figures was run)');
    return;
  }
  const points = (answer: string, expected: string) =>
    answer === 'unknown' ? 0 : answer !== expected ? (answer === 'true' ? POINTS.incorrectTrue : POINTS.incorrectFalse) : answer === 'true' ? POINTS.correctTrue : POINTS.correctFalse;
  const ourScore = rows.reduce((a, f) => a + ours.get(f[head.indexOf('task')]!)!.points, 0);
  console.log(`reference figures (${file.split('/').slice(-2).join('/')}), on the ${rows.length} unreach-call rows run here:`);
  console.log(`  tarsier score ${ourScore}`);
  for (const t of tools) {
    const ri = head.indexOf(`${t}_result`);
    const ci = head.indexOf(`${t}_cpu_s`);
    const ei = head.indexOf('expected');
    const score = rows.reduce((a, f) => a + points(f[ri]!, f[ei]!), 0);
    const both = rows.filter((f) => f[ri] === f[ei] && ours.get(f[head.indexOf('task')]!)!.category === 'correct');
    const theirs = both.reduce((a, f) => a + Number(f[ci]), 0);
    const mine = both.reduce((a, f) => a + ours.get(f[head.indexOf('task')]!)!.cpu, 0);
    const ratio = theirs > 0 ? (mine / theirs).toFixed(2) : 'n/a';
    console.log(`  ${t} score ${score}; on the ${both.length} tasks both answer correctly: tarsier ${mine.toFixed(1)} s, ${t} ${theirs.toFixed(1)} s CPU, ratio ${ratio}`);
  }
}

await main();

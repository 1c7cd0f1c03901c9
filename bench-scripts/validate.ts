// npm run bench:validate [-- --timeout S] [--verify-timeout S] [--jobs N] [--limit N] [--all]
//
// Validates (1) the ESBMC violation witnesses of ../shared/witnesses/real/esbmc
// (real false tasks) and (2) the witnesses `tarsier verify` writes for the
// corpus's tasks (violation witnesses on FALSE; correctness witnesses on TRUE
// where verify writes one) with `tarsier validate`, each in its own process,
// and prints confirmed/refuted/unconfirmed counts and CPU time per witness.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '../../..');
const shared = process.env.TARSIER_SHARED ?? resolve(root, '../shared');
const cli = join(root, 'bin', 'tarsier.js');
const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : def;
};
const TIMEOUT = arg('timeout', 90);
const VERIFY_TIMEOUT = arg('verify-timeout', 30);
const JOBS = arg('jobs', 2);
const LIMIT = arg('limit', Infinity);
const ALL = process.argv.includes('--all');

interface Row {
  set: string;
  name: string;
  outcome: string;
  cpuS: number;
  reason: string;
}

function run(args: string[], timeoutS: number): Promise<{ stdout: string; cpuS: number }> {
  return new Promise((done) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    // The command enforces its own CPU limit; this is the backstop.
    const kill = setTimeout(() => child.kill('SIGKILL'), (2 * timeoutS + 30) * 1000);
    child.on('close', () => {
      clearTimeout(kill);
      done({ stdout, cpuS: Number(process.hrtime.bigint() - t0) / 1e9 });
    });
  });
}

async function validateOne(set: string, name: string, task: string, witness: string, property?: string): Promise<Row> {
  const args = ['validate', task, ...(property ? ['--property', property] : []), '--witness', witness, '--timeout', String(TIMEOUT), '--format', 'json'];
  const r = await run(args, TIMEOUT);
  try {
    const j = JSON.parse(r.stdout.trim().split('\n').pop()!) as { witness: { outcome: string }; reason: string; cpuTimeS?: number };
    return { set, name, outcome: j.witness.outcome, cpuS: j.cpuTimeS ?? TIMEOUT, reason: j.reason };
  } catch {
    return { set, name, outcome: 'error', cpuS: r.cpuS, reason: r.stdout.trim().split('\n').pop() ?? '' };
  }
}

async function pool<T, R>(items: readonly T[], f: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(JOBS, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await f(items[i]!);
      }
    }),
  );
  return out;
}

async function esbmc(): Promise<Row[]> {
  const dir = join(shared, 'witnesses', 'real', 'esbmc');
  const files = readdirSync(dir).filter((f) => f.endsWith('.yml')).slice(0, LIMIT);
  return pool(files, (f) => {
    const task = join(shared, 'bench', 'sv-benchmarks', 'c', f.replace(/\.yml$/, '').replace(/__/g, '/') + '.yml');
    return validateOne('esbmc (violation)', f, task, join(dir, f), 'unreach-call');
  });
}

async function own(): Promise<Row[]> {
  const lines = readFileSync(join(shared, 'bench', 'sv-benchmarks', 'MANIFEST.csv'), 'utf8').trim().split('\n');
  const head = lines[0]!.split(',');
  const col = (n: string) => head.indexOf(n);
  const rows = lines
    .slice(1)
    .map((l) => l.split(','))
    .filter((f) => f[col('property')] === 'unreach-call' || f[col('property')] === 'no-overflow')
    // Violation witnesses come from FALSE tasks; TRUE tasks only with --all (correctness witnesses, where verify writes them).
    .filter((f) => ALL || f[col('expected_verdict')] === 'false')
    .slice(0, LIMIT);
  const tmp = mkdtempSync(join(tmpdir(), 'tarsier-bench-validate-'));
  try {
    const out = await pool(rows, async (f) => {
      const task = join(shared, 'bench', 'sv-benchmarks', f[col('task_yml')]!);
      const property = f[col('property')]!;
      const witness = join(tmp, `${f[col('task_yml')]!.replace(/\W/g, '_')}-${property}.yml`);
      const v = await run(['verify', task, '--property', property, '--timeout', String(VERIFY_TIMEOUT), '--witness', witness], VERIFY_TIMEOUT);
      const verdict = v.stdout.trim().split('\n').pop() ?? '';
      if (!/TRUE|FALSE/.test(verdict) || !existsSync(witness)) return undefined;
      const kind = /FALSE/.test(verdict) ? 'violation' : 'correctness';
      return validateOne(`tarsier (${kind})`, `${f[col('task_yml')]} ${property}`, task, witness, property);
    });
    return out.filter((r): r is Row => r !== undefined);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function table(rows: readonly Row[]): void {
  const sets = [...new Set(rows.map((r) => r.set))];
  console.log('| witnesses | count | confirmed | refuted | unconfirmed | error | CPU s per witness: median | mean | max |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const s of sets) {
    const rs = rows.filter((r) => r.set === s);
    const n = (o: string) => rs.filter((r) => r.outcome === o).length;
    const cpu = rs.map((r) => r.cpuS).sort((a, b) => a - b);
    const mean = cpu.reduce((a, b) => a + b, 0) / Math.max(1, cpu.length);
    console.log(`| ${s} | ${rs.length} | ${n('confirmed')} | ${n('refuted')} | ${n('unconfirmed')} | ${n('error')} | ${cpu[Math.floor(cpu.length / 2)]?.toFixed(1) ?? '-'} | ${mean.toFixed(1)} | ${cpu[cpu.length - 1]?.toFixed(1) ?? '-'} |`);
  }
}

async function main(): Promise<void> {
  if (!existsSync(join(shared, 'bench'))) {
    console.log(`skipped: ${shared} has no bench/ (the shared material is not present)`);
    return;
  }
  const rows = [...(await esbmc()), ...(await own())];
  for (const r of rows) console.log(`${r.set}\t${r.name}\t${r.outcome}\t${r.cpuS.toFixed(2)}s\t${r.reason.slice(0, 140)}`);
  console.log('');
  table(rows);
}

await main();

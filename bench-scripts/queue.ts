/**
 * `tarsier bench` on this machine (`--jobs J`) against the same set through
 * a BullMQ queue with W workers on this machine (a private redis-server on a
 * free loopback port): wall time of each, the summaries, and the runs whose
 * status differs (CPU times near the limit can fall either side on a loaded
 * machine). Prints the load average, since a shared machine changes both.
 * Usage: node dist/bench-scripts/queue.js [--set DIR] [--timeout S] [--jobs J] [--workers W]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { formatSummary, runBench, tarsierTool, type BenchResult } from '../src/bench/index.js';
import { cliPath } from '../test/helpers/shared.js';
import { skipWithoutRedis, startRedis } from '../test/bench/redis.js';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const set = arg('--set', resolve(process.argv[1], '../../../../shared/bench/sv-benchmarks/c/loop-acceleration'));
const timeout = Number(arg('--timeout', '10'));
const jobs = Number(arg('--jobs', '2'));
const workers = Number(arg('--workers', '3'));
if (skipWithoutRedis) {
  console.log(skipWithoutRedis);
  process.exit(0);
}
const out = mkdtempSync(join(tmpdir(), 'tarsier-bench-queue-'));
const load = () => loadavg().map((x) => x.toFixed(1)).join(' ');

async function timed(label: string, run: () => Promise<BenchResult>): Promise<BenchResult> {
  console.log(`${label}: start, load average ${load()}`);
  const t0 = Date.now();
  const r = await run();
  console.log(`${label}: ${((Date.now() - t0) / 1000).toFixed(1)} s wall, load average ${load()}\n${formatSummary([r.summary])}\n`);
  return r;
}

const options = { sets: [set], tool: tarsierTool(), timeout, jobs };
const local = await timed(`local, --jobs ${jobs}`, () => runBench({ ...options, out: join(out, 'local') }));
const redis = await startRedis();
const children = Array.from({ length: workers }, (_, i) =>
  spawn(process.execPath, [cliPath, 'worker', redis.url, '--name', `w${i + 1}`], { stdio: 'ignore' }),
);
try {
  const queued = await timed(`queue, ${workers} workers`, () => runBench({ ...options, out: join(out, 'queued'), queue: redis.url }));
  const before = new Map(local.records.map((r) => [r.id, r.status]));
  const differ = queued.records.filter((r) => before.get(r.id) !== r.status).map((r) => `${r.id}: ${before.get(r.id)} locally, ${r.status} queued`);
  console.log(`runs with another status: ${differ.length}${differ.map((d) => `\n  ${d}`).join('')}`);
  console.log(`results in ${out}`);
} finally {
  for (const c of children) c.kill('SIGTERM');
  await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))));
  await redis.stop();
}

/**
 * Throughput of the C front end (lex, parse, type-check) over every program
 * of ../shared/bench (MANIFEST.csv, each with its task's data model), and of
 * `gcc -fsyntax-only` on the same files as the reference: one gcc process per
 * file (what parsing one program costs) and one gcc driver call per data
 * model for all files (startup amortised).
 * Usage: node dist/bench-scripts/parse.js [--runs N]
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseCProgram } from '../src/c/index.js';
import type { DataModel } from '../src/c/types.js';

const root = resolve(process.argv[1], '../../../../shared/bench/sv-benchmarks');
const runsArg = process.argv.indexOf('--runs');
const runs = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 3;
const manifest = readFileSync(join(root, 'MANIFEST.csv'), 'utf8').trim().split('\n').slice(1);
const files = new Map<string, DataModel>();
for (const line of manifest) {
  const cols = line.split(',');
  files.set(join(root, cols[1]), cols[5] as DataModel);
}
const list = [...files.entries()].sort((a, b) => a[0].localeCompare(b[0]));
const texts = list.map(([f]) => readFileSync(f, 'utf8'));
const bytes = list.reduce((n, [f]) => n + statSync(f).size, 0);
const kb = bytes / 1024;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

// Warm-up run, then timed runs.
let failures = 0;
const ours: number[] = [];
for (let r = 0; r <= runs; r++) {
  const t0 = process.hrtime.bigint();
  failures = 0;
  list.forEach(([f, dm], i) => {
    try {
      parseCProgram(texts[i], f, { dataModel: dm });
    } catch {
      failures++;
    }
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r > 0) ours.push(ms);
}
const oursMs = median(ours);
console.log(`corpus: ${list.length} programs, ${kb.toFixed(0)} KB`);
console.log(`tarsier parse (in-process, lex+parse+types): ${oursMs.toFixed(0)} ms, ${(kb / (oursMs / 1000)).toFixed(0)} KB/s${failures ? `, ${failures} failed` : ''}`);

const gccArgs = (dm: DataModel) => [dm === 'LP64' ? '-m64' : '-m32', '-fsyntax-only', '-w'];
const probe = spawnSync('gcc', ['--version'], { encoding: 'utf8' });
if (probe.error) {
  console.log('gcc -fsyntax-only: gcc is not available');
} else {
  const t0 = process.hrtime.bigint();
  let gccFailures = 0;
  for (const [f, dm] of list) {
    const r = spawnSync('gcc', [...gccArgs(dm), f], { encoding: 'utf8' });
    if (r.status !== 0) gccFailures++;
  }
  const perFile = Number(process.hrtime.bigint() - t0) / 1e6;
  console.log(`gcc -fsyntax-only, one process per file: ${perFile.toFixed(0)} ms, ${(kb / (perFile / 1000)).toFixed(0)} KB/s${gccFailures ? `, ${gccFailures} rejected` : ''}`);
  const batched: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t1 = process.hrtime.bigint();
    for (const dm of ['ILP32', 'LP64'] as const) {
      const group = list.filter(([, d]) => d === dm).map(([f]) => f);
      if (group.length) spawnSync('gcc', [...gccArgs(dm), ...group], { encoding: 'utf8' });
    }
    batched.push(Number(process.hrtime.bigint() - t1) / 1e6);
  }
  const b = median(batched);
  console.log(`gcc -fsyntax-only, one driver call per data model: ${b.toFixed(0)} ms, ${(kb / (b / 1000)).toFixed(0)} KB/s`);
}

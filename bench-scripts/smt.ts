// Runs the verification conditions of the IMP suite (test/fixtures/imp)
// through the SMT back ends and prints times: the WebAssembly Z3 always, a
// solver process when `z3` or `cvc5` is on PATH (or TARSIER_BENCH_SOLVER names one).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseImp } from '../src/ivl/parser.js';
import { encodeProcedure } from '../src/vc/encode.js';
import { availableProcessSolver, createSolver, shutdownZ3Wasm, type Solver } from '../src/smt/index.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dir = join(root, 'test', 'fixtures', 'imp');
const rounds = Number(process.env.TARSIER_BENCH_ROUNDS ?? 3);

const encodings = readdirSync(dir)
  .filter((f) => f.endsWith('.imp'))
  .sort()
  .flatMap((f) => {
    const p = parseImp(readFileSync(join(dir, f), 'utf8'), f);
    return p.procedures.filter((q) => q.body).map((q) => encodeProcedure(p, q));
  });
const goalCount = encodings.reduce((n, e) => n + e.goals.length, 0);

interface Run {
  firstMs: number;
  totalMs: number;
  answers: string[];
}

async function runOnce(name: string): Promise<Run> {
  const t0 = performance.now();
  const solver: Solver = createSolver(name);
  const answers: string[] = [];
  let firstMs = -1;
  try {
    for (const enc of encodings) {
      await solver.push();
      for (const a of enc.assertions) await solver.assert(a);
      for (const g of enc.goals) {
        const r = await solver.checkSat([g.violation], { timeoutMs: Number(process.env.TARSIER_BENCH_TIMEOUT_MS ?? 20_000) });
        if (firstMs < 0) firstMs = performance.now() - t0;
        answers.push(r.status);
      }
      await solver.pop();
    }
  } finally {
    await solver.dispose();
  }
  return { firstMs, totalMs: performance.now() - t0, answers };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function bench(name: string): Promise<{ total: number; steady: number; answers: string[] }> {
  const runs: Run[] = [];
  for (let k = 0; k < rounds; k++) runs.push(await runOnce(name));
  // The first run of the WebAssembly back end includes starting the worker and compiling Z3.
  const total = median(runs.map((r) => r.totalMs));
  const steady = median(runs.map((r) => r.totalMs - r.firstMs));
  console.log(
    `${name.padEnd(10)} ${goalCount} queries  median of ${rounds}: ${total.toFixed(0)} ms total, ${steady.toFixed(0)} ms after the first answer` +
      `  (first run ${runs[0].totalMs.toFixed(0)} ms, first answer after ${runs[0].firstMs.toFixed(0)} ms)`,
  );
  return { total, steady, answers: runs[0].answers };
}

console.log(`SMT back ends on the IMP suite: ${encodings.length} procedures, ${goalCount} goals (one check-sat-assuming each)`);
const wasm = await bench('z3-wasm');
const processName = process.env.TARSIER_BENCH_SOLVER ?? availableProcessSolver();
if (!processName) {
  console.log('process   skipped: no z3 or cvc5 on PATH (set TARSIER_BENCH_SOLVER=/path/to/solver)');
} else {
  const proc = await bench(processName);
  const same = proc.answers.every((a, k) => a === wasm.answers[k]);
  console.log(`ratio z3-wasm / ${processName}: ${(wasm.total / proc.total).toFixed(2)} total, ${(wasm.steady / proc.steady).toFixed(2)} after the first answer; answers ${same ? 'agree' : 'DIFFER'}`);
}
await shutdownZ3Wasm();

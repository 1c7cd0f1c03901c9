// npm run bench:select — invariant selection on generated programs:
//  1. with 5, 20 and 80 candidates: solver calls and time of Houdini and of
//     each encoding (selection only, one solver session per method run);
//  2. the differential soundness check on many random programs (nested loops,
//     random candidate sets) against concrete runs.
// Usage: node dist/bench-scripts/select.js [PROGRAMS] (default 100)
import { performance } from 'node:perf_hooks';
import { parseImp } from '../src/ivl/index.js';
import { createZ3WasmSolver, shutdownZ3Wasm } from '../src/smt/index.js';
import { LoopTable, inlineCandidates } from '../src/invariants/program.js';
import { randomProgram } from '../src/invariants/random.js';
import { SELECT_METHODS, selectInvariants, type SelectMethod } from '../src/invariants/select.js';
import { differential } from '../src/invariants/differential.js';

const PROGRAMS = Number(process.argv[2] ?? 100);
const SIZES = [5, 20, 80];
const SEEDS = [101, 202, 303];

async function sizes(): Promise<void> {
  const solver = createZ3WasmSolver();
  // Warm the solver (worker start-up is not part of any method's time).
  const warm = parseImp(randomProgram(1), 'w.imp');
  await selectInvariants(warm, inlineCandidates(new LoopTable(warm)), { method: 'houdini', solverInstance: solver, skipVerification: true });
  console.log('Selection cost by number of candidates (mean over 3 generated programs; selection only)');
  console.log('candidates  loops  method              solver calls   time ms   selected');
  const variants: { label: string; method: SelectMethod; rounds?: number; max: number }[] = [
    ...SELECT_METHODS.map((m) => ({ label: m, method: m, max: 80 })),
    { label: 'encoding --rounds 2', method: 'encoding', rounds: 2, max: 20 },
  ];
  for (const k of SIZES) {
    const loops = Math.ceil(k / 10);
    for (const { label, method, rounds, max } of variants) {
      if (k > max) {
        console.log(`${String(k).padStart(10)}  ${String(loops).padStart(5)}  ${label.padEnd(18)}  (not run: minutes per program)`);
        continue;
      }
      let calls = 0;
      let ms = 0;
      let selected = 0;
      let total = 0;
      for (const seed of SEEDS) {
        const text = randomProgram(seed + k, { loops, candidatesPerLoop: k / loops, nestProb: 0 });
        const p = parseImp(text, `bench-${k}.imp`);
        const cands = inlineCandidates(new LoopTable(p));
        total += cands.length;
        const r = await selectInvariants(p, cands, { method, rounds, solverInstance: solver, skipVerification: true, timeoutMs: 60_000 });
        ms += r.selectionMs;
        calls += r.selectionCalls;
        selected += r.verdicts.filter((v) => v.status === 'selected').length;
      }
      const n = SEEDS.length;
      console.log(
        `${String(total / n).padStart(10)}  ${String(loops).padStart(5)}  ${label.padEnd(18)}  ${(calls / n).toFixed(1).padStart(12)}  ${(ms / n).toFixed(0).padStart(8)}  ${(selected / n).toFixed(1).padStart(9)}`,
      );
    }
  }
  await solver.dispose();
}

async function soundness(): Promise<void> {
  const solver = createZ3WasmSolver();
  const t0 = performance.now();
  const r = await differential(1000, PROGRAMS, SELECT_METHODS, solver, { nestProb: 0.5 });
  const ms = performance.now() - t0;
  console.log();
  console.log(`Differential soundness check: ${PROGRAMS} random programs (seeds 1000..${1000 + PROGRAMS - 1}), ${r.candidateCount} candidates, ${r.falsifiedCount} falsified by 40 concrete runs each (${(ms / 1000).toFixed(1)} s)`);
  for (const m of SELECT_METHODS) {
    const bad = r.unsound.get(m)!;
    const seeds = [...new Set(bad.map((u) => u.seed))].slice(0, 8);
    console.log(`  ${m.padEnd(14)} selected ${String(r.selectedCount.get(m)).padStart(5)}   selected but falsified ${String(bad.length).padStart(3)}${bad.length ? `   (seeds ${seeds.join(', ')}: ${bad.slice(0, 3).map((u) => u.candidate).join('; ')})` : ''}`);
  }
  // How the corrected encoding (a least fixpoint) compares with Houdini (a greatest one).
  let same = 0;
  let fewer = 0;
  let more = 0;
  for (const c of r.cases) {
    const h = c.selected.get('houdini')!;
    const e = c.selected.get('encoding')!;
    const eInH = [...e].every((i) => h.has(i));
    const hInE = [...h].every((i) => e.has(i));
    if (eInH && hInE) same++;
    else if (eInH) fewer++;
    else more++;
  }
  console.log(`  encoding vs houdini: same selection ${same}, fewer ${fewer}, other ${more} (of ${r.cases.length} programs)`);
  const n2 = Math.min(PROGRAMS, 30);
  const t1 = performance.now();
  const r2 = await differential(1000, n2, ['houdini', 'encoding'], solver, { nestProb: 0.5, rounds: 2 });
  const bad2 = r2.unsound.get('encoding')!;
  let same2 = 0;
  for (const c of r2.cases) {
    const h = c.selected.get('houdini')!;
    const e = c.selected.get('encoding')!;
    if (h.size === e.size && [...h].every((i) => e.has(i))) same2++;
  }
  console.log(`  encoding --rounds 2 on the first ${n2}: selected ${r2.selectedCount.get('encoding')} (houdini ${r2.selectedCount.get('houdini')}), selected but falsified ${bad2.length}, same selection as houdini in ${same2} programs (${((performance.now() - t1) / 1000).toFixed(1)} s)`);
  await solver.dispose();
}

await sizes();
await soundness();
await shutdownZ3Wasm();

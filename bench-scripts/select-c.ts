// node dist/bench-scripts/select-c.js [--limit N] [--runs R] [--filter S] [--verify]
// Invariant selection on the C programs of ../shared/bench (unreach-call
// tasks): generated candidates per loop, Houdini on the lowered program
// (LP64, to match a 64-bit gcc), then every selected candidate is compiled
// into the program as a loop-head check and the program is run R times with
// random nondet values. A failing check is a soundness bug. Times are of
// the whole `select` (parsing and lowering included).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { TarsierError } from '../src/common/errors.js';
import { HARNESS_C, generateCandidates, instrumentChecks, select } from '../src/invariants/index.js';
import { createZ3WasmSolver, shutdownZ3Wasm } from '../src/smt/index.js';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : def;
};
const LIMIT = Number(arg('--limit', '1000'));
const RUNS = Number(arg('--runs', '20'));
const FILTER = arg('--filter', '');
// With --verify: the program is verified with the selected candidates and the verdict compared with the expected one.
const VERIFY = process.argv.includes('--verify');
const root = resolve(process.env.TARSIER_SHARED ?? '../shared', 'bench', 'sv-benchmarks');

async function main(): Promise<void> {
  const rows = readFileSync(join(root, 'MANIFEST.csv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split(','));
  const programs = [...new Set(rows.filter((r) => r[2] === 'unreach-call' && r[1].includes(FILTER)).map((r) => r[1]))].slice(0, LIMIT);
  const expected = new Map(rows.filter((r) => r[2] === 'unreach-call').map((r) => [r[1], r[4]]));
  const verdicts = { correctTrue: 0, correctFalse: 0, unknown: 0, wrong: 0 };
  const work = mkdtempSync(join(tmpdir(), 'tarsier-select-c-bench-'));
  writeFileSync(join(work, 'harness.c'), HARNESS_C);
  const hc = spawnSync('gcc', ['-c', '-o', join(work, 'harness.o'), join(work, 'harness.c')], { encoding: 'utf8' });
  const gcc = hc.status === 0;
  if (!gcc) console.log(`gcc not usable (${hc.stderr?.split('\n')[0] ?? hc.error?.message}): no concrete cross-check`);
  const solver = createZ3WasmSolver();
  const tally = { programs: 0, frontEnd: 0, unsupported: 0, noLoops: 0, crashed: 0, candidates: 0, selected: 0, checked: 0, runs: 0, compileFailed: 0, violations: 0 };
  let ms = 0;
  const reasons = new Map<string, number>();
  for (const rel of programs) {
    tally.programs++;
    const path = join(root, rel);
    const t0 = performance.now();
    let result;
    try {
      result = await select(path, {
        dataModel: 'LP64',
        candidates: (p) => (p.lowered.unsupported ? [] : generateCandidates(p.program, p.lowered.sourceMap.variables.map((v) => v.name))),
        method: 'houdini',
        solverInstance: solver,
        timeoutMs: 5000,
        skipVerification: !VERIFY,
      });
    } catch (e) {
      if (e instanceof TarsierError) {
        tally.frontEnd++;
        continue;
      }
      tally.crashed++;
      console.log(`CRASH ${rel}: ${(e as Error).stack?.split('\n').slice(0, 3).join(' | ')}`);
      continue;
    }
    if (result.prepared.lowered.unsupported) {
      tally.unsupported++;
      continue;
    }
    const cands = result.candidates;
    if (cands.length === 0) {
      tally.noLoops++;
      continue;
    }
    tally.candidates += cands.length;
    const dt = performance.now() - t0;
    ms += dt;
    for (const v of result.verdicts) {
      const key = v.status === 'selected' ? 'selected' : (v.reason ?? 'rejected').replace(/^(unsupported|invalid): .*/, (_m, k: string) => `${k}: ${(v.reason ?? '').slice(k.length + 2, k.length + 40)}`);
      reasons.set(key, (reasons.get(key) ?? 0) + 1);
    }
    const selected = result.verdicts.filter((v) => v.status === 'selected').map((v) => cands[v.candidate]);
    tally.selected += selected.length;
    let line = `${rel}: ${cands.length} candidates, ${selected.length} selected, ${Math.round(dt)} ms`;
    if (VERIFY) {
      const want = expected.get(rel) === 'true' ? 'TRUE' : expected.get(rel) === 'false' ? 'FALSE' : undefined;
      if (result.verdict === 'UNKNOWN' || want === undefined) verdicts.unknown++;
      else if (result.verdict === want) verdicts[want === 'TRUE' ? 'correctTrue' : 'correctFalse']++;
      else {
        verdicts.wrong++;
        line += `; WRONG VERDICT ${result.verdict} (expected ${want})`;
      }
      line += `; verdict ${result.verdict}`;
    }
    if (gcc && selected.length) {
      const text = readFileSync(path, 'utf8');
      const inst = instrumentChecks(text, selected.map((c, id) => ({ loopLoc: c.loopLoc, text: c.text, id })));
      const src = join(work, rel.endsWith('.i') ? 'p.i' : 'p.c');
      writeFileSync(src, inst.text);
      const exe = join(work, 'p');
      const cc = spawnSync('gcc', ['-m64', '-O0', '-w', '-fwrapv', '-o', exe, src, join(work, 'harness.o')], { encoding: 'utf8', cwd: resolve(path, '..') });
      if (cc.status !== 0) {
        tally.compileFailed++;
        line += `; gcc failed: ${(cc.stderr ?? '').split('\n').find((l) => /error/.test(l)) ?? ''}`;
      } else {
        tally.checked += inst.placed;
        let bad = '';
        for (let seed = 1; seed <= RUNS && !bad; seed++) {
          const r = spawnSync(exe, [], { encoding: 'utf8', timeout: 1000, env: { ...process.env, TARSIER_SEED: String(seed) } });
          tally.runs++;
          const m = /tarsier-check-failed (\d+)/.exec(r.stderr ?? '');
          if (m) bad = `seed ${seed}: '${selected[Number(m[1])].text}' at ${selected[Number(m[1])].loopLoc.line}:${selected[Number(m[1])].loopLoc.column}`;
        }
        if (bad) {
          tally.violations++;
          line += `; SOUNDNESS: concrete run falsifies a selected candidate (${bad})`;
        } else line += `; ${inst.placed} checks held in ${RUNS} runs`;
      }
    }
    console.log(line);
  }
  await solver.dispose();
  await shutdownZ3Wasm?.();
  console.log(JSON.stringify({ ...tally, selectionMs: Math.round(ms) }));
  if (VERIFY) console.log(JSON.stringify(verdicts));
  console.log(JSON.stringify(Object.fromEntries([...reasons].sort((a, b) => b[1] - a[1]))));
}

await main();

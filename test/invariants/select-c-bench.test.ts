// Selection on real C programs: the real correctness witnesses that belong to
// bench tasks, generated candidates on bench programs, and a concrete
// cross-check of the selected candidates with gcc-built runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { TarsierError } from '../../src/common/errors.js';
import {
  HARNESS_C,
  type CCandidate,
  cCandidatesFromWitness,
  generateCandidates,
  instrumentChecks,
  prepareCProgram,
  selectCInvariants,
} from '../../src/invariants/index.js';
import { readWitness } from '../../src/witness/read.js';
import { repoRoot, sharedDir, sharedPath, skipWithoutShared } from '../helpers/shared.js';
import { needTools } from '../helpers/tools.js';

// Floors taken from what the selection does today; raise them when it does better.
const MATCHED_FLOOR = 36;
const GENERATED_CHECKED_FLOOR = 5;

const work = mkdtempSync(join(tmpdir(), 'tarsier-select-c-bench-'));
const gccOk = (() => {
  writeFileSync(join(work, 'harness.c'), HARNESS_C);
  const r = spawnSync('gcc', ['-c', '-o', join(work, 'harness.o'), join(work, 'harness.c')], { encoding: 'utf8' });
  return r.status === 0;
})();
const skipGcc = needTools('gcc') || (gccOk ? false : 'skipped: gcc cannot compile the check harness');

/**
 * Runs the program with checks of the candidates at their loop heads; the
 * first failing candidate's index, if any. A run that is killed at its time
 * limit proves little, so at least one of the runs must end by itself
 * (ending by abort(), as reach_error does, counts).
 */
function falsified(path: string, cands: readonly CCandidate[], runs: number): number | undefined {
  const inst = instrumentChecks(readFileSync(path, 'utf8'), cands.map((c, id) => ({ loopLoc: c.loopLoc, text: c.text, id })));
  assert.equal(inst.placed, cands.length);
  const src = join(work, path.endsWith('.i') ? 'p.i' : 'p.c');
  writeFileSync(src, inst.text);
  const exe = join(work, 'p');
  const cc = spawnSync('gcc', ['-m64', '-O0', '-w', '-fwrapv', '-o', exe, src, join(work, 'harness.o')], { encoding: 'utf8', cwd: join(path, '..') });
  assert.equal(cc.status, 0, cc.stderr);
  let ended = 0;
  for (let seed = 1; seed <= runs; seed++) {
    const r = spawnSync(exe, [], { encoding: 'utf8', timeout: 2000, env: { ...process.env, TARSIER_SEED: String(seed) } });
    const m = /tarsier-check-failed (\d+)/.exec(r.stderr ?? '');
    if (m) return Number(m[1]);
    if (r.error === undefined) ended++;
  }
  assert.ok(ended > 0, `${path}: none of the ${runs} concrete runs ended within its time limit; they checked too little`);
  return undefined;
}

test('the loop-head checks catch a false candidate and pass a true one', { skip: skipGcc }, () => {
  const path = join(repoRoot, 'test', 'fixtures', 'select-c', 'sum.c');
  const prepared = prepareCProgram(path, { dataModel: 'LP64' });
  const at = (text: string): CCandidate => {
    const loop = generateCandidates(prepared.program, ['i']).find((c) => c.loopLoc.line === 24)!;
    return { ...loop, text };
  };
  assert.equal(falsified(path, [at('s == 2 * i'), at('i <= n')], 10), undefined);
  assert.equal(falsified(path, [at('s == 2 * i'), at('s == i')], 10), 1);
});

/** Bench programs by the SHA-256 of their text. */
function benchByHash(): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(c|i)$/.test(e)) out.set(createHash('sha256').update(readFileSync(p)).digest('hex'), p);
    }
  };
  walk(sharedPath('bench', 'sv-benchmarks', 'c'));
  return out;
}

test('real correctness witnesses of bench programs: the selection runs (no crash)', { skip: skipWithoutShared }, async (t) => {
  const programs = benchByHash();
  const names = new Map([...programs.values()].map((p) => [basename(p), p]));
  const witnesses: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.ya?ml$/.test(e)) witnesses.push(p);
    }
  };
  walk(sharedPath('witnesses'));
  let matched = 0;
  let unreadable = 0;
  let selected = 0;
  let candidates = 0;
  for (const w of witnesses.sort()) {
    let doc;
    try {
      doc = readWitness(readFileSync(w, 'utf8'), w);
    } catch (e) {
      // Some stored witnesses are invalid on purpose: a located error, never a crash.
      assert.ok(e instanceof TarsierError, `${w}: ${String(e)}`);
      unreadable++;
      continue;
    }
    if (doc.format !== 'yaml') continue;
    // The witness's program: an input file whose hash (or, failing that, name) is a bench program's.
    const meta = doc.entries.find((e) => 'metadata' in e && e.metadata?.task) as { metadata: { task: { input_files?: string[]; input_file_hashes?: Record<string, string> } } } | undefined;
    const task = meta?.metadata.task;
    const byHash = Object.values(task?.input_file_hashes ?? {}).map((h) => programs.get(h)).find((p) => p);
    const program = byHash ?? (task?.input_files ?? []).map((f) => names.get(basename(f))).find((p) => p);
    if (!program) continue;
    matched++;
    const prepared = prepareCProgram(program);
    let cands: CCandidate[];
    try {
      cands = cCandidatesFromWitness(doc, prepared.program);
    } catch (e) {
      // A location without a loop is a located one-line error, not a crash.
      assert.ok(e instanceof TarsierError && e.code === 'candidate-location', String(e));
      continue;
    }
    const r = await selectCInvariants(prepared.program, prepared.lowered, cands, { method: 'houdini', timeoutMs: 5000 });
    assert.deepEqual(r.verdicts.map((v) => v.candidate).sort((a, b) => a - b), cands.map((_, i) => i), 'one verdict per candidate');
    for (const v of r.verdicts) assert.ok(v.status === 'selected' || v.reason, `${w}: a rejected candidate says why`);
    selected += r.verdicts.filter((v) => v.status === 'selected').length;
    candidates += cands.length;
  }
  t.diagnostic(`${matched} of ${witnesses.length} real YAML witnesses belong to a bench program (${unreadable} unreadable), ${selected} of ${candidates} candidates selected`);
  // A floor from today's figure: a change that stops reading or matching these witnesses fails here.
  assert.ok(matched >= MATCHED_FLOOR, `only ${matched} witnesses matched a bench program`);
});

test('bench programs: generated candidates are selected without a crash, and no concrete run falsifies a selected one', { skip: skipWithoutShared || skipGcc }, async (t) => {
  const root = sharedPath('bench', 'sv-benchmarks');
  const rows = readFileSync(join(root, 'MANIFEST.csv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split(','));
  // A fixed sample from several directories (small programs, so that the test stays fast).
  const sample = [...new Set(rows.filter((r) => r[2] === 'unreach-call' && /loop-(acceleration|lit|invgen|simple)\//.test(r[1])).map((r) => r[1]))].filter((_, i) => i % 4 === 0).slice(0, 6);
  let selectedTotal = 0;
  let checked = 0;
  for (const rel of sample) {
    const path = join(root, rel);
    const prepared = prepareCProgram(path, { dataModel: 'LP64' });
    if (prepared.lowered.unsupported) continue;
    const cands = generateCandidates(prepared.program, prepared.lowered.sourceMap.variables.map((v) => v.name), 12);
    if (cands.length === 0) continue;
    const r = await selectCInvariants(prepared.program, prepared.lowered, cands, { method: 'houdini', timeoutMs: 5000, skipVerification: true });
    assert.equal(r.verdicts.length, cands.length);
    const selected = r.verdicts.filter((v) => v.status === 'selected').map((v) => cands[v.candidate]);
    selectedTotal += selected.length;
    if (selected.length === 0) continue;
    checked++;
    const bad = falsified(path, selected, 8);
    assert.equal(bad, undefined, `${rel}: '${bad === undefined ? '' : selected[bad].text}' selected but falsified by a run`);
  }
  t.diagnostic(`${sample.length} programs (${checked} with selected candidates), ${selectedTotal} selected candidates checked concretely`);
  assert.ok(sample.length >= 6 && checked >= GENERATED_CHECKED_FLOOR, `only ${checked} of ${sample.length} programs had selected candidates to check`);
  void sharedDir;
});

test("Goblint's real 2.0 witnesses with loop invariants, on their programs (headers replaced on the same line)", { skip: skipWithoutShared }, async (t) => {
  const dir = sharedPath('witnesses', 'real', 'goblint', '56-witness');
  const out = mkdtempSync(join(tmpdir(), 'tarsier-goblint-'));
  let programs = 0;
  let selected = 0;
  for (const yml of readdirSync(dir).filter((f) => f.endsWith('.yml')).sort()) {
    const text = readFileSync(join(dir, yml), 'utf8');
    if (!text.includes('loop_invariant')) continue;
    const cFile = yml.replace(/\.yml$/, '.c');
    // One line each, so that the witness's line numbers stay right; __goblint_check becomes a property.
    const program = readFileSync(join(dir, cFile), 'utf8')
      .replace('#include <goblint.h>', 'extern void reach_error(void); void __goblint_check(int c) { if (!c) reach_error(); }')
      .replace('#include <assert.h>', 'extern void assert(int);');
    writeFileSync(join(out, cFile), program);
    const prepared = prepareCProgram(join(out, cFile));
    const cands = cCandidatesFromWitness(readWitness(text, yml), prepared.program);
    const r = await selectCInvariants(prepared.program, prepared.lowered, cands, { method: 'houdini', timeoutMs: 5000 });
    programs++;
    assert.equal(r.verdicts.length, cands.length);
    for (const v of r.verdicts) {
      const c = cands[v.candidate];
      // Goblint's interval invariants of these programs hold and are inductive; array contents are not supported.
      if (c.text.includes('[')) assert.match(v.reason ?? '', /^unsupported: array subscript/, `${yml}: ${c.text}`);
      else assert.equal(v.status, 'selected', `${yml}: ${c.text}: ${v.reason}`);
      if (v.status === 'selected') selected++;
    }
    if (!cands.some((c) => c.text.includes('['))) assert.equal(r.verdict, 'TRUE', yml);
  }
  assert.equal(programs, 7);
  t.diagnostic(`${programs} Goblint programs, ${selected} candidates selected`);
});

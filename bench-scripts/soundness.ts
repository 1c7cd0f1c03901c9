// npm run bench:soundness -- [--count N=200] [--seed S=1] [--timeout S=20] [--out DIR]
//
// The differential soundness test at scale (test/helpers/soundness-programs.ts):
// N random programs, each run by gcc with sanitizers on every input in both
// data models, then verified by Tarsier for unreach-call and no-overflow in
// both. Prints the count of programs and verifications, the verdicts, and
// each disagreement (Tarsier TRUE after a bad run, FALSE without one), whose
// program it writes to DIR (default: a temporary folder) for a fixture.

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Choices } from '../test/helpers/choices.js';
import { checkProgram, generateProgram, type Model, type Property } from '../test/helpers/soundness-programs.js';
import { verifyWithHardLimit } from '../src/verify/worker.js';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const count = Number(arg('count') ?? 200);
const seed = Number(arg('seed') ?? 1);
const timeoutS = Number(arg('timeout') ?? 20);
const out = arg('out') ?? mkdtempSync(join(tmpdir(), 'tarsier-soundness-'));
mkdirSync(out, { recursive: true });

async function tarsier(file: string, property: Property, model: Model) {
  try {
    const r = await verifyWithHardLimit(file, { property, dataModel: model, timeoutS, witnessPath: null });
    if ('timedOut' in r) return { verdict: 'unknown' as const, reason: 'hard time limit' };
    return { verdict: r.verdict.kind, reason: r.reason };
  } catch (e) {
    return { verdict: 'unknown' as const, reason: `error: ${e instanceof Error ? e.message : String(e)}` };
  }
}

const tally = new Map<string, number>();
const bump = (k: string) => tally.set(k, (tally.get(k) ?? 0) + 1);
let disagreements = 0;
let checks = 0;
const start = Date.now();
for (let n = 0; n < count; n++) {
  const rng = Choices.seeded(seed * 1_000_003 + n);
  const program = generateProgram(rng);
  const findings = await checkProgram(program, tarsier);
  for (const f of findings) {
    if (f.verdict === 'skipped') {
      bump('skipped');
      continue;
    }
    checks++;
    bump(`${f.property} ${f.oracle.bad ? 'bad' : 'good'} -> ${f.verdict}`);
    if (f.reason.startsWith('error:')) bump('errors');
    if (f.disagreement) {
      disagreements++;
      const name = `seed${seed}-${n}-${f.property}-${f.model}.c`;
      writeFileSync(join(out, name), `// ${f.property}, ${f.model}: Tarsier ${f.disagreement}\n// Tarsier's reason: ${f.reason.replace(/\n/g, ' ')}\n${program.text}`);
      console.log(`DISAGREEMENT program ${n} ${f.property} ${f.model}: ${f.disagreement}\n  reason: ${f.reason}\n  program: ${join(out, name)}`);
    }
  }
  if ((n + 1) % 10 === 0) console.error(`${n + 1}/${count} programs, ${checks} verifications, ${disagreements} disagreements (${Math.round((Date.now() - start) / 1000)} s)`);
}
console.log(`\nprograms: ${count} (seed ${seed}), verifications: ${checks}, disagreements: ${disagreements}`);
for (const [k, v] of [...tally].sort()) console.log(`  ${k}: ${v}`);
console.log(`programs of disagreements: ${out}`);
process.exitCode = disagreements > 0 ? 1 : 0;

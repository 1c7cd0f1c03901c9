// The differential soundness test, a small seeded sample (the large one is
// `npm run bench:soundness`): random programs with undefined and
// implementation-defined behaviour, run by gcc with sanitizers on every
// input in both data models; Tarsier must never answer TRUE where a run is
// bad, nor FALSE where none is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { needTools } from '../helpers/tools.js';
import { checkProgram, generateProgram } from '../helpers/soundness-programs.js';
import { Choices } from '../helpers/choices.js';
import { verify } from '../../src/verify/index.js';

const noGcc = needTools('gcc -m32', 'gcc -fsanitize');
/** Programs of the sample and the seed they come from (the bench script numbers its programs the same way). */
const COUNT = 2;
const SEED = 7;

test(`differential soundness: ${COUNT} random programs (seed ${SEED}), no wrong TRUE or FALSE in either data model`, { skip: noGcc }, async () => {
  let checked = 0;
  const wrong: string[] = [];
  for (let n = 0; n < COUNT; n++) {
    const program = generateProgram(Choices.seeded(SEED * 1_000_003 + n));
    const findings = await checkProgram(program, async (file, property, model) => {
      const r = await verify(file, { property, dataModel: model, timeoutS: 5, witnessPath: null });
      return { verdict: r.verdict.kind, reason: r.reason };
    });
    for (const f of findings) {
      if (f.verdict === 'skipped') continue;
      checked++;
      if (f.disagreement) wrong.push(`program ${n} ${f.property} ${f.model}: ${f.disagreement} (${f.reason})\n${program.text}`);
    }
  }
  assert.ok(checked > 0, 'gcc ran none of the programs');
  assert.deepEqual(wrong, []);
});

// A GraphML violation witness converted to 2.0 with its program keeps what makes it a real
// violation: `validate` confirms the converted witness (gcc replays the run), as it does the original.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, sharedDir } from '../helpers/shared.js';
import { needTools } from '../helpers/tools.js';
import { validate } from '../../src/validate/index.js';
import { convertTo20, readWitness, writeWitness } from '../../src/witness/index.js';

const dir = mkdtempSync(join(tmpdir(), 'tarsier-graphml-validate-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const noGcc = needTools('gcc');
writeFileSync(join(dir, 'unreach-call.prp'), 'CHECK( init(main()), LTL(G ! call(reach_error())) )\n');

const cases = [
  { name: 'the spec example (bug.c)', program: sharedDir && join(sharedDir, 'spec/examples/programs/bug.c'), witness: sharedDir && join(sharedDir, 'spec/examples/valid/graphml-violation-bug.graphml') },
  { name: 'the committed fixture (graphml-steps.c)', program: join(repoRoot, 'test/fixtures/witness/graphml-steps.c'), witness: join(repoRoot, 'test/fixtures/witness/graphml-steps.graphml') },
];

for (const c of cases) {
  const skip = noGcc || (c.program && c.witness ? false : 'skipped: ../shared is not present beside the repository');
  test(`validate confirms the converted GraphML witness of ${c.name}, as the original`, { skip, timeout: 300_000 }, async () => {
    const program = join(dir, c.program!.replace(/^.*\//, ''));
    copyFileSync(c.program!, program);
    const converted = convertTo20(readWitness(readFileSync(c.witness!, 'utf8'), c.witness!), { programText: readFileSync(program, 'utf8') });
    assert.deepEqual(converted.notes, []);
    const yml = join(dir, `${c.program!.replace(/^.*\//, '')}.yml`);
    writeFileSync(yml, writeWitness(converted.document));
    for (const witness of [yml, c.witness!]) {
      const r = await validate(program, witness, { prp: join(dir, 'unreach-call.prp'), timeoutS: 120 });
      assert.equal(r.outcome, 'confirmed', `${witness}: ${r.reason}`);
      assert.deepEqual(r.lint.findings, [], witness);
      // Every waypoint is read as written (the validator does not enforce function_enter).
      assert.deepEqual(r.waypoints.filter((w) => w.reading !== 'exact' && w.waypoint.type !== 'function_enter'), [], witness);
    }
  });
}

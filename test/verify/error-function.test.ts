// The error function of unreach-call is the one the property names: the
// tasks written before 2020 name __VERIFIER_error (BMC, the replay and the
// witness's specification must all agree on it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/shared.js';
import { needTools } from '../helpers/tools.js';
import { verify } from '../../src/verify/index.js';
import { lintWitness } from '../../src/witness/index.js';

const fx = (...p: string[]) => join(repoRoot, 'test', 'fixtures', 'verify', ...p);

test('an old-style task whose property names __VERIFIER_error is FALSE, replayed, with a witness that lints clean', { skip: needTools('gcc') }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-error-fn-'));
  try {
    const w = join(dir, 'witness.yml');
    const r = await verify(fx('old-style-error.c'), { prp: fx('unreach-call-verifier-error.prp'), timeoutS: 60, witnessPath: w, creationTime: '2026-01-01T00:00:00Z' });
    assert.deepEqual(r.verdict, { kind: 'false', property: 'unreach-call' }, r.reason);
    assert.match(r.reason ?? '', /__VERIFIER_error was called/);
    const diags = lintWitness(readFileSync(w, 'utf8'), w, { programText: readFileSync(fx('old-style-error.c'), 'utf8'), programFile: 'old-style-error.c' });
    assert.deepEqual(diags.map((d) => `${d.line}:${d.column} ${d.message}`), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// Writing a witness: the verdict stands when the file cannot be written, with the reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeWitnessFile } from '../../src/verify/witness.js';

test('writeWitnessFile: the absolute path written, or why not', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-witness-file-'));
  const ok = writeWitnessFile(join(dir, 'w.yml'), 'entries: []\n');
  assert.deepEqual(ok, { witnessPath: join(dir, 'w.yml') });
  assert.equal(readFileSync(join(dir, 'w.yml'), 'utf8'), 'entries: []\n');
  const bad = writeWitnessFile(join(dir, 'missing', 'w.yml'), 'x');
  assert.ok('witnessError' in bad);
  assert.match(bad.witnessError, /^cannot write the witness .*missing\/w\.yml: /);
});

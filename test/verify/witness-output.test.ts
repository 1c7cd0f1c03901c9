import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/shared.js';
import { builtInProperty } from '../../src/task/index.js';
import { emitWitness, witnessFields, witnessMetadata } from '../../src/verify/witness-output.js';
import { writeWitness } from '../../src/witness/index.js';

const program = join(repoRoot, 'examples', 'count.c');
const resolved = { program, programAsWritten: 'count.c', property: builtInProperty('unreach-call')!, dataModel: 'ILP32' as const };
const yml = { version: '2.0', file: 'witness.yml' } as const;
const metadata = witnessMetadata(resolved, { creationTime: '2026-01-01T00:00:00Z' }, '2.0', 'test');
/** A correctness witness with one loop invariant at line:column of count.c. */
const invariantAt = (line: number, column: number) => () =>
  writeWitness({ format: 'yaml', entries: [{ entry_type: 'invariant_set', metadata, content: [{ kind: 'loop_invariant', location: { file_name: 'count.c', line, column, function: 'main', columnBase: 1 }, value: { text: 's == 2 * i', format: 'c_expression' } }] }] });
// At no loop (lints with an error), and at count.c's `while` (clean).
const atNoLoop = invariantAt(1, 1);
const atLoop = invariantAt(12, 3);

test('the first candidate that lints clean is written; the others are logged', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-emit-'));
  try {
    const logged: string[] = [];
    const path = join(dir, 'w.yml');
    const e = emitWitness(resolved, { witnessPath: path, log: (m) => logged.push(m) }, yml, [
      { label: 'first', text: atNoLoop },
      { label: 'second', text: atLoop },
    ]);
    assert.deepEqual(e, { kind: 'written', path });
    assert.equal(readFileSync(path, 'utf8'), atLoop());
    assert.equal(logged.length, 1);
    assert.match(logged[0]!, /^first: /);
    assert.deepEqual(witnessFields(e), { witnessPath: path });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('no clean candidate, a failed write and no witness wanted are each said, never thrown', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-emit-'));
  try {
    const bad = emitWitness(resolved, { witnessPath: join(dir, 'w.yml') }, yml, [{ label: 'only', text: atNoLoop }]);
    assert.equal(bad.kind, 'not-clean');
    assert.deepEqual(witnessFields(bad), {});
    const unwritable = emitWitness(resolved, { witnessPath: join(dir, 'gone', 'w.yml') }, yml, [{ label: 'only', text: atLoop }]);
    assert.equal(unwritable.kind, 'write-failed');
    assert.match(witnessFields(unwritable).witnessError ?? '', /^cannot write the witness .*gone\/w\.yml: no such file$/);
    let built = false;
    const none = emitWitness(resolved, { witnessPath: null }, yml, [{ label: 'only', text: () => ((built = true), atLoop()) }]);
    assert.deepEqual(none, { kind: 'not-wanted' });
    assert.equal(built, false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCFile, listLoops, type DataModel } from '../../src/c/index.js';
import { TarsierError } from '../../src/common/errors.js';
import { sharedPath, skipWithoutShared } from '../helpers/shared.js';

test('every program of the bench corpus parses and type-checks with its task\'s data model', { skip: skipWithoutShared }, (t) => {
  const base = sharedPath('bench', 'sv-benchmarks');
  const rows = readFileSync(join(base, 'MANIFEST.csv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split(','));
  const done = new Set<string>();
  const failures: string[] = [];
  let loops = 0;
  let functions = 0;
  for (const r of rows) {
    const key = `${r[1]} ${r[5]}`;
    if (done.has(key)) continue;
    done.add(key);
    assert.ok(r[5] === 'ILP32' || r[5] === 'LP64', `data model of ${r[1]}`);
    try {
      const prog = parseCFile(join(base, r[1]), { dataModel: r[5] as DataModel });
      assert.ok(prog.functions.some((f) => f.name === 'main' && f.body), `${r[1]} defines main`);
      loops += listLoops(prog).length;
      functions += prog.functions.filter((f) => f.body).length;
    } catch (e) {
      failures.push(e instanceof TarsierError ? e.format() : `${r[1]}: ${String(e)}`);
    }
  }
  assert.deepEqual(failures, []);
  assert.ok(done.size > 100, `parsed ${done.size} programs`);
  t.diagnostic(`${done.size} programs, ${functions} function definitions, ${loops} loops`);
});

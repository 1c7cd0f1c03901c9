import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
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

/** The programs of a folder of competition tasks (recursively), each with the data models its task files name (ILP32 when none does). */
function corpusPrograms(root: string): Array<{ file: string; dm: DataModel }> {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else files.push(join(dir, e.name));
    }
  };
  walk(root);
  const models = new Map<string, Set<DataModel>>();
  for (const yml of files.filter((f) => f.endsWith('.yml'))) {
    const text = readFileSync(yml, 'utf8');
    const input = /^input_files:\s*'?([^'\n]+?)'?\s*$/m.exec(text)?.[1];
    if (!input) continue;
    const dm: DataModel = /data_model:\s*LP64/.test(text) ? 'LP64' : 'ILP32';
    const program = join(dirname(yml), input);
    models.set(program, (models.get(program) ?? new Set()).add(dm));
  }
  return files
    .filter((f) => /\.[ci]$/.test(f))
    .sort()
    .flatMap((file) => [...(models.get(file) ?? new Set<DataModel>(['ILP32']))].map((dm) => ({ file, dm })));
}

// TARSIER_CORPUS: a folder of competition tasks (a checkout of sv-benchmarks, or some of its c/ folders).
const corpus = process.env.TARSIER_CORPUS;
test(
  'every program of a local corpus (TARSIER_CORPUS) parses and types, or is unsupported naming the construct',
  { skip: corpus ? (existsSync(corpus) ? false : `skipped: TARSIER_CORPUS=${corpus} does not exist`) : 'skipped: TARSIER_CORPUS (a folder of competition tasks) is not set' },
  (t) => {
    const programs = corpusPrograms(corpus!);
    const failures: string[] = [];
    const unsupported = new Map<string, number>();
    let parsed = 0;
    let lines = 0;
    let slowest = { file: '', ms: 0 };
    for (const { file, dm } of programs) {
      const started = process.hrtime.bigint();
      try {
        const text = readFileSync(file, 'utf8');
        parseCFile(file, { dataModel: dm });
        parsed++;
        lines += text.split('\n').length;
      } catch (e) {
        if (e instanceof TarsierError && e.code === 'c-unsupported') {
          const what = e.message.replace(/^unsupported construct: /, '').replace(/'[^']*'/g, "'…'");
          unsupported.set(what, (unsupported.get(what) ?? 0) + 1);
        } else failures.push(`${dm} ${e instanceof TarsierError ? e.format() : `${file}: internal error: ${String(e)}`}`);
      }
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (ms > slowest.ms) slowest = { file, ms };
    }
    t.diagnostic(`${programs.length} programs: ${parsed} parsed (${lines} lines), ${[...unsupported.values()].reduce((a, b) => a + b, 0)} unsupported, ${failures.length} failed; slowest ${slowest.file} ${slowest.ms.toFixed(0)} ms`);
    for (const [what, n] of [...unsupported].sort((a, b) => b[1] - a[1])) t.diagnostic(`unsupported ×${n}: ${what}`);
    assert.deepEqual(failures, []);
  },
);

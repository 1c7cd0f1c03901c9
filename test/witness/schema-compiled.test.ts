// The schema validators the build compiles (scripts/compile-schemas.mjs) are
// the ones lint uses, and they report exactly what ajv compiling the schemas
// at run time reports, on valid entries and on entries broken at every place.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import AjvModule, { type ValidateFunction } from 'ajv';
import { parse } from 'yaml';
import { repoRoot, sharedPath, skipWithoutShared } from '../helpers/shared.js';
import { AJV_OPTIONS, compileAtRunTime, entryTypesOf, SCHEMA_VERSIONS, type SchemaVersion } from '../../src/witness/schema-compile.js';
import { compiledModule, entryValidators, schemaFingerprint } from '../../src/witness/schema-validators.js';
import { entryValidator } from '../../src/witness/schema.js';

const Ajv = ((AjvModule as unknown as { default?: typeof AjvModule }).default ?? AjvModule) as unknown as typeof AjvModule.default;
const require = createRequire(import.meta.url);

const schemaText = (v: SchemaVersion) => readFileSync(join(repoRoot, 'schemas', `witness-${v}.schema.json`), 'utf8');

function compiled(v: SchemaVersion): { fingerprint: string; validators: Record<string, ValidateFunction> } {
  return require(fileURLToPath(compiledModule(v))) as { fingerprint: string; validators: Record<string, ValidateFunction> };
}

test('the build compiled every schema as it is now, and lint uses those validators', () => {
  for (const v of SCHEMA_VERSIONS) {
    const c = compiled(v);
    assert.equal(c.fingerprint, schemaFingerprint(schemaText(v)), `schema-${v}.compiled.cjs is stale: run npm run build`);
    const types = entryTypesOf(JSON.parse(schemaText(v)));
    assert.deepEqual(Object.keys(c.validators).sort(), [...types].sort());
    for (const t of types) assert.equal(entryValidator(v, t), c.validators[t], `${v} ${t}`);
    assert.equal(entryValidator(v, 'metadata'), undefined, 'a definition that is no entry type has no validator');
  }
  assert.ok(entryValidator('2.0', 'invariant_set') && !entryValidator('2.0', 'ghost_instrumentation') && entryValidator('2.1', 'ghost_instrumentation'));
});

test('a schema changed since the build is compiled at run time, not checked by the stale validators', () => {
  const schema = JSON.parse(schemaText('2.0')) as { $defs: { uuid: { pattern: string } } };
  // A changed schema: uuids of capital hex digits only.
  schema.$defs.uuid.pattern = '^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$';
  const validate = entryValidators('2.0', JSON.stringify(schema))('invariant_set');
  assert.ok(validate && validate !== compiled('2.0').validators['invariant_set']);
  const entry = (uuid: string) => ({
    entry_type: 'invariant_set',
    metadata: {
      format_version: '2.0',
      uuid,
      creation_time: '2024-05-01T12:00:00Z',
      producer: { name: 't', version: '1' },
      task: { input_files: ['a.c'], input_file_hashes: { 'a.c': 'a'.repeat(64) }, specification: 'CHECK( init(main()), LTL(G ! call(reach_error())) )', data_model: 'ILP32', language: 'C' },
    },
    content: [{ invariant: { type: 'loop_invariant', location: { file_name: 'a.c', line: 2, column: 3 }, value: 'x > 0', format: 'c_expression' } }],
  });
  assert.equal(compiled('2.0').validators['invariant_set']!(entry('6b3f6f3e-2f0a-4d55-9d2e-3c1b0a9e7c21')), true);
  assert.equal(validate(entry('6b3f6f3e-2f0a-4d55-9d2e-3c1b0a9e7c21')), false);
  assert.equal(validate(entry('6B3F6F3E-2F0A-4D55-9D2E-3C1B0A9E7C21')), true);
});

/** The entry with the value at `path` replaced (or deleted when `value` is the symbol). */
const DELETE = Symbol('delete');
function replaced(root: unknown, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (Array.isArray(root)) {
    const copy = [...root];
    if (rest.length === 0 && value === DELETE) copy.splice(head as number, 1);
    else copy[head as number] = replaced(root[head as number], rest, value);
    return copy;
  }
  const copy = { ...(root as Record<string, unknown>) };
  if (rest.length === 0 && value === DELETE) delete copy[head as string];
  else copy[head as string] = replaced(copy[head as string], rest, value);
  return copy;
}

function paths(v: unknown, at: (string | number)[] = []): (string | number)[][] {
  const here = [at];
  if (Array.isArray(v)) return [...here, ...v.flatMap((x, i) => paths(x, [...at, i]))];
  if (v && typeof v === 'object') return [...here, ...Object.entries(v).flatMap(([k, x]) => paths(x, [...at, k]))];
  return here;
}

const BROKEN = [DELETE, null, 0, -1, 1.5, true, '', 'x', '32bit', [], [{}], {}, { extra: 1 }];

test('compiled and run-time validators report the same errors on the spec examples broken at every place', { skip: skipWithoutShared }, () => {
  const runTime = new Map(SCHEMA_VERSIONS.map((v) => [v, compileAtRunTime(new Ajv(AJV_OPTIONS), JSON.parse(schemaText(v)))]));
  const dir = sharedPath('spec/examples/valid');
  let checked = 0;
  let failing = 0;
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.yml'))) {
    const entries = parse(readFileSync(join(dir, f), 'utf8')) as { entry_type: string; metadata?: { format_version?: string } }[];
    for (const entry of entries) {
      // As lint reads them: vendor versions of 2.1 (2.1-goblint) are checked as 2.1.
      const version = String(entry.metadata?.format_version ?? '0.1').slice(0, 3) as SchemaVersion;
      const fresh = runTime.get(version)?.(entry.entry_type);
      const built = compiled(version).validators[entry.entry_type];
      assert.ok(fresh && built, `${f}: ${version} ${entry.entry_type}`);
      for (const p of paths(entry)) {
        for (const value of BROKEN) {
          const data = replaced(entry, p, value);
          const a: boolean = fresh(data);
          const b: boolean = built(data);
          assert.equal(b, a, `${f} ${p.join('.')}`);
          assert.deepEqual(built.errors, fresh.errors, `${f} ${p.join('.')} = ${String(value)}`);
          checked++;
          if (!a) failing++;
        }
      }
    }
  }
  assert.ok(checked > 1000 && failing > checked / 2, `${checked} entries checked, ${failing} invalid`);
});

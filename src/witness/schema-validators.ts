// The entry validators in Node: those the build compiled from schemas/
// (scripts/compile-schemas.mjs, ajv's standalone code), a few ms to load,
// when they were compiled from the schema as it is now; else compiled here
// at run time (some 50 ms). The browser bundle replaces this module
// (src/report/browser/schema-validators.ts).
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { ValidateFunction } from 'ajv';
import { AJV_OPTIONS, compileAtRunTime, type EntryValidators, type SchemaVersion } from './schema-compile.js';

/**
 * The compiled module of a version, found relative to this module's
 * directory (dist/src/witness, or dist/src/verify for the worker bundle:
 * the same depth).
 */
export function compiledModule(version: SchemaVersion): URL {
  return new URL(`../witness/schema-${version}.compiled.cjs`, import.meta.url);
}

/** What a compiled module was compiled from: the ajv options and the schema's text. */
export function schemaFingerprint(text: string): string {
  return createHash('sha256').update(JSON.stringify(AJV_OPTIONS)).update('\0').update(text).digest('hex');
}

/** The validators of one schema version, `text` being the schema file's text. */
export function entryValidators(version: SchemaVersion, text: string): EntryValidators {
  const require = createRequire(import.meta.url);
  let compiled: { fingerprint?: string; validators?: Record<string, ValidateFunction> } | undefined;
  try {
    compiled = require(fileURLToPath(compiledModule(version))) as typeof compiled;
  } catch {
    // not built (a `tsc` without the build's compile step)
  }
  if (compiled?.validators && compiled.fingerprint === schemaFingerprint(text)) {
    const validators = compiled.validators;
    return (entryType) => (Object.hasOwn(validators, entryType) ? validators[entryType] : undefined);
  }
  // Stale or missing: compile here (ajv is CommonJS).
  const ajv = require('ajv') as { default: new (o: object) => Parameters<typeof compileAtRunTime>[0] };
  return compileAtRunTime(new ajv.default(AJV_OPTIONS), JSON.parse(text) as object);
}

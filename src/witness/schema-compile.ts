// How the witness JSON Schemas (schemas/*.json, the single source) become
// validators: the ajv options and which definitions are validators, shared
// by the build step that compiles them once (scripts/compile-schemas.mjs)
// and by the run-time compilation it saves (schema-validators.ts, and its
// browser counterpart). No ajv import here: each caller brings its own.
import type { ValidateFunction } from 'ajv';

/** The schema file used for each accepted `format_version`. */
export type SchemaVersion = '0.1' | '2.0' | '2.1';

export const SCHEMA_VERSIONS: readonly SchemaVersion[] = ['0.1', '2.0', '2.1'];

/** The options of every ajv instance that compiles the schemas (build time or run time). */
export const AJV_OPTIONS = { allErrors: true, strict: false, verbose: true } as const;

/** The validator of each entry type of one schema version; undefined for a type the version does not have. */
export type EntryValidators = (entryType: string) => ValidateFunction | undefined;

type Schema = { $id?: string; $defs?: Record<string, unknown> };

/** The entry types a schema defines: its `$defs` with an `entry_type` property. */
export function entryTypesOf(schema: Schema): string[] {
  return Object.entries(schema.$defs ?? {})
    .filter(([t, d]) => /^[a-z_]+$/.test(t) && (d as { properties?: Record<string, unknown> }).properties?.entry_type !== undefined)
    .map(([t]) => t);
}

/** The ajv reference of the validator of `entryType` in a schema (its `$id`). */
export function validatorRef(schema: Schema, entryType: string): string {
  return `${schema.$id ?? ''}#/$defs/${entryType}`;
}

interface AjvLike {
  addSchema(schema: object): unknown;
  getSchema(ref: string): ValidateFunction | undefined;
}

/**
 * The validators of one schema (parsed from schemas/), compiled at run time
 * by `ajv`, made with AJV_OPTIONS, each on first use. (Each schema's
 * references are local to it.)
 */
export function compileAtRunTime(ajv: AjvLike, schema: Schema): EntryValidators {
  ajv.addSchema(schema);
  const types = new Set(entryTypesOf(schema));
  const cache = new Map<string, ValidateFunction | undefined>();
  return (entryType) => {
    if (!cache.has(entryType)) cache.set(entryType, types.has(entryType) ? ajv.getSchema(validatorRef(schema, entryType)) : undefined);
    return cache.get(entryType);
  };
}

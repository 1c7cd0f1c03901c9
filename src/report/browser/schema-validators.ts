/**
 * The entry validators in the browser: the browser bundle puts this module
 * in place of src/witness/schema-validators.ts (which loads the ones the
 * build compiled, with Node's require). Here ajv compiles the schema, which
 * the bundle embeds, on first use.
 */
import AjvModule from 'ajv';
import { AJV_OPTIONS, compileAtRunTime, type EntryValidators, type SchemaVersion } from '../../witness/schema-compile.js';

// ajv is CommonJS; bundled, its class is the default export's `default`.
const Ajv = ((AjvModule as unknown as { default?: typeof AjvModule }).default ?? AjvModule) as unknown as typeof AjvModule.default;

export function entryValidators(_version: SchemaVersion, text: string): EntryValidators {
  return compileAtRunTime(new Ajv(AJV_OPTIONS), JSON.parse(text) as object);
}

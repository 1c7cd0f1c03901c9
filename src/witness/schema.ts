import { readFileSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { isMap, isSeq, type Node } from 'yaml';
import type { DiagnosticSink } from './diagnostics.js';
import type { WitnessPos } from './model.js';
import type { EntryValidators, SchemaVersion } from './schema-compile.js';
import { entryValidators } from './schema-validators.js';
import { deref, keyNode, nodePos, scalarText, type YamlSource } from './yaml-source.js';

export type { SchemaVersion } from './schema-compile.js';

const validators = new Map<SchemaVersion, EntryValidators>();

/** Directory of the JSON Schemas, found relative to the package root (dist/src/witness → ../../../schemas). */
function schemaDir(): URL {
  return new URL('../../../schemas/', import.meta.url);
}

/** The validator of one entry type in one version, or undefined when that version has no such type. */
export function entryValidator(version: SchemaVersion, entryType: string): ValidateFunction | undefined {
  let v = validators.get(version);
  if (!v) {
    v = entryValidators(version, readFileSync(new URL(`witness-${version}.schema.json`, schemaDir()), 'utf8'));
    validators.set(version, v);
  }
  return v(entryType);
}

/** Values that exist only from 2.1 on (witness-formats.md §7.6). */
const ONLY_21 = new Set(['loop_transition_invariant', 'location_transition_invariant', 'function_contract', 'cycle', 'ext_c_expression']);
const ONLY_21_KEYS = new Set(['labels', 'contract']);

/**
 * Validates one entry (as plain data) against its schema and reports every
 * error as a diagnostic at the YAML position of the offending node, with the
 * check id of witness-formats.md §9.
 */
export function schemaCheckEntry(
  src: YamlSource,
  entryNode: unknown,
  data: unknown,
  version: SchemaVersion,
  validate: ValidateFunction,
  sink: DiagnosticSink,
): void {
  if (validate(data)) return;
  for (const err of validate.errors ?? []) reportAjvError(src, entryNode, err, version, sink);
}

/** Metadata keys that only describe an entry. */
const DESCRIPTIVE = new Set(['producer', 'uuid', 'creation_time']);

function reportAjvError(src: YamlSource, entryNode: unknown, err: ErrorObject, version: SchemaVersion, sink: DiagnosticSink): void {
  const path = err.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const where = path.length ? path.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i ? `.${s}` : s)).join('') : 'entry';
  const last = path[path.length - 1] ?? '';
  const { node, key } = locate(src, entryNode, path);
  const at: WitnessPos | undefined = nodePos(src, node) ?? nodePos(src, key) ?? nodePos(src, entryNode);
  const keyAt = nodePos(src, key) ?? at;
  const shown = (v: unknown) => (typeof v === 'string' ? `'${v}'` : JSON.stringify(v));
  // Who made an entry, when, and its UUID change nothing the witness claims.
  const descriptive = (key: string | undefined) => path[0] === 'metadata' && key !== undefined && DESCRIPTIVE.has(key);
  switch (err.keyword) {
    case 'required': {
      const missing = (err.params as { missingProperty: string }).missingProperty;
      // Goblint leaves out task.specification when not run on an SV-COMP property: the validator is given the property anyway.
      const unsaidProperty = missing === 'specification' && path.join('.') === 'metadata.task';
      if (descriptive(path[1] ?? missing) || unsaidProperty) sink.descriptive('missing-required', keyAt, `missing required key '${missing}' in ${where}`);
      else sink.error('missing-required', keyAt, `missing required key '${missing}' in ${where}`);
      return;
    }
    case 'type': {
      const expected = (err.params as { type: string | string[] }).type;
      const actual = Array.isArray(err.data) ? 'a sequence' : err.data === null ? 'null' : typeof err.data === 'object' ? 'a mapping' : `${typeof err.data} ${scalarText(deref(src, node)) ?? String(err.data)}`;
      if (last === 'format_version') return; // reported by the version check (version-not-string)
      if (expected === 'string' && (typeof err.data === 'number' || typeof err.data === 'boolean')) {
        sink.warn('value-not-string', at, `${where} should be a string; write "${scalarText(deref(src, node)) ?? String(err.data)}" in quotes`);
        return;
      }
      sink.error('wrong-type', at, `${where} should be ${Array.isArray(expected) ? expected.join(' or ') : expected === 'object' ? 'a mapping' : expected === 'array' ? 'a sequence' : `a ${expected}`}, found ${actual}`);
      return;
    }
    case 'enum':
    case 'const': {
      const allowed = err.keyword === 'enum' ? (err.params as { allowedValues: unknown[] }).allowedValues : [(err.params as { allowedValue: unknown }).allowedValue];
      const value = err.data;
      if (last === 'data_model' && (value === '32bit' || value === '64bit')) {
        sink.warn('legacy-data-model', at, `data_model '${value}' is the legacy spelling; write '${value === '32bit' ? 'ILP32' : 'LP64'}'`);
        return;
      }
      if (version === '2.0' && typeof value === 'string' && ONLY_21.has(value)) {
        sink.error('feature-not-in-version', at, `${where} '${value}' needs format_version "2.1" (this entry is 2.0)`);
        return;
      }
      if (path.join('.') === 'certification.string') {
        sink.error('bad-cert-value', at, `certification.string is ${shown(value)}; expected 'confirmed' or 'rejected'`);
        return;
      }
      sink.error('bad-enum', at, `${where} is ${shown(value)}; expected ${allowed.map(shown).join(', ')}`);
      return;
    }
    case 'pattern': {
      const value = String(err.data);
      if (last === 'uuid' && descriptive('uuid')) sink.descriptive('bad-uuid', at, `${where} '${value}' is not a UUID (8-4-4-4-12 hex digits)`);
      else if (last === 'creation_time') sink.descriptive('bad-datetime', at, `${where} '${value}' is not an ISO 8601 date-time with seconds and zone (e.g. 2024-05-01T12:00:00Z)`);
      else if (last === 'uuid') sink.error('bad-uuid', at, `${where} '${value}' is not a UUID (8-4-4-4-12 hex digits)`);
      else sink.error('bad-hash', at, `${where} '${value}' is not a SHA-256 hash (64 hex digits, found ${value.length} characters)`);
      return;
    }
    case 'minimum': {
      const limit = (err.params as { limit: number }).limit;
      if (last === 'line') sink.error('line-range', at, `line ${String(err.data)} is out of range: lines start at 1`);
      else if (last === 'column') {
        sink.error('column-range', at, `column ${String(err.data)} is out of range: format ${version} columns are ${limit === 0 ? '0-based (minimum 0)' : '1-based (minimum 1)'}`);
      } else sink.error('wrong-type', at, `${where} must be at least ${limit}`);
      return;
    }
    case 'additionalProperties': {
      const extra = (err.params as { additionalProperty: string }).additionalProperty;
      const extraAt = nodePos(src, keyNode(src, node, extra)) ?? at;
      if (version === '2.0' && ONLY_21_KEYS.has(extra)) {
        sink.error('feature-not-in-version', extraAt, `key '${extra}' needs format_version "2.1" (this entry is 2.0)`);
      } else sink.warn('unknown-key', extraAt, `unknown key '${extra}' in ${where}`);
      return;
    }
    case 'minItems':
      if (last === 'content') sink.warn('empty-content', keyAt, `${where} is empty`);
      else if (last === 'input_files') sink.error('missing-required', keyAt, `${where} is empty; list the program file`);
      else sink.error('wrong-type', keyAt, `${where} must not be empty`);
      return;
    case 'minProperties':
    case 'maxProperties':
      sink.error('wrong-type', at, `each item of ${path.slice(0, -1).join('.') || 'content'} must have exactly one key`);
      return;
    case 'if':
      return; // the failing `then` branch is reported on its own
    default:
      sink.error('wrong-type', at, `${where}: ${err.message ?? 'invalid'}`);
  }
}

/** The YAML node (and the key node naming it) at a path below an entry. */
export function locate(src: YamlSource, root: unknown, path: string[]): { node: unknown; key: unknown } {
  let node: unknown = deref(src, root);
  let key: unknown;
  for (const seg of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => scalarText(deref(src, p.key)) === seg);
      if (!pair) break;
      key = pair.key;
      node = deref(src, pair.value) ?? pair.key;
    } else if (isSeq(node)) {
      const item = node.items[Number(seg)];
      if (item === undefined) break;
      node = deref(src, item);
    } else break;
  }
  return { node: node as Node, key };
}

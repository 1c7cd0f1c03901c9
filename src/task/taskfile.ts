import { existsSync, realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { isMap, isScalar, isSeq, parseDocument, type Node, type Pair, type YAMLMap } from 'yaml';
import { TarsierError } from '../common/errors.js';
import { readTextFile } from '../common/files.js';
import { LineIndex } from '../common/location.js';
import { expandPattern } from './glob.js';
import { readPropertyFile, type Property, type PropertyKind } from './property.js';

import { DATA_MODELS, type DataModel } from '../common/data-model.js';

export type { DataModel };

export interface TaskProperty {
  /** Absolute path of the `.prp` file. */
  readonly propertyFile: string;
  /** The path as written in the task file. */
  readonly propertyFileAsWritten: string;
  readonly property: PropertyKind;
  /** The parsed property file (entry function, specification text). */
  readonly details: Property;
  /** `true`: the property holds; `false`: violated; absent: unknown. */
  readonly expectedVerdict?: boolean;
  /** The violated sub-property (memory safety) when `expectedVerdict` is false. */
  readonly subproperty?: string;
}

export interface SkippedProperty {
  readonly propertyFile: string;
  readonly reason: string;
}

export interface Task {
  /** Absolute path of the task-definition file. */
  readonly file: string;
  /** `format_version` as written (`'2.0'`). */
  readonly formatVersion: string;
  /** Absolute paths of the input files, sorted. */
  readonly inputFiles: readonly string[];
  /** The same files spelled relative to the task file's folder (for witnesses' `task.input_files`). */
  readonly inputFilesAsWritten: readonly string[];
  readonly properties: readonly TaskProperty[];
  /** Property entries left out because `skipUnusableProperties` was set. */
  readonly skippedProperties: readonly SkippedProperty[];
  readonly language: string;
  readonly dataModel: DataModel;
  /** Whether `options.data_model` was given (else ILP32 is assumed). */
  readonly dataModelGiven: boolean;
}

export interface ReadTaskOptions {
  /**
   * Leave out property entries whose file is missing or is not a verification
   * property (Test-Comp coverage), recording them in `skippedProperties`,
   * instead of failing. Benchmark sets reference such files.
   */
  skipUnusableProperties?: boolean;
}

const VERSIONS = ['0.1', '1.0', '2.0', '2.1'];
const TOP_KEYS = new Set(['format_version', 'input_files', 'required_files', 'properties', 'options', 'additional_information']);

/** Reads a task-definition file (YAML) as BenchExec does; see spec §1. */
export function readTaskFile(path: string, options: ReadTaskOptions = {}): Task {
  const file = resolve(path);
  const text = readTextFile(file);
  const index = new LineIndex(text);
  const at = (node: Node | Pair | null | undefined) => {
    const range = node && 'range' in node ? node.range : node && 'key' in node ? (node.key as Node | null)?.range : undefined;
    const pos = index.position(range ? range[0] : 0);
    return { file, line: pos.line, column: pos.column };
  };
  const fail = (message: string, node?: Node | Pair | null): never => {
    throw new TarsierError('task', message, at(node));
  };

  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    const pos = index.position(e.pos[0]);
    throw new TarsierError('yaml-syntax', e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, ''), {
      file,
      line: pos.line,
      column: pos.column,
    });
  }
  const root = doc.contents;
  if (!isMap(root)) return fail('a task-definition file must be a YAML mapping', root);
  const get = (map: YAMLMap, key: string): Pair | undefined =>
    map.items.find((p) => isScalar(p.key) && p.key.value === key) as Pair | undefined;

  for (const p of root.items) {
    const key = isScalar(p.key) ? String(p.key.value) : undefined;
    if (key === undefined) fail('keys of a task-definition file must be plain strings', p.key as Node);
  }

  // format_version: from the source text, so that an unquoted 2.0 stays "2.0".
  const fv = get(root, 'format_version');
  if (!fv) return fail("missing required key 'format_version'", root);
  const fvNode = fv.value as Node | null;
  if (!isScalar(fvNode) || fvNode.value === null) return fail("'format_version' must be a version string such as '2.0'", fvNode ?? fv);
  const formatVersion = fvNode.type === 'PLAIN' ? text.slice(fvNode.range![0], fvNode.range![1]).trim() : String(fvNode.value);
  if (!VERSIONS.includes(formatVersion)) {
    fail(`unsupported format_version '${formatVersion}' (expected one of ${VERSIONS.join(', ')})`, fvNode);
  }
  const version = Number(formatVersion);

  const optionsPair = get(root, 'options');
  if (optionsPair && version < 2) fail(`key 'options' needs format_version 2.0 or later (this file has ${formatVersion})`, optionsPair);
  const addPair = get(root, 'additional_information');
  if (addPair && version < 2.1) {
    fail(`key 'additional_information' needs format_version 2.1 (this file has ${formatVersion})`, addPair);
  }

  const baseDir = dirname(file);
  const patterns = (pair: Pair | undefined, key: string): Array<{ pattern: string; node: Node }> => {
    if (!pair) return [];
    const v = pair.value as Node | null;
    if (isScalar(v) && typeof v.value === 'string') return [{ pattern: v.value, node: v }];
    if (isSeq(v)) {
      return v.items.map((item) => {
        const n = item as Node;
        if (!isScalar(n) || typeof n.value !== 'string') return fail(`entries of '${key}' must be strings`, n);
        return { pattern: n.value, node: n };
      });
    }
    return fail(`'${key}' must be a string or a sequence of strings`, v ?? pair);
  };

  const inputPair = get(root, 'input_files');
  if (!inputPair) return fail("missing required key 'input_files'", root);
  const inputs: Array<{ absolute: string; relative: string }> = [];
  for (const { pattern, node } of patterns(inputPair, 'input_files')) {
    const matches = expandPattern(pattern, baseDir);
    if (matches.length === 0) fail(`input file '${pattern}' does not exist`, node);
    for (const m of matches) if (!inputs.some((i) => i.absolute === m.absolute)) inputs.push(m);
  }
  if (inputs.length === 0) fail('the task does not define any input files', inputPair);
  for (const { pattern, node } of patterns(get(root, 'required_files'), 'required_files')) {
    if (expandPattern(pattern, baseDir).length === 0) fail(`required file '${pattern}' does not exist`, node);
  }

  const properties: TaskProperty[] = [];
  const skipped: SkippedProperty[] = [];
  const seen = new Map<string, string>();
  const propsPair = get(root, 'properties');
  if (propsPair) {
    const seq = propsPair.value as Node | null;
    if (seq !== null && !isSeq(seq)) fail("'properties' must be a sequence of mappings", seq ?? propsPair);
    for (const item of isSeq(seq) ? seq.items : []) {
      const entry = item as Node;
      if (!isMap(entry)) return fail("each entry of 'properties' must be a mapping with 'property_file'", entry);
      const pf = get(entry, 'property_file');
      if (!pf) return fail("missing property file: a property entry needs 'property_file'", entry);
      const pfNode = pf.value as Node | null;
      if (!isScalar(pfNode) || typeof pfNode.value !== 'string') return fail("'property_file' must be a string", pfNode ?? pf);
      const pattern = pfNode.value;
      const matches = expandPattern(pattern, baseDir);
      const ev = get(entry, 'expected_verdict');
      let expectedVerdict: boolean | undefined;
      if (ev) {
        const evNode = ev.value as Node | null;
        if (!isScalar(evNode) || typeof evNode.value !== 'boolean') {
          fail("invalid expected_verdict: must be the YAML boolean true or false (not a string)", evNode ?? ev);
        }
        expectedVerdict = (evNode as { value: boolean }).value;
      }
      const sp = get(entry, 'subproperty');
      let subproperty: string | undefined;
      if (sp) {
        const spNode = sp.value as Node | null;
        if (!isScalar(spNode) || typeof spNode.value !== 'string') fail("'subproperty' must be a string", spNode ?? sp);
        subproperty = (spNode as { value: string }).value;
      }
      if (matches.length !== 1) {
        const reason =
          matches.length === 0
            ? `property file '${pattern}' does not exist`
            : `property file '${pattern}' does not refer to exactly one file (${matches.length} match)`;
        if (options.skipUnusableProperties) {
          skipped.push({ propertyFile: resolve(baseDir, pattern), reason });
          continue;
        }
        fail(reason, pfNode);
      }
      const propertyFile = matches[0].absolute;
      const identity = realPath(propertyFile);
      if (seen.has(identity)) fail(`property file '${pattern}' is specified multiple times`, pfNode);
      seen.set(identity, pattern);
      let details: Property;
      try {
        details = readPropertyFile(propertyFile);
      } catch (e) {
        if (options.skipUnusableProperties && e instanceof TarsierError) {
          skipped.push({ propertyFile, reason: e.format() });
          continue;
        }
        throw e;
      }
      if (subproperty !== undefined) {
        if (expectedVerdict !== false) fail("'subproperty' is only allowed with expected_verdict: false", sp);
        if (!details.subproperties.includes(subproperty) || details.subproperties.length < 2) {
          fail(`'${subproperty}' is not a sub-property of ${details.kind}`, sp?.value as Node);
        }
      }
      properties.push({
        propertyFile,
        propertyFileAsWritten: pattern,
        property: details.kind,
        details,
        ...(expectedVerdict !== undefined ? { expectedVerdict } : {}),
        ...(subproperty !== undefined ? { subproperty } : {}),
      });
    }
  }

  let language = 'C';
  let dataModel: DataModel = 'ILP32';
  let dataModelGiven = false;
  const opts = optionsPair?.value as Node | null | undefined;
  if (isMap(opts)) {
    const lang = get(opts, 'language');
    if (lang) {
      const n = lang.value as Node | null;
      if (!isScalar(n) || typeof n.value !== 'string') fail("'options.language' must be a string", n ?? lang);
      language = String((n as { value: string }).value);
    }
    const dm = get(opts, 'data_model');
    if (dm) {
      const n = dm.value as Node | null;
      if (!isScalar(n) || !DATA_MODELS.includes(n.value as DataModel)) {
        fail("'options.data_model' must be ILP32 or LP64", n ?? dm);
      }
      dataModel = (n as { value: DataModel }).value;
      dataModelGiven = true;
    }
  }

  return {
    file,
    formatVersion,
    inputFiles: inputs.map((i) => i.absolute),
    inputFilesAsWritten: inputs.map((i) => i.relative),
    properties,
    skippedProperties: skipped,
    language,
    dataModel,
    dataModelGiven,
  };
}

/** Keys of a task file that the format does not define (linters warn about them). */
export function unknownTaskKeys(path: string): string[] {
  const doc = parseDocument(readTextFile(resolve(path)));
  if (!isMap(doc.contents)) return [];
  return doc.contents.items.map((p) => String(isScalar(p.key) ? p.key.value : '')).filter((k) => !TOP_KEYS.has(k));
}

function realPath(p: string): string {
  try {
    return existsSync(p) ? realpathSync(p) : p;
  } catch {
    return p;
  }
}

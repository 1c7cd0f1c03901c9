import { readFileSync, statSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { isMap, isScalar, isSeq } from 'yaml';
import { TarsierError } from '../common/errors.js';
import { decodeUtf8, describeIoError } from '../common/files.js';
import { readGraphml } from './graphml.js';
import type {
  CertificateEntryType,
  Constraint,
  Entry,
  Expr,
  GhostUpdateGroup,
  GhostVariable,
  Location,
  Metadata,
  Segment,
  SetItem,
  WitnessTask,
  Waypoint,
  WitnessDocument,
  WitnessPos,
} from './model.js';
import { deref, field, nodePos, parseYamlSource, scalarText, WITNESS_LIMITS, type YamlSource } from './yaml-source.js';

/** Thrown inside entry conversion when a required part is missing; the entry becomes an UnknownEntry. */
class Gap extends Error {}

/**
 * Reads a witness (YAML of any version, or GraphML 1.0) into the model.
 * Lenient like the tools: an entry that cannot be mapped (unknown type, a
 * required part missing) is kept as an `UnknownEntry` with the reason; use
 * `lintWitness` for a verdict on the file. Throws a TarsierError with a
 * position when the text is not readable at all (YAML/XML syntax, duplicate
 * keys, alias bomb, nesting, root not a sequence).
 */
export function readWitness(text: string, file: string): WitnessDocument {
  if (looksLikeXml(text)) return { format: 'graphml', file, graphml: readGraphml(text, file) };
  const { source, problems } = parseYamlSource(text, file);
  if (problems.length > 0 || !source) {
    const p = problems[0];
    throw new TarsierError(p.rule, p.message, { file, line: p.at.line, column: p.at.column });
  }
  const root = deref(source, source.doc.contents);
  if (!isSeq(root)) {
    throw new TarsierError('root-not-sequence', 'the root of a witness must be a sequence of entries', {
      file,
      ...(nodePos(source, root) ?? { line: 1, column: 1 }),
    });
  }
  return { format: 'yaml', file, entries: root.items.map((item) => readEntry(source, item)) };
}

/** Reads a witness file; gzip-compressed files are accepted (CPAchecker does the same). */
export function readWitnessFile(path: string): WitnessDocument {
  return readWitness(readWitnessText(path), path);
}

/** The text of a witness file: size-limited, gunzipped when compressed, UTF-8 checked. */
export function readWitnessText(path: string): string {
  let bytes: Buffer;
  try {
    const st = statSync(path);
    if (st.isDirectory()) throw new TarsierError('io', 'is a directory, not a file', { file: path }, 2);
    if (st.size > WITNESS_LIMITS.maxChars) {
      throw new TarsierError('io', `file is too large (${st.size} bytes; the limit is ${WITNESS_LIMITS.maxChars})`, { file: path }, 2);
    }
    bytes = readFileSync(path);
  } catch (e) {
    if (e instanceof TarsierError) throw e;
    throw new TarsierError('io', describeIoError(e), { file: path }, 2);
  }
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = gunzipSync(bytes, { maxOutputLength: WITNESS_LIMITS.maxChars });
    } catch (e) {
      throw new TarsierError('io', `cannot decompress gzip data: ${(e as Error).message}`, { file: path }, 2);
    }
  }
  return decodeUtf8(bytes, path);
}

/** GraphML starts with `<` (after a BOM, blanks and XML comments); YAML never does. */
export function looksLikeXml(text: string): boolean {
  return /^\uFEFF?\s*</.test(text);
}

// ------------------------------------------------------------------ entries

/** Maps one entry node to the model (lenient; see readWitness). */
export function readEntry(src: YamlSource, node: unknown): Entry {
  const at = nodePos(src, node);
  const entryType = scalarText(deref(src, field(src, node, 'entry_type'))) ?? '';
  let metadata: Metadata | undefined;
  try {
    metadata = readMetadata(src, field(src, node, 'metadata'), entryType.endsWith('_certificate'));
  } catch (e) {
    if (!(e instanceof Gap)) throw e;
    return { entry_type: entryType, unknown: true, reason: e.message, raw: toPlain(src, node), at };
  }
  // 0.2 (the location-invariant proposal) is read as 0.1, columns included.
  const base: 0 | 1 = metadata.format_version === '0.1' || metadata.format_version === '0.2' ? 0 : 1;
  try {
    switch (entryType) {
      case 'loop_invariant':
      case 'location_invariant':
        return {
          entry_type: entryType,
          metadata,
          location: readLocation(src, req(src, node, 'location'), base),
          invariant: readInv01(src, req(src, node, entryType)),
          at,
        };
      case 'precondition_loop_invariant':
        return {
          entry_type: entryType,
          metadata,
          location: readLocation(src, req(src, node, 'location'), base),
          invariant: readInv01(src, req(src, node, 'loop_invariant')),
          precondition: readInv01(src, req(src, node, 'precondition')),
          at,
        };
      case 'flow_insensitive_invariant':
        return { entry_type: entryType, metadata, invariant: readInv01(src, req(src, node, entryType)), at };
      case 'loop_invariant_certificate':
      case 'precondition_loop_invariant_certificate':
      case 'invariant_certificate': {
        const t = req(src, node, 'target');
        const c = req(src, node, 'certification');
        return {
          entry_type: entryType as CertificateEntryType,
          metadata,
          target: {
            uuid: reqStr(src, t, 'uuid', 'target'),
            type: reqStr(src, t, 'type', 'target').replace(/-/g, '_'),
            file_hash: reqStr(src, t, 'file_hash', 'target'),
            at: nodePos(src, t),
          },
          certification: {
            string: reqStr(src, c, 'string', 'certification'),
            type: reqStr(src, c, 'type', 'certification'),
            format: reqStr(src, c, 'format', 'certification'),
            at: nodePos(src, c),
          },
          at,
        };
      }
      case 'invariant_set':
        return { entry_type: entryType, metadata, content: seq(src, req(src, node, 'content')).map((i) => readSetItem(src, i, base)), at };
      case 'violation_sequence':
        return { entry_type: entryType, metadata, content: seq(src, req(src, node, 'content')).map((s) => readSegment(src, s, base)), at };
      case 'ghost_instrumentation': {
        const content = req(src, node, 'content');
        return {
          entry_type: entryType,
          metadata,
          content: {
            ghost_variables: seq(src, field(src, content, 'ghost_variables')).map((g) => readGhostVariable(src, g)),
            ghost_updates: seq(src, field(src, content, 'ghost_updates')).map((g) => readGhostUpdates(src, g, base)),
          },
          at,
        };
      }
      default:
        return {
          entry_type: entryType,
          unknown: true,
          reason: entryType ? `unknown entry type '${entryType}'` : 'entry without entry_type',
          metadata,
          raw: toPlain(src, node),
          at,
        };
    }
  } catch (e) {
    if (!(e instanceof Gap)) throw e;
    return { entry_type: entryType, unknown: true, reason: e.message, metadata, raw: toPlain(src, node), at };
  }
}

function readMetadata(src: YamlSource, node: unknown, certificate: boolean): Metadata {
  if (!isMap(deref(src, node))) throw new Gap('metadata is missing');
  // What only describes the entry (who made it, when, its UUID) is read leniently: '' when missing (the linter reports it).
  const producer = field(src, node, 'producer');
  const taskNode = field(src, node, 'task');
  const described = optStrs(src, node, ['uuid', 'creation_time']);
  const made = producer !== undefined && isMap(deref(src, producer)) ? optStrs(src, producer, ['name', 'version', 'configuration', 'command_line', 'description']) : {};
  const md: Metadata = {
    format_version: reqStr(src, node, 'format_version', 'metadata'),
    uuid: described.uuid ?? '',
    creation_time: described.creation_time ?? '',
    producer: { ...made, name: made.name ?? '' },
    at: nodePos(src, node),
  };
  if (taskNode !== undefined && isMap(deref(src, taskNode))) md.task = readTask(src, taskNode);
  else if (!certificate && taskNode !== undefined) throw new Gap('metadata.task is not a mapping');
  return md;
}

function readTask(src: YamlSource, node: unknown): WitnessTask {
  const filesNode = deref(src, field(src, node, 'input_files'));
  // The old 0.1 JSON schema allowed a single string; wrap it.
  const input_files = isSeq(filesNode)
    ? filesNode.items.map((i) => scalarText(deref(src, i)) ?? '')
    : scalarText(filesNode) !== undefined
      ? [scalarText(filesNode)!]
      : [];
  const hashes: Record<string, string> = {};
  const hashNode = deref(src, field(src, node, 'input_file_hashes'));
  if (isMap(hashNode)) {
    for (const pair of hashNode.items) {
      const k = scalarText(deref(src, pair.key));
      const v = scalarText(deref(src, pair.value));
      if (k !== undefined && v !== undefined) hashes[k] = v;
    }
  }
  const task: WitnessTask = { input_files, input_file_hashes: hashes };
  const o = optStrs(src, node, ['specification', 'data_model', 'language']);
  if (o.specification !== undefined) task.specification = o.specification;
  if (o.data_model !== undefined) {
    // Legacy spellings of the old JSON schema (warned about by the linter).
    task.data_model = o.data_model === '32bit' ? 'ILP32' : o.data_model === '64bit' ? 'LP64' : o.data_model;
  }
  if (o.language !== undefined) task.language = o.language;
  return task;
}

function readLocation(src: YamlSource, node: unknown, base: 0 | 1): Location {
  const loc: Location = {
    file_name: reqStr(src, node, 'file_name', 'location'),
    line: reqInt(src, node, 'line', 'location'),
    columnBase: base,
    at: nodePos(src, node),
  };
  const column = optInt(src, node, 'column');
  if (column !== undefined) loc.column = column;
  const o = optStrs(src, node, ['function', 'file_hash']);
  if (o.function !== undefined) loc.function = o.function;
  if (o.file_hash !== undefined) loc.file_hash = o.file_hash;
  return loc;
}

function readInv01(src: YamlSource, node: unknown): Expr {
  return {
    text: reqStr(src, node, 'string', 'invariant'),
    format: optStrs(src, node, ['format']).format ?? 'C',
    at: nodePos(src, field(src, node, 'string')),
  };
}

function readExpr2(src: YamlSource, node: unknown, what: string): Expr {
  return {
    text: reqStr(src, node, 'value', what),
    format: optStrs(src, node, ['format']).format ?? 'c_expression',
    at: nodePos(src, field(src, node, 'value')),
  };
}

function readLabels(src: YamlSource, node: unknown): { labels?: string[] } {
  const l = deref(src, field(src, node, 'labels'));
  return isSeq(l) ? { labels: l.items.map((i) => scalarText(deref(src, i)) ?? '') } : {};
}

function readSetItem(src: YamlSource, item: unknown, base: 0 | 1): SetItem {
  const contract = field(src, item, 'contract');
  const inv = field(src, item, 'invariant');
  const node = contract ?? inv;
  if (node === undefined) throw new Gap('an invariant_set item has neither invariant nor contract');
  const type = reqStr(src, node, 'type', contract ? 'contract' : 'invariant');
  const at = nodePos(src, node);
  if (type === 'function_contract' || contract !== undefined) {
    return {
      kind: 'function_contract',
      location: readLocation(src, req(src, node, 'location'), base),
      requires: optStrs(src, node, ['requires']).requires ?? '1',
      ensures: joinEnsures(src, field(src, node, 'ensures')),
      format: optStrs(src, node, ['format']).format ?? 'c_expression',
      ...readLabels(src, node),
      wrapper: contract !== undefined ? 'contract' : 'invariant',
      at,
    };
  }
  if (type === 'flow_insensitive_invariant') {
    return { kind: type, value: readExpr2(src, node, 'invariant'), ...readLabels(src, node), at };
  }
  if (type === 'loop_invariant' || type === 'location_invariant' || type === 'loop_transition_invariant' || type === 'location_transition_invariant') {
    return {
      kind: type,
      location: readLocation(src, req(src, node, 'location'), base),
      value: readExpr2(src, node, 'invariant'),
      ...readLabels(src, node),
      at,
    };
  }
  throw new Gap(`unknown invariant type '${type}'`);
}

// An older Ultimate wrote `ensures` as a list; its items hold together.
function joinEnsures(src: YamlSource, node: unknown): string {
  const n = deref(src, node);
  if (isSeq(n)) return n.items.map((i) => `(${scalarText(deref(src, i)) ?? ''})`).join(' && ') || '1';
  return scalarText(n) ?? '1';
}

function readSegment(src: YamlSource, item: unknown, base: 0 | 1): Segment {
  const seg = field(src, item, 'segment');
  if (seg === undefined) throw new Gap('a violation_sequence item has no segment');
  return { waypoints: seq(src, seg).map((w) => readWaypoint(src, w, base)), at: nodePos(src, item) };
}

function readWaypoint(src: YamlSource, item: unknown, base: 0 | 1): Waypoint {
  const node = req(src, item, 'waypoint', 'segment item');
  const wp: Waypoint = {
    type: reqStr(src, node, 'type', 'waypoint'),
    action: reqStr(src, node, 'action', 'waypoint'),
    location: readLocation(src, req(src, node, 'location', 'waypoint'), base),
    at: nodePos(src, node),
  };
  const c = deref(src, field(src, node, 'constraint'));
  if (isMap(c)) {
    const v = deref(src, field(src, c, 'value'));
    let value: Constraint['value'] = scalarText(v) ?? '';
    // Branching values: YAML booleans become "true"/"false"; integers stay numbers.
    if (isScalar(v) && typeof v.value === 'number' && Number.isInteger(v.value) && wp.type === 'branching') value = v.value;
    const constraint: Constraint = { value, at: nodePos(src, c) };
    const format = optStrs(src, c, ['format']).format;
    if (format !== undefined) constraint.format = format;
    wp.constraint = constraint;
  }
  return wp;
}

function readGhostVariable(src: YamlSource, node: unknown): GhostVariable {
  return {
    name: reqStr(src, node, 'name', 'ghost variable'),
    scope: optStrs(src, node, ['scope']).scope ?? 'global',
    type: reqStr(src, node, 'type', 'ghost variable'),
    initial: readExpr2(src, req(src, node, 'initial', 'ghost variable'), 'initial'),
    at: nodePos(src, node),
  };
}

function readGhostUpdates(src: YamlSource, node: unknown, base: 0 | 1): GhostUpdateGroup {
  return {
    location: readLocation(src, req(src, node, 'location', 'ghost update'), base),
    updates: seq(src, field(src, node, 'updates')).map((u) => ({
      variable: reqStr(src, u, 'variable', 'update'),
      value: readExpr2(src, u, 'update'),
      at: nodePos(src, u),
    })),
    at: nodePos(src, node),
  };
}

// ------------------------------------------------------------------ helpers

function req(src: YamlSource, node: unknown, key: string, where?: string): unknown {
  const v = field(src, node, key);
  if (v === undefined || !(isMap(deref(src, v)) || isSeq(deref(src, v)) || isScalar(deref(src, v)))) {
    throw new Gap(`${where ? where + '.' : ''}${key} is missing`);
  }
  return v;
}

function reqStr(src: YamlSource, node: unknown, key: string, where: string): string {
  const v = scalarText(deref(src, field(src, node, key)));
  if (v === undefined) throw new Gap(`${where}.${key} is missing`);
  return v;
}

function reqInt(src: YamlSource, node: unknown, key: string, where: string): number {
  const v = optInt(src, node, key);
  if (v === undefined) throw new Gap(`${where}.${key} is missing or not an integer`);
  return v;
}

function optInt(src: YamlSource, node: unknown, key: string): number | undefined {
  const n = deref(src, field(src, node, key));
  if (!isScalar(n)) return undefined;
  const v = typeof n.value === 'string' && /^-?\d+$/.test(n.value) ? Number(n.value) : n.value;
  return typeof v === 'number' && Number.isInteger(v) ? v : undefined;
}

function optStrs<K extends string>(src: YamlSource, node: unknown, keys: K[]): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const k of keys) {
    const v = scalarText(deref(src, field(src, node, k)));
    if (v !== undefined) out[k] = v;
  }
  return out;
}

function seq(src: YamlSource, node: unknown): unknown[] {
  const n = deref(src, node);
  return isSeq(n) ? n.items : [];
}

function toPlain(src: YamlSource, node: unknown): unknown {
  const n = deref(src, node) as { toJS?: (doc: unknown, opts: unknown) => unknown } | undefined;
  try {
    return n && typeof n.toJS === 'function' ? n.toJS(src.doc, { maxAliasCount: WITNESS_LIMITS.maxAliasCount }) : null;
  } catch {
    return null;
  }
}

export type { WitnessPos };

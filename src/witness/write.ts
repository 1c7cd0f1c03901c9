import { writeGraphml } from './graphml.js';
import type { Entry, Expr, Location, Metadata, SetItem, Waypoint, WitnessDocument } from './model.js';

export interface WriteOptions {
  /** Source of UUIDs for entries whose `metadata.uuid` is empty. */
  uuid?: () => string;
  /** Pins `creation_time` of every entry (deterministic output). */
  creationTime?: string;
}

/** An ordered YAML value: mappings are lists of pairs so that key order is the format's. */
type Y = string | number | Y[] | { pairs: Array<[string, Y]> };

const map = (...pairs: Array<[string, Y | undefined]>): Y => ({
  pairs: pairs.filter((p): p is [string, Y] => p[1] !== undefined),
});

/**
 * Writes a witness deterministically: keys in the order of the format
 * documents, every string double-quoted (expressions, versions and values
 * that look like numbers stay strings), integers plain. GraphML documents are
 * written as GraphML.
 */
export function writeWitness(doc: WitnessDocument | { format: 'yaml'; entries: Entry[] }, options: WriteOptions = {}): string {
  if (doc.format === 'graphml') return writeGraphml(doc.graphml);
  const items = doc.entries.map((e) => entryY(e, options));
  return emit(items, 0) + '\n';
}

function entryY(e: Entry, o: WriteOptions): Y {
  if ('unknown' in e) {
    throw new Error(`cannot write an entry that was not read (${e.reason})`);
  }
  const md = metadataY(e.metadata, o);
  switch (e.entry_type) {
    case 'loop_invariant':
    case 'location_invariant':
      return map(['entry_type', e.entry_type], ['metadata', md], ['location', locationY(e.location)], [e.entry_type, inv01(e.invariant)]);
    case 'precondition_loop_invariant':
      return map(
        ['entry_type', e.entry_type],
        ['metadata', md],
        ['location', locationY(e.location)],
        ['loop_invariant', inv01(e.invariant)],
        ['precondition', inv01(e.precondition)],
      );
    case 'flow_insensitive_invariant':
      return map(['entry_type', e.entry_type], ['metadata', md], [e.entry_type, inv01(e.invariant)]);
    case 'loop_invariant_certificate':
    case 'precondition_loop_invariant_certificate':
    case 'invariant_certificate':
      return map(
        ['entry_type', e.entry_type],
        ['metadata', md],
        ['target', map(['uuid', e.target.uuid], ['type', e.target.type], ['file_hash', e.target.file_hash])],
        [
          'certification',
          map(['string', e.certification.string], ['type', e.certification.type], ['format', e.certification.format]),
        ],
      );
    case 'invariant_set':
      return map(['entry_type', e.entry_type], ['metadata', md], ['content', e.content.map(setItemY)]);
    case 'violation_sequence':
      return map(
        ['entry_type', e.entry_type],
        ['metadata', md],
        ['content', e.content.map((s) => map(['segment', s.waypoints.map((w) => map(['waypoint', waypointY(w)]))]))],
      );
    case 'ghost_instrumentation':
      return map(
        ['entry_type', e.entry_type],
        ['metadata', md],
        [
          'content',
          map(
            [
              'ghost_variables',
              e.content.ghost_variables.map((g) =>
                map(['name', g.name], ['scope', g.scope], ['type', g.type], ['initial', expr2(g.initial)]),
              ),
            ],
            [
              'ghost_updates',
              e.content.ghost_updates.map((u) =>
                map(
                  ['location', locationY(u.location)],
                  ['updates', u.updates.map((x) => map(['variable', x.variable], ['value', x.value.text], ['format', x.value.format]))],
                ),
              ),
            ],
          ),
        ],
      );
  }
}

function metadataY(md: Metadata, o: WriteOptions): Y {
  const uuid = md.uuid || (o.uuid ? o.uuid() : md.uuid);
  const p = md.producer;
  const t = md.task;
  return map(
    ['format_version', md.format_version],
    ['uuid', uuid],
    ['creation_time', o.creationTime ?? md.creation_time],
    [
      'producer',
      map(['name', p.name], ['version', p.version], ['configuration', p.configuration], ['command_line', p.command_line], ['description', p.description]),
    ],
    [
      'task',
      t &&
        map(
          ['input_files', t.input_files],
          ['input_file_hashes', { pairs: Object.entries(t.input_file_hashes) }],
          ['specification', t.specification],
          ['data_model', t.data_model],
          ['language', t.language],
        ),
    ],
  );
}

function locationY(l: Location): Y {
  return map(['file_name', l.file_name], ['file_hash', l.file_hash], ['line', l.line], ['column', l.column], ['function', l.function]);
}

function inv01(x: Expr): Y {
  return map(['string', x.text], ['type', 'assertion'], ['format', x.format]);
}

function expr2(x: Expr): Y {
  return map(['value', x.text], ['format', x.format]);
}

function setItemY(item: SetItem): Y {
  const labels = item.labels;
  if (item.kind === 'function_contract') {
    return map([
      item.wrapper,
      map(
        ['type', 'function_contract'],
        ['location', locationY(item.location)],
        ['requires', item.requires],
        ['ensures', item.ensures],
        ['format', item.format],
        ['labels', labels],
      ),
    ]);
  }
  if (item.kind === 'flow_insensitive_invariant') {
    return map(['invariant', map(['type', item.kind], ['value', item.value.text], ['format', item.value.format], ['labels', labels])]);
  }
  return map([
    'invariant',
    map(['type', item.kind], ['location', locationY(item.location)], ['value', item.value.text], ['format', item.value.format], ['labels', labels]),
  ]);
}

function waypointY(w: Waypoint): Y {
  const c = w.constraint;
  return map(
    ['type', w.type],
    ['action', w.action],
    ['location', locationY(w.location)],
    ['constraint', c && map(['value', typeof c.value === 'boolean' ? String(c.value) : c.value], ['format', c.format])],
  );
}

// ------------------------------------------------------------------ emitter

/** A YAML double-quoted scalar; JSON string escapes are valid YAML escapes. */
function quote(s: string): string {
  return JSON.stringify(s).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

function scalar(v: string | number): string {
  return typeof v === 'number' ? String(v) : quote(v);
}

function isCollection(v: Y): boolean {
  return Array.isArray(v) ? v.length > 0 : typeof v === 'object' && v.pairs.length > 0;
}

function inline(v: Y): string {
  if (Array.isArray(v)) return '[]';
  if (typeof v === 'object') return '{}';
  return scalar(v);
}

function emit(v: Y, indent: number): string {
  const pad = ' '.repeat(indent);
  if (Array.isArray(v)) {
    if (v.length === 0) return pad + '[]';
    return v
      .map((item) => {
        if (!isCollection(item)) return `${pad}- ${inline(item)}`;
        // The first line of a nested collection goes after "- ".
        const body = emit(item, indent + 2);
        return `${pad}- ${body.slice(indent + 2)}`;
      })
      .join('\n');
  }
  if (typeof v === 'object') {
    if (v.pairs.length === 0) return pad + '{}';
    return v.pairs
      .map(([k, val]) => (isCollection(val) ? `${pad}${quoteKey(k)}:\n${emit(val, indent + 2)}` : `${pad}${quoteKey(k)}: ${inline(val)}`))
      .join('\n');
  }
  return pad + scalar(v);
}

// Format keys are plain identifiers; file names used as hash keys are quoted.
function quoteKey(k: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(k) ? k : quote(k);
}

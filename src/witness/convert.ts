import { createHash, randomUUID } from 'node:crypto';
import { TarsierError } from '../common/errors.js';
import { sha256OfText } from './metadata.js';
import { graphmlToViolationSequence, graphValue, violationSequenceToGraphml } from './graphml.js';
import { isLoopKeyword, isStatementStart, scanProgram, tokenAt } from './program-tokens.js';
import type { Entry, GraphmlWitness, InvariantSetEntry, LocatedInvariant, Location, Metadata, ViolationSequenceEntry, WitnessDocument, WitnessPos } from './model.js';

export interface ConvertOptions {
  /** Source of UUIDs for new entries; default: a name-based UUID from the converted entries (deterministic). */
  uuid?: () => string;
  /** Pins `creation_time` of new entries; default: that of the first converted entry (GraphML: its creationtime). */
  creationTime?: string;
  /**
   * The program's text. With it, a 0.1 column that already counts from 1
   * (Goblint wrote such columns into 0.1 entries after 2024-04) is recognised
   * because it, and not the column after it, is at the loop keyword or
   * statement; it is then kept instead of being shifted. A GraphML
   * violation witness gets columns, its assumptions placed before the next
   * statement, and its target at the error-function call.
   */
  programText?: string;
}

/** Something that was not converted (or converted with a loss), with its position in the input. */
export interface ConvertNote {
  at?: WitnessPos;
  message: string;
}

export interface ConvertResult {
  document: { format: 'yaml'; file: string; entries: Entry[] };
  notes: ConvertNote[];
  /** Number of invariants or waypoints carried over. */
  converted: number;
}

/**
 * Converts a witness to format 2.0: 0.1 `loop_invariant` and
 * `location_invariant` entries become one 2.0 `invariant_set` per task
 * (columns move from 0-based to 1-based; a 0.1 column 0 — "the line of the
 * loop", as CPAchecker writes it — becomes an omitted column, the 2.0 way to
 * say "leftmost suitable position"); a GraphML violation witness becomes a
 * `violation_sequence`. Entries that are already 2.x are kept. Everything
 * else is reported in `notes`.
 */
export function convertTo20(doc: WitnessDocument, options: ConvertOptions = {}): ConvertResult {
  if (doc.format === 'graphml') return convertGraphml(doc, options);
  const notes: ConvertNote[] = [];
  const out: Entry[] = [];
  const program = options.programText !== undefined ? scanProgram(options.programText) : undefined;
  const sets = new Map<string, { entry: InvariantSetEntry; sources: string[] }>();
  let converted = 0;
  for (const e of doc.entries) {
    if ('unknown' in e) {
      notes.push({ at: e.at, message: `entry not converted: ${e.reason}` });
      continue;
    }
    const v = e.metadata.format_version;
    if (v !== '0.1') {
      out.push(e);
      continue;
    }
    switch (e.entry_type) {
      case 'loop_invariant':
      case 'location_invariant': {
        if (!e.metadata.task) {
          notes.push({ at: e.at, message: `${e.entry_type} without task metadata not converted` });
          break;
        }
        const key = JSON.stringify(e.metadata.task);
        let set = sets.get(key);
        if (!set) {
          set = {
            entry: {
              entry_type: 'invariant_set',
              metadata: { ...e.metadata, format_version: '2.0', uuid: '', creation_time: options.creationTime ?? e.metadata.creation_time, at: undefined },
              content: [],
            },
            sources: [],
          };
          delete set.entry.metadata.at;
          sets.set(key, set);
          out.push(set.entry);
        }
        set.sources.push(e.metadata.uuid);
        const location = to20Location(e.location, notes, e.at);
        if (program && location.column !== undefined) {
          const fits = (col: number) => {
            const k = tokenAt(program, location.line, col);
            return k !== undefined && (e.entry_type === 'loop_invariant' ? isLoopKeyword(program, k) : isStatementStart(program, k));
          };
          if (!fits(location.column) && location.column > 1 && fits(location.column - 1)) {
            notes.push({ at: e.location.at ?? e.at, message: `0.1 column ${e.location.column} already counts from 1 (it is at the ${e.entry_type === 'loop_invariant' ? 'loop keyword' : 'statement'}); kept as column ${location.column - 1}` });
            location.column -= 1;
          }
        }
        const item: LocatedInvariant = { kind: e.entry_type, location, value: { text: e.invariant.text, format: 'c_expression' } };
        set.entry.content.push(item);
        converted++;
        break;
      }
      case 'precondition_loop_invariant':
        notes.push({ at: e.at, message: 'precondition_loop_invariant has no 2.0 counterpart (its precondition would be lost); not converted' });
        break;
      case 'flow_insensitive_invariant':
        notes.push({ at: e.at, message: 'flow_insensitive_invariant exists only in Goblint\'s 2.1-goblint extension, not in 2.0; not converted' });
        break;
      default:
        notes.push({ at: e.at, message: `${e.entry_type} (a 0.1 certificate) has no 2.0 counterpart; not converted` });
    }
  }
  for (const { entry, sources } of sets.values()) entry.metadata.uuid = options.uuid ? options.uuid() : nameUuid(sources.join(','));
  return { document: { format: 'yaml', file: doc.file, entries: out }, notes, converted };
}

function to20Location(loc: Location, notes: ConvertNote[], at: WitnessPos | undefined): Location {
  const out: Location = { file_name: loc.file_name, line: loc.line, columnBase: 1 };
  if (loc.columnBase === 0 && loc.column === 0) {
    notes.push({ at: loc.at ?? at, message: `0.1 column 0 (the whole line ${loc.line}) becomes a location without column (the leftmost suitable position)` });
  } else if (loc.column !== undefined) out.column = loc.column + (loc.columnBase === 0 ? 1 : 0);
  if (loc.function !== undefined) out.function = loc.function;
  return out;
}

function convertGraphml(doc: Extract<WitnessDocument, { format: 'graphml' }>, options: ConvertOptions): ConvertResult {
  const w = doc.graphml;
  const notes: ConvertNote[] = [];
  const empty = { document: { format: 'yaml' as const, file: doc.file, entries: [] }, notes, converted: 0 };
  const type = w.witnessType;
  if (type !== 'violation_witness' && type !== 'false_witness' && type !== 'FALSE') {
    notes.push({ message: `GraphML ${type ?? 'witness without witness-type'}: only violation witnesses are converted (correctness automata have no 2.0 locations)` });
    return empty;
  }
  const { metadata, hash, spec } = graphmlMetadata(doc, options, notes);
  const r = graphmlToViolationSequence(w, metadata, options.programText !== undefined ? scanProgram(options.programText) : undefined);
  for (const d of r.dropped) notes.push({ message: d });
  if (!r.entry) return empty;
  metadata.uuid = options.uuid ? options.uuid() : nameUuid(`${hash}:${spec}:${w.edges.length}`);
  const converted = r.entry.content.reduce((n, s) => n + s.waypoints.length, 0);
  return { document: { format: 'yaml', file: doc.file, entries: [r.entry] }, notes, converted };
}

/**
 * The 2.0 metadata a GraphML witness's graph data stand for (producer,
 * program and its hash, specification, data model). 2.0 requires the
 * program's SHA-256: a missing or malformed programhash is taken from the
 * given program (reported in `notes`), and without the program it is an
 * error. The UUID is left empty for the caller.
 */
export function graphmlMetadata(doc: Extract<WitnessDocument, { format: 'graphml' }>, options: Pick<ConvertOptions, 'programText' | 'creationTime'>, notes: ConvertNote[]): { metadata: Metadata; hash: string; spec: string } {
  const w = doc.graphml;
  const programFile = graphValue(w, 'programfile') ?? '';
  const recorded = graphValue(w, 'programhash') ?? '';
  // 2.0 requires the program's hash: the given program supplies a missing or malformed one.
  const hashOk = /^[0-9a-fA-F]{64}$/.test(recorded);
  if (!hashOk && options.programText === undefined) {
    throw new TarsierError('convert', `programhash '${recorded}' is not a SHA-256 hash; give the program (--program) to compute input_file_hashes`, { file: doc.file });
  }
  const hash = hashOk ? recorded.toLowerCase() : sha256OfText(options.programText!);
  if (!hashOk) notes.push({ message: `programhash '${recorded}' is not a SHA-256 hash; input_file_hashes is the SHA-256 of the given program` });
  const producerText = graphValue(w, 'producer') ?? 'unknown';
  const m = /^(.*?)\s+(\S*\d\S*)$/.exec(producerText);
  const created = graphValue(w, 'creationtime');
  const spec = w.graphData.filter((d) => d.key === 'specification').map((d) => d.value.trim()).join('\n');
  const fileName = programFile.replace(/^.*\//, '');
  if (programFile !== fileName) notes.push({ message: `programfile '${programFile}' is recorded by its base name '${fileName}'` });
  const metadata: Metadata = {
    format_version: '2.0',
    uuid: '',
    creation_time: options.creationTime ?? (created && /[zZ]|[+-]\d\d:\d\d$/.test(created) ? created : created ? `${created}Z` : '1970-01-01T00:00:00Z'),
    producer: m ? { name: m[1], version: m[2] } : { name: producerText, version: 'unknown' },
    task: {
      input_files: [fileName],
      input_file_hashes: { [fileName]: hash },
      specification: spec,
      data_model: graphValue(w, 'architecture') === '64bit' ? 'LP64' : 'ILP32',
      language: 'C',
    },
  };
  return { metadata, hash, spec };
}

/** A version-5-style UUID from a name (deterministic output without a UUID source). */
export function nameUuid(name: string): string {
  if (!name) return randomUUID();
  const h = createHash('sha256').update(`tarsier-convert:${name}`).digest('hex');
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Converts a 2.x violation witness to GraphML 1.0 (the format validators
 * that read only GraphML need): one chain of states, one edge per follow
 * waypoint, the last state marked `violation` (`violationSequenceToGraphml`).
 * Avoid waypoints and 2.x assumptions cannot be said in GraphML and are
 * reported in `notes`; the result represents more executions, never fewer.
 * The callee of a `function_return` or `function_enter` waypoint (GraphML
 * names it) is found in the program: without the program such a witness is
 * refused. Correctness witnesses and cycle (non-termination) sequences are
 * not converted.
 */
export function convertToGraphml(doc: WitnessDocument, options: Pick<ConvertOptions, 'programText'> = {}): { graphml?: GraphmlWitness; notes: ConvertNote[] } {
  const notes: ConvertNote[] = [];
  if (doc.format === 'graphml') return { graphml: doc.graphml, notes };
  const sequences = doc.entries.filter((e): e is ViolationSequenceEntry => !('unknown' in e) && e.entry_type === 'violation_sequence');
  for (const e of doc.entries) if (!sequences.includes(e as ViolationSequenceEntry)) notes.push({ at: e.at, message: `${e.entry_type}: only violation sequences are converted to GraphML` });
  if (sequences.length !== 1) {
    notes.push({ message: `the witness has ${sequences.length} violation sequences; one is converted` });
    return { notes };
  }
  const entry = sequences[0]!;
  const waypoints = entry.content.flatMap((s) => s.waypoints);
  if (waypoints.some((w) => w.action === 'cycle')) {
    notes.push({ at: entry.at, message: 'a non-termination witness (cycle waypoints) is not converted to GraphML' });
    return { notes };
  }
  const calls = waypoints.filter((w) => w.action === 'follow' && (w.type === 'function_return' || w.type === 'function_enter'));
  if (calls.length > 0 && options.programText === undefined) {
    notes.push({ at: calls[0]!.at, message: 'GraphML names the function a value is returned from or entered; give the program (--program) to find it' });
    return { notes };
  }
  const programFile = entry.metadata.task?.input_files[0] ?? '';
  const { graphml, dropped } = violationSequenceToGraphml(entry, programFile, options.programText !== undefined ? scanProgram(options.programText) : undefined);
  notes.push(...dropped.map((message) => ({ message: `not expressible in GraphML, left out: ${message}` })));
  return { graphml, notes };
}

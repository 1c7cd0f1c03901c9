// `select` on C: the program of a task file (or of a C file with a
// property) resolved, parsed and lowered, the candidates read from a YAML
// witness and bound to its loops (or made by the caller), and selected on
// the lowered program (`selectCInvariants`). The CLI, the browser playground
// and the bench script all select through `select`.
import type { DataModel } from '../common/data-model.js';
import { readTextFile } from '../common/files.js';
import { parseCFile, type CProgram } from '../c/index.js';
import { lowerProgram, type LoweredProgram } from '../lower/index.js';
import { passesOf, preferredProperties, preferredProperty } from '../properties/index.js';
import { resolveInput, type InputOptions } from '../properties/resolve.js';
import type { PropertyKind } from '../task/property.js';
import type { Entry, WitnessDocument } from '../witness/model.js';
import { sha256OfFile } from '../witness/metadata.js';
import { readWitness } from '../witness/read.js';
import { type CCandidate, type CSelectResult, cCandidatesFromWitness, selectCInvariants } from './c-candidates.js';
import type { SelectOptions } from './select.js';

export interface PreparedC {
  readonly program: CProgram;
  readonly lowered: LoweredProgram;
  readonly dataModel: DataModel;
  readonly property: PropertyKind;
  /** Set when the task's properties are none the lowering checks. */
  readonly propertyUnsupported?: string;
}

/** True for the inputs `tarsier select` treats as C: `.c`, `.i`, or a task file (`.yml`, `.yaml`). */
export function isCInput(path: string): boolean {
  return /\.(c|i|ya?ml)$/i.test(path);
}

/**
 * Parses and lowers a C program or the program of a task file (resolved as
 * `verify` does). The data model is the option's, else the task's, else
 * ILP32; the property is the one asked for, else the first of the task's
 * that the property table prefers (a plain C file: the table's first
 * preference, unreach-call).
 */
export function prepareCProgram(input: string, options: InputOptions = {}): PreparedC {
  const asked = options.property !== undefined || options.prp !== undefined || options.propertyDetails !== undefined;
  const isTask = /\.ya?ml$/i.test(input);
  const first = preferredProperties()[0]!;
  const r = resolveInput(input, asked || isTask ? options : { ...options, property: first });
  const kinds = asked ? [r.property.kind] : r.properties.map((p) => p.kind);
  const chosen = preferredProperty(kinds);
  const property = chosen ?? first;
  // A program given itself keeps its name as given (messages and positions name it so).
  const program = parseCFile(isTask ? r.program : input, { dataModel: r.dataModel });
  const lowered = lowerProgram(program, { passes: passesOf(property), dataModel: r.dataModel });
  const propertyUnsupported = chosen ? undefined : `the task's property ${kinds[0]} is not checked by select (${preferredProperties().join(' and ')} are)`;
  return { program, lowered, dataModel: r.dataModel, property, ...(propertyUnsupported ? { propertyUnsupported } : {}) };
}

export interface SelectCOptions extends InputOptions, SelectOptions {
  /** The candidates: the path of a YAML witness with loop invariants, or a function that makes them for the prepared program. */
  readonly candidates: string | ((prepared: PreparedC) => readonly CCandidate[]);
  /** Warnings and notes about the witness, one line each (`warning: ...`, `note: ...`). */
  readonly log?: (line: string) => void;
}

export interface CSelection extends CSelectResult {
  readonly prepared: PreparedC;
}

/** Selects the valid loop invariants among candidates of a C program or task: the library function of `tarsier select` on C. */
export async function select(input: string, options: SelectCOptions): Promise<CSelection> {
  const { candidates: source, log, property, prp, propertyDetails, dataModel, ...selectOptions } = options;
  const prepared = prepareCProgram(input, { property, prp, propertyDetails, dataModel });
  let candidates: readonly CCandidate[];
  if (typeof source === 'string') {
    const doc = readWitness(readTextFile(source), source);
    if (log) {
      const file = prepared.program.file;
      const mismatch = witnessProgramMismatch(doc, file, sha256OfFile(file));
      if (mismatch) log(`warning: ${mismatch}`);
      for (const n of ignoredWitnessContent(doc)) log(`note: ${n}`);
    }
    candidates = cCandidatesFromWitness(doc, prepared.program);
  } else candidates = source(prepared);
  const { propertyUnsupported } = prepared;
  const result = await selectCInvariants(prepared.program, prepared.lowered, candidates, { ...selectOptions, ...(propertyUnsupported ? { propertyUnsupported } : {}) });
  return { ...result, prepared };
}

/** What a candidate witness holds that `cCandidatesFromWitness` does not use, one line each (for notes). */
export function ignoredWitnessContent(doc: WitnessDocument): string[] {
  if (doc.format !== 'yaml') return [];
  const counts = new Map<string, number>();
  const count = (what: string) => counts.set(what, (counts.get(what) ?? 0) + 1);
  for (const e of doc.entries as Entry[]) {
    if ('unknown' in e) count(`unreadable ${e.entry_type || 'entry'} entries`);
    else if (e.entry_type === 'invariant_set') {
      for (const item of e.content) if (item.kind !== 'loop_invariant') count(`${item.kind} items of invariant_set`);
    } else if (e.entry_type !== 'loop_invariant') count(`${e.entry_type} entries`);
  }
  return [...counts].map(([what, n]) => `${what}: ${n} ignored (only loop invariants are candidates)`);
}

/**
 * Whether the witness names another program than `programFile` with the
 * text `programText`: a differing hash, or else a differing file name.
 */
export function witnessProgramMismatch(doc: WitnessDocument, programFile: string, programHash: string): string | undefined {
  if (doc.format !== 'yaml') return undefined;
  for (const e of doc.entries as Entry[]) {
    if ('unknown' in e) continue;
    const task = e.metadata.task;
    if (!task) continue;
    const hashes = Object.values(task.input_file_hashes ?? {}).filter((h) => /^[0-9a-f]{64}$/i.test(h));
    if (hashes.length > 0) {
      if (!hashes.some((h) => h.toLowerCase() === programHash)) return `the witness is for another program: its input_file_hashes do not include the SHA-256 of ${programFile}`;
      continue;
    }
    const names = (task.input_files ?? []).map((f) => f.split('/').pop());
    if (names.length > 0 && !names.includes(programFile.split('/').pop())) return `the witness is for another program: it names ${names.join(', ')}, not ${programFile.split('/').pop()}`;
  }
  return undefined;
}

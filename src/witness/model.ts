/**
 * The in-memory model of verification witnesses of every format version:
 * YAML 0.1 (entries and certificates), 2.0 (invariant_set, violation_sequence),
 * 2.1 (ghosts, contracts, transition invariants, cycles) and GraphML 1.0.
 *
 * Field names follow the format documents (snake_case) so that the model reads
 * like the files. Every record read from a file carries `at`, its position in
 * the witness file (1-based line and column), for messages; writers ignore it.
 * Locations keep the column exactly as written together with its base
 * (`columnBase` 0 for 0.1 entries, 1 for 2.x); `toOneBasedColumn` converts.
 */

/** A position in the witness file itself, for messages. */
export interface WitnessPos {
  readonly line: number;
  readonly column: number;
}

/** The source text of `format_version` (`"2.0"`, not the number 2). */
export type FormatVersion = '0.1' | '2.0' | '2.1' | '2.1-goblint' | '2.2' | (string & {});

export interface Producer {
  name: string;
  version?: string;
  configuration?: string;
  command_line?: string;
  description?: string;
}

export type WitnessDataModel = 'ILP32' | 'LP64';

export interface WitnessTask {
  input_files: string[];
  /** Insertion order is kept (it is the file's order); the writer keeps it. */
  input_file_hashes: Record<string, string>;
  specification?: string;
  data_model?: WitnessDataModel | (string & {});
  language?: string;
}

export interface Metadata {
  format_version: FormatVersion;
  uuid: string;
  creation_time: string;
  producer: Producer;
  /** Absent in 0.1 certificates. */
  task?: WitnessTask;
  at?: WitnessPos;
}

export interface Location {
  file_name: string;
  line: number;
  /** As written: 0-based when `columnBase` is 0 (format 0.1), 1-based otherwise. */
  column?: number;
  function?: string;
  /** 0.1 only. */
  file_hash?: string;
  columnBase: 0 | 1;
  at?: WitnessPos;
}

export type ExprFormat = 'C' | 'c_expression' | 'acsl_expression' | 'ext_c_expression' | (string & {});

/** An expression with its format (0.1 `string`/`type`/`format`, 2.x `value`/`format`). */
export interface Expr {
  text: string;
  format: ExprFormat;
  at?: WitnessPos;
}

// ---------------------------------------------------------------- 0.1 entries

export interface LoopInvariantEntry01 {
  entry_type: 'loop_invariant' | 'location_invariant';
  metadata: Metadata;
  location: Location;
  /** `loop_invariant` / `location_invariant` record; `type` is always `assertion`. */
  invariant: Expr;
  at?: WitnessPos;
}

export interface PreconditionLoopInvariantEntry01 {
  entry_type: 'precondition_loop_invariant';
  metadata: Metadata;
  location: Location;
  invariant: Expr;
  precondition: Expr;
  at?: WitnessPos;
}

export interface FlowInsensitiveInvariantEntry01 {
  entry_type: 'flow_insensitive_invariant';
  metadata: Metadata;
  invariant: Expr;
  at?: WitnessPos;
}

export type CertificateEntryType =
  | 'loop_invariant_certificate'
  | 'precondition_loop_invariant_certificate'
  | 'invariant_certificate';

export interface CertificateEntry01 {
  entry_type: CertificateEntryType;
  metadata: Metadata;
  target: { uuid: string; type: string; file_hash: string; at?: WitnessPos };
  certification: { string: 'confirmed' | 'rejected' | (string & {}); type: string; format: string; at?: WitnessPos };
  at?: WitnessPos;
}

// ---------------------------------------------------------------- 2.x entries

export type LocatedInvariantKind =
  | 'loop_invariant'
  | 'location_invariant'
  | 'loop_transition_invariant'
  | 'location_transition_invariant';

export interface LocatedInvariant {
  kind: LocatedInvariantKind;
  location: Location;
  value: Expr;
  labels?: string[];
  at?: WitnessPos;
}

/** Goblint's `2.1-goblint` extension: no location. */
export interface FlowInsensitiveInvariant {
  kind: 'flow_insensitive_invariant';
  value: Expr;
  labels?: string[];
  at?: WitnessPos;
}

export interface FunctionContract {
  kind: 'function_contract';
  location: Location;
  requires: string;
  ensures: string;
  format: ExprFormat;
  labels?: string[];
  /** `contract` (Goblint's shape, what we write) or `invariant` (CPAchecker's wrapper). */
  wrapper: 'contract' | 'invariant';
  at?: WitnessPos;
}

export type SetItem = LocatedInvariant | FlowInsensitiveInvariant | FunctionContract;

export interface InvariantSetEntry {
  entry_type: 'invariant_set';
  metadata: Metadata;
  content: SetItem[];
  at?: WitnessPos;
}

export type WaypointType = 'assumption' | 'target' | 'function_enter' | 'function_return' | 'branching';
export type WaypointAction = 'follow' | 'avoid' | 'cycle';

export interface Constraint {
  /** A string for expressions; `true`/`false`/an integer/`default` for branchings (kept as written). */
  value: string | boolean | number;
  format?: ExprFormat;
  at?: WitnessPos;
}

export interface Waypoint {
  type: WaypointType | (string & {});
  action: WaypointAction | (string & {});
  location: Location;
  constraint?: Constraint;
  at?: WitnessPos;
}

export interface Segment {
  waypoints: Waypoint[];
  at?: WitnessPos;
}

export interface ViolationSequenceEntry {
  entry_type: 'violation_sequence';
  metadata: Metadata;
  content: Segment[];
  at?: WitnessPos;
}

export interface GhostVariable {
  name: string;
  scope: string;
  type: string;
  initial: Expr;
  at?: WitnessPos;
}

export interface GhostUpdate {
  variable: string;
  value: Expr;
  at?: WitnessPos;
}

export interface GhostUpdateGroup {
  location: Location;
  updates: GhostUpdate[];
  at?: WitnessPos;
}

export interface GhostInstrumentationEntry {
  entry_type: 'ghost_instrumentation';
  metadata: Metadata;
  content: { ghost_variables: GhostVariable[]; ghost_updates: GhostUpdateGroup[] };
  at?: WitnessPos;
}

/** An entry the reader could not map: unknown type, or a required part missing. */
export interface UnknownEntry {
  entry_type: string;
  unknown: true;
  /** Why it could not be read, for messages. */
  reason: string;
  metadata?: Metadata;
  raw: unknown;
  at?: WitnessPos;
}

export type Entry =
  | LoopInvariantEntry01
  | PreconditionLoopInvariantEntry01
  | FlowInsensitiveInvariantEntry01
  | CertificateEntry01
  | InvariantSetEntry
  | ViolationSequenceEntry
  | GhostInstrumentationEntry
  | UnknownEntry;

// ---------------------------------------------------------------- GraphML 1.0

export interface GraphmlKey {
  id: string;
  for: string;
  attrName?: string;
  attrType?: string;
  default?: string;
}

export interface GraphmlNode {
  id: string;
  /** Data by key id, defaults not applied (see `graphmlNodeData`). */
  data: Record<string, string>;
  at?: WitnessPos;
}

export interface GraphmlEdge {
  source: string;
  target: string;
  data: Record<string, string>;
  at?: WitnessPos;
}

export interface GraphmlWitness {
  witnessType?: 'violation_witness' | 'correctness_witness' | (string & {});
  keys: GraphmlKey[];
  /** Graph data by key; `specification` may occur several times. */
  graphData: Array<{ key: string; value: string; at?: WitnessPos }>;
  nodes: GraphmlNode[];
  edges: GraphmlEdge[];
}

// ---------------------------------------------------------------- documents

export type WitnessDocument =
  | { format: 'yaml'; file: string; entries: Entry[] }
  | { format: 'graphml'; file: string; graphml: GraphmlWitness };

export type WitnessKind = 'correctness' | 'violation' | 'mixed' | 'empty';

/** Correctness or violation, as §1 item 4 decides it. */
export function witnessKind(doc: WitnessDocument): WitnessKind {
  if (doc.format === 'graphml') {
    const t = doc.graphml.witnessType;
    return t === 'violation_witness' || t === 'false_witness' || t === 'FALSE'
      ? 'violation'
      : t === 'correctness_witness' || t === 'true_witness' || t === 'TRUE'
        ? 'correctness'
        : 'empty';
  }
  const known = doc.entries.filter((e) => !('unknown' in e));
  if (known.length === 0) return 'empty';
  const violations = known.filter((e) => e.entry_type === 'violation_sequence').length;
  return violations === 0 ? 'correctness' : violations === known.length ? 'violation' : 'mixed';
}

/** The column of a location counted from 1 (the common convention), or undefined when absent. */
export function toOneBasedColumn(loc: Location): number | undefined {
  return loc.column === undefined ? undefined : loc.column + (loc.columnBase === 0 ? 1 : 0);
}

/** Removes the `at` positions (recursively), e.g. to compare models. */
export function stripPositions<T>(value: T): T {
  if (Array.isArray(value)) return value.map(stripPositions) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (k !== 'at') out[k] = stripPositions(v);
    return out as T;
  }
  return value;
}

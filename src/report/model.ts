/**
 * The facts a report page shows, as one plain value: the program's lines, the
 * witness's lines, every invariant and waypoint pinned at its program
 * position with its YAML (or XML) lines and the lint diagnostics that fall
 * inside them, the order of a violation path, and everything lint said.
 * Built from texts only, so that the command line and the browser
 * playground compute the same thing.
 */
import { listProgramLocations, type CProgram } from '../c/index.js';
import { TarsierError } from '../common/errors.js';
import { graphmlViolationPath, nodeValue } from '../witness/graphml.js';
import {
  lintWitness,
  looksLikeXml,
  readWitness,
  sortDiagnostics,
  toOneBasedColumn,
  witnessKind,
  type Diagnostic,
  type Entry,
  type GraphmlWitness,
  type LintOptions,
  type Location,
  type WitnessDocument,
  type WitnessPos,
} from '../witness/index.js';

export type MarkerCategory = 'invariant' | 'contract' | 'waypoint' | 'ghost' | 'unlocated';

/** One thing the witness says about one program position. */
export interface ReportMarker {
  /** Index into `ReportData.markers`. */
  readonly id: number;
  readonly category: MarkerCategory;
  /** What it is, in the format's words: `loop_invariant`, `assumption (follow)`, `GraphML edge`. */
  readonly kind: string;
  /** The expression, constraint or guard it carries ('' when none). */
  readonly text: string;
  /** Program position, 1-based; `column` undefined when the witness gives the line only. */
  readonly line?: number;
  readonly column?: number;
  /** The column as written when it is not 1-based (format 0.1), for the details. */
  readonly columnNote?: string;
  readonly function?: string;
  /** Position in a violation path, from 1. */
  readonly step?: number;
  /** For a `function_return` at a `__VERIFIER_nondet_*` call: the call's name. */
  readonly nondetCall?: string;
  /** The witness lines (1-based, inclusive) that define it. */
  readonly source: { readonly from: number; readonly to: number };
  /** Lint diagnostics inside those lines. */
  readonly diagnostics: readonly Diagnostic[];
  /** False when the line (or column) lies outside the program. */
  readonly inProgram: boolean;
  /** What a check of it found (select: `selected`, `rejected: not preserved`; validate: `confirmed`, `refuted: …`), when one ran. */
  readonly status?: string;
}

export interface ReportData {
  readonly program: { readonly file: string; readonly lines: readonly string[]; readonly parseError?: string };
  readonly witness: {
    readonly file: string;
    readonly lines: readonly string[];
    readonly format: 'yaml' | 'graphml';
    /** `violation`, `correctness`, `mixed`, `empty`, `unreadable`, or `none` (a blank text where a witness may be missing). */
    readonly kind: string;
    readonly versions: readonly string[];
    readonly producer?: string;
  };
  /** Why the witness could not be read at all (syntax), as `file:line:column: error: message`. */
  readonly fatal?: string;
  readonly markers: readonly ReportMarker[];
  /** Marker ids of the violation path, in order. */
  readonly path: readonly number[];
  /** Diagnostics that belong to no marker (metadata, syntax, whole-file checks). */
  readonly general: readonly Diagnostic[];
  /** Every diagnostic, sorted. */
  readonly diagnostics: readonly Diagnostic[];
  /** The outcome of a validation of the witness, when one ran. */
  readonly validation?: ReportValidation;
}

/** A validation's outcome as the report's header shows it (the per-entry statuses go in `statuses`). */
export interface ReportValidation {
  readonly outcome: string;
  readonly verdict: string;
  readonly reason: string;
  readonly kind?: 'violation' | 'correctness';
  readonly counterexample?: readonly string[];
  readonly where?: 'browser' | 'server';
}

export interface ReportInput {
  readonly programText: string;
  readonly programFile: string;
  readonly witnessText: string;
  readonly witnessFile: string;
  /** The parsed program, when it parses: enables scope checks and names nondet calls. */
  readonly program?: CProgram;
  /** Why the program did not parse, shown on the page. */
  readonly programError?: string;
  /** A blank witness text is no witness yet (the playground before one is pasted), not an unreadable one. */
  readonly witnessMayBeMissing?: boolean;
  /** Results of a check (select, validate) by the witness line of the entry they concern. */
  readonly statuses?: ReadonlyArray<{ readonly witnessLine: number; readonly status: string }>;
  readonly validation?: ReportValidation;
  /** Passed to the linter (the C front end's expression checker, the program's hash). */
  readonly lint?: Pick<LintOptions, 'checkExpression' | 'programHash'>;
}

/** Builds the report of a witness on its program. Never throws for bad witness content. */
export function buildReport(input: ReportInput): ReportData {
  const witnessLines = splitLines(input.witnessText);
  const programLines = splitLines(input.programText);
  if (input.witnessMayBeMissing && input.witnessText.trim() === '') {
    return {
      program: { file: input.programFile, lines: programLines, ...(input.programError ? { parseError: input.programError } : {}) },
      witness: { file: input.witnessFile, lines: witnessLines, format: 'yaml', kind: 'none', versions: [] },
      markers: [],
      path: [],
      general: [],
      diagnostics: [],
      ...(input.validation ? { validation: input.validation } : {}),
    };
  }
  const diagnostics = sortDiagnostics(
    lintWitness(input.witnessText, input.witnessFile, {
      programText: input.programText,
      programFile: input.programFile,
      ...input.lint,
    }),
  );
  let doc: WitnessDocument | undefined;
  let fatal: string | undefined;
  try {
    doc = readWitness(input.witnessText, input.witnessFile);
  } catch (e) {
    if (!(e instanceof TarsierError)) throw e;
    fatal = e.format();
  }
  const format = doc?.format ?? (looksLikeXml(input.witnessText) ? 'graphml' : 'yaml');
  const drafts = doc ? (doc.format === 'yaml' ? yamlMarkers(doc.entries, witnessLines) : graphmlMarkers(doc.graphml, witnessLines)) : [];
  const nondetCalls = input.program ? nondetCallsByPosition(input.program) : new Map<string, string>();
  // Each witness line belongs to the narrowest marker span that holds it: a
  // diagnostic inside a waypoint belongs to it, not to an enclosing record.
  const owner = new Map<number, number>();
  const width = (i: number) => drafts[i].source.to - drafts[i].source.from;
  drafts.forEach((d, i) => {
    for (let l = d.source.from; l <= d.source.to; l++) {
      const o = owner.get(l);
      if (o === undefined || width(i) < width(o)) owner.set(l, i);
    }
  });
  const own: Diagnostic[][] = drafts.map(() => []);
  const general: Diagnostic[] = [];
  for (const x of diagnostics) {
    const o = owner.get(x.line);
    if (o === undefined) general.push(x);
    else own[o].push(x);
  }
  const markers: ReportMarker[] = drafts.map((d, id) => {
    const nondetCall = d.kind.startsWith('function_return') && d.line !== undefined && d.column !== undefined ? nondetCalls.get(`${d.line}:${d.column}`) : undefined;
    const status = input.statuses?.find((x) => x.witnessLine >= d.source.from && x.witnessLine <= d.source.to)?.status;
    return { ...d, id, diagnostics: own[id], inProgram: positionInProgram(programLines, d.line, d.column), ...(nondetCall ? { nondetCall } : {}), ...(status ? { status } : {}) };
  });
  const path = markers.filter((m) => m.step !== undefined).sort((a, b) => a.step! - b.step!).map((m) => m.id);
  return {
    program: { file: input.programFile, lines: programLines, ...(input.programError ? { parseError: input.programError } : {}) },
    witness: {
      file: input.witnessFile,
      lines: witnessLines,
      format,
      kind: doc ? witnessKind(doc) : 'unreadable',
      versions: doc ? versionsOf(doc) : [],
      ...(doc && producerOf(doc) ? { producer: producerOf(doc) } : {}),
    },
    ...(fatal ? { fatal } : {}),
    markers,
    path,
    general,
    diagnostics,
    ...(input.validation ? { validation: input.validation } : {}),
  };
}

type MarkerDraft = Omit<ReportMarker, 'id' | 'diagnostics' | 'inProgram' | 'nondetCall' | 'status'>;

function splitLines(text: string): string[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function positionInProgram(lines: readonly string[], line?: number, column?: number): boolean {
  if (line === undefined) return false;
  if (line < 1 || line > lines.length) return false;
  return column === undefined || (column >= 1 && column <= lines[line - 1].length + 1);
}

/** `line:column` of the `)` of every `__VERIFIER_nondet_*` call, to its callee. */
function nondetCallsByPosition(program: CProgram): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of listProgramLocations(program).calls) {
    if (c.callee?.startsWith('__VERIFIER_nondet_')) out.set(`${c.rparenLoc.line}:${c.rparenLoc.column}`, c.callee);
  }
  return out;
}

function versionsOf(doc: WitnessDocument): string[] {
  if (doc.format === 'graphml') return ['GraphML ' + (doc.graphml.graphData.find((d) => d.key === 'witness-format-version')?.value ?? '1.0')];
  const vs = new Set<string>();
  for (const e of doc.entries) if (e.metadata) vs.add(String(e.metadata.format_version));
  return [...vs];
}

function producerOf(doc: WitnessDocument): string | undefined {
  if (doc.format === 'graphml') return doc.graphml.graphData.find((d) => d.key === 'producer')?.value;
  const p = doc.entries.find((e) => e.metadata)?.metadata?.producer;
  return p ? [p.name, p.version].filter(Boolean).join(' ') : undefined;
}

// ------------------------------------------------------------------ YAML

/**
 * The witness lines of a YAML record that starts at `at`: its first line and
 * every following line indented at least as far (blank lines included),
 * plus the `- waypoint:`/`- segment:` key line just above, which names it.
 */
function yamlSpan(lines: readonly string[], at: WitnessPos | undefined): { from: number; to: number } {
  if (!at) return { from: 0, to: -1 };
  const indent = at.column - 1;
  let to = at.line;
  for (let l = at.line + 1; l <= lines.length; l++) {
    const text = lines[l - 1];
    if (text.trim() === '' || text.trimStart().startsWith('#')) continue;
    if (text.length - text.trimStart().length < indent) break;
    to = l;
  }
  const above = lines[at.line - 2];
  const from = above !== undefined && /^\s*(-\s*)?[A-Za-z_]+:\s*$/.test(above) && above.length - above.trimStart().length < indent ? at.line - 1 : at.line;
  return { from, to };
}

function located(loc: Location): Pick<MarkerDraft, 'line' | 'column' | 'columnNote' | 'function'> {
  const column = toOneBasedColumn(loc);
  return {
    line: loc.line,
    ...(column !== undefined ? { column } : {}),
    ...(loc.columnBase === 0 && loc.column !== undefined ? { columnNote: `format 0.1 column ${loc.column} (counted from 0)` } : {}),
    ...(loc.function ? { function: loc.function } : {}),
  };
}

function yamlMarkers(entries: readonly Entry[], lines: readonly string[]): MarkerDraft[] {
  const out: MarkerDraft[] = [];
  let step = 0;
  const span = (at: WitnessPos | undefined) => yamlSpan(lines, at);
  for (const e of entries) {
    if ('unknown' in e) {
      out.push({ category: 'unlocated', kind: `${e.entry_type || 'entry'} (not read: ${e.reason})`, text: '', source: span(e.at) });
      continue;
    }
    switch (e.entry_type) {
      case 'loop_invariant':
      case 'location_invariant':
        out.push({ category: 'invariant', kind: e.entry_type, text: e.invariant.text, ...located(e.location), source: span(e.at) });
        break;
      case 'precondition_loop_invariant':
        out.push({ category: 'invariant', kind: e.entry_type, text: `${e.precondition.text} ==> ${e.invariant.text}`, ...located(e.location), source: span(e.at) });
        break;
      case 'flow_insensitive_invariant':
        out.push({ category: 'unlocated', kind: e.entry_type, text: e.invariant.text, source: span(e.at) });
        break;
      case 'loop_invariant_certificate':
      case 'precondition_loop_invariant_certificate':
      case 'invariant_certificate':
        out.push({ category: 'unlocated', kind: e.entry_type, text: `${e.certification.string} (target ${e.target.uuid})`, source: span(e.at) });
        break;
      case 'invariant_set':
        for (const item of e.content) {
          if (item.kind === 'flow_insensitive_invariant') out.push({ category: 'unlocated', kind: item.kind, text: item.value.text, source: span(item.at) });
          else if (item.kind === 'function_contract') {
            out.push({ category: 'contract', kind: item.kind, text: `requires ${item.requires}; ensures ${item.ensures}`, ...located(item.location), source: span(item.at) });
          } else out.push({ category: 'invariant', kind: item.kind, text: item.value.text, ...located(item.location), source: span(item.at) });
        }
        break;
      case 'violation_sequence':
        for (const seg of e.content) {
          for (const wp of seg.waypoints) {
            out.push({
              category: 'waypoint',
              kind: `${wp.type} (${wp.action})`,
              text: wp.constraint ? String(wp.constraint.value) : '',
              ...located(wp.location),
              step: ++step,
              source: span(wp.at),
            });
          }
        }
        break;
      case 'ghost_instrumentation':
        for (const v of e.content.ghost_variables) {
          out.push({ category: 'unlocated', kind: 'ghost variable', text: `${v.type} ${v.name} = ${v.initial.text} (${v.scope})`, source: span(v.at) });
        }
        for (const g of e.content.ghost_updates) {
          out.push({ category: 'ghost', kind: 'ghost update', text: g.updates.map((u) => `${u.variable} = ${u.value.text}`).join('; '), ...located(g.location), source: span(g.at) });
        }
        break;
    }
  }
  return out;
}

// ------------------------------------------------------------------ GraphML

/** The lines of an XML element starting at `at`: up to its closing tag (or `/>`). */
function xmlSpan(lines: readonly string[], at: WitnessPos | undefined, tag: string): { from: number; to: number } {
  if (!at) return { from: 0, to: -1 };
  for (let l = at.line; l <= lines.length; l++) {
    const text = l === at.line ? lines[l - 1].slice(at.column - 1) : lines[l - 1];
    if (text.includes(`</${tag}>`) || (l === at.line && /^<[^>]*\/>/.test(text))) return { from: at.line, to: l };
  }
  return { from: at.line, to: at.line };
}

function graphmlMarkers(w: GraphmlWitness, lines: readonly string[]): MarkerDraft[] {
  const out: MarkerDraft[] = [];
  if (w.witnessType === 'violation_witness' || w.witnessType === 'false_witness') {
    const path = graphmlViolationPath(w) ?? [];
    let step = 0;
    for (const e of path) {
      const line = Number(e.data.startline);
      const parts = [
        e.data.control ? `[${e.data.control === 'condition-true' ? 'then' : e.data.control === 'condition-false' ? 'else' : e.data.control}]` : '',
        e.data.assumption ?? '',
        e.data.enterFunction ? `enter ${e.data.enterFunction}` : '',
        e.data.returnFrom ? `return from ${e.data.returnFrom}` : '',
      ].filter(Boolean);
      out.push({
        category: Number.isInteger(line) && line > 0 ? 'waypoint' : 'unlocated',
        kind: `edge ${e.source} → ${e.target}`,
        text: parts.join(' '),
        ...(Number.isInteger(line) && line > 0 ? { line } : {}),
        ...(e.data['assumption.scope'] ? { function: e.data['assumption.scope'] } : {}),
        step: ++step,
        source: xmlSpan(lines, e.at, 'edge'),
      });
    }
    return out;
  }
  // Correctness: an invariant holds at a node, that is before the steps that leave it
  // (shown at their lines) or, for a node without located exits, after the steps that enter it.
  const linesOf = (edges: typeof w.edges) => [...new Set(edges.map((e) => Number(e.data.startline)).filter((l) => Number.isInteger(l) && l > 0))];
  for (const n of w.nodes) {
    const inv = nodeValue(w, n, 'invariant');
    if (!inv) continue;
    const scope = nodeValue(w, n, 'invariant.scope');
    const leaving = linesOf(w.edges.filter((e) => e.source === n.id));
    const entering = leaving.length ? [] : linesOf(w.edges.filter((e) => e.target === n.id));
    const source = xmlSpan(lines, n.at, 'node');
    if (leaving.length + entering.length === 0) out.push({ category: 'unlocated', kind: `node ${n.id}`, text: inv, source });
    for (const [list, word] of [[leaving, 'before'], [entering, 'after']] as const) {
      for (const line of list) out.push({ category: 'invariant', kind: `node ${n.id} (${word} the step on line ${line})`, text: inv, line, ...(scope ? { function: scope } : {}), source });
    }
  }
  return out;
}

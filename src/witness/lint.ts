import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { isMap, isScalar, isSeq } from 'yaml';
import { isResultComparison, checkCExpression } from './cexpr.js';
import { DiagnosticSink, sortDiagnostics, type Diagnostic } from './diagnostics.js';
import { graphValue, lintGraphml } from './graphml.js';
import { sha256OfText } from './metadata.js';
import type { Entry, Expr, Location, Metadata, ViolationSequenceEntry, WitnessPos } from './model.js';
import { checkBranchingValue, checkProgramLocation, checkGhostNameClash, undeclaredNames, type LocationRole } from './program-checks.js';
import { scanProgram, type ProgramView } from './program-tokens.js';
import { looksLikeXml, readEntry } from './read.js';
import { entryValidator, locate, schemaCheckEntry, type SchemaVersion } from './schema.js';
import { deref, field, nodePos, parseYamlSource, scalarText, WITNESS_LIMITS, type YamlSource } from './yaml-source.js';

/** What a `checkExpression` hook is told about an expression. */
export interface ExpressionContext {
  /** The program location the expression belongs to (column 1-based, converted from 0.1), if it has one. */
  location?: { file: string; line: number; column?: number; function?: string };
  /** `C`, `c_expression`, `acsl_expression` or `ext_c_expression`. */
  format: string;
  /** `invariant`, `precondition`, `assumption`, `function_return`, `ghost-initial`, `ghost-update`, `requires`, `ensures`. */
  role: string;
  /** Ghost variables declared in the witness (visible in 2.1 expressions). */
  ghostVariables: string[];
  /** Where the expression is written in the witness file. */
  witnessPos: WitnessPos;
}

export interface LintOptions {
  /** The program the witness is for; enables the checks of witness-formats.md §9.2. */
  programText?: string;
  /** Its path (for matching `input_files` and for messages). */
  programFile?: string;
  /** SHA-256 of the program's bytes; computed from `programText` (as UTF-8) when absent. */
  programHash?: string;
  /**
   * Hook for the C front end: parse and type-check one expression at its
   * program location. Return undefined when it is fine, else a message; a
   * message starting with a check id and a colon (`undeclared-name: k is not
   * declared`) is reported under that id, any other under `expr-syntax`.
   * Called for every expression that passed the built-in syntax check, with
   * or without a program.
   */
  checkExpression?: (expr: string, loc: ExpressionContext) => string | undefined;
  /** Report problems of metadata that only describes an entry (producer, creation_time, uuid) as warnings: what validators do. */
  lenientMetadata?: boolean;
}

const KNOWN_SPECS = [
  'CHECK( init(main()), LTL(G ! call(reach_error())) )',
  // unreach-call of the tasks written before 2020, whose error function is __VERIFIER_error.
  'CHECK( init(main()), LTL(G ! call(__VERIFIER_error())) )',
  'CHECK( init(main()), LTL(G valid-free) )',
  'CHECK( init(main()), LTL(G valid-deref) )',
  'CHECK( init(main()), LTL(G valid-memtrack) )',
  'CHECK( init(main()), LTL(G valid-memcleanup) )',
  'CHECK( init(main()), LTL(G ! overflow) )',
  'CHECK( init(main()), LTL(G ! data-race) )',
  'CHECK( init(main()), LTL(F end) )',
].map((s) => s.replace(/\s+/g, ''));

const TYPES_01 = new Set([
  'loop_invariant', 'loop_invariant_certificate', 'location_invariant', 'flow_insensitive_invariant',
  'precondition_loop_invariant', 'precondition_loop_invariant_certificate', 'invariant_certificate',
]);
const TYPES_20 = new Set(['invariant_set', 'violation_sequence']);
const TYPES_21 = new Set(['invariant_set', 'violation_sequence', 'ghost_instrumentation']);

interface EntryInfo {
  node: unknown;
  entry: Entry;
  version?: string;
  schema?: SchemaVersion;
}

/**
 * Lints a witness: syntax, schema, the consistency checks of
 * witness-formats.md §9.1 and, given the program, the token-level checks of
 * §9.2. Never throws for bad witness content; a text over the size limit
 * throws a TarsierError (exit status 2).
 */
export function lintWitness(text: string, file: string, options: LintOptions = {}): Diagnostic[] {
  const sink = new DiagnosticSink(file, options.lenientMetadata);
  const program = options.programText !== undefined ? scanProgram(options.programText) : undefined;
  const programHash = options.programHash ?? (options.programText !== undefined ? sha256OfText(options.programText) : undefined);
  if (looksLikeXml(text)) {
    if (text.length > WITNESS_LIMITS.maxChars) parseYamlSource(text, file); // throws the size error
    const w = lintGraphml(text, file, sink);
    for (const d of w?.graphData.filter((x) => x.key === 'specification') ?? []) {
      const checks = d.value.match(/CHECK\s*\(/g)?.length ?? 0;
      if (checks > 1) sink.warn('unknown-specification', d.at, `${checks} properties in one specification element: the SV-COMP linter (witnesslint --svcomp) wants one element per property`);
      else if (!KNOWN_SPECS.includes(d.value.replace(/\s+/g, ''))) sink.warn('unknown-specification', d.at, `specification '${d.value}' is not a known SV-COMP property text`);
    }
    if (w && programHash) {
      const h = graphValue(w, 'programhash');
      const at = w.graphData.find((d) => d.key === 'programhash')?.at;
      if (h && h.length === 64 && h.toLowerCase() !== programHash) {
        sink.error('hash-mismatch', at, `programhash ${h} is not the SHA-256 of the program (${programHash})`);
      }
      // Older witnesses carry SHA-1 (40 hex digits): checked as such when the program's text is at hand.
      const sha1 = options.programText !== undefined ? createHash('sha1').update(options.programText).digest('hex') : undefined;
      if (h && sha1 && /^[0-9a-fA-F]{40}$/.test(h) && h.toLowerCase() !== sha1) {
        sink.error('hash-mismatch', at, `programhash ${h} is not the SHA-1 of the program (${sha1})`);
      }
    }
    if (w && program) {
      for (const e of w.edges) {
        for (const k of ['startline', 'endline'] as const) {
          const n = Number(e.data[k]);
          if (Number.isInteger(n) && (n < 1 || n > program.lines.length)) {
            sink.error('line-beyond-eof', e.at, `${k} ${n} is outside the program (${program.lines.length} lines)`);
          }
        }
      }
    }
    return sortDiagnostics(sink.items);
  }

  const { source, problems } = parseYamlSource(text, file);
  for (const p of problems) sink.error(p.rule, p.at, p.message);
  if (!source || problems.length > 0) return sortDiagnostics(sink.items);
  const src = source;
  const root = deref(src, src.doc.contents);
  if (!isSeq(root)) {
    sink.error('root-not-sequence', nodePos(src, root), `the root must be a sequence of entries, found ${isMap(root) ? 'a mapping' : 'a scalar'}`);
    return sortDiagnostics(sink.items);
  }
  if (root.items.length === 0) {
    sink.error('root-not-sequence', nodePos(src, root), 'the witness has no entries');
    return sortDiagnostics(sink.items);
  }

  const infos: EntryInfo[] = [];
  for (const item of root.items) {
    const node = deref(src, item);
    if (!isMap(node)) {
      sink.error('entry-not-mapping', nodePos(src, node), 'each entry must be a mapping with entry_type and metadata');
      continue;
    }
    const info = checkEntryShape(src, node, sink);
    if (info) infos.push(info);
  }

  // File-level consistency (§1 item 4).
  const versions = new Set(infos.map((i) => i.version).filter((v): v is string => !!v));
  if (versions.size > 1) {
    sink.warn('mixed-versions', nodePos(src, infos[0]?.node), `entries of different format versions in one file (${[...versions].sort().join(', ')}); CPAchecker rejects such files`);
  }
  const known = infos.filter((i) => !('unknown' in i.entry));
  const violations = known.filter((i) => i.entry.entry_type === 'violation_sequence');
  if (violations.length > 0 && violations.length < known.length) {
    const other = known.find((i) => i.entry.entry_type !== 'violation_sequence')!;
    sink.error('mixed-witness-kinds', nodePos(src, other.node), `a violation_sequence and correctness entries (${other.entry.entry_type}) in one file: the witness is neither kind`);
  }
  if (violations.length > 1) sink.warn('multiple-sequences', nodePos(src, violations[1].node), `${violations.length} violation_sequence entries; validators accept exactly one`);
  const uuids = new Map<string, EntryInfo>();
  for (const i of infos) {
    const u = i.entry.metadata?.uuid;
    if (!u) continue;
    const first = uuids.get(u);
    if (first) {
      const at = nodePos(src, locate(src, i.node, ['metadata', 'uuid']).node);
      sink.warn('duplicate-uuid', at, `uuid ${u} is also used by the entry at line ${nodePos(src, first.node)?.line}`);
    } else uuids.set(u, i);
  }

  const ghosts = new Map<string, WitnessPos | undefined>();
  for (const i of known) {
    const ge = i.entry;
    if ('unknown' in ge || ge.entry_type !== 'ghost_instrumentation') continue;
    for (const g of ge.content.ghost_variables) {
      if (ghosts.has(g.name)) sink.error('ghost-duplicate', g.at, `ghost variable '${g.name}' is declared twice (first at line ${ghosts.get(g.name)?.line})`);
      else ghosts.set(g.name, g.at);
    }
  }
  const ctx: Ctx = { src, sink, options, program, programHash, ghosts: [...ghosts.keys()], byUuid: new Map() };
  for (const i of known) if (i.entry.metadata?.uuid) ctx.byUuid.set(i.entry.metadata.uuid, i.entry);

  for (const i of infos) {
    checkTask(ctx, i);
    if ('unknown' in i.entry) continue;
    checkEntrySemantics(ctx, i);
  }
  return sortDiagnostics(sink.items);
}

/** Version, entry type and schema of one entry; returns undefined when it cannot be checked further. */
function checkEntryShape(src: YamlSource, node: unknown, sink: DiagnosticSink): EntryInfo | undefined {
  const at = nodePos(src, node);
  const typeNode = deref(src, field(src, node, 'entry_type'));
  const entryType = scalarText(typeNode);
  if (entryType === undefined) {
    if (typeNode !== undefined && !(isScalar(typeNode) && typeNode.value === null)) sink.error('wrong-type', nodePos(src, typeNode), 'entry_type should be a string');
    else sink.error('missing-required', at, "missing required key 'entry_type' in entry");
  }
  const md = deref(src, field(src, node, 'metadata'));
  const vNode = deref(src, field(src, md, 'format_version'));
  const version = scalarText(vNode);
  if (isScalar(vNode) && typeof vNode.value !== 'string' && version !== undefined) {
    sink.warn('version-not-string', nodePos(src, vNode), `format_version is written as a number; write "${version}" in quotes`);
  }
  let schema: SchemaVersion | undefined;
  if (version === undefined) {
    if (vNode !== undefined && !(isScalar(vNode) && vNode.value === null)) sink.error('wrong-type', nodePos(src, vNode), 'format_version should be a string such as "2.0"');
    else if (isMap(md)) sink.error('missing-required', nodePos(src, md), "missing required key 'format_version' in metadata");
    else if (md === undefined) sink.error('missing-required', at, "missing required key 'metadata' in entry");
    schema = entryType && TYPES_01.has(entryType) ? '0.1' : '2.0';
  } else if (version === '0.1' || version === '2.0' || version === '2.1') schema = version;
  else if (version === '2.1-goblint') {
    sink.warn('vendor-extension', nodePos(src, vNode), 'format_version "2.1-goblint" is a Goblint extension; other tools do not read it');
    schema = '2.1';
  } else if (version === '0.2') {
    // The location-invariant proposal's version: 0.1's entries (location_invariant among them), never specified further.
    sink.warn('unknown-version-accepted', nodePos(src, vNode), 'format_version "0.2" (the location-invariant proposal) is not specified; read as 0.1 (0-based columns)');
    schema = '0.1';
  } else if (version === '2.2') {
    sink.warn('unknown-version-accepted', nodePos(src, vNode), 'format_version "2.2" is not specified; checked as 2.1');
    schema = '2.1';
  } else {
    sink.error('unknown-version', nodePos(src, vNode), `unknown format_version '${version}' (known: 0.1, 2.0, 2.1; read leniently: 0.2 as 0.1, 2.2 as 2.1)`);
  }
  const entry = readEntry(src, node);
  const info: EntryInfo = { node, entry, version, schema };
  if (entryType === undefined || schema === undefined) return info;

  const inVersion = schema === '0.1' ? TYPES_01 : schema === '2.0' ? TYPES_20 : TYPES_21;
  if (!inVersion.has(entryType)) {
    const typeAt = nodePos(src, typeNode);
    if (schema === '2.0' && entryType === 'ghost_instrumentation') {
      sink.error('feature-not-in-version', typeAt, `entry type 'ghost_instrumentation' needs format_version "2.1" (this entry is 2.0)`);
    } else if (TYPES_01.has(entryType) || TYPES_21.has(entryType)) {
      const where = TYPES_01.has(entryType) ? '0.1' : '2.0/2.1';
      sink.error('entry-type-not-in-version', typeAt, `entry type '${entryType}' belongs to format ${where}, not to ${version ?? schema}`);
    } else {
      sink.warn('unknown-entry-type', typeAt, `unknown entry type '${entryType}' in format ${version ?? schema}; the entry is skipped`);
    }
    return { ...info, entry: { entry_type: entryType, unknown: true, reason: 'entry type not in its version', raw: null } };
  }
  const validate = entryValidator(schema, entryType);
  if (!validate) return info;
  const data = (node as { toJS: (doc: unknown, o: unknown) => unknown }).toJS(src.doc, { maxAliasCount: WITNESS_LIMITS.maxAliasCount });
  schemaCheckEntry(src, node, data, schema, validate, sink);
  if (typeof entryType === 'string') {
    const tt = scalarText(deref(src, locate(src, node, ['target', 'type']).node));
    if (tt && tt.includes('-')) {
      sink.warn('legacy-target-type', nodePos(src, locate(src, node, ['target', 'type']).node), `target.type '${tt}' uses the README's hyphen; write '${tt.replace(/-/g, '_')}'`);
    }
  }
  return info;
}

interface Ctx {
  src: YamlSource;
  sink: DiagnosticSink;
  options: LintOptions;
  program?: ProgramView;
  programHash?: string;
  ghosts: string[];
  byUuid: Map<string, Entry>;
}

const norm = (f: string) => f.replace(/^(\.\/)+/, '');

/** input_files / input_file_hashes consistency, specification, program hash (§2.3, §9.2). */
function checkTask(ctx: Ctx, i: EntryInfo): void {
  const { src, sink } = ctx;
  const taskNode = deref(src, locate(src, i.node, ['metadata', 'task']).node);
  if (!isMap(taskNode) || locate(src, i.node, ['metadata', 'task']).key === undefined) return;
  const filesNode = deref(src, field(src, taskNode, 'input_files'));
  const hashesNode = deref(src, field(src, taskNode, 'input_file_hashes'));
  const files: Array<{ name: string; at?: WitnessPos }> = isSeq(filesNode)
    ? filesNode.items.map((n) => ({ name: scalarText(deref(src, n)) ?? '', at: nodePos(src, n) }))
    : scalarText(filesNode) !== undefined
      ? [{ name: scalarText(filesNode)!, at: nodePos(src, filesNode) }]
      : [];
  const hashes = new Map<string, { value: string; at?: WitnessPos; keyAt?: WitnessPos }>();
  if (isMap(hashesNode)) {
    for (const p of hashesNode.items) {
      const k = scalarText(deref(src, p.key));
      if (k !== undefined) hashes.set(k, { value: scalarText(deref(src, p.value)) ?? '', at: nodePos(src, p.value), keyAt: nodePos(src, p.key) });
    }
  }
  if (isMap(hashesNode)) {
    for (const f of files) {
      if (!hashes.has(f.name)) sink.error('hash-key-missing', f.at, `input file '${f.name}' has no entry in input_file_hashes`);
    }
    const names = new Set(files.map((f) => f.name));
    for (const [k, h] of hashes) if (!names.has(k)) sink.warn('hash-key-extra', h.keyAt, `input_file_hashes has a hash for '${k}', which is not in input_files`);
  }
  const specNode = deref(src, field(src, taskNode, 'specification'));
  const spec = scalarText(specNode);
  if (spec !== undefined) {
    const lines = spec.split('\n').map((l) => l.replace(/\s+/g, '')).filter(Boolean);
    if (lines.length === 0 || !lines.every((l) => KNOWN_SPECS.includes(l))) {
      sink.warn('unknown-specification', nodePos(src, specNode), `specification '${spec}' is not a known SV-COMP property text`);
    }
  }
  if (ctx.programHash) {
    const h = programHashEntry(ctx, files.map((f) => f.name), hashes);
    if (h && /^[0-9a-fA-F]{64}$/.test(h.value) && h.value.toLowerCase() !== ctx.programHash) {
      sink.error('hash-mismatch', h.at, `hash ${h.value} is not the SHA-256 of the program (${ctx.programHash})`);
    }
  }
}

/** The recorded hash of the given program: by exact path, then base name, then the only input file. */
function programHashEntry<T>(ctx: Ctx, files: string[], hashes: Map<string, T>): T | undefined {
  const pf = ctx.options.programFile;
  if (pf !== undefined) {
    for (const f of files) if (norm(f) === norm(pf) && hashes.has(f)) return hashes.get(f);
    for (const f of files) if (basename(f) === basename(pf) && hashes.has(f)) return hashes.get(f);
  }
  return files.length === 1 ? hashes.get(files[0]) : undefined;
}

/** Whether a witness location refers to the program given with --program. */
function isProgramFile(ctx: Ctx, md: Metadata | undefined, fileName: string): boolean {
  const files = md?.task?.input_files ?? [];
  const pf = ctx.options.programFile;
  if (pf !== undefined && (norm(fileName) === norm(pf) || basename(fileName) === basename(pf))) return true;
  return files.length <= 1;
}

function checkEntrySemantics(ctx: Ctx, i: EntryInfo): void {
  const e = i.entry;
  if ('unknown' in e) return;
  const md = e.metadata;
  const v = md.format_version;
  const is21 = v !== '0.1' && v !== '2.0';
  const locs: Array<{ loc: Location; role: LocationRole }> = [];
  const exprs: Array<{ expr: Expr; role: string; loc?: Location }> = [];
  switch (e.entry_type) {
    case 'loop_invariant':
    case 'location_invariant':
      locs.push({ loc: e.location, role: e.entry_type === 'loop_invariant' ? 'loop' : 'statement01' });
      exprs.push({ expr: e.invariant, role: 'invariant', loc: e.location });
      break;
    case 'precondition_loop_invariant':
      locs.push({ loc: e.location, role: 'loop' });
      exprs.push({ expr: e.invariant, role: 'invariant', loc: e.location });
      exprs.push({ expr: e.precondition, role: 'precondition', loc: e.location });
      break;
    case 'flow_insensitive_invariant':
      exprs.push({ expr: e.invariant, role: 'invariant' });
      break;
    case 'loop_invariant_certificate':
    case 'precondition_loop_invariant_certificate':
    case 'invariant_certificate': {
      const target = ctx.byUuid.get(e.target.uuid);
      if (!target) {
        ctx.sink.warn('dangling-target', e.target.at, `target.uuid ${e.target.uuid} names no entry in this file`);
      } else {
        if (target.entry_type !== e.target.type) {
          ctx.sink.error('bad-enum', e.target.at, `target.type is '${e.target.type}' but the entry ${e.target.uuid} is a '${target.entry_type}'`);
        }
        const fh = 'location' in target ? (target.location as Location).file_hash : undefined;
        if (fh && e.target.file_hash && fh.toLowerCase() !== e.target.file_hash.toLowerCase() && /^[0-9a-fA-F]{64}$/.test(e.target.file_hash)) {
          ctx.sink.error('hash-mismatch', e.target.at, `target.file_hash differs from the file_hash of the certified entry's location (${fh})`);
        }
      }
      if (ctx.programHash && /^[0-9a-fA-F]{64}$/.test(e.target.file_hash) && e.target.file_hash.toLowerCase() !== ctx.programHash) {
        ctx.sink.error('hash-mismatch', e.target.at, `target.file_hash ${e.target.file_hash} is not the SHA-256 of the program (${ctx.programHash})`);
      }
      break;
    }
    case 'invariant_set':
      for (const item of e.content) {
        if (item.kind === 'flow_insensitive_invariant') {
          // In 2.0 the schema reports the unknown type; 2.1 accepts it only as Goblint's extension.
          if (is21 && v !== '2.1-goblint') ctx.sink.error('feature-not-in-version', item.at, `flow_insensitive_invariant inside an invariant_set is Goblint's extension (format_version "2.1-goblint"), not ${v}`);
          exprs.push({ expr: item.value, role: 'invariant' });
        } else if (item.kind === 'function_contract') {
          locs.push({ loc: item.location, role: 'function' });
          exprs.push({ expr: { text: item.requires, format: item.format, at: item.at }, role: 'requires', loc: item.location });
          exprs.push({ expr: { text: item.ensures, format: item.format, at: item.at }, role: 'ensures', loc: item.location });
        } else {
          locs.push({ loc: item.location, role: item.kind === 'loop_invariant' || item.kind === 'loop_transition_invariant' ? 'loop' : 'statement' });
          exprs.push({ expr: item.value, role: 'invariant', loc: item.location });
        }
      }
      break;
    case 'violation_sequence':
      checkViolationStructure(ctx, e, is21);
      for (const seg of e.content) {
        for (const w of seg.waypoints) {
          const role: LocationRole =
            w.type === 'branching' ? 'branching' : w.type === 'function_enter' || w.type === 'function_return' ? 'call' : w.type === 'target' ? 'target' : 'statement';
          locs.push({ loc: w.location, role });
          if (ctx.program && w.type === 'branching' && w.constraint && isProgramFile(ctx, md, w.location.file_name) && inRange(w.location)) {
            checkBranchingValue(ctx.program, w.location, w.constraint, ctx.sink);
          }
          const c = w.constraint;
          if (c && typeof c.value === 'string' && (w.type === 'assumption' || w.type === 'function_return')) {
            exprs.push({ expr: { text: c.value, format: c.format ?? 'c_expression', at: c.at }, role: w.type, loc: w.location });
          }
        }
      }
      break;
    case 'ghost_instrumentation': {
      const declared = new Set(ctx.ghosts);
      for (const g of e.content.ghost_variables) {
        exprs.push({ expr: g.initial, role: 'ghost-initial' });
        if (ctx.program) checkGhostNameClash(ctx.program, g, ctx.sink);
      }
      for (const group of e.content.ghost_updates) {
        locs.push({ loc: group.location, role: 'statement' });
        for (const u of group.updates) {
          if (!declared.has(u.variable)) ctx.sink.error('ghost-undeclared', u.at, `ghost update of '${u.variable}', which is not declared in ghost_variables`);
          exprs.push({ expr: u.value, role: 'ghost-update', loc: group.location });
        }
      }
      break;
    }
  }

  // Locations: file in the task, then the program checks.
  const inputFiles = md.task?.input_files;
  for (const { loc, role } of locs) {
    if (inputFiles && !inputFiles.some((f) => f === loc.file_name || norm(f) === norm(loc.file_name))) {
      ctx.sink.error('file-not-in-task', loc.at, `location.file_name '${loc.file_name}' is not one of task.input_files (${inputFiles.join(', ')})`);
    }
    if (ctx.program && isProgramFile(ctx, md, loc.file_name) && inRange(loc)) {
      checkProgramLocation(ctx.program, loc, role, ctx.sink);
    }
    if (ctx.programHash && loc.file_hash && /^[0-9a-fA-F]{64}$/.test(loc.file_hash) && isProgramFile(ctx, md, loc.file_name) && loc.file_hash.toLowerCase() !== ctx.programHash) {
      ctx.sink.error('hash-mismatch', loc.at, `location.file_hash ${loc.file_hash} is not the SHA-256 of the program (${ctx.programHash})`);
    }
  }
  for (const x of exprs) checkExpr(ctx, md, x.expr, x.role, x.loc);
}

function inRange(loc: Location): boolean {
  return loc.line >= 1 && (loc.column === undefined || loc.column >= loc.columnBase);
}

function withinProgram(p: ProgramView, loc: Location): boolean {
  return loc.line <= p.lines.length;
}

const EXT_FORMATS = new Set(['ext_c_expression', 'acsl_expression']);

function checkExpr(ctx: Ctx, md: Metadata, expr: Expr, role: string, loc: Location | undefined): void {
  const ext = EXT_FORMATS.has(expr.format) || role === 'ensures' || role === 'requires';
  const r = checkCExpression(expr.text, ext);
  const where = expr.at;
  for (const f of r.findings) {
    const col = f.offset > 0 ? ` (at character ${f.offset + 1} of '${expr.text}')` : ` in '${expr.text}'`;
    ctx.sink.error(f.rule, where, `${f.message}${col}`);
  }
  // One problem is reported once: what the built-in check found is not checked again.
  if (r.findings.length > 0) return;
  // A location out of range is reported on its own; names cannot be resolved there.
  if (ctx.program && (!loc || (isProgramFile(ctx, md, loc.file_name) && inRange(loc) && withinProgram(ctx.program, loc)))) {
    for (const u of undeclaredNames(ctx.program, r.identifiers, loc, ctx.ghosts)) ctx.sink.add(u.severity, 'undeclared-name', where, u.message);
  }
  if (ctx.options.checkExpression) {
    const context: ExpressionContext = {
      format: expr.format,
      role,
      ghostVariables: ctx.ghosts,
      witnessPos: where ?? { line: 1, column: 1 },
    };
    if (loc) {
      const column = loc.column === undefined ? undefined : loc.column + (loc.columnBase === 0 ? 1 : 0);
      context.location = { file: loc.file_name, line: loc.line, ...(column !== undefined ? { column } : {}), ...(loc.function ? { function: loc.function } : {}) };
    }
    const msg = ctx.options.checkExpression(expr.text, context);
    if (msg !== undefined) {
      const m = /^([a-z][a-z0-9-]*): (.*)$/s.exec(msg);
      // `expr-type` is the C front end's name for §9.2 `type-error`.
      const rule = m ? (m[1] === 'expr-type' ? 'type-error' : m[1]) : 'expr-syntax';
      ctx.sink.error(rule, where, m ? m[2] : msg);
    }
  }
}

const BRANCH_VALUE = /^(true|false|default|[-+]?(0[xX][0-9a-fA-F]+|\d+)[uUlL]*)$/;

/** §6.2 rules 1–5 and §7.5 (cycles). */
function checkViolationStructure(ctx: Ctx, e: ViolationSequenceEntry, is21: boolean): void {
  const { sink } = ctx;
  const segs = e.content;
  const v = e.metadata.format_version;
  const hasCycle = segs.some((s) => s.waypoints.some((w) => w.action === 'cycle'));
  let cycleSeen = false;
  const targets: Array<{ s: number; w: number }> = [];
  segs.forEach((seg, si) => {
    const follows = seg.waypoints.filter((w) => w.action === 'follow' || (is21 && w.action === 'cycle'));
    if (seg.waypoints.length > 0 && follows.length === 0) {
      sink.error('no-follow', seg.at, `segment ${si + 1} has no ${is21 ? 'follow or cycle' : 'follow'} waypoint`);
    } else if (follows.length > 1) {
      sink.error('several-follow', follows[1].at, `segment ${si + 1} has ${follows.length} ${is21 ? 'follow/cycle' : 'follow'} waypoints; exactly one is allowed, at its end`);
    } else if (follows.length === 1 && seg.waypoints[seg.waypoints.length - 1] !== follows[0]) {
      sink.error('follow-not-last', seg.waypoints[seg.waypoints.length - 1].at, `segment ${si + 1}: waypoints after the ${follows[0].action} waypoint; it must be the last of its segment`);
    }
    if (is21 && seg.waypoints.some((w) => w.action === 'cycle')) cycleSeen = true;
    else if (cycleSeen) {
      const f = seg.waypoints.find((w) => w.action === 'follow');
      if (f) sink.error('cycle-then-follow', f.at, `segment ${si + 1} has a follow waypoint after a cycle segment`);
    }
    seg.waypoints.forEach((w, wi) => {
      if (w.type === 'target') {
        targets.push({ s: si, w: wi });
        if (w.action === 'avoid') sink.error('target-avoid', w.at, 'a target waypoint cannot have action avoid');
      }
      checkConstraint(ctx, w, v, is21);
    });
  });
  if (hasCycle && is21) {
    for (const t of targets) sink.error('cycle-with-target', segs[t.s].waypoints[t.w].at, 'a witness with cycle segments has no target waypoint');
    return;
  }
  if (targets.length !== 1) {
    sink.error('target-count', targets[1] ? segs[targets[1].s].waypoints[targets[1].w].at : (e.at ?? undefined), `the sequence has ${targets.length} target waypoints; exactly one is required, as the last waypoint`);
  }
  const t = targets[0];
  if (t && (t.s !== segs.length - 1 || t.w !== segs[t.s].waypoints.length - 1)) {
    sink.error('target-not-last', segs[t.s].waypoints[t.w].at, `the target waypoint is in segment ${t.s + 1} of ${segs.length}; it must be the last waypoint of the last segment`);
  }
}

function checkConstraint(ctx: Ctx, w: ViolationSequenceEntry['content'][number]['waypoints'][number], v: string, is21: boolean): void {
  const { sink } = ctx;
  const c = w.constraint;
  switch (w.type) {
    case 'target':
    case 'function_enter':
      if (c) sink.error('constraint-forbidden', c.at ?? w.at, `a ${w.type} waypoint must not have a constraint`);
      return;
    case 'assumption':
      if (!c) return sink.error('constraint-missing', w.at, 'an assumption waypoint needs a constraint');
      if (c.format === undefined) sink.warn('bad-constraint-format', c.at, "assumption constraint without format; write format: \"c_expression\"");
      else if (c.format !== 'c_expression' && !(is21 && c.format === 'ext_c_expression')) {
        sink.error('bad-constraint-format', c.at, `assumption constraints have format c_expression${is21 ? ' or ext_c_expression' : ''}, not '${c.format}'`);
      }
      return;
    case 'branching': {
      if (!c) return sink.error('constraint-missing', w.at, 'a branching waypoint needs a constraint (true, false, a case value or default)');
      if (!BRANCH_VALUE.test(String(c.value).trim())) {
        sink.error('bad-branching-value', c.at, `branching value '${String(c.value)}' is none of true, false, an integer or default`);
      }
      if (c.format !== undefined) sink.warn('bad-constraint-format', c.at, 'a branching constraint takes no format');
      return;
    }
    case 'function_return': {
      if (!c) return sink.error('constraint-missing', w.at, 'a function_return waypoint needs a constraint (\\result <op> <constant>)');
      const ok = c.format === 'acsl_expression' || (is21 && c.format === 'ext_c_expression');
      if (!ok) sink.error('bad-constraint-format', c.at, `function_return constraints have format acsl_expression${is21 ? ' or ext_c_expression' : ''}, not '${c.format ?? '(none)'}'`);
      if (v === '2.0' && typeof c.value === 'string' && !isResultComparison(c.value)) {
        sink.error('bad-return-constraint', c.at, `2.0 function_return constraint '${c.value}' is not '\\result <op> <constant>'`);
      }
      return;
    }
    default:
      return; // an unknown type is reported by the schema (bad-enum)
  }
}

// Candidate invariants from a witness file (0.1 `loop_invariant` entries or
// 2.0 `invariant_set` loop invariants), bound to the loops of an IMP program
// by their locations, and certificates written back for 0.1 entries.
import { TOOL_NAME } from '../common/tool.js';
import { createHash } from 'node:crypto';
import { TarsierError } from '../common/errors.js';
import type { SourceLocation } from '../common/location.js';
import type { Expr, ImpProgram } from '../ivl/ast.js';
import { findProcedure } from '../ivl/ast.js';
import { parseImpExpr } from '../ivl/parser.js';
import { printExpr } from '../ivl/printer.js';
import { mapExprChildren } from '../ivl/walk.js';
import { procedureScope, typeOfExpr } from '../ivl/typecheck.js';
import type { CertificateEntry01, Entry, Location, WitnessDocument, WitnessPos } from '../witness/model.js';
import { toOneBasedColumn } from '../witness/model.js';
import { makeMetadata } from '../witness/metadata.js';
import { writeWitness } from '../witness/write.js';
import type { Candidate, CandidateOrigin, LoopInfo, LoopTable } from './program.js';

function at(file: string, pos: WitnessPos | undefined): SourceLocation {
  return { file, line: pos?.line ?? 1, column: pos?.column ?? 1, offset: -1 };
}

/**
 * The loop a witness location names: on the location's line, the first
 * `while` keyword at or after its (1-based) column; the leftmost one when the
 * column is absent. (0.1 columns are 0-based: column 0 is before the line.)
 */
export function loopAtLocation(table: LoopTable, loc: Location): LoopInfo | undefined {
  const col = toOneBasedColumn(loc) ?? 1;
  const onLine = table.loops
    .filter((l) => l.loop.loc.line === loc.line && l.loop.loc.column >= col)
    .sort((a, b) => a.loop.loc.column - b.loop.loc.column);
  return onLine[0];
}

/** Candidates of a witness document; `first` is the index the first one gets. */
export function candidatesFromWitness(doc: WitnessDocument, table: LoopTable, first = 0): Candidate[] {
  if (doc.format !== 'yaml') throw new TarsierError('candidates', 'candidates must be a YAML witness (0.1 loop_invariant entries or a 2.0 invariant_set)', { file: doc.file });
  const out: Candidate[] = [];
  const add = (text: string, exprAt: WitnessPos | undefined, entryAt: WitnessPos | undefined, loc: Location, origin: CandidateOrigin) => {
    const where = at(doc.file, exprAt ?? entryAt);
    const loop = loopAtLocation(table, loc);
    if (!loop) {
      const col = toOneBasedColumn(loc);
      throw new TarsierError(
        'candidate-location',
        `no loop at line ${loc.line}${col === undefined ? '' : `, column ${col}`} of the program`,
        at(doc.file, loc.at ?? entryAt),
      );
    }
    const expr = parseCandidate(table.program, loop, text, where);
    out.push({ index: first + out.length, loopId: loop.id, expr, loc: where, text, origin });
  };
  for (const e of doc.entries as Entry[]) {
    if ('unknown' in e) continue;
    if (e.entry_type === 'loop_invariant') {
      add(e.invariant.text, e.invariant.at, e.at, e.location, {
        entryType: 'loop_invariant',
        uuid: e.metadata.uuid,
        fileHash: e.location.file_hash,
      });
    } else if (e.entry_type === 'invariant_set') {
      for (const item of e.content) {
        if (item.kind !== 'loop_invariant') continue;
        add(item.value.text, item.value.at, item.at, item.location, { entryType: 'invariant_set', uuid: e.metadata.uuid });
      }
    }
  }
  return out;
}

/** Parses a candidate's text as an IMP expression and checks it is a bool in the loop's scope. */
function parseCandidate(program: ImpProgram, loop: LoopInfo, text: string, where: SourceLocation): Expr {
  let e: Expr;
  try {
    e = parseImpExpr(text, where.file);
  } catch (err) {
    const msg = err instanceof TarsierError ? err.message : String(err);
    throw new TarsierError('candidate-syntax', `candidate '${text}': ${msg}`, where);
  }
  const proc = findProcedure(program, loop.proc)!;
  try {
    const t = typeOfExpr(e, procedureScope(program, proc), { allowOld: false });
    if (t.kind !== 'bool') throw new TarsierError('candidate-type', `candidate '${text}' is not a condition (its type is ${t.kind})`, where);
  } catch (err) {
    if (err instanceof TarsierError) throw err;
    throw new TarsierError('candidate-type', `candidate '${text}': ${(err as Error).message}`, where);
  }
  // Locations inside the expression are relative to its text; point them all at the candidate.
  return relocate(e, where);
}

function relocate(e: Expr, loc: SourceLocation): Expr {
  return { ...mapExprChildren(e, (x) => relocate(x, loc)), loc };
}

export interface CertificateOptions {
  readonly producerVersion: string;
  readonly creationTime: string;
}

/**
 * One 0.1 `loop_invariant_certificate` per candidate that came from a 0.1
 * `loop_invariant` entry: `confirmed` when selected, `rejected` otherwise.
 * UUIDs are derived from the target's UUID and the verdict, so the file is
 * deterministic.
 */
export function certificateEntries(
  candidates: ReadonlyArray<Pick<Candidate, 'index' | 'origin'>>,
  selected: ReadonlySet<number>,
  opts: CertificateOptions,
): CertificateEntry01[] {
  const out: CertificateEntry01[] = [];
  for (const c of candidates) {
    if (c.origin?.entryType !== 'loop_invariant') continue;
    const verdict = selected.has(c.index) ? 'confirmed' : 'rejected';
    out.push({
      entry_type: 'loop_invariant_certificate',
      metadata: makeMetadata({
        formatVersion: '0.1',
        producer: { name: TOOL_NAME, version: opts.producerVersion, configuration: 'select' },
        uuid: derivedUuid(`${c.origin.uuid}/${c.index}/${verdict}`),
        creationTime: opts.creationTime,
      }),
      target: { uuid: c.origin.uuid, type: 'loop_invariant', file_hash: c.origin.fileHash ?? '' },
      certification: { string: verdict, type: 'verdict', format: 'confirmed | rejected' },
    });
  }
  return out;
}

export function writeCertificates(entries: CertificateEntry01[]): string {
  return writeWitness({ format: 'yaml', entries });
}

/** A version-5-style UUID from a name (SHA-256 based, deterministic). */
export function derivedUuid(name: string): string {
  const h = createHash('sha256').update(name).digest('hex');
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export { printExpr };

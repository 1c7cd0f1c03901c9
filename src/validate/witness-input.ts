// Reads a witness for validation: lints it without the program (the schema
// and consistency checks of witness-formats.md §9.1: any error refuses it),
// then against the program (§9.2: findings are only counted and reported,
// the validator reads such entries leniently or drops them), converts
// GraphML violation witnesses to a 2.0 violation sequence, and refuses a
// witness that plainly belongs to another program.

import { basename } from 'node:path';
import { expressionCheckerForFile } from '../c/index.js';
import { TarsierError } from '../common/errors.js';
import {
  lintWitness,
  readWitness,
  readWitnessText,
  sha256OfFile,
  witnessKind,
  type Diagnostic,
  type Entry,
  type Location,
} from '../witness/index.js';
import { readGraphmlForValidation } from './graphml-input.js';

export interface WitnessInput {
  readonly kind: 'violation' | 'correctness';
  readonly format: 'yaml' | 'graphml';
  readonly entries: readonly Entry[];
  /** §9.1 errors: the witness is refused when there is one. */
  readonly schemaErrors: readonly Diagnostic[];
  /** §9.2 findings against the program (and §9.1 warnings): reported, not refusing. */
  readonly programFindings: readonly Diagnostic[];
  /** Notes of the GraphML conversion. */
  readonly notes: readonly string[];
  /** Why the witness cannot be checked (it ends UNKNOWN), when it cannot. */
  readonly unsupported?: string;
}

const stem = (f: string) => basename(f).replace(/\.[^.]*$/, '');

/** Every program location an entry names, with its position in the witness. */
function locations(entries: readonly Entry[]): Location[] {
  const out: Location[] = [];
  for (const e of entries) {
    if ('unknown' in e) continue;
    if (e.entry_type === 'violation_sequence') for (const s of e.content) for (const w of s.waypoints) out.push(w.location);
    else if (e.entry_type === 'invariant_set') for (const i of e.content) if ('location' in i) out.push(i.location);
    else if ('location' in e) out.push((e as { location: Location }).location);
  }
  return out;
}

export function readWitnessForValidation(witnessPath: string, programPath: string, programText: string): WitnessInput {
  const text = readWitnessText(witnessPath);
  const schema = lintWitness(text, witnessPath, { lenientMetadata: true });
  const schemaErrors = schema.filter((d) => d.severity === 'error');
  const withProgram = lintWitness(text, witnessPath, {
    lenientMetadata: true,
    programText,
    programFile: programPath,
    programHash: sha256OfFile(programPath),
    checkExpression: expressionCheckerForFile(programPath),
  });
  const seen = new Set(schemaErrors.map((d) => `${d.line}:${d.column}:${d.rule}:${d.message}`));
  const programFindings = withProgram.filter((d) => !seen.has(`${d.line}:${d.column}:${d.rule}:${d.message}`));
  if (schemaErrors.length > 0) return { kind: 'violation', format: 'yaml', entries: [], schemaErrors, programFindings, notes: [] };

  const doc = readWitness(text, witnessPath);
  const k = witnessKind(doc);
  if (k === 'mixed' || k === 'empty') {
    throw new TarsierError('witness-kind', k === 'mixed' ? 'the witness mixes violation sequences with invariants' : 'the witness has no entry to validate', { file: witnessPath });
  }
  let entries: Entry[];
  const notes: string[] = [];
  if (doc.format === 'graphml') {
    const g = readGraphmlForValidation(doc, k, programText);
    notes.push(...g.notes);
    if (g.unsupported) return { kind: k, format: 'graphml', entries: [], schemaErrors, programFindings, notes, unsupported: g.unsupported };
    entries = [...g.entries];
  } else {
    entries = doc.entries;
  }
  refuseForeign(entries, witnessPath, programPath, programText);
  return { kind: k, format: doc.format, entries, schemaErrors, programFindings, notes };
}

/** A witness naming another file with another hash, or a location past the program's end, is for another program. */
function refuseForeign(entries: readonly Entry[], witnessPath: string, programPath: string, programText: string): void {
  const hash = sha256OfFile(programPath);
  for (const e of entries) {
    const task = 'metadata' in e ? e.metadata?.task : undefined;
    if (!task) continue;
    const names = task.input_files ?? [];
    const hashes = Object.values(task.input_file_hashes ?? {}).map((h) => h.toLowerCase());
    if (names.length > 0 && !names.some((n) => stem(n) === stem(programPath)) && hashes.length > 0 && !hashes.includes(hash)) {
      throw new TarsierError('witness-program', `the witness is for another program (${names.join(', ')}, another hash), not ${basename(programPath)}`, {
        file: witnessPath,
        line: e.metadata?.at?.line ?? 1,
        column: e.metadata?.at?.column ?? 1,
      });
    }
  }
  const lineCount = programText.split('\n').length;
  for (const loc of locations(entries)) {
    if (loc.line > lineCount || loc.line < 1) {
      throw new TarsierError('witness-location', `location line ${loc.line} is outside the program (${lineCount} lines)`, {
        file: witnessPath,
        line: loc.at?.line ?? 1,
        column: loc.at?.column ?? 1,
      });
    }
  }
}

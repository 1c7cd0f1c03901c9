/** The report of witness and program files (Node.js side: reads files, runs the preprocessor when needed). */
import { writeFileSync } from 'node:fs';
import { makeExpressionChecker, parseCFile, type CProgram } from '../c/index.js';
import { TarsierError } from '../common/errors.js';
import { readTextFile } from '../common/files.js';
import { readWitnessText, sha256OfFile } from '../witness/index.js';
import { buildReport, type ReportData, type ReportValidation } from './model.js';
import { renderReportPage } from './render.js';
import type { ValidationView } from './validation.js';

/** Parses a program for its scopes; names and scopes do not depend on the data model, so ILP32 is tried first, then LP64. */
export function parseForReport(path: string): { program?: CProgram; error?: string } {
  let error: string | undefined;
  for (const dataModel of ['ILP32', 'LP64'] as const) {
    try {
      return { program: parseCFile(path, { dataModel }) };
    } catch (e) {
      if (!(e instanceof TarsierError)) throw e;
      error ??= e.format();
    }
  }
  return { error };
}

/**
 * Reads both files and builds the report, with a validation's findings when
 * given (`validationView` of a `validate` result: each entry's status, the
 * outcome above the program). Unreadable files (missing, not UTF-8, too
 * large) throw a TarsierError; bad witness content does not, it is shown on
 * the page.
 */
export function reportFromFiles(programPath: string, witnessPath: string, validation?: ValidationView | ReportValidation, trace?: readonly string[]): ReportData {
  const programText = readTextFile(programPath);
  const witnessText = readWitnessText(witnessPath);
  const { program, error } = parseForReport(programPath);
  return buildReport({
    programText,
    programFile: programPath,
    witnessText,
    witnessFile: witnessPath,
    ...(program ? { program } : {}),
    ...(error ? { programError: error } : {}),
    ...(validation ? { validation, statuses: 'entries' in validation ? validation.entries : [] } : {}),
    ...(trace ? { trace } : {}),
    lint: { programHash: sha256OfFile(programPath), ...(program ? { checkExpression: makeExpressionChecker(program) } : {}) },
  });
}

/** Writes the report page of a witness on its program to `outPath`; returns its facts (for a summary line). */
export function writeReportFile(programPath: string, witnessPath: string, outPath: string, validation?: ValidationView | ReportValidation, trace?: readonly string[]): ReportData {
  const data = reportFromFiles(programPath, witnessPath, validation, trace);
  try {
    writeFileSync(outPath, renderReportPage(data));
  } catch (e) {
    throw new TarsierError('io', `cannot write: ${(e as Error).message}`, { file: outPath }, 2);
  }
  return data;
}

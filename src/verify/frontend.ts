// Adapter between verify and the modules it drives: the C front end (c/),
// the lowering (lower/) and the witness linter (witness/). Kept in one place
// so that verify.ts does not depend on their exact entry points.

import { parseCFile, type CProgram, type DataModel } from '../c/index.js';
import { lowerProgram, type LoweredProgram, type LowerOptions } from '../lower/index.js';
import { lintWitness } from '../witness/index.js';

export function parseC(path: string, dataModel: DataModel): CProgram {
  return parseCFile(path, { dataModel });
}

export function lowerC(program: CProgram, options: LowerOptions): LoweredProgram {
  return lowerProgram(program, options);
}

/** Lint findings (errors and warnings) of a witness against its program; empty when clean. */
export function lintAgainstProgram(text: string, programFile: string, programText: string, witnessName = 'witness.yml'): string[] {
  return lintWitness(text, witnessName, { programText, programFile })
    .filter((d) => d.severity === 'error' || d.severity === 'warning')
    .map((d) => `${d.line}:${d.column}: ${d.severity}: ${d.message} [${d.rule}]`);
}

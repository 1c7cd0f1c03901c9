// Adapter between verify and the modules it drives: the C front end (c/),
// the lowering (lower/) and the witness linter (witness/). Kept in one place
// so that verify.ts does not depend on their exact entry points.

import { parseCFile, type CProgram, type DataModel } from '../c/index.js';
import { lowerProgram, type LoweredProgram, type LowerOptions } from '../lower/index.js';

type LintModule = {
  lintWitnessText?: (text: string, options: { program?: string; file?: string }) => { severity: string; message: string; code?: string }[];
};

let lintModule: LintModule | undefined;

/** Loads the witness linter (once). */
export async function loadFrontend(): Promise<void> {
  const witnessPath = '../witness/index.js';
  lintModule ??= (await import(witnessPath)) as LintModule;
}

export function parseC(path: string, dataModel: DataModel): CProgram {
  return parseCFile(path, { dataModel });
}

export function lowerC(program: CProgram, options: LowerOptions): LoweredProgram {
  return lowerProgram(program, options);
}

/** Lint errors of a violation witness against its program (empty: clean). */
export function lintViolationWitness(text: string, program: string): string[] {
  const lint = lintModule?.lintWitnessText;
  if (!lint) return [];
  return lint(text, { program, file: 'witness.yml' })
    .filter((d) => d.severity === 'error')
    .map((d) => `${d.code ?? 'error'}: ${d.message}`);
}

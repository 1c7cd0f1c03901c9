// The one way a witness leaves `verify`: linted against the program first,
// then written to the path asked for, or to the file name the rules give
// its format. A witness that does not lint clean is never written; a failed
// write leaves the verdict standing and says why.

import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describeIoError } from '../common/files.js';
import { TOOL_NAME } from '../common/tool.js';
import type { CProgram } from '../c/index.js';
import type { WitnessContext, WitnessFormat } from '../properties/index.js';
import { makeMetadata, sha256OfFile, type Metadata } from '../witness/index.js';
import { lintAgainstProgram } from './frontend.js';
import type { Resolved } from '../properties/resolve.js';
import type { VerifyOptions } from './types.js';

/** What a witness names of its task. */
export type WitnessTask = Pick<Resolved, 'program' | 'programAsWritten' | 'property' | 'dataModel'>;

export type Emitted =
  /** `witnessPath: null`: no witness wanted. */
  | { readonly kind: 'not-wanted' }
  | { readonly kind: 'written'; readonly path: string }
  /** The write failed (the verdict stands without its witness). */
  | { readonly kind: 'write-failed'; readonly error: string }
  /** No candidate lints clean: the first problem of the last one tried. */
  | { readonly kind: 'not-clean'; readonly problem: string };

/** A witness text to try, and what to call it in the log when it does not lint clean. */
export interface WitnessCandidate {
  readonly label: string;
  readonly text: () => string;
}

/** Writes the first candidate (best first) that lints clean against the program. */
export function emitWitness(r: WitnessTask, options: Pick<VerifyOptions, 'witnessPath' | 'witnessFolder' | 'log'>, format: WitnessFormat, candidates: readonly WitnessCandidate[]): Emitted {
  // A library caller gets files only when it asks for them.
  const target = options.witnessPath ?? (options.witnessFolder !== undefined ? join(options.witnessFolder, format.file) : undefined);
  if (target === undefined) return { kind: 'not-wanted' };
  const programText = readFileSync(r.program, 'utf8');
  let problem = 'no witness was made';
  for (const c of candidates) {
    const text = c.text();
    const problems = lintAgainstProgram(text, r.programAsWritten, programText, format.file);
    if (problems.length === 0) {
      const path = resolve(target);
      try {
        writeFileSync(path, text);
        return { kind: 'written', path };
      } catch (e) {
        return { kind: 'write-failed', error: `cannot write the witness ${path}: ${describeIoError(e)}` };
      }
    }
    options.log?.(`${c.label}: ${problems.join('; ')}`);
    problem = problems[0]!;
  }
  return { kind: 'not-clean', problem };
}

/** What a verdict carries of an emitted witness: its path, or why it could not be written. */
export function witnessFields(e: Emitted): { witnessPath?: string; witnessError?: string } {
  if (e.kind === 'written') return { witnessPath: e.path };
  if (e.kind === 'write-failed') return { witnessError: e.error };
  return {};
}

/** What the rules' witness table asks of a program: whether it starts threads (the *Concurrency* categories). */
export function witnessContext(c: CProgram): WitnessContext {
  return { concurrent: c.functions.some((f) => f.name === 'pthread_create') };
}

/** The metadata of a witness of this task in format 2.x, naming the configuration (the step) that found the answer. */
export function witnessMetadata(r: WitnessTask, options: Pick<VerifyOptions, 'toolVersion' | 'creationTime'>, formatVersion: '2.0' | '2.1', configuration: string): Metadata {
  return makeMetadata({
    formatVersion,
    producer: { name: TOOL_NAME, version: options.toolVersion ?? '0.1.0', configuration },
    task: {
      inputFiles: [r.programAsWritten],
      inputFileHashes: { [r.programAsWritten]: sha256OfFile(r.program) },
      specification: r.property.specification,
      dataModel: r.dataModel,
      language: 'C',
    },
    creationTime: options.creationTime,
  });
}

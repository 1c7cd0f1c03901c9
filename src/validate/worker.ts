// Runs `validate` in a worker thread under a hard CPU-time limit (see common/hard-limit.ts).

import { workerEntry } from '../common/bundle-loader.js';
import { runWithHardLimit, serveJob } from '../common/hard-limit.js';
import { killSolverProcesses, processTreeCpuMs } from '../smt/process.js';
import type { ValidateOptions, ValidateResult } from './validate.js';

export interface LimitedValidateOptions extends Omit<ValidateOptions, 'log'> {
  readonly verbose?: boolean;
}

interface Job {
  input: string;
  witness: string;
  options: LimitedValidateOptions;
}

/** `validate` under a hard CPU-time limit; `'timeout'` when it is used up, and a crash of the job rejects. */
export function validateWithHardLimit(input: string, witness: string, options: LimitedValidateOptions): Promise<ValidateResult | 'timeout'> {
  // Without a timeout: the larger default (correctness witnesses); validate applies the right one.
  const limitS = options.timeoutS ?? 300;
  // A little over the budget: validate stops itself; this catches what does not.
  const limitMs = Math.max(100, limitS * 1000 + 2000);
  // From the same origin as validate's own budget (ValidateOptions.cpuOriginMs): by default, now.
  const origin = options.cpuOriginMs ?? processTreeCpuMs();
  return runWithHardLimit<ValidateResult>(workerEntry(new URL('./worker.js', import.meta.url)), { input, witness, options: { ...options, cpuOriginMs: origin } } satisfies Job, limitMs, processTreeCpuMs, undefined, origin);
}

/** The worker's job (exported for the build, which runs it to train the bundle's code cache). */
export async function runJob({ input, witness, options }: Job, _progress: (n: number) => void, log: (line: string) => void): Promise<ValidateResult> {
  // The validator is loaded in the worker only: the calling thread needs none of it.
  const { validate } = await import('./validate.js');
  return validate(input, witness, { ...options, log: options.verbose ? log : undefined });
}

export { killSolverProcesses };

serveJob<Job, ValidateResult>(runJob, killSolverProcesses);

// Runs `verify` in a worker thread under a hard CPU-time limit (see common/hard-limit.ts);
// solver processes count too (the competition measures the whole process tree).

import { runWithHardLimit, serveJob } from '../common/hard-limit.js';
import { killSolverProcesses, processTreeCpuMs } from '../smt/process.js';
import { verify, type VerifyOptions, type VerifyResult } from './verify.js';

export interface LimitedVerifyOptions extends Omit<VerifyOptions, 'log'> {
  /** Print what the engines do on stderr. */
  readonly verbose?: boolean;
}

interface Job {
  input: string;
  options: LimitedVerifyOptions;
}

/**
 * `verify` under a hard CPU-time limit (`options.timeoutS`, default 900):
 * resolves with the result, or with `'timeout'` as soon as this process has
 * used the budget (the worker is then terminated). Bad input rejects with
 * the TarsierError `verify` threw.
 */
export function verifyWithHardLimit(input: string, options: LimitedVerifyOptions): Promise<VerifyResult | 'timeout'> {
  const limitMs = Math.max(100, (options.timeoutS ?? 900) * 1000 - 300);
  return runWithHardLimit<VerifyResult>(new URL('./worker.js', import.meta.url), { input, options } satisfies Job, limitMs, processTreeCpuMs);
}

serveJob<Job, VerifyResult>(
  ({ input, options }) => verify(input, { ...options, log: options.verbose ? (m) => process.stderr.write(m + '\n') : undefined }),
  killSolverProcesses,
);

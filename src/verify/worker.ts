// Runs `verify` in a worker thread under a hard CPU-time limit (see common/hard-limit.ts);
// solver processes count too (the competition measures the whole process tree).

import { workerEntry } from '../common/bundle-loader.js';
import { runWithHardLimit, serveJob } from '../common/hard-limit.js';
import { killSolverProcesses, processTreeCpuMs } from '../smt/process.js';
import type { VerifyOptions, VerifyResult } from './types.js';

/** A run ended by the hard limit: the bound up to which no violation was found by then. */
export interface TimedOut {
  readonly timedOut: true;
  readonly bound: number;
  readonly wallTimeS: number;
}

export interface LimitedVerifyOptions extends Omit<VerifyOptions, 'log' | 'onBound'> {
  /** Print what the engines do on stderr. */
  readonly verbose?: boolean;
  /**
   * The CPU time (ms of processTreeCpuMs) from which the hard limit counts;
   * by default when this call starts (a process that verifies one program
   * after another gives each the whole limit). The CLI passes 0: its
   * limit is the whole process's, start-up included.
   */
  readonly cpuOriginMs?: number;
}

interface Job {
  input: string;
  options: LimitedVerifyOptions;
}

/**
 * `verify` under a hard CPU-time limit (`options.timeoutS`, default 900):
 * resolves with the result, or with a TimedOut as soon as this process and
 * its solver processes have used the budget (the worker is then
 * terminated). Bad input rejects with the TarsierError `verify` threw.
 * `onBound` hears of each bound established (for a report when interrupted).
 */
export async function verifyWithHardLimit(input: string, options: LimitedVerifyOptions, onBound: (bound: number) => void = () => {}): Promise<VerifyResult | TimedOut> {
  const started = Date.now();
  let bound = 0;
  const limitMs = Math.max(100, (options.timeoutS ?? 900) * 1000 - 300);
  // By way of ../verify/: the same file from the bundle of the CLI's `verify` (dist/src/cli/).
  const entry = workerEntry(new URL('../verify/worker.js', import.meta.url));
  const r = await runWithHardLimit<VerifyResult>(
    entry,
    { input, options } satisfies Job,
    limitMs,
    processTreeCpuMs,
    (b) => {
      bound = b;
      onBound(b);
    },
    options.cpuOriginMs,
  );
  return r === 'timeout' ? { timedOut: true, bound, wallTimeS: (Date.now() - started) / 1000 } : r;
}

/** The worker's job (exported for the build, which runs it to train the bundle's code cache). */
export async function runJob({ input, options }: Job, progress: (bound: number) => void, log: (line: string) => void): Promise<VerifyResult> {
  // The verifier is loaded in the worker only: the calling thread needs none of it.
  const { verify } = await import('./verify.js');
  return verify(input, { ...options, log: options.verbose ? log : undefined, onBound: progress });
}

export { killSolverProcesses };

serveJob<Job, VerifyResult>(runJob, killSolverProcesses);

// Runs `verify` in a worker thread so that the caller's thread stays free
// to enforce the CPU-time limit even while the verifier is busy in
// synchronous work (parsing, lowering, encoding, the solver's parser).

import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { TarsierError } from '../common/errors.js';
import { killSolverProcesses, processTreeCpuMs } from '../smt/process.js';
import { verify, type VerifyOptions, type VerifyResult } from './verify.js';

type Message =
  | { ok: true; result: VerifyResult }
  | { ok: false; error: { code?: string; message: string; location?: TarsierError['location']; exitCode?: number; tarsier: boolean } };

export interface LimitedVerifyOptions extends Omit<VerifyOptions, 'log'> {
  /** Print what the engines do on stderr. */
  readonly verbose?: boolean;
}

/**
 * `verify` under a hard CPU-time limit (`options.timeoutS`, default 900):
 * resolves with the result, or with `'timeout'` as soon as this process has
 * used the budget (the worker is then terminated). Bad input rejects with
 * the TarsierError `verify` threw.
 */
export function verifyWithHardLimit(input: string, options: LimitedVerifyOptions): Promise<VerifyResult | 'timeout'> {
  const limitMs = Math.max(100, (options.timeoutS ?? 900) * 1000 - 300);
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./worker.js', import.meta.url), { workerData: { input, options } });
    let settled = false;
    const finish = (f: () => void) => {
      if (settled) return;
      settled = true;
      clearInterval(cpuWatch);
      clearTimeout(wallWatch);
      f();
    };
    const giveUp = () =>
      finish(() => {
        // A solver process busy in a check would outlive the worker: the
        // worker ends its solvers first (it is idle then, awaiting the solver).
        worker.postMessage('stop');
        setTimeout(() => void worker.terminate(), 100);
        resolve('timeout');
      });
    // Solver processes count too (the competition measures the whole process tree).
    const cpuWatch = setInterval(() => {
      if (processTreeCpuMs() > limitMs) giveUp();
    }, 100);
    // Wall time is only a backstop for a heavily loaded machine.
    const wallWatch = setTimeout(giveUp, 2 * limitMs + 5000);
    worker.on('message', (m: Message) =>
      finish(() => {
        void worker.terminate();
        if (m.ok) resolve(m.result);
        else if (m.error.tarsier) reject(new TarsierError(m.error.code ?? 'error', m.error.message, m.error.location, m.error.exitCode));
        else reject(new Error(m.error.message));
      }),
    );
    worker.on('error', (e) => finish(() => reject(e)));
    worker.on('exit', (code) => finish(() => reject(new Error(`the verifier thread ended (exit ${code})`))));
  });
}

if (!isMainThread && parentPort && (workerData as { input?: unknown })?.input !== undefined) {
  const { input, options } = workerData as { input: string; options: LimitedVerifyOptions };
  const port = parentPort;
  port.on('message', (m) => {
    if (m === 'stop') killSolverProcesses();
  });
  verify(input, { ...options, log: options.verbose ? (m) => process.stderr.write(m + '\n') : undefined })
    .then((result) => port.postMessage({ ok: true, result } satisfies Message))
    .catch((e: unknown) => {
      const error =
        e instanceof TarsierError
          ? { code: e.code, message: e.message, location: e.location, exitCode: e.exitCode, tarsier: true }
          : { message: e instanceof Error ? e.message : String(e), tarsier: false };
      port.postMessage({ ok: false, error } satisfies Message);
    });
}

// Runs `verify` in a worker thread so that the caller's thread stays free
// to enforce the CPU-time limit even while the verifier is busy in
// synchronous work (parsing, lowering, encoding, the solver's parser).

import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { TarsierError } from '../common/errors.js';
import { verify, type VerifyOptions, type VerifyResult } from './verify.js';

type Message =
  | { progress: number }
  | { ok: true; result: VerifyResult }
  | { ok: false; error: { code?: string; message: string; location?: TarsierError['location']; exitCode?: number; tarsier: boolean } };

/** A run ended by the hard limit: the bound up to which no violation was found by then. */
export interface TimedOut {
  readonly timedOut: true;
  readonly bound: number;
  readonly wallTimeS: number;
}

export interface LimitedVerifyOptions extends Omit<VerifyOptions, 'log' | 'onBound'> {
  /** Print what the engines do on stderr. */
  readonly verbose?: boolean;
}

/**
 * `verify` under a hard CPU-time limit (`options.timeoutS`, default 900):
 * resolves with the result, or with a TimedOut as soon as this process has
 * used the budget (the worker is then terminated). Bad input rejects with
 * the TarsierError `verify` threw.
 */
export function verifyWithHardLimit(input: string, options: LimitedVerifyOptions): Promise<VerifyResult | TimedOut> {
  const started = Date.now();
  let bound = 0;
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
        void worker.terminate();
        resolve({ timedOut: true, bound, wallTimeS: (Date.now() - started) / 1000 });
      });
    const cpuWatch = setInterval(() => {
      const u = process.cpuUsage();
      if ((u.user + u.system) / 1000 > limitMs) giveUp();
    }, 100);
    // Wall time is only a backstop for a heavily loaded machine.
    const wallWatch = setTimeout(giveUp, 2 * limitMs + 5000);
    worker.on('message', (m: Message) => {
      if ('progress' in m) {
        bound = m.progress;
        return;
      }
      finish(() => {
        void worker.terminate();
        if (m.ok) resolve(m.result);
        else if (m.error.tarsier) reject(new TarsierError(m.error.code ?? 'error', m.error.message, m.error.location, m.error.exitCode));
        else reject(new Error(m.error.message));
      });
    });
    worker.on('error', (e) => finish(() => reject(e)));
    worker.on('exit', (code) => finish(() => reject(new Error(`the verifier thread ended (exit ${code})`))));
  });
}

if (!isMainThread && parentPort && (workerData as { input?: unknown })?.input !== undefined) {
  const { input, options } = workerData as { input: string; options: LimitedVerifyOptions };
  const port = parentPort;
  verify(input, {
    ...options,
    log: options.verbose ? (m) => process.stderr.write(m + '\n') : undefined,
    onBound: (bound) => port.postMessage({ progress: bound } satisfies Message),
  })
    .then((result) => port.postMessage({ ok: true, result } satisfies Message))
    .catch((e: unknown) => {
      const error =
        e instanceof TarsierError
          ? { code: e.code, message: e.message, location: e.location, exitCode: e.exitCode, tarsier: true }
          : { message: e instanceof Error ? e.message : String(e), tarsier: false };
      port.postMessage({ ok: false, error } satisfies Message);
    });
}

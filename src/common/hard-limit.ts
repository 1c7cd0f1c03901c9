// Runs a job in a worker thread so that the calling thread stays free to
// enforce a CPU-time limit even while the job is busy in synchronous work
// (parsing, encoding, the solver), and so that a crash of the job (the
// WebAssembly solver running out of memory) is an error, not the process's end.

import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { TarsierError } from './errors.js';

/** The worker thread's stack (Node's default is 4 MB). */
const WORKER_STACK_MB = 256;

type Message<T> =
  | { progress: number }
  | { log: string }
  | { ok: true; result: T }
  | { ok: false; error: { code?: string; message: string; location?: TarsierError['location']; exitCode?: number; tarsier: boolean } };

/** A worker's module (which calls `serveJob`), or the entry that loads the bundle of one (common/bundle-loader.ts). */
export interface WorkerEntry {
  readonly url: URL;
  readonly bundle?: string;
}

/**
 * Starts the worker `entry` with `data`;
 * resolves with its result, or with `'timeout'` once this process has used
 * `limitMs` of CPU time since `originMs` (the worker is then terminated). A
 * TarsierError of the job rejects as that TarsierError.
 */
export function runWithHardLimit<T>(
  entry: WorkerEntry,
  data: unknown,
  limitMs: number,
  /** CPU time used so far, ms (default: this process; pass one that counts child solver processes too). */
  cpuMs: () => number = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  },
  /** Called with each progress number the job reports (e.g. the bound reached). */
  onProgress: (progress: number) => void = () => {},
  /**
   * The reading of `cpuMs` from which the limit counts: by default the one
   * at this call (a process that runs one job after another gives each the
   * whole limit); 0 for a limit on the whole process, start-up included.
   */
  originMs: number = cpuMs(),
): Promise<T | 'timeout'> {
  return new Promise((resolve, reject) => {
    // A large stack: the lowering inlines calls recursively, one JS frame chain per C call level.
    const worker = new Worker(entry.url, { workerData: { job: data, bundle: entry.bundle }, resourceLimits: { stackSizeMb: WORKER_STACK_MB } });
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
    const cpuWatch = setInterval(() => {
      if (cpuMs() - originMs > limitMs) giveUp();
    }, 100);
    // Wall time is only a backstop for a heavily loaded machine.
    const wallWatch = setTimeout(giveUp, 2 * limitMs + 5000);
    worker.on('message', (m: Message<T>) => {
      if ('progress' in m) {
        onProgress(m.progress);
        return;
      }
      if ('log' in m) {
        // Through the message port, so no line is lost when the worker ends right after it.
        if (!settled) process.stderr.write(m.log + '\n');
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
    worker.on('exit', (code) => finish(() => reject(new Error(`the worker thread ended (exit ${code})`))));
  });
}

/**
 * In a worker started by runWithHardLimit: runs the job on its data and
 * posts the outcome. The job may report progress numbers and log lines (the
 * calling thread writes them to standard error).
 */
export function serveJob<D, T>(job: (data: D, progress: (n: number) => void, log: (line: string) => void) => Promise<T>, onStop: () => void = () => {}): void {
  if (isMainThread || !parentPort || (workerData as { job?: unknown })?.job === undefined) return;
  const port = parentPort;
  port.on('message', (m) => {
    if (m === 'stop') onStop();
  });
  job(
    (workerData as { job: D }).job,
    (n) => port.postMessage({ progress: n } satisfies Message<T>),
    (line) => port.postMessage({ log: line } satisfies Message<T>),
  )
    .then((result) => port.postMessage({ ok: true, result } satisfies Message<T>))
    .catch((e: unknown) => {
      const error =
        e instanceof TarsierError
          ? { code: e.code, message: e.message, location: e.location, exitCode: e.exitCode, tarsier: true }
          : { message: e instanceof Error ? e.message : String(e), tarsier: false };
      port.postMessage({ ok: false, error } satisfies Message<T>);
    });
}

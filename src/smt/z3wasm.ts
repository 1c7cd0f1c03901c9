// The embedded back end: Z3 compiled to WebAssembly, run in one worker thread
// per process so that a call past its deadline is stopped by terminating the
// worker (the solvers that used it replay their state on a new one).
import { Worker } from 'node:worker_threads';
import { SmtLibSolver, z3Dialect, type Channel, type ChannelReply, type Solver } from './solver.js';

interface Reply {
  id: number;
  ready?: boolean;
  ctx?: number;
  output?: string;
  error?: string;
}

type Outcome = { reply: Reply } | { timedOut: true } | { crashed: string };

class Z3WasmHost {
  private worker: Worker | undefined;
  private ready: Promise<void> | undefined;
  /** Bumped for every new worker; contexts of older ones are gone. */
  incarnation = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private waiter: { id: number; resolve: (o: Outcome) => void } | undefined;
  private nextId = 1;

  /** Starts the worker if there is none (unreferenced: an idle worker never holds the process open). */
  start(): Promise<void> {
    if (this.worker && this.ready) return this.ready;
    // By way of ../smt/: the same file from the bundle of verify's worker (dist/src/verify/).
    const worker = new Worker(new URL('../smt/z3-worker.js', import.meta.url));
    this.worker = worker;
    this.incarnation++;
    this.ready = new Promise<void>((resolve, reject) => {
      const onMessage = (m: Reply) => {
        if (m.ready) {
          resolve();
          return;
        }
        const w = this.waiter;
        if (w && w.id === m.id) {
          this.waiter = undefined;
          w.resolve({ reply: m });
        }
      };
      worker.on('message', onMessage);
      worker.on('error', (e) => {
        reject(e);
        this.lose(worker, `the Z3 worker failed: ${e.message}`);
      });
      worker.on('exit', () => this.lose(worker, 'the Z3 worker exited'));
    });
    // After adding the listeners (which reference the worker again).
    worker.unref();
    return this.ready;
  }

  private lose(worker: Worker, why: string): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.ready = undefined;
    const w = this.waiter;
    this.waiter = undefined;
    w?.resolve({ crashed: why });
  }

  /** Runs `fn` after every earlier request has finished (the worker does one thing at a time). */
  enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  async send(msg: Record<string, unknown>, deadlineMs?: number): Promise<Outcome> {
    const ready = this.start();
    const worker = this.worker!;
    // Referenced while a request is pending, so that the process waits for it.
    worker.ref();
    try {
      try {
        await ready;
      } catch (e) {
        return { crashed: `cannot start Z3: ${e instanceof Error ? e.message : String(e)}` };
      }
      if (this.worker !== worker) return { crashed: 'the Z3 worker stopped' };
      const id = this.nextId++;
      return await new Promise<Outcome>((resolve) => {
        let timer: NodeJS.Timeout | undefined;
        this.waiter = {
          id,
          resolve: (o) => {
            if (timer) clearTimeout(timer);
            resolve(o);
          },
        };
        if (deadlineMs !== undefined) {
          timer = setTimeout(() => {
            this.waiter = undefined;
            this.kill();
            resolve({ timedOut: true });
          }, deadlineMs);
        }
        worker.postMessage({ ...msg, id });
      });
    } finally {
      worker.unref();
    }
  }

  /** Starts the worker ahead of the first request (its ~250 ms start overlaps other work). */
  prewarm(): void {
    this.start().catch(() => undefined);
  }

  kill(): void {
    const w = this.worker;
    this.worker = undefined;
    this.ready = undefined;
    if (w) void w.terminate();
  }

  async shutdown(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    this.ready = undefined;
    if (w) await w.terminate();
  }
}

const host = new Z3WasmHost();

class Z3WasmChannel implements Channel {
  private ctx: number | undefined;
  private ctxIncarnation = -1;
  private serial = 0;

  exec(build: (fresh: boolean) => string, deadlineMs?: number): Promise<ChannelReply> {
    return host.enqueue(async (): Promise<ChannelReply> => {
      let fresh = false;
      if (this.ctx === undefined || this.ctxIncarnation !== host.incarnation) {
        const made = await host.send({ type: 'new' });
        if (!('reply' in made)) return 'timedOut' in made ? made : { crashed: made.crashed };
        if (made.reply.ctx === undefined) return { crashed: made.reply.error ?? 'cannot create a Z3 context' };
        this.ctx = made.reply.ctx;
        this.ctxIncarnation = host.incarnation;
        fresh = true;
      }
      // The end marker proves that Z3 read the whole script we sent.
      const marker = `tarsier-end-${++this.serial}`;
      const r = await host.send({ type: 'eval', ctx: this.ctx, text: `${build(fresh)}(echo "${marker}")\n` }, deadlineMs);
      if ('timedOut' in r) return r;
      if ('crashed' in r) return r;
      const output = r.reply.output ?? '';
      const end = output.lastIndexOf(marker);
      if (r.reply.error !== undefined || end < 0 || output.slice(end + marker.length).replace(/^"/, '').trim() !== '') {
        // A Z3 exception or a garbled reply: start afresh (the solver replays its state).
        host.kill();
        return { crashed: r.reply.error ?? `garbled reply from Z3: ${output.slice(0, 200)}` };
      }
      return { output: output.slice(0, end).replace(/"?$/, '') };
    });
  }

  async dispose(): Promise<void> {
    const ctx = this.ctx;
    const inc = this.ctxIncarnation;
    this.ctx = undefined;
    if (ctx !== undefined) {
      await host.enqueue(async () => {
        if (inc === host.incarnation) await host.send({ type: 'delete', ctx });
      });
    }
  }
}

/** A solver on the shared WebAssembly Z3 worker (started on first use, ~250 ms). */
export function createZ3WasmSolver(): Solver {
  host.prewarm();
  return new SmtLibSolver('z3-wasm', new Z3WasmChannel(), z3Dialect);
}

/** Runs one whole SMT-LIB script on a fresh context of the shared worker (stopped at `deadlineMs`, wall clock). */
export function runZ3WasmScript(script: string, deadlineMs: number): Promise<ChannelReply> {
  const channel = new Z3WasmChannel();
  return channel.exec(() => script, deadlineMs).finally(() => channel.dispose());
}

/** Terminates the shared Z3 worker (it is also unreferenced while idle, so it never holds the process open). */
export function shutdownZ3Wasm(): Promise<void> {
  return host.shutdown();
}

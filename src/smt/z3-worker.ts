// Runs inside a worker thread: Z3 (WebAssembly) evaluating SMT-LIB text, one
// Z3 context per solver. The main thread terminates this worker to stop a
// call that runs past its deadline.
import { parentPort } from 'node:worker_threads';
import { evalSmtlibOnHeap, type Emscripten } from './z3-heap.js';

type Request =
  | { id: number; type: 'new' }
  | { id: number; type: 'eval'; ctx: number; text: string }
  | { id: number; type: 'delete'; ctx: number };

const port = parentPort;
if (!port) throw new Error('z3-worker must run in a worker thread');

const { init } = await import('z3-solver');
const api = await init();
const Z3 = api.Z3;

const em = api.em as unknown as Emscripten;
const evalSmtlib = (ctx: unknown, text: string) => evalSmtlibOnHeap(em, ctx, text);
const contexts = new Map<number, ReturnType<typeof Z3.mk_context_rc>>();
let nextCtx = 1;

// Requests are handled one at a time, in order.
let queue: Promise<void> = Promise.resolve();
port.on('message', (req: Request) => {
  queue = queue.then(() => handle(req));
});
port.postMessage({ id: 0, ready: true });

async function handle(req: Request): Promise<void> {
  try {
    switch (req.type) {
      case 'new': {
        const cfg = Z3.mk_config();
        const ctx = Z3.mk_context_rc(cfg);
        Z3.del_config(cfg);
        const id = nextCtx++;
        contexts.set(id, ctx);
        port!.postMessage({ id: req.id, ctx: id });
        return;
      }
      case 'eval': {
        const ctx = contexts.get(req.ctx);
        if (ctx === undefined) throw new Error(`unknown context ${req.ctx}`);
        const output = await evalSmtlib(ctx, req.text);
        port!.postMessage({ id: req.id, output });
        return;
      }
      case 'delete': {
        const ctx = contexts.get(req.ctx);
        if (ctx !== undefined) Z3.del_context(ctx);
        contexts.delete(req.ctx);
        port!.postMessage({ id: req.id });
        return;
      }
    }
  } catch (e) {
    port!.postMessage({ id: req.id, error: e instanceof Error ? e.message : String(e) });
  }
}

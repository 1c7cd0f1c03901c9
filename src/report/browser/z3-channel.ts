/**
 * The browser back end of src/smt's Solver interface: Z3 (WebAssembly) in
 * the same Web Worker as the library, fed SMT-LIB text. The browser bundle
 * puts this module in place of src/smt/z3wasm.ts (which runs Z3 in a Node.js
 * worker thread). A call cannot be killed here; Z3's own timeout bounds it.
 */
import { init } from './z3-solver-browser.js';
import { SmtLibSolver, z3Dialect, type Channel, type ChannelReply, type Solver } from '../../smt/solver.js';
import { evalSmtlibOnHeap, type Emscripten } from '../../smt/z3-heap.js';

let z3: Promise<Awaited<ReturnType<typeof init>>> | undefined;
let queue: Promise<unknown> = Promise.resolve();

/** One request at a time: Z3's async calls must not overlap. */
function serially<T>(f: () => Promise<T>): Promise<T> {
  const run = queue.then(f, f);
  queue = run.catch(() => undefined);
  return run;
}

class BrowserZ3Channel implements Channel {
  private ctx: unknown;
  private serial = 0;

  exec(build: (fresh: boolean) => string): Promise<ChannelReply> {
    return serially(async () => {
      z3 ??= init();
      const api = await z3;
      const fresh = this.ctx === undefined;
      if (fresh) {
        const cfg = api.Z3.mk_config();
        this.ctx = api.Z3.mk_context_rc(cfg);
        api.Z3.del_config(cfg);
      }
      const em = api.em as unknown as Emscripten;
      // The end marker proves that Z3 read the whole script.
      const marker = `tarsier-end-${++this.serial}`;
      try {
        const output = await evalSmtlibOnHeap(em, this.ctx, `${build(fresh)}(echo "${marker}")\n`);
        const end = output.lastIndexOf(marker);
        if (end < 0) throw new Error(`garbled reply from Z3: ${output.slice(0, 200)}`);
        return { output: output.slice(0, end).replace(/"?$/, '') };
      } catch (e) {
        this.ctx = undefined;
        return { crashed: e instanceof Error ? e.message : String(e) };
      }
    });
  }

  async dispose(): Promise<void> {
    if (this.ctx === undefined || !z3) return;
    const ctx = this.ctx;
    this.ctx = undefined;
    const api = await z3;
    api.Z3.del_context(ctx as never);
  }
}

export function createZ3WasmSolver(): Solver {
  return new SmtLibSolver('z3-wasm', new BrowserZ3Channel(), z3Dialect);
}

/** Runs one whole SMT-LIB script on a fresh context. A call cannot be killed here: the deadline becomes Z3's own timeout, set before the script. */
export function runZ3WasmScript(script: string, deadlineMs: number): Promise<ChannelReply> {
  const channel = new BrowserZ3Channel();
  return channel.exec(() => `${z3Dialect.timeoutOption!(Math.max(1, Math.ceil(deadlineMs)))}\n${script}`).finally(() => channel.dispose());
}

export async function shutdownZ3Wasm(): Promise<void> {}

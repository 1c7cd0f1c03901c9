// Evaluation of SMT-LIB text by Z3 compiled to WebAssembly, shared by the
// Node.js worker thread (z3-worker.ts) and the browser back end
// (report/browser/z3-channel.ts). z3-solver's own eval_smtlib2_string passes
// the text on the Emscripten stack, which is reused before Z3's thread has
// read it (seen as random parse errors); a heap copy that lives until the
// call ends avoids that.

/** The parts of z3-solver's Emscripten module used here. */
export interface Emscripten {
  HEAPU8: Uint8Array;
  intArrayFromString(s: string): number[];
  _malloc(n: number): number;
  _free(p: number): void;
  _async_Z3_eval_smtlib2_string(ctx: unknown, text: number): void;
  async_call<T>(f: () => void): Promise<T>;
}

/** Z3's output for `text` evaluated in the context `ctx`. */
export async function evalSmtlibOnHeap(em: Emscripten, ctx: unknown, text: string): Promise<string> {
  const bytes = em.intArrayFromString(text);
  const ptr = em._malloc(bytes.length);
  try {
    em.HEAPU8.set(bytes, ptr);
    return await em.async_call<string>(() => em._async_Z3_eval_smtlib2_string(ctx, ptr));
  } finally {
    em._free(ptr);
  }
}

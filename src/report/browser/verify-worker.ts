/**
 * The Web Worker that runs the library's `verify` in the browser: the
 * program and its property file go into the in-memory file system, Z3 runs
 * here as WebAssembly. gcc is not available, so a counterexample cannot be
 * replayed and is reported as UNKNOWN, never as an unconfirmed FALSE.
 */
import { verify } from '../../verify/verify.js';
import { putFile } from './shims/fs.js';

export interface VerifyRequest {
  readonly id: number;
  readonly programName: string;
  readonly programText: string;
  /** The text of the .prp file. */
  readonly property: string;
  readonly dataModel: 'ILP32' | 'LP64';
  readonly timeoutS: number;
}

export type VerifyReply =
  | { readonly id: number; readonly log: string }
  | { readonly id: number; readonly result: { verdict: string; reason: string; wallTimeS: number } }
  | { readonly id: number; readonly error: string };

const scope = globalThis as unknown as { onmessage: (ev: { data: VerifyRequest }) => void; postMessage: (m: VerifyReply) => void };

scope.onmessage = async ({ data: req }) => {
  const dir = `/playground/${req.id}`;
  const program = `${dir}/${req.programName.replace(/^.*\//, '') || 'program.c'}`;
  putFile(program, req.programText);
  putFile(`${dir}/property.prp`, req.property);
  try {
    const r = await verify(program, {
      prp: `${dir}/property.prp`,
      dataModel: req.dataModel,
      timeoutS: req.timeoutS,
      witnessPath: null,
      log: (line) => scope.postMessage({ id: req.id, log: line }),
    });
    const verdict = r.verdict.kind === 'false' ? `FALSE(${r.verdict.property})` : r.verdict.kind.toUpperCase();
    scope.postMessage({ id: req.id, result: { verdict, reason: r.reason, wallTimeS: r.wallTimeS } });
  } catch (e) {
    const err = e as { format?: () => string; message?: string };
    scope.postMessage({ id: req.id, error: typeof err.format === 'function' ? err.format() : String(err.message ?? e) });
  }
};

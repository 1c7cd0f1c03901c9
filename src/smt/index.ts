// SMT: hash-consed terms, SMT-LIB 2 text, and solver back ends.
import { appendFileSync } from 'node:fs';
import { TarsierError } from '../common/errors.js';
import { createProcessSolver, findExecutable, processSolverSpec } from './process.js';
import type { Solver } from './solver.js';
import { createZ3WasmSolver, runZ3WasmScript } from './z3wasm.js';
import { runProcessScript } from './process.js';
import type { ChannelReply } from './solver.js';

export * from './terms.js';
export * from './solver.js';
export { parseSExprs, sexprToString, type SExpr } from './sexpr.js';
export { createZ3WasmSolver, shutdownZ3Wasm } from './z3wasm.js';
export { createProcessSolver, findExecutable, processSolverSpec, processTreeCpuMs, killSolverProcesses, killDescendants, type ProcessSolverSpec } from './process.js';

/** The solver names every command accepts (besides a path to a solver binary). */
export const SOLVER_NAMES = ['auto', 'z3-wasm', 'z3', 'cvc5'] as const;

/**
 * A solver by its command-line name: `z3-wasm` (or `wasm`) for the embedded
 * WebAssembly Z3; `z3`, `cvc5` or a path for a solver process; `auto` (the
 * default) for z3 on PATH, else the embedded one (the answers are the same,
 * only the speed differs: the z3 process needs a fraction of the CPU time).
 * Throws a usage error when the binary cannot be found.
 */
export function createSolver(name = 'auto'): Solver {
  if (name === 'auto') name = findExecutable('z3') ? 'z3' : 'z3-wasm';
  if (name === 'z3-wasm' || name === 'wasm' || name === 'default') return createZ3WasmSolver();
  const path = findExecutable(name);
  if (!path) throw new TarsierError('solver', `solver '${name}' not found (install it, give its path, or use the built-in z3-wasm)`, undefined, 2);
  return createProcessSolver(processSolverSpec(path));
}

/**
 * Runs one whole SMT-LIB script (a query that is no incremental session,
 * such as a set of Horn clauses) on a fresh Z3 and returns its output: the
 * z3 process when `name` is `auto` and z3 is on PATH or `name` is `z3` or a
 * path to a z3 binary, else the built-in WebAssembly Z3. Other solvers have
 * no Horn engine: undefined.
 */
export function runZ3Script(name: string, script: string, deadlineMs: number): Promise<ChannelReply> | undefined {
  // TARSIER_SMT_LOG=file appends the script, as the solvers' sessions do.
  if (process.env.TARSIER_SMT_LOG) appendFileSync(process.env.TARSIER_SMT_LOG, `; ---- whole script (${name})\n${script}\n`);
  if (name === 'auto') name = findExecutable('z3') ? 'z3' : 'z3-wasm';
  if (name === 'z3-wasm' || name === 'wasm' || name === 'default') return runZ3WasmScript(script, deadlineMs);
  const path = findExecutable(name);
  if (!path || !/^z3/i.test(path.split('/').pop()!)) return undefined;
  return runProcessScript(processSolverSpec(path), script, deadlineMs);
}

/** The solver name the command line accepts for a process back end, if its binary exists here. */
export function availableProcessSolver(names: readonly string[] = ['z3', 'cvc5']): string | undefined {
  return names.find((n) => findExecutable(n) !== undefined);
}

// SMT: hash-consed terms, SMT-LIB 2 text, and solver back ends.
import { TarsierError } from '../common/errors.js';
import { createProcessSolver, findExecutable, processSolverSpec } from './process.js';
import type { Solver } from './solver.js';
import { createZ3WasmSolver } from './z3wasm.js';

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

/** The solver name the command line accepts for a process back end, if its binary exists here. */
export function availableProcessSolver(names: readonly string[] = ['z3', 'cvc5']): string | undefined {
  return names.find((n) => findExecutable(n) !== undefined);
}

// Checks that a solver named on the command line starts and answers, so
// that a solver that cannot run is a usage error instead of goals answered
// "unknown" one by one.
import { TarsierError } from '../common/errors.js';
import { createSolver } from './index.js';

/** Throws a TarsierError (exit 2) unless the solver answers `sat` to an empty problem. */
export async function checkSolverWorks(name: string): Promise<void> {
  // The built-in solver ships with Tarsier; starting it twice would only cost time.
  if (name === 'z3-wasm' || name === 'wasm' || name === 'default') return;
  const solver = createSolver(name);
  try {
    const r = await solver.checkSat([], { timeoutMs: 20_000 });
    if (r.status !== 'sat') {
      throw new TarsierError('solver', `solver '${name}' does not work: it answered ${r.status}${r.reason ? ` (${r.reason})` : ''} to an empty problem`, undefined, 2);
    }
  } catch (e) {
    if (e instanceof TarsierError) throw e;
    throw new TarsierError('solver', `solver '${name}' does not work: ${e instanceof Error ? e.message : String(e)}`, undefined, 2);
  } finally {
    await solver.dispose().catch(() => undefined);
  }
}

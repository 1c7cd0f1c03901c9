/**
 * Differential test of the floating-point semantics at scale: random
 * expressions over float, double, long double and the integer types, inputs
 * from the interesting values, evaluated by gcc in both data models (with the
 * replay's flags: SSE in -m32, no contraction), by IMP's interpreter and by
 * the SMT solvers' models; every result must be bit-identical (any NaN equals
 * any NaN: one NaN is modelled).
 * Usage: node dist/bench-scripts/float.js [--count N=400] [--seed S=1] [--solvers z3,cvc5] [--batch N=40]
 */
import type { DataModel } from '../src/c/types.js';
import { rng } from '../src/invariants/random.js';
import { describeCase, gccFloatFlags, generateCases, interpret, runGcc, solve, type FloatCase } from '../test/helpers/float-exprs.js';

function arg(name: string, fallback: string): string {
  const k = process.argv.indexOf(`--${name}`);
  return k >= 0 && process.argv[k + 1] !== undefined ? process.argv[k + 1] : fallback;
}
const count = Number(arg('count', '400'));
const seed = Number(arg('seed', '1'));
const batch = Number(arg('batch', '40'));
const solvers = arg('solvers', 'z3,cvc5').split(',').filter(Boolean);

let failures = 0;
let compared = 0;
const solverMs = new Map<string, number>();
for (const dm of ['ILP32', 'LP64'] as DataModel[]) {
  const r = rng(seed + (dm === 'LP64' ? 1000 : 0));
  for (let done = 0; done < count; done += batch) {
    const cases = generateCases(r, Math.min(batch, count - done), dm);
    const gcc = runGcc(cases, gccFloatFlags(dm));
    const report = (c: FloatCase, who: string, got: string) => {
      failures++;
      console.log(`MISMATCH ${who}: ${describeCase(c, dm)}\n  gcc ${gcc[c.id]}, ${who} ${got}`);
    };
    cases.forEach((c, k) => {
      const mine = interpret(c, dm);
      compared++;
      if (mine !== gcc[k]) report(c, 'interpreter', mine);
    });
    for (const s of solvers) {
      // cvc5 has no 80-bit floats without its experimental solver.
      const usable = s === 'cvc5' ? cases.filter((c) => !describeCase(c, dm).includes('long double')) : cases;
      const start = Date.now();
      const got = await solve(usable, dm, s);
      solverMs.set(s, (solverMs.get(s) ?? 0) + Date.now() - start);
      usable.forEach((c, k) => {
        if (got[k] !== gcc[c.id]) report(c, s, got[k]);
      });
    }
  }
}
console.log(`${compared} expressions x (gcc, interpreter, ${solvers.join(', ')}): ${failures} mismatches`);
for (const [s, ms] of solverMs) console.log(`  ${s}: ${(ms / 1000).toFixed(1)} s`);
process.exitCode = failures > 0 ? 1 : 0;

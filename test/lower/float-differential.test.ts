// Differential test of the float lowering against gcc: random expressions
// over float, double, long double and the integer types (constants exact,
// the usual conversions, the <math.h> functions, four rounding modes through
// fesetround), evaluated by gcc with the replay's flags and, as C, by the
// lowering and the IMP interpreter: every result bit-identical (NaN as a
// class; zeros with their sign).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCProgram } from '../../src/c/index.js';
import type { DataModel } from '../../src/c/types.js';
import { rng } from '../../src/invariants/random.js';
import { executeImp } from '../../src/ivl/interp.js';
import { lowerProgram } from '../../src/lower/index.js';
import { passesOf } from '../../src/properties/index.js';
import { needTools } from '../helpers/tools.js';
import { checkingProgram, describeCase, gccFloatFlags, generateCases, runGcc } from '../helpers/float-exprs.js';

for (const dm of ['ILP32', 'LP64'] as DataModel[]) {
  test(`lowered float expressions agree with gcc ${gccFloatFlags(dm).join(' ')}`, { skip: needTools('gcc', 'gcc -m32') }, () => {
    const cases = generateCases(rng(dm === 'ILP32' ? 1105 : 2105), 40, dm);
    const expected = runGcc(cases, gccFloatFlags(dm));
    const c = parseCProgram(checkingProgram(cases, expected), 'f.c', { dataModel: dm });
    const l = lowerProgram(c, { passes: passesOf('unreach-call'), dataModel: dm });
    assert.equal(l.unsupported, undefined, l.unsupported && `${l.unsupported.construct} at ${l.unsupported.loc.line}`);
    const res = executeImp(l.imp, 'main', {});
    assert.equal(res.status, 'returned', `${res.message} at ${res.loc?.line}`);
    const R = res.state.get('R');
    assert.ok(R?.kind === 'map');
    cases.forEach((k, i) => {
      const entry = [...R.entries.values()].find((x) => x.index.kind === 'bv' && x.index.value === BigInt(i));
      assert.ok(entry?.value.kind === 'bv' && entry.value.value === 1n, `${describeCase(k, dm)}: gcc ${expected[i]}`);
    });
  });
}

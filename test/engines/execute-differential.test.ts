// Differential test of the one execution (compiled closures over machine
// values) against the IMP interpreter: random C programs (arithmetic of
// every integer type, divisions, shifts, arrays, pointers, VLAs, re-entered
// blocks, calls) with their inputs fixed are lowered and run by both. Where
// the execution decides, the interpreter must end the same way, with the
// values the execution calls indeterminate set to zero and to a random value
// alike (a decided run does not depend on them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCProgram } from '../../src/c/index.js';
import { TarsierError } from '../../src/common/errors.js';
import { executeOnePath } from '../../src/engines/index.js';
import type { ImpType } from '../../src/ivl/ast.js';
import { bvValue, executeImp, zeroValue, type ExecutionResult, type ImpValue } from '../../src/ivl/interp.js';
import { lowerProgram } from '../../src/lower/index.js';
import { nondetAt } from '../../src/lower/source-map.js';
import { passesOf } from '../../src/properties/index.js';
import { endsRunOf } from '../../src/verify/execution.js';
import { Choices } from '../helpers/choices.js';
import { generateProgram } from '../helpers/soundness-programs.js';

const PROGRAMS = 300;

/** The interpreter's value for an indeterminate variable: zero, or one drawn from `draw`. */
function havocWith(draw: (() => number) | undefined): (name: string, type: ImpType) => ImpValue {
  return (_name, type) => (draw && type.kind === 'bv' ? bvValue(draw(), type.width) : zeroValue(type));
}

test('the one execution and the IMP interpreter end every decided run of random programs the same way', () => {
  const counts = new Map<string, number>();
  for (let seed = 1; seed <= PROGRAMS; seed++) {
    const rng = Choices.seeded(seed);
    const program = generateProgram(rng);
    // Each input fixed to a value of its domain: the program is deterministic.
    let input = 0;
    const text = program.text.replace(/__VERIFIER_nondet_int\(\)/g, () => String(rng.pick(program.domains[input++]!)));
    for (const dataModel of ['ILP32', 'LP64'] as const) {
      let parsed;
      try {
        parsed = parseCProgram(text, `p${seed}.c`, { dataModel });
      } catch (e) {
        // The generator writes a C error now and then (`(--1)`): such a program is skipped, as gcc skips it in the soundness test.
        if (!(e instanceof TarsierError)) throw e;
        counts.set('not C', (counts.get('not C') ?? 0) + 1);
        continue;
      }
      const lowered = lowerProgram(parsed, { passes: passesOf('unreach-call'), dataModel });
      const verdict = executeOnePath(lowered.imp, {
        deadline: () => 60_000,
        isNondet: (s) => nondetAt(lowered.sourceMap, s.loc) !== undefined,
        endsRun: endsRunOf(lowered),
      });
      counts.set(verdict.kind, (counts.get(verdict.kind) ?? 0) + 1);
      if (verdict.kind === 'undecided') continue;
      const where = `seed ${seed} ${dataModel}: ${verdict.kind}\n${text}`;
      const values = Choices.seeded(seed * 7919);
      for (const draw of [undefined, () => values.int(2 ** 31)]) {
        const run: ExecutionResult = executeImp(lowered.imp, 'main', {}, { havoc: havocWith(draw), maxSteps: 1_000_000 });
        const at = run.loc ? `${run.loc.line}:${run.loc.column}` : '';
        switch (verdict.kind) {
          case 'holds':
            if (verdict.end === 'end') assert.equal(run.status, 'returned', where);
            else {
              assert.equal(run.status, 'assume-failed', where);
              assert.ok([...(lowered.assumptions ?? [])].some(([s, why]) => s.loc === run.loc && (why === 'path-ends' || why === 'program')), where);
            }
            break;
          case 'violated':
            assert.equal(`${run.status} ${at}`, `assertion-failed ${verdict.loc.line}:${verdict.loc.column}`, where);
            break;
          case 'cut':
            assert.equal(`${run.status} ${at}`, `assume-failed ${verdict.loc.line}:${verdict.loc.column}`, where);
            break;
          case 'repeats':
            assert.equal(run.status, 'out-of-steps', where);
            break;
        }
      }
    }
  }
  // The comparison means something only if runs are decided each way.
  for (const kind of ['holds', 'violated', 'undecided']) assert.ok((counts.get(kind) ?? 0) > 10, `${kind}: ${JSON.stringify([...counts])}`);
  assert.ok((counts.get('not C') ?? 0) < PROGRAMS / 4, JSON.stringify([...counts]));
});

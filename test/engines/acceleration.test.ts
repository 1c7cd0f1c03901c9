import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseImp } from '../../src/ivl/index.js';
import { printImp } from '../../src/ivl/printer.js';
import { checkImp } from '../../src/ivl/typecheck.js';
import { bvValue, executeImp, type ImpValue } from '../../src/ivl/interp.js';
import { accelerateLoops, executeOnePath, jumpsOf, type ExecutionVerdict, type LoopJump } from '../../src/engines/index.js';
import type { HavocStmt, ImpProgram } from '../../src/ivl/ast.js';
import { bvType, syntheticLoc } from '../../src/ivl/ast.js';
import { rng } from '../../src/common/random.js';

const VARS = ['x', 'y', 'z'];

/**
 * A random 8-bit loop whose body steps some of x, y, z by constants (some
 * on a branch), sets w, and asserts and assumes comparisons (some of them in
 * 64 bits, as the overflow checks are). With `choice`, the loop also goes on
 * only while c, chosen afresh at the end of each iteration, allows it (as
 * `while (__VERIFIER_nondet_bool())` is lowered). With `quadratic`, a
 * variable may add a stepped one in each iteration.
 */
function randomLoop(r: () => number, choice = false, quadratic = false): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const lit = () => `${Math.floor(r() * 256)}bv8`;
  const operand = () => (r() < 0.7 ? pick([...VARS, 'n', 'w']) : lit());
  const side = () => (r() < 0.4 ? `${pick(VARS)} ${pick(['+', '-'])} ${Math.floor(r() * 4)}bv8` : operand());
  const comparison = () => {
    if (r() < 0.15) return `${pick(VARS)} ${pick(['==', '!='])} ${side()}`;
    if (r() < 0.3) return `${pick(['sle', 'sge'])}(sext64(${pick(VARS)}) + ${Math.floor(r() * 6)}bv64, ${pick(['127bv64', '18446744073709551488bv64', '100bv64'])})`;
    const c = `${pick(['slt', 'sle', 'sgt', 'sge', 'ult', 'ule', 'ugt', 'uge'])}(${side()}, ${side()})`;
    return r() < 0.2 ? `!${c}` : c;
  };
  const conjunction = () => Array.from({ length: 1 + Math.floor(r() * 2) }, comparison).join(' && ');
  const stepped = VARS.filter(() => r() < 0.6);
  if (stepped.length === 0) stepped.push('x');
  const body: string[] = [];
  for (const v of stepped) {
    if (r() < 0.5) body.push(`assert {:goal overflow ${body.length}} ${conjunction()};`);
    const c = 1 + Math.floor(r() * 3);
    const step = r() < 0.5 ? `${v} := ${v} + ${c}bv8;` : `${v} := ${v} - ${c}bv8;`;
    // Some steps on a branch: each path gets its own jump.
    // A guard may be a disjunction: its else path is then !a && !b.
    const guard = r() < 0.5 ? `${comparison()} || ${comparison()}` : comparison();
    body.push(r() < 0.4 ? `if (${guard}) { ${step} } else { ${v} := ${v} + ${1 + Math.floor(r() * 3)}bv8; }` : step);
  }
  // A variable that adds a stepped one in each iteration: quadratic in the iterations.
  const unstepped = VARS.filter((v) => !stepped.includes(v));
  if (quadratic && unstepped.length) body.splice(Math.floor(r() * (body.length + 1)), 0, `${pick(unstepped)} := ${pick(unstepped)} ${pick(['+', '-'])} ${pick(stepped)};`);
  if (r() < 0.5) body.push(`assert ${conjunction()};`);
  if (r() < 0.3) body.splice(Math.floor(r() * body.length), 0, `assume ${conjunction()};`);
  // w: set to a value the loop does not change, read by nothing in the loop.
  if (r() < 0.4) body.splice(Math.floor(r() * body.length), 0, `w := ${pick(['n + 1bv8', '7bv8', 'n'])};`);
  let cond = r() < 0.25 ? `${pick(VARS)} != ${side()}` : conjunction();
  if (choice) {
    cond = r() < 0.3 ? pick(['!(c == 0bv8)', 'ult(c, 2bv8)']) : `${cond} && ${pick(['!(c == 0bv8)', 'ult(c, 2bv8)'])}`;
    body.push('c := havoc;', pick(['assume ule(c, 1bv8);', 'assume ult(c, 3bv8);', '']));
  }
  return `procedure main() { var x: bv8, y: bv8, z: bv8, n: bv8, w: bv8, c: bv8;
    while (${cond}) { ${body.join(' ')} } }`;
}

/** The loops (of `programs` random ones) that the acceleration applies to, each with its start state for given inputs (the jumps' own variables given, not havocked). */
function* acceleratedLoops(r: () => number, programs: number, choice: boolean, quadratic: boolean) {
  for (let i = 0; i < programs; i++) {
    const text = randomLoop(r, choice, quadratic);
    const original = parseImp(text, 't.imp');
    const accelerated = accelerateLoops(original);
    if (!accelerated) continue;
    checkImp(accelerated.program);
    const jumpLocals = accelerated.program.procedures[0]!.locals.filter((d) => d.name.startsWith('$acc'));
    const startOf = (inputs: ReadonlyMap<string, ImpValue>) =>
      new Map<string, ImpValue>([...inputs, ...jumpLocals.map((d): [string, ImpValue] => [d.name, d.type.kind === 'bv' ? bvValue(0, d.type.width) : { kind: 'bool', value: false }])]);
    yield { text, original, program: accelerated.program, startOf };
  }
}

/** Random 8-bit values of the loops' variables. */
function randomInputs(r: () => number): Map<string, ImpValue> {
  return new Map<string, ImpValue>(['x', 'y', 'z', 'n', 'w', 'c'].map((v) => [v, bvValue(Math.floor(r() * 256), 8)]));
}

/**
 * Random loops (`programs` of them, quadratic or not) against their
 * accelerated programs: with every jump declined the run is the loop's own,
 * and every jump not cut off ends as the loop itself does. The number of
 * runs with a jump.
 */
function jumpsMatchTheLoop(seed: number, programs: number, quadratic: boolean): number {
  const r = rng(seed);
  let jumps = 0;
  let compared = 0;
  for (const { text, original, program, startOf } of acceleratedLoops(r, programs, false, quadratic)) {
    for (let k = 0; k < 25; k++) {
      const inputs = randomInputs(r);
      // The jumps' own variables start given (not havocked), so that each havoc below is a jump's statement.
      const start = startOf(inputs);
      const plain = executeImp(original, 'main', inputs, { maxSteps: 20_000 });
      if (plain.status === 'out-of-steps') continue;
      // Every jump declined: the loop's own execution is still there, unchanged (no path of the program is cut).
      const declined = executeImp(program, 'main', start, { maxSteps: 20_000, havoc: (name) => (name.endsWith('_go') ? { kind: 'bool', value: false } : assert.fail(`havoc of ${name}`)) });
      assert.equal(declined.status, plain.status, text);
      assert.deepEqual(declined.goal, plain.goal, text);
      for (const v of ['x', 'y', 'z', 'n', 'w']) assert.deepEqual(declined.state.get(v), plain.state.get(v), `${v}: ${text}`);
      // Each jump taken or not, over 1 to 300 iterations (mostly a few).
      const taken: bigint[] = [];
      const jumped = executeImp(program, 'main', start, {
        maxSteps: 20_000,
        havoc: (name, type) => {
          if (name.endsWith('_go')) return { kind: 'bool', value: r() < 0.6 };
          if (type.kind !== 'bv') return assert.fail(`havoc of ${name}`);
          const x = r();
          taken.push(BigInt(1 + Math.floor(r() * (x < 0.5 ? 4 : x < 0.8 ? 20 : 300))));
          return bvValue(taken[taken.length - 1]!, type.width);
        },
      });
      if (jumped.status === 'assume-failed' || taken.length === 0) continue;
      jumps++;
      const why: string = `${text}\ninputs ${[...inputs].map(([v, x]) => `${v}=${(x as { value: bigint }).value}`).join(' ')}, jumps of ${taken.join(', ')}\n${printImp(program)}`;
      assert.equal(jumped.status, plain.status, why);
      assert.deepEqual(jumped.goal, plain.goal, why);
      if (plain.status === 'returned') for (const v of ['x', 'y', 'z', 'n', 'w']) assert.deepEqual(jumped.state.get(v), plain.state.get(v), `${v}: ${why}`);
      compared++;
    }
  }
  assert.equal(compared, jumps);
  return jumps;
}

test('a jump over m iterations reaches only what the loop reaches, and cuts off none of its executions: on random 8-bit loops, with every jump declined the run is the loop\'s own, and every jump not cut off ends as the loop itself does (same state, same failing assert); some jumps are taken', () => {
  const jumps = jumpsMatchTheLoop(20261127, 250, false);
  assert.ok(jumps > 100, `${jumps} jumps taken`);
});

test('the same with a variable that adds a stepped one in each iteration (quadratic in the iterations: each such term and each comparison with one monotone over the jump)', () => {
  const jumps = jumpsMatchTheLoop(20261129, 500, true);
  assert.ok(jumps > 100, `${jumps} jumps taken`);
});

test('a jump is cut off where a quadratic variable rises and falls over it: its values at both ends pass the assert, a middle one does not', () => {
  // z at the iterations' starts from x = 6, z = 0: 0 5 9 12 14 15 15 14 12 9 5 0; the assert fails at the fifth.
  const text = 'procedure main() { var x: bv8, z: bv8; while (true) { assert sle(z, 13bv8); x := x - 1bv8; z := z + x; } }';
  const accelerated = accelerateLoops(parseImp(text, 't.imp'));
  assert.ok(accelerated, 'accelerated');
  const start = new Map<string, ImpValue>([
    ['x', bvValue(6, 8)],
    ['z', bvValue(0, 8)],
    ...accelerated.program.procedures[0]!.locals.filter((d) => d.name.startsWith('$acc')).map((d): [string, ImpValue] => [d.name, d.type.kind === 'bool' ? { kind: 'bool', value: false } : bvValue(0, 64)]),
  ]);
  const jump = (m: number) =>
    executeImp(accelerated.program, 'main', start, { maxSteps: 1000, havoc: (name) => (name.endsWith('_go') ? { kind: 'bool', value: true } : bvValue(m, 64)) }).status;
  assert.equal(jump(11), 'assume-failed', 'over the failing iteration: cut off');
  assert.equal(jump(3), 'assertion-failed', 'z rises over three iterations: the jump is taken, and the loop fails after it');
});

test('a loop that goes on while a nondet value chosen in each iteration allows it: a run that jumps ends as the loop does when each nondet call returns what the jump chose (its value for the iterations before the last repeated), as the replay feeds them; some jumps are taken', () => {
  const r = rng(20261128);
  let jumps = 0;
  for (const { text, original, program, startOf } of acceleratedLoops(r, 600, true, false)) {
    for (let k = 0; k < 25; k++) {
      const inputs = randomInputs(r);
      const start = startOf(inputs);
      // The values of c's nondet calls in order, a jump's choice for its first m - 1 iterations repeated.
      const calls: bigint[] = [];
      let m = 0n;
      let taken = 0;
      const jumped = executeImp(program, 'main', start, {
        maxSteps: 20_000,
        havoc: (name, type) => {
          if (name.endsWith('_go')) return { kind: 'bool', value: r() < 0.6 };
          if (type.kind !== 'bv') return assert.fail(`havoc of ${name}`);
          if (name.endsWith('_m')) {
            taken++;
            m = BigInt(1 + Math.floor(r() * (r() < 0.5 ? 4 : 60)));
            return bvValue(m, 64);
          }
          const value = BigInt(Math.floor(r() * 3));
          if (name.endsWith('_w')) for (let j = 1n; j < m; j++) calls.push(value);
          else calls.push(value);
          return bvValue(value, 8);
        },
      });
      if (jumped.status === 'assume-failed' || jumped.status === 'out-of-steps' || taken === 0) continue;
      let next = 0;
      const plain = executeImp(original, 'main', inputs, {
        maxSteps: 20_000,
        havoc: () => (next < calls.length ? bvValue(calls[next++]!, 8) : assert.fail(`the loop makes more nondet calls than the ${calls.length} the jumps chose: ${text}`)),
      });
      const why: string = `${text}\nnondet calls ${calls.join(', ')}\n${printImp(program)}`;
      assert.equal(plain.status, jumped.status, why);
      assert.deepEqual(plain.goal, jumped.goal, why);
      if (plain.status === 'returned') {
        assert.equal(next, calls.length, `every value the jumps chose is used: ${why}`);
        for (const v of ['x', 'y', 'z', 'n', 'w', 'c']) assert.deepEqual(plain.state.get(v), jumped.state.get(v), `${v}: ${why}`);
      }
      jumps++;
    }
  }
  assert.ok(jumps > 100, `${jumps} runs with jumps`);
});

/** The one execution of `program` (its jumps taken as long as they may be, when it has them). */
function executeWithJumps(program: ImpProgram, jumps: readonly LoopJump[] = []): ExecutionVerdict {
  const at = new Map<HavocStmt, LoopJump>();
  for (const j of jumps) at.set(j.go, j).set(j.m, j);
  return executeOnePath(program, { deadline: () => 60_000, isNondet: () => false, endsRun: () => false, jumpAt: (s) => at.get(s) });
}

/** A verdict without its step count, for comparing runs that took different numbers of steps. */
function outcome(v: ExecutionVerdict): string {
  return v.kind === 'holds' ? `holds (${v.end})` : v.kind === 'undecided' ? `undecided: ${v.reason.replace(/after \d+ steps/, '')}` : `${v.kind} at ${v.loc.line}:${v.loc.column}`;
}

test('the one execution that takes each jump as long as its facts allow ends as the loop does: on random 8-bit loops from random start values, the same verdict (the same failing assert, cut or cycle) and, where the loop ends, the same state; jumps are taken', () => {
  const r = rng(20261128);
  let runs = 0;
  let shorter = 0;
  for (let i = 0; i < 200; i++) {
    for (const quadratic of [false, true]) {
      const loop = randomLoop(r, false, quadratic);
      for (let k = 0; k < 4; k++) {
        const start = VARS.concat('n', 'w').map((v) => `${v} := ${Math.floor(r() * 256)}bv8;`).join(' ');
        const text = loop.replace('while (', `${start} while (`);
        const original = parseImp(text, 't.imp');
        const accelerated = accelerateLoops(original);
        if (!accelerated) break;
        const plain = executeWithJumps(original);
        // Where the loop ends, its final state is asserted after it: a jump that lands elsewhere fails that assert.
        const final = plain.kind === 'holds' ? executeImp(original, 'main', new Map(), { maxSteps: 1_000_000 }) : undefined;
        const check = final?.status === 'returned' ? `assert ${VARS.concat('n', 'w').map((v) => `${v} == ${(final.state.get(v) as { value: bigint }).value}bv8`).join(' && ')};` : '';
        const checked = parseImp(text.replace(/\} \}$/, `} ${check} }`), 't.imp');
        const jumping = accelerateLoops(checked)!;
        const jumped = executeWithJumps(jumping.program, jumping.jumps);
        assert.equal(outcome(jumped), outcome(executeWithJumps(checked)), `${text}\n${printImp(jumping.program)}`);
        assert.equal(outcome(jumped), outcome(plain), text);
        runs++;
        if (jumped.steps < plain.steps) shorter++;
      }
    }
  }
  assert.ok(runs > 500, `${runs} runs compared`);
  assert.ok(shorter > 40, `${shorter} runs shorter with jumps`);
});

test('a counter run to 10^8 in two phases (steps of 1, then of 2) is a few jumps: the run ends with the counter at 10^8, and an assert that fails in the middle of a phase is not jumped over', () => {
  const program = (assertInLoop: string, assertAfter: string) =>
    parseImp(`procedure main() { var x: bv32; x := 0bv32; while (ult(x, 100000000bv32)) { ${assertInLoop} if (ult(x, 10000000bv32)) { x := x + 1bv32; } else { x := x + 2bv32; } } ${assertAfter} }`, 't.imp');
  const run = (p: ImpProgram) => {
    const a = accelerateLoops(p)!;
    return executeWithJumps(a.program, a.jumps);
  };
  const ends = run(program('', 'assert x == 100000000bv32;'));
  assert.equal(ends.kind, 'holds');
  assert.ok(ends.steps < 1000, `${ends.steps} steps`);
  assert.equal(outcome(run(program('', 'assert x == 100000001bv32;'))), 'violated at 1:151');
  const inLoop = run(program('assert x != 50000000bv32;', ''));
  assert.equal(outcome(inLoop), 'violated at 1:77');
  assert.ok(inLoop.steps < 1000, `${inLoop.steps} steps`);
});

test('loops outside the shape are not accelerated: a disjunction, a step by a variable, a 64-bit counter; a body with branches gets a jump per path that qualifies', () => {
  const none = (body: string, cond = 'slt(x, n)', type = 'bv32') =>
    accelerateLoops(parseImp(`procedure main() { var x: ${type}, y: ${type}, n: ${type}; while (${cond}) { ${body} } }`, 't.imp')) === undefined;
  assert.ok(!none('x := x + 1bv32;'), 'the plain counter is accelerated');
  assert.ok(!none('x := x + 1bv32;', 'x != n'), 'x != n: where x - n has one sign at both ends');
  assert.ok(none('x := x + 1bv32;', 'slt(x, n) || slt(y, n)'), 'a disjunction may hold at both ends and fail in between');
  assert.ok(none('x := x + y;'));
  assert.ok(!none('x := x + 1bv32; y := y + x;'), 'y adds the counter: quadratic');
  assert.ok(none('y := y + x;'), 'y adds a variable the loop does not step');
  assert.ok(none('x := x + 1bv32; y := y + x; x := y + 1bv32;'), 'x stepped twice');
  assert.ok(!none('if (slt(x, y)) { x := x + 1bv32; }'));
  assert.ok(none('if (srem(x, 2bv32) == 0bv32) { x := x + 1bv32; } else { x := x + 3bv32; }'), 'neither path qualifies: x % 2 is not affine');
  assert.ok(!none('if (slt(x, y) && slt(y, n)) { x := x + 1bv32; } else { x := x + 2bv32; }'), 'the then path qualifies (!(a && b) on the other is a disjunction)');
  assert.ok(none('x := x + 1bv64;', 'slt(x, n)', 'bv64'));
  assert.ok(none('x := x + 1bv32; x := x + 1bv32;'), 'a variable stepped twice');
  assert.ok(!none('x := x + 1bv32; y := n;'), 'y set to what the loop does not change');
  assert.ok(none('y := n; x := x + y;'), 'y set, and read in the loop');
  assert.ok(none('x := x + 1bv32; y := n;', 'slt(x, y)'), 'y set, and read by the condition (it differs between the first iteration and the others)');
  assert.ok(none('x := x + 1bv32; y := x;'), 'y set to what the loop changes');
});

test('the jump after the loop has run m times: x + c·m, with the condition and the asserts required at the first and the last of the m iterations', () => {
  const a = accelerateLoops(parseImp('procedure main() { var i: bv32, n: bv32; while (slt(i, n)) { assert {:goal overflow 0} sle(sext64(i) + 2bv64, 2147483647bv64); i := i + 2bv32; } }', 't.imp'));
  assert.ok(a);
  const text = printImp(a.program);
  assert.match(text, /i := i \+ trunc32\(2bv64 \* \$acc0_m\);/);
  assert.match(text, /assume sle\(sext64\(i\) \+ 2bv64 \* \(\$acc0_m - 1bv64\) \+ 2bv64, 2147483647bv64\);/);
  assert.match(text, /assume slt\(sext64\(i\) \+ 2bv64 \* \(\$acc0_m - 1bv64\), sext64\(n\)\);/);
});

test("a counterexample's havocs as the program makes them: a jump's own choices left out, the value it chose for its iterations but the last repeated m - 1 times (none when m = 1), every other havoc kept", () => {
  const at = (file: string) => ({ ...syntheticLoc(file), line: 7, column: 9 });
  const h = (target: string, value: bigint, file = 'p.c') => ({ target, value, loc: at(file), type: bvType(64) });
  const { iterations, others } = jumpsOf([
    h('$nd1', 5n),
    h('$acc0_go', 1n, '<acceleration>'),
    h('$acc0_m', 9n, '<acceleration>'),
    h('$acc0_w', 1n),
    h('$nd4', 1n),
    h('$acc0_go', 1n, '<acceleration>'),
    h('$acc0_m', 1n, '<acceleration>'),
    h('$acc0_w', 0n),
    h('$access_w', 3n),
  ]);
  assert.equal(iterations, 10n);
  assert.deepEqual(
    others.map((x) => [x.target, x.value, x.repeat]),
    [
      ['$nd1', 5n, undefined],
      ['$acc0_w', 1n, 8n],
      ['$nd4', 1n, undefined],
      ['$access_w', 3n, undefined],
    ],
  );
});

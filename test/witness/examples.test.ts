// Every example witness of ../shared/spec/examples gives the lint result its README states, at the stated position.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { sharedPath, skipWithoutShared } from '../helpers/shared.js';
import { lintWitness, type Diagnostic } from '../../src/witness/index.js';

/** The program a witness names in task.input_files (examples name it by base name). */
function programFor(text: string): { programText: string; programFile: string } | undefined {
  const m = /input_files:\s*\n\s*-\s*"([^"]+)"|<data key="programfile">([^<]+)</.exec(text);
  const name = m?.[1] ?? m?.[2];
  if (!name) return undefined;
  return { programText: readFileSync(sharedPath('spec/examples/programs', name), 'utf8'), programFile: name };
}

function lintExample(dir: 'valid' | 'invalid', name: string, withProgram: boolean): Diagnostic[] {
  const path = sharedPath('spec/examples', dir, name);
  const text = readFileSync(path, 'utf8');
  const program = withProgram ? programFor(text) : undefined;
  return lintWitness(text, name, program ?? {});
}

const errorsOf = (ds: Diagnostic[]) => ds.filter((d) => d.severity === 'error');

test('every valid example lints without errors, with and without its program', { skip: skipWithoutShared }, () => {
  const files = readdirSync(sharedPath('spec/examples/valid'));
  assert.ok(files.length >= 16);
  for (const f of files) {
    for (const withProgram of [false, true]) {
      const ds = lintExample('valid', f, withProgram);
      assert.deepEqual(errorsOf(ds), [], `${f} (program: ${withProgram})`);
      const warnings = ds.filter((d) => d.severity === 'warning').map((d) => d.rule);
      assert.deepEqual(warnings, f.startsWith('2.1-goblint') ? ['vendor-extension'] : [], `${f} warnings`);
    }
  }
});

test('2.1-goblint: the vendor-extension warning points at format_version', { skip: skipWithoutShared }, () => {
  const [d] = lintExample('valid', '2.1-goblint-flow-insensitive-mutex.yml', false);
  assert.deepEqual([d.rule, d.severity, d.line, d.column], ['vendor-extension', 'warning', 4, 21]);
});

// [file, rule, severity, line, column, needs program]
const INVALID: Array<[string, string, 'error' | 'warning', number, number, boolean]> = [
  ['0.1-line-zero.yml', 'line-range', 'error', 21, 11, false],
  ['0.1-bad-certification.yml', 'bad-cert-value', 'error', 15, 13, false],
  ['0.1-file-not-in-task.yml', 'file-not-in-task', 'error', 19, 5, false],
  ['0.1-missing-location-column.yml', 'missing-required', 'error', 18, 3, false],
  ['2.0-root-mapping.yml', 'root-not-sequence', 'error', 2, 1, false],
  ['2.0-column-zero.yml', 'column-range', 'error', 24, 19, false],
  ['2.0-bad-hash.yml', 'bad-hash', 'error', 14, 20, false],
  ['2.0-hash-mismatch.yml', 'hash-mismatch', 'error', 14, 20, true],
  ['2.0-missing-hash-key.yml', 'hash-key-missing', 'error', 13, 11, false],
  ['2.0-version-number.yml', 'version-not-string', 'warning', 4, 21, false],
  ['2.0-loop-invariant-not-at-loop.yml', 'loop-not-found', 'error', 22, 11, true],
  ['2.0-not-statement-start.yml', 'statement-not-found', 'error', 22, 11, true],
  ['2.0-side-effect.yml', 'side-effect', 'error', 26, 16, false],
  ['2.0-expr-syntax.yml', 'expr-syntax', 'error', 26, 16, false],
  ['2.0-undeclared-variable.yml', 'undeclared-name', 'error', 26, 16, true],
  ['2.0-out-of-scope.yml', 'undeclared-name', 'error', 26, 16, true],
  ['2.0-uses-2.1-feature.yml', 'feature-not-in-version', 'error', 20, 15, false],
  ['2.0-legacy-entry-type.yml', 'entry-type-not-in-version', 'error', 2, 15, false],
  ['2.0-mixed-kinds.yml', 'mixed-witness-kinds', 'error', 2, 3, false],
  ['2.0-violation-no-target.yml', 'target-count', 'error', 2, 3, false],
  ['2.0-violation-target-not-last.yml', 'target-not-last', 'error', 21, 13, false],
  ['2.0-violation-two-follow.yml', 'several-follow', 'error', 31, 13, false],
  ['2.0-violation-follow-not-last.yml', 'follow-not-last', 'error', 31, 13, false],
  ['2.0-violation-target-with-constraint.yml', 'constraint-forbidden', 'error', 29, 15, false],
  ['2.0-violation-avoid-target.yml', 'target-avoid', 'error', 21, 13, false],
  ['2.0-violation-avoid-target.yml', 'no-follow', 'error', 19, 7, false],
  ['2.0-violation-function-enter-constraint.yml', 'constraint-forbidden', 'error', 29, 15, false],
  ['2.0-violation-bad-branching-value.yml', 'bad-branching-value', 'error', 29, 15, false],
  ['2.0-violation-return-format.yml', 'bad-constraint-format', 'error', 29, 15, false],
  ['2.0-violation-return-format.yml', 'bad-return-constraint', 'error', 29, 15, false],
  ['2.0-violation-assumption-no-constraint.yml', 'constraint-missing', 'error', 21, 13, false],
  ['2.0-violation-bad-action.yml', 'bad-enum', 'error', 22, 21, false],
  ['2.0-violation-bad-action.yml', 'no-follow', 'error', 19, 7, false],
  ['2.0-violation-branching-not-at-keyword.yml', 'branching-not-found', 'error', 24, 15, true],
  ['2.0-violation-cycle-action.yml', 'feature-not-in-version', 'error', 34, 21, false],
  ['2.1-ghost-undeclared.yml', 'ghost-undeclared', 'error', 33, 13, false],
  ['2.1-ghost-name-clash.yml', 'ghost-name-clash', 'error', 20, 9, true],
  ['2.1-cycle-then-follow.yml', 'cycle-then-follow', 'error', 32, 13, false],
  ['2.1-c-expression-with-at.yml', 'ext-keyword-in-c', 'error', 26, 16, false],
  ['graphml-two-entry-nodes.graphml', 'graphml-entry-node', 'error', 30, 5, false],
  ['graphml-invariant-in-violation.graphml', 'graphml-key-not-allowed', 'error', 32, 19, false],
  ['graphml-sink-with-edge.graphml', 'graphml-sink-edge', 'error', 55, 5, false],
  ['graphml-missing-witness-type.graphml', 'graphml-missing-data', 'error', 17, 3, false],
  ['graphml-missing-witness-type.graphml', 'graphml-undefined-key', 'error', 31, 7, false],
];

test('every invalid example reports its stated check at the stated position', { skip: skipWithoutShared }, () => {
  for (const [file, rule, severity, line, column, needsProgram] of INVALID) {
    const ds = lintExample('invalid', file, needsProgram);
    const hit = ds.find((d) => d.rule === rule && d.line === line && d.column === column);
    assert.ok(hit, `${file}: expected ${rule} at ${line}:${column}, got ${JSON.stringify(ds.map((d) => `${d.rule}@${d.line}:${d.column}`))}`);
    assert.equal(hit.severity, severity, file);
    if (needsProgram) {
      // Without the program the check cannot be made: it must not be reported.
      assert.ok(!lintExample('invalid', file, false).some((d) => d.rule === rule), `${file}: ${rule} without the program`);
    }
  }
});

test('the invalid examples are invalid, except the two that only a validator refutes and the warning-only one', { skip: skipWithoutShared }, () => {
  const lintClean = new Set(['2.0-false-invariant-count.yml', '2.0-violation-for-correct-count.yml', '2.0-version-number.yml']);
  for (const f of readdirSync(sharedPath('spec/examples/invalid'))) {
    if (f.startsWith('task-')) continue; // task files are the task module's
    const errors = errorsOf(lintExample('invalid', f, true));
    if (lintClean.has(f)) assert.deepEqual(errors, [], f);
    else assert.ok(errors.length > 0, `${f} should have errors`);
  }
});

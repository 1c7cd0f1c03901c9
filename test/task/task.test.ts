import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTaskFile, readPropertyFile, parsePropertyText, propertyOfSpecification, errorCallProperty } from '../../src/task/index.js';
import { TarsierError } from '../../src/common/errors.js';
import { sharedPath, skipWithoutShared } from '../helpers/shared.js';

function errorOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof TarsierError, String(e));
    return e.format();
  }
  assert.fail('expected an error');
}

function fixture(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-task-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const UNREACH = 'CHECK( init(main()), LTL(G ! call(reach_error())) )\n';
const MEMSAFETY =
  'CHECK( init(main()), LTL(G valid-free) )\nCHECK( init(main()), LTL(G valid-deref) )\nCHECK( init(main()), LTL(G valid-memtrack) )\n';

test('property files: every SV-COMP property is recognised with its specification text', () => {
  const p = parsePropertyText(UNREACH, '/x/unreach-call.prp');
  assert.equal(p.kind, 'unreach-call');
  assert.equal(p.entryFunction, 'main');
  assert.equal(p.errorFunction, 'reach_error');
  assert.equal(p.specification, 'CHECK( init(main()), LTL(G ! call(reach_error())) )');
  const m = parsePropertyText(MEMSAFETY, 'm.prp');
  assert.equal(m.kind, 'valid-memsafety');
  assert.deepEqual(m.subproperties, ['valid-free', 'valid-deref', 'valid-memtrack']);
  assert.equal(m.specification, MEMSAFETY.trimEnd());
  assert.equal(parsePropertyText('CHECK( init(main()), LTL(G ! overflow) )', 'o').kind, 'no-overflow');
  assert.equal(parsePropertyText('CHECK(init(main()),LTL(F end))\n', 't').kind, 'termination');
  assert.equal(parsePropertyText('\nCHECK( init(main()), LTL(G ! data-race) )\n\n', 'd').kind, 'no-data-race');
  assert.equal(parsePropertyText('CHECK( init(main()), LTL(G valid-memcleanup) )', 'c').kind, 'valid-memcleanup');
  const legacy = parsePropertyText('CHECK( init(start()), LTL(G ! call(__VERIFIER_error())) )', 'l');
  assert.equal(legacy.entryFunction, 'start');
  assert.equal(legacy.errorFunction, '__VERIFIER_error');
});

test("witnesses' specifications: property files' lines, or their formulas alone, name the property", () => {
  const kind = (spec: string) => propertyOfSpecification(spec)?.kind;
  assert.equal(kind(UNREACH), 'unreach-call');
  // Some tools write the formula alone, or in LTL(...).
  assert.equal(kind('G ! call(reach_error())'), 'unreach-call');
  assert.equal(propertyOfSpecification('LTL(G ! call(__VERIFIER_error()))')?.errorFunction, '__VERIFIER_error');
  assert.equal(kind('G ! call(__assert_fail())'), 'assert');
  assert.equal(kind('G ! overflow'), 'no-overflow');
  assert.equal(kind('  CHECK(init(main()),LTL(F end))\r\n'), 'termination');
  // GraphML: one value per line, or several CHECKs in one value.
  assert.deepEqual(propertyOfSpecification(MEMSAFETY)?.subproperties, ['valid-free', 'valid-deref', 'valid-memtrack']);
  assert.equal(kind(MEMSAFETY.replace(/\n/g, ' ')), 'valid-memsafety');
  assert.equal(kind('G valid-deref'), 'valid-memsafety');
  assert.equal(kind('G valid-memcleanup'), 'valid-memcleanup');
  // Not one property: none.
  for (const spec of ['', 'unreach-call', 'G ! label(ERROR)', UNREACH + 'CHECK( init(main()), LTL(G ! overflow) )']) assert.equal(kind(spec), undefined, spec);
});

test('the property that a function is never called is unreach-call with that error function', () => {
  const p = errorCallProperty('check_failed');
  assert.equal(p.kind, 'unreach-call');
  assert.equal(p.errorFunction, 'check_failed');
  assert.equal(p.specification, 'CHECK( init(main()), LTL(G ! call(check_failed())) )');
});

test('property files: unsupported or malformed lines are errors with their position', () => {
  assert.equal(
    errorOf(() => parsePropertyText('\n  CHECK( init(main()), LTL(G ! label(ERROR)) )\n', 'p.prp')),
    "p.prp:2:3: error: unsupported property 'LTL(G ! label(ERROR))' (legacy label reachability)",
  );
  assert.match(errorOf(() => parsePropertyText('COVER( init(main()), FQL(COVER EDGES(@DECISIONEDGE)) )', 'c.prp')), /^c\.prp:1:1: error: a Test-Comp coverage/);
  assert.match(errorOf(() => parsePropertyText('CHECK( init(main()), G ! overflow )', 'x.prp')), /^x\.prp:1:1: error: expected 'CHECK/);
  assert.match(errorOf(() => parsePropertyText(UNREACH + 'CHECK( init(main()), LTL(G ! overflow) )\n', 'y.prp')), /^y\.prp:2:1: error: a property file with several lines/);
  assert.match(errorOf(() => parsePropertyText('  \n', 'e.prp')), /^e\.prp:1:1: error: property file contains no CHECK line/);
});

test('task files: keys, patterns, data model and verdicts are read', () => {
  const dir = fixture({
    'props/unreach-call.prp': UNREACH,
    'props/valid-memsafety.prp': MEMSAFETY,
    'prog/a.c': 'int main(){}',
    'prog/b.c': 'int x;',
    'prog/t.yml': [
      'format_version: 2.0',
      "input_files: ['b.c', 'a.*']",
      'properties:',
      '  - property_file: ../props/unreach-call.prp',
      '    expected_verdict: true',
      '  - property_file: ../props/valid-memsafety.prp',
      '    expected_verdict: false',
      '    subproperty: valid-deref',
      'options:',
      '  language: C',
      '  data_model: LP64',
      '',
    ].join('\n'),
  });
  const t = readTaskFile(join(dir, 'prog/t.yml'));
  assert.equal(t.formatVersion, '2.0');
  assert.deepEqual(t.inputFiles, [join(dir, 'prog/b.c'), join(dir, 'prog/a.c')]);
  assert.deepEqual(t.inputFilesAsWritten, ['b.c', 'a.c']);
  assert.equal(t.dataModel, 'LP64');
  assert.equal(t.language, 'C');
  assert.deepEqual(
    t.properties.map((p) => [p.property, p.propertyFile, p.expectedVerdict, p.subproperty]),
    [
      ['unreach-call', join(dir, 'props/unreach-call.prp'), true, undefined],
      ['valid-memsafety', join(dir, 'props/valid-memsafety.prp'), false, 'valid-deref'],
    ],
  );
});

test('task files: errors name the file, line and column', () => {
  const dir = fixture({
    'u.prp': UNREACH,
    'a.c': '',
    'missing-input.yml': "format_version: '2.0'\ninput_files: 'nothere.c'\n",
    'missing-prop.yml': "format_version: '2.0'\ninput_files: a.c\nproperties:\n  - property_file: nope.prp\n",
    'dup.yml': "format_version: '2.0'\ninput_files: a.c\nproperties:\n  - property_file: u.prp\n  - property_file: ./u.prp\n",
    'version.yml': "format_version: '3.0'\ninput_files: a.c\n",
    'syntax.yml': "format_version: '2.0'\ninput_files: [a.c\n",
    'list.yml': '- a\n- b\n',
    'datamodel.yml': "format_version: '2.0'\ninput_files: a.c\noptions:\n  data_model: X86\n",
    'sub.yml': "format_version: '2.0'\ninput_files: a.c\nproperties:\n  - property_file: u.prp\n    expected_verdict: false\n    subproperty: valid-free\n",
  });
  const err = (name: string) => errorOf(() => readTaskFile(join(dir, name)));
  assert.equal(err('missing-input.yml'), `${join(dir, 'missing-input.yml')}:2:14: error: input file 'nothere.c' does not exist`);
  assert.equal(err('missing-prop.yml'), `${join(dir, 'missing-prop.yml')}:4:20: error: property file 'nope.prp' does not exist`);
  assert.equal(err('dup.yml'), `${join(dir, 'dup.yml')}:5:20: error: property file './u.prp' is specified multiple times`);
  assert.equal(err('version.yml'), `${join(dir, 'version.yml')}:1:17: error: unsupported format_version '3.0' (expected one of 0.1, 1.0, 2.0, 2.1)`);
  assert.match(err('syntax.yml'), /syntax\.yml:3:1: error: /);
  assert.equal(err('list.yml'), `${join(dir, 'list.yml')}:1:1: error: a task-definition file must be a YAML mapping`);
  assert.equal(err('datamodel.yml'), `${join(dir, 'datamodel.yml')}:4:15: error: 'options.data_model' must be ILP32 or LP64`);
  assert.equal(err('sub.yml'), `${join(dir, 'sub.yml')}:6:18: error: 'valid-free' is not a sub-property of unreach-call`);
  // Benchmark sets reference coverage properties and files that are absent: skippable.
  const t = readTaskFile(join(dir, 'missing-prop.yml'), { skipUnusableProperties: true });
  assert.equal(t.properties.length, 0);
  assert.deepEqual(t.skippedProperties, [{ propertyFile: join(dir, 'nope.prp'), reason: "property file 'nope.prp' does not exist" }]);
  assert.equal(t.dataModelGiven, false);
});

test('task files: the invalid examples of the spec are rejected at the right place', { skip: skipWithoutShared }, () => {
  const inv = (n: string) => sharedPath('spec', 'examples', 'invalid', n);
  assert.equal(
    errorOf(() => readTaskFile(inv('task-no-property-file.yml'))),
    `${inv('task-no-property-file.yml')}:5:5: error: missing property file: a property entry needs 'property_file'`,
  );
  assert.equal(
    errorOf(() => readTaskFile(inv('task-options-in-1.0.yml'))),
    `${inv('task-options-in-1.0.yml')}:7:1: error: key 'options' needs format_version 2.0 or later (this file has 1.0)`,
  );
  assert.equal(
    errorOf(() => readTaskFile(inv('task-verdict-string.yml'))),
    `${inv('task-verdict-string.yml')}:6:23: error: invalid expected_verdict: must be the YAML boolean true or false (not a string)`,
  );
});

test('task files: the spec examples and the shared property files', { skip: skipWithoutShared }, () => {
  const t = readTaskFile(sharedPath('spec', 'examples', 'tasks', 'mutex.yml'));
  assert.equal(t.dataModel, 'LP64');
  assert.deepEqual(t.properties.map((p) => [p.property, p.expectedVerdict]), [['no-data-race', true]]);
  const m = readPropertyFile(sharedPath('bench', 'sv-benchmarks', 'c', 'properties', 'valid-memsafety.prp'));
  assert.equal(m.kind, 'valid-memsafety');
  assert.equal(m.lines.length, 3);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { repoRoot } from '../helpers/shared.js';
import {
  correctnessWitnessRequired,
  defaultProperty,
  goalRolesOf,
  passesOf,
  preferredProperty,
  PROPERTY_TABLE,
  propertyRow,
  violationKinds,
  violationOf,
  violationNames,
  violationWitnessFormat,
  witnessFileNames,
} from '../../src/properties/index.js';
import { GOAL_KINDS } from '../../src/lower/index.js';
import { PROPERTY_KINDS, VIOLATION_NAMES, type PropertyKind } from '../../src/task/index.js';
import { verify } from '../../src/verify/index.js';

const fx = (...p: string[]) => join(repoRoot, 'test', 'fixtures', 'verify', ...p);
const plain = { concurrent: false };
const threads = { concurrent: true };

test('every property has one row, and every row names real goal kinds and violation names', () => {
  assert.deepEqual(PROPERTY_TABLE.map((r) => r.kind).sort(), [...PROPERTY_KINDS].sort());
  for (const row of PROPERTY_TABLE) {
    for (const [goal, v] of Object.entries(row.violations)) {
      assert.ok((GOAL_KINDS as readonly string[]).includes(goal) || goal === 'lasso', `${row.kind}: goal kind ${goal}`);
      assert.ok((VIOLATION_NAMES as readonly string[]).includes(v!.name), `${row.kind}: FALSE(${v!.name})`);
    }
    for (const k of row.boundKinds) assert.ok((GOAL_KINDS as readonly string[]).includes(k), `${row.kind}: bound kind ${k}`);
    // A supported property is decided by some step; one not supported says why.
    assert.equal(row.notSupported === undefined, row.strategy.length > 0, row.kind);
    // A row whose one gcc run can show a violation (concreteRun) decides
    // programs without nondeterminism by the execution step.
    if (row.concreteRun) assert.ok(row.strategy.includes('execution') || row.strategy.includes('termination'), `${row.kind}: a concrete run without the execution step`);
    // An included property's line is verified on its own: it includes nothing itself.
    if (row.mayInclude) assert.equal(propertyRow(row.mayInclude).mayInclude, undefined, row.kind);
    // A property only threads violate is decided for programs with threads.
    if (row.onlyWithThreads) assert.ok(row.threaded, row.kind);
  }
});

test("violation witnesses follow the rules' table (seed 004): GraphML 1.0 for leaks, concurrency and data races", () => {
  const format = (kind: PropertyKind, violated: string, program = plain) => {
    const f = violationWitnessFormat(kind, violated, program);
    return `${f.version} ${f.file}`;
  };
  assert.equal(format('unreach-call', 'unreach-call'), '2.0 witness.yml');
  assert.equal(format('unreach-call', 'unreach-call', threads), '1.0 witness.graphml');
  assert.equal(format('no-overflow', 'no-overflow'), '2.0 witness.yml');
  assert.equal(format('no-overflow', 'no-overflow', threads), '1.0 witness.graphml');
  assert.equal(format('valid-memsafety', 'valid-deref'), '2.0 witness.yml');
  assert.equal(format('valid-memsafety', 'valid-free'), '2.0 witness.yml');
  assert.equal(format('valid-memsafety', 'valid-memtrack'), '1.0 witness.graphml');
  assert.equal(format('valid-memsafety', 'valid-deref', threads), '1.0 witness.graphml');
  assert.equal(format('valid-memcleanup', 'valid-memcleanup'), '1.0 witness.graphml');
  assert.equal(format('no-data-race', 'no-data-race'), '1.0 witness.graphml');
  assert.equal(format('termination', 'termination'), '2.1 witness.yml');
});

test('correctness witnesses are required for unreach-call and no-overflow only', () => {
  assert.deepEqual(
    PROPERTY_KINDS.filter((k) => correctnessWitnessRequired(k)),
    ['unreach-call', 'no-overflow'],
  );
  // Not required, but written for memory safety (the rules do not support them there); none for termination.
  assert.equal(propertyRow('valid-memsafety').correctnessWitness?.format.version, '2.0');
  assert.equal(propertyRow('termination').correctnessWitness, undefined);
});

test('goals, passes and replays per property', () => {
  assert.deepEqual(passesOf('unreach-call'), ['error-calls']);
  assert.deepEqual(passesOf('termination'), []);
  assert.deepEqual(violationKinds('valid-memsafety'), ['valid-deref', 'valid-free', 'valid-memtrack']);
  assert.deepEqual(goalRolesOf('no-overflow'), { error: ['overflow'], bound: ['recursion', 'memory-unknown', 'thread-bound'] });
  // A memory-safety violation is named, and replayed, by its sub-property.
  assert.deepEqual(violationOf('valid-memsafety', 'valid-free'), { name: 'valid-free', replay: 'valid-free' });
  // A goal of another property violates nothing (under no-overflow, reach_error only ends the path).
  assert.equal(violationOf('no-overflow', 'reach_error'), undefined);
  assert.equal(violationOf('termination', 'lasso')?.name, 'termination');
  assert.deepEqual(violationKinds('termination'), []);
});

test('what validate checks per property, and how', () => {
  const validation = (k: PropertyKind) => propertyRow(k).validation;
  // Violation witnesses: unreach-call by its error call, no-overflow where the replay says, memory by the sanitizers, termination as a lasso.
  assert.deepEqual(
    Object.fromEntries(PROPERTY_KINDS.flatMap((k) => (validation(k) ? [[k, `${validation(k)!.violation} ${validation(k)!.replay}`]] : []))),
    {
      'unreach-call': 'error-call error-call',
      'no-overflow': 'at-target signed-overflow',
      'valid-memsafety': 'memory memory-error',
      'valid-memcleanup': 'memory valid-memcleanup',
      termination: 'cycle endless-run',
    },
  );
  assert.deepEqual(PROPERTY_KINDS.filter((k) => validation(k)?.correctness), ['unreach-call', 'no-overflow']);
  // Programs with threads: a GraphML witness's schedule is replayed for the properties decided there.
  assert.deepEqual(
    Object.fromEntries(PROPERTY_KINDS.flatMap((k) => (propertyRow(k).threaded ? [[k, propertyRow(k).threaded]] : []))),
    { 'unreach-call': 'error-call', 'no-overflow': 'signed-overflow', 'no-data-race': 'data-race' },
  );
  // A one-goal property's witness runs look for what its one violation shows.
  for (const k of ['unreach-call', 'no-overflow', 'valid-memcleanup'] as const) {
    assert.deepEqual(Object.values(propertyRow(k).violations).map((v) => v!.replay), [validation(k)!.replay], k);
  }
});

test('the names a FALSE may carry: the violations\' own, and those of an included line', () => {
  assert.deepEqual(violationNames('unreach-call'), ['unreach-call']);
  assert.deepEqual(violationNames('valid-memsafety'), ['valid-deref', 'valid-free', 'valid-memtrack', 'valid-memcleanup']);
  assert.deepEqual(violationNames('valid-memcleanup'), ['valid-memcleanup']);
  assert.deepEqual(violationNames('termination'), ['termination']);
  assert.deepEqual([...witnessFileNames()].sort(), ['witness.graphml', 'witness.yml']);
});

test('the default choice among a task\'s properties', () => {
  const props = (...kinds: PropertyKind[]) => kinds.map((property) => ({ property }));
  assert.equal(defaultProperty(props('termination', 'no-overflow', 'unreach-call'))?.property, 'no-overflow');
  assert.equal(defaultProperty(props('termination', 'valid-memsafety')), undefined);
  assert.equal(preferredProperty(['no-overflow', 'unreach-call']), 'unreach-call');
  assert.equal(preferredProperty(['termination']), undefined);
});

test('no-data-race: only threads violate it (the row\'s onlyWithThreads), so a program that starts none holds it', async () => {
  assert.equal(propertyRow('no-data-race').onlyWithThreads, true);
  const r = await verify(fx('overflow.c'), { prp: fx('no-data-race.prp'), timeoutS: 10, witnessPath: null });
  assert.equal(r.verdict.kind, 'true', r.reason);
  assert.match(r.reason, /starts no threads, and only threads violate no-data-race/);
});

// `convert --to 2.0`: 0.1 invariants to an invariant_set (column base 0 -> 1), GraphML violation witnesses to a violation_sequence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, sharedPath, skipWithoutShared } from '../helpers/shared.js';
import { convertTo20, lintWitness, readWitness, violationSequenceToGraphml, writeGraphml, writeWitness, type InvariantSetEntry, type ViolationSequenceEntry } from '../../src/witness/index.js';
import { scanProgram } from '../../src/witness/program-tokens.js';

const read = (p: string) => readWitness(readFileSync(sharedPath(p), 'utf8'), p);

test('0.1 loop and location invariants become one 2.0 invariant_set; columns move from 0-based to 1-based', { skip: skipWithoutShared }, () => {
  const r = convertTo20(read('spec/examples/valid/0.1-count.yml'), { creationTime: '2025-01-01T00:00:00Z' });
  assert.equal(r.converted, 2);
  assert.deepEqual(r.notes.map((n) => [n.at?.line, n.message.split(' ')[0]]), [[28, 'loop_invariant_certificate']]);
  assert.equal(r.document.entries.length, 1);
  const set = r.document.entries[0] as InvariantSetEntry;
  assert.equal(set.metadata.format_version, '2.0');
  assert.equal(set.metadata.creation_time, '2025-01-01T00:00:00Z');
  assert.match(set.metadata.uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.deepEqual(
    set.content.map((c) => ('location' in c ? [c.kind, c.location.line, c.location.column, c.location.columnBase, 'value' in c ? c.value.format : ''] : [])),
    [
      ['loop_invariant', 12, 3, 1, 'c_expression'],
      ['location_invariant', 16, 3, 1, 'c_expression'],
    ],
  );
  // The result is a valid 2.0 witness whose locations point at the loop keyword and the statement.
  const text = writeWitness(r.document);
  const program = readFileSync(sharedPath('spec/examples/programs/count.c'), 'utf8');
  assert.deepEqual(lintWitness(text, 'out.yml', { programText: program, programFile: 'count.c' }), []);
  assert.equal(writeWitness(convertTo20(read('spec/examples/valid/0.1-count.yml'), { creationTime: '2025-01-01T00:00:00Z' }).document), text, 'deterministic');
});

test("CPAchecker's 0.1 column 0 (the whole line) becomes a location without column", { skip: skipWithoutShared }, () => {
  const r = convertTo20(read('witnesses/real/sv-witnesses/multivar_1-1.c.invariant_witness.yaml'));
  const set = r.document.entries[0] as InvariantSetEntry;
  const item = set.content[0];
  assert.ok(item.kind === 'loop_invariant');
  assert.deepEqual([item.location.line, item.location.column], [22, undefined]);
  assert.deepEqual(r.notes.map((n) => n.at?.line), [21, 31]);
  assert.match(r.notes[0].message, /column 0 .* without column/);
});

test('what has no 2.0 counterpart is reported, not converted', { skip: skipWithoutShared }, () => {
  const pre = convertTo20(read('spec/examples/valid/0.1-precondition-sum.yml'));
  assert.equal(pre.converted, 0);
  assert.deepEqual(pre.document.entries, []);
  assert.deepEqual(pre.notes.map((n) => n.at?.line), [2, 32]);
  assert.match(pre.notes[0].message, /precondition_loop_invariant has no 2\.0 counterpart/);
  const fi = convertTo20(read('spec/examples/valid/0.1-flow-insensitive-mutex.yml'));
  assert.match(fi.notes[0].message, /flow_insensitive_invariant/);
  const correctness = convertTo20(read('spec/examples/valid/graphml-correctness-count.graphml'));
  assert.deepEqual(correctness.document.entries, []);
  assert.match(correctness.notes[0].message, /only violation witnesses/);
  // 2.x entries are kept as they are.
  const kept = convertTo20(read('spec/examples/valid/2.0-correctness-sum.yml'));
  assert.equal(kept.document.entries.length, 2);
  assert.deepEqual(kept.notes, []);
});

const waypoints = (e: ViolationSequenceEntry) =>
  e.content.map((s) => s.waypoints.map((w) => `${w.type}@${w.location.line}:${w.location.column ?? ''}=${w.constraint?.value ?? ''}`).join(' '));

test('a GraphML violation witness with its program: the assumption after line 10 kept before the next statement, the target at the reach_error call; lints clean', { skip: skipWithoutShared }, () => {
  const program = readFileSync(sharedPath('spec/examples/programs/bug.c'), 'utf8');
  const r = convertTo20(read('spec/examples/valid/graphml-violation-bug.graphml'), { programText: program });
  const seq = r.document.entries[0] as ViolationSequenceEntry;
  assert.deepEqual(seq.metadata.task?.input_files, ['bug.c']);
  assert.equal(seq.metadata.task?.input_file_hashes['bug.c'], '4fe2e7399bb2517b055d671df20551c7b3d079c0976d7bc9a48924c89ae0c7e3');
  assert.equal(seq.metadata.task?.data_model, 'ILP32');
  // x == 20 holds after `int x = ...;` (line 10), so before `int y = 0;`; the branch of line 15 is
  // kept, and the violation is the reach_error() call of line 16, as in the spec's 2.0 example.
  assert.deepEqual(waypoints(seq), ['assumption@11:3=x == 20', 'branching@12:3=true', 'branching@15:3=true', 'target@16:5=']);
  assert.deepEqual(r.notes, []);
  assert.deepEqual(lintWitness(writeWitness(r.document), 'out.yml', { programText: program, programFile: 'bug.c' }), []);
});

test('without the program, a GraphML violation after a branch cannot be placed: said so, nothing converted', { skip: skipWithoutShared }, () => {
  const r = convertTo20(read('spec/examples/valid/graphml-violation-bug.graphml'));
  assert.deepEqual(r.document.entries, []);
  assert.deepEqual(r.notes.map((n) => n.message), [
    "assumption 'x == 20' after line 10 (it holds after that step; a 2.x assumption holds before a statement: give the program to place it before the next one)",
    'the violation follows the condition-true branch at line 15; the reach_error() call it leads to can be located only in the program: give the program (--program)',
  ]);
});

const fixture = (name: string) => join(repoRoot, 'test', 'fixtures', 'witness', name);

test('GraphML steps to 2.0 with the program: result values at the call, assumptions after a step and after a branch, a call entered, the target after the last branch', () => {
  const program = readFileSync(fixture('graphml-steps.c'), 'utf8');
  const doc = readWitness(readFileSync(fixture('graphml-steps.graphml'), 'utf8'), 'steps.graphml');
  const r = convertTo20(doc, { programText: program });
  assert.deepEqual(r.notes, []);
  const seq = r.document.entries[0] as ViolationSequenceEntry;
  assert.deepEqual(waypoints(seq), [
    'function_return@10:33=\\result == 7',
    'assumption@11:3=a == 7',
    'function_enter@11:18=',
    'branching@12:3=true',
    'assumption@13:5=(b == 14) && (a > 0)',
    'branching@14:5=true',
    'target@15:7=',
  ]);
  assert.ok(seq.content.flatMap((s) => s.waypoints).every((w) => w.location.function === 'main'));
  assert.equal(r.converted, 7);
  assert.deepEqual(lintWitness(writeWitness(r.document), 'out.yml', { programText: program, programFile: 'graphml-steps.c' }), []);

  // What cannot be placed is said: a name the program does not have, a violation one branch short of the call.
  const text = readFileSync(fixture('graphml-steps.graphml'), 'utf8');
  const hidden = convertTo20(readWitness(text.replace('a == 7;', 'zz == 7;'), 's.graphml'), { programText: program });
  assert.deepEqual(hidden.notes.map((n) => n.message), ["assumption 'zz == 7' after line 10 (zz not visible at line 11)"]);
  const short = text.replace(/<edge source="N5"[\s\S]*?<\/edge>/, '<edge source="N5" target="E"><data key="startline">13</data></edge>');
  const s = convertTo20(readWitness(short, 's.graphml'), { programText: program });
  assert.deepEqual(s.document.entries, []);
  assert.equal(s.notes.at(-1)?.message, 'the violation after the step on line 13 is not a call of reach_error that the program reaches from there without a further branch');
});

test('2.0 to GraphML and back with the program: every follow waypoint survives the round trip', { skip: skipWithoutShared }, () => {
  const program = readFileSync(sharedPath('spec/examples/programs/bug.c'), 'utf8');
  const original = read('spec/examples/valid/2.0-violation-bug.yml');
  assert.ok(original.format === 'yaml');
  const seq = original.entries[0] as ViolationSequenceEntry;
  const { graphml, dropped } = violationSequenceToGraphml(seq, 'bug.c', scanProgram(program));
  // GraphML names the functions called: the nondet function and check, not their caller.
  assert.deepEqual(graphml.edges.map((e) => e.data['assumption.resultfunction'] ?? e.data.enterFunction ?? ''), ['__VERIFIER_nondet_int', '', 'check', 'check', '', '']);
  assert.deepEqual(dropped, ['avoid waypoint (assumption) at line 11']);
  const back = convertTo20(readWitness(writeGraphml(graphml), 'bug.graphml'), { programText: program });
  assert.deepEqual(back.notes, []);
  const follow = { ...seq, content: seq.content.map((s) => ({ waypoints: s.waypoints.filter((w) => w.action === 'follow') })) };
  assert.deepEqual(waypoints(back.document.entries[0] as ViolationSequenceEntry), waypoints(follow));
});

test('with the program, a 0.1 column that already counts from 1 (Goblint after 2024-04) is kept, not shifted', { skip: skipWithoutShared }, () => {
  const text = readFileSync(sharedPath('spec/examples/valid/0.1-count.yml'), 'utf8').replace(/column: 2/g, 'column: 3');
  const program = readFileSync(sharedPath('spec/examples/programs/count.c'), 'utf8');
  const blind = convertTo20(readWitness(text, 'g.yml'));
  const set0 = blind.document.entries[0] as InvariantSetEntry;
  assert.deepEqual(set0.content.map((c) => ('location' in c ? c.location.column : 0)), [4, 4]);
  const r = convertTo20(readWitness(text, 'g.yml'), { programText: program });
  const set = r.document.entries[0] as InvariantSetEntry;
  assert.deepEqual(set.content.map((c) => ('location' in c ? c.location.column : 0)), [3, 3]);
  assert.deepEqual(r.notes.map((n) => n.at?.line), [19, 28, 61]);
  assert.match(r.notes[0].message, /already counts from 1 .* kept as column 3/);
  // The regular 0-based columns of the example are shifted as usual with the program too.
  const plain = convertTo20(read('spec/examples/valid/0.1-count.yml'), { programText: program });
  assert.deepEqual((plain.document.entries[0] as InvariantSetEntry).content.map((c) => ('location' in c ? c.location.column : 0)), [3, 3]);
});

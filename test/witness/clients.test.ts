// What other tools need of Tarsier's witnesses and accept in theirs: one
// GraphML `specification` per property (witnesslint --svcomp), SHA-1
// programhash checked, descriptive metadata read leniently by validators,
// 0.2 entries read as 0.1, 2.x violation witnesses converted to GraphML,
// GraphML correctness invariants placed in the program; and the property
// file with a valid-memcleanup line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { parsePropertyText } from '../../src/task/index.js';
import { convertToGraphml, graphmlInvariants, lintWitness, readGraphml, readWitness, violationSequenceToGraphml, writeGraphml, type ViolationSequenceEntry } from '../../src/witness/index.js';
import { scanProgram } from '../../src/witness/program-tokens.js';

const MEMSAFETY = 'CHECK( init(main()), LTL(G valid-free) )\nCHECK( init(main()), LTL(G valid-deref) )\nCHECK( init(main()), LTL(G valid-memtrack) )';
const PROGRAM = [
  'extern int __VERIFIER_nondet_int(void);', // 1
  'extern void reach_error(void);', //          2
  'int main(void) {', //                        3
  '  int n = __VERIFIER_nondet_int();', //      4
  '  int i = 0;', //                            5
  '  while (i < n) {', //                       6
  '    i++;', //                                7
  '  }', //                                     8
  '  if (i < 0) reach_error();', //             9
  '  return 0;', //                             10
  '}', //                                       11
  '',
].join('\n');
const SHA256 = createHash('sha256').update(PROGRAM).digest('hex');
const SHA1 = createHash('sha1').update(PROGRAM).digest('hex');

function sequence(spec: string, waypoints: string): string {
  return `- entry_type: "violation_sequence"
  metadata:
    format_version: "2.0"
    uuid: "6b3f6f3e-2f0a-4d55-9d2e-3c1b0a9e7c21"
    creation_time: "2024-05-01T12:00:00Z"
    producer: {name: "t", version: "1"}
    task: {input_files: ["p.c"], input_file_hashes: {"p.c": "${SHA256}"}, specification: ${JSON.stringify(spec)}, data_model: "ILP32", language: "C"}
  content:
${waypoints}`;
}

const RETURN_AND_TARGET = `    - segment:
        - waypoint: {type: "function_return", action: "follow", location: {file_name: "p.c", line: 4, column: 33, function: "main"}, constraint: {value: "\\\\result == 3", format: "acsl_expression"}}
    - segment:
        - waypoint: {type: "target", action: "follow", location: {file_name: "p.c", line: 10, column: 3, function: "main"}}`;

function graphml(spec: string[], hash: string, body = ''): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <key id="witness-type" for="graph" attr.name="witness-type" attr.type="string"/>
  <key id="sourcecodelang" for="graph" attr.name="sourcecodeLanguage" attr.type="string"/>
  <key id="producer" for="graph" attr.name="producer" attr.type="string"/>
  <key id="specification" for="graph" attr.name="specification" attr.type="string"/>
  <key id="programfile" for="graph" attr.name="programFile" attr.type="string"/>
  <key id="programhash" for="graph" attr.name="programHash" attr.type="string"/>
  <key id="architecture" for="graph" attr.name="architecture" attr.type="string"/>
  <key id="creationtime" for="graph" attr.name="creationTime" attr.type="string"/>
  <key id="entry" for="node" attr.name="isEntryNode" attr.type="boolean"><default>false</default></key>
  <key id="invariant" for="node" attr.name="invariant" attr.type="string"/>
  <key id="invariant.scope" for="node" attr.name="invariant.scope" attr.type="string"/>
  <key id="startline" for="edge" attr.name="startline" attr.type="int"/>
  <key id="control" for="edge" attr.name="control" attr.type="string"/>
  <key id="enterLoopHead" for="edge" attr.name="enterLoopHead" attr.type="boolean"><default>false</default></key>
  <graph edgedefault="directed">
    <data key="witness-type">correctness_witness</data>
    <data key="sourcecodelang">C</data>
    <data key="producer">hand 1</data>
${spec.map((s) => `    <data key="specification">${s}</data>`).join('\n')}
    <data key="programfile">p.c</data>
    <data key="programhash">${hash}</data>
    <data key="architecture">32bit</data>
    <data key="creationtime">2024-05-01T12:00:00Z</data>
    <node id="N0"><data key="entry">true</data></node>
${body}
  </graph>
</graphml>
`;
}

function yamlEntries(text: string) {
  const doc = readWitness(text, 'w.yml');
  assert.ok(doc.format === 'yaml');
  return doc.entries;
}

const rules = (text: string, programText?: string) =>
  lintWitness(text, 'w', programText !== undefined ? { programText, programFile: 'p.c' } : {}).map((d) => `${d.severity[0]}:${d.rule}`);

test('GraphML violation witnesses: one specification element per property line, as witnesslint --svcomp wants', () => {
  const entry = yamlEntries(sequence(MEMSAFETY, RETURN_AND_TARGET))[0] as ViolationSequenceEntry;
  const g = violationSequenceToGraphml(entry, 'p.c', scanProgram(PROGRAM)).graphml;
  const specs = g.graphData.filter((d) => d.key === 'specification').map((d) => d.value);
  assert.deepEqual(specs, MEMSAFETY.split('\n'));
  assert.deepEqual(rules(writeGraphml(g), PROGRAM), []);
  // Three CHECKs in one element: our linter warns as the official one does in --svcomp mode.
  const joined = graphml([MEMSAFETY], SHA256);
  assert.ok(rules(joined).includes('w:unknown-specification'), rules(joined).join());
  assert.ok(!rules(graphml(MEMSAFETY.split('\n'), SHA256)).includes('w:unknown-specification'));
});

test('lint --program compares a 40-digit programhash with the SHA-1 of the program', () => {
  assert.deepEqual(rules(graphml(['CHECK( init(main()), LTL(G ! call(reach_error())) )'], SHA1), PROGRAM), []);
  assert.deepEqual(rules(graphml(['CHECK( init(main()), LTL(G ! call(reach_error())) )'], '0'.repeat(40)), PROGRAM), ['e:hash-mismatch']);
  assert.deepEqual(rules(graphml(['CHECK( init(main()), LTL(G ! call(reach_error())) )'], 'f'.repeat(64)), PROGRAM), ['e:hash-mismatch']);
});

test('descriptive metadata (producer, creation time, UUID) is an error for the linter, a warning for validators; claims stay strict', () => {
  const text = sequence('CHECK( init(main()), LTL(G ! call(reach_error())) )', RETURN_AND_TARGET)
    .replace('producer: {name: "t", version: "1"}', 'producer: {name: "Handcrafted"}')
    .replace('"2024-05-01T12:00:00Z"', '"yesterday"');
  const strict = lintWitness(text, 'w');
  assert.deepEqual(strict.filter((d) => d.severity === 'error').map((d) => d.rule).sort(), ['bad-datetime', 'missing-required']);
  const lenient = lintWitness(text, 'w', { lenientMetadata: true });
  assert.deepEqual(lenient.filter((d) => d.severity === 'error'), []);
  assert.ok(lenient.some((d) => d.rule === 'missing-required' && /read leniently/.test(d.message)));
  // What the witness claims is not descriptive: a broken hash stays an error.
  const badHash = lintWitness(text.replace(SHA256, 'abc'), 'w', { lenientMetadata: true });
  assert.ok(badHash.some((d) => d.severity === 'error' && d.rule === 'bad-hash'));
  // The reader reads such an entry (no producer at all, no UUID) instead of skipping it.
  const bare = yamlEntries(text.replace('    producer: {name: "Handcrafted"}\n', '').replace(/    uuid: .*\n/, ''))[0]!;
  assert.equal(bare.entry_type, 'violation_sequence');
  assert.ok(!('unknown' in bare));
});

test('format_version 0.2 (the location-invariant proposal) is read as 0.1, with a warning', () => {
  const text = `- entry_type: "location_invariant"
  metadata:
    format_version: "0.2"
    uuid: "6b3f6f3e-2f0a-4d55-9d2e-3c1b0a9e7c21"
    creation_time: "2024-05-01T12:00:00Z"
    producer: {name: "t", version: "1"}
    task: {input_files: ["p.c"], input_file_hashes: {"p.c": "${SHA256}"}, specification: "CHECK( init(main()), LTL(G ! call(reach_error())) )", data_model: "ILP32", language: "C"}
  location: {file_name: "p.c", file_hash: "${SHA256}", line: 7, column: 4, function: "main"}
  location_invariant: {string: "i >= 0", type: "assertion", format: "C"}
`;
  assert.deepEqual(rules(text, PROGRAM), ['w:unknown-version-accepted']);
  const e = yamlEntries(text)[0]!;
  assert.ok(!('unknown' in e) && e.entry_type === 'location_invariant' && e.location.columnBase === 0);
  assert.ok(rules(text.replace('"0.2"', '"0.3"')).includes('e:unknown-version'));
});

test('a memory-safety property file with a fourth line for valid-memcleanup', () => {
  const p = parsePropertyText(`${MEMSAFETY}\nCHECK( init(main()), LTL(G valid-memcleanup) )\n`, 'm.prp');
  assert.equal(p.kind, 'valid-memsafety');
  assert.deepEqual(p.subproperties, ['valid-free', 'valid-deref', 'valid-memtrack', 'valid-memcleanup']);
  assert.equal(parsePropertyText('CHECK( init(main()), LTL(G valid-memcleanup) )', 'c.prp').kind, 'valid-memcleanup');
  assert.throws(() => parsePropertyText('CHECK( init(main()), LTL(G valid-memcleanup) )\nCHECK( init(main()), LTL(G valid-memcleanup) )', 'd.prp'), /listed twice/);
  assert.throws(() => parsePropertyText('CHECK( init(main()), LTL(G valid-memcleanup) )\nCHECK( init(main()), LTL(G ! overflow) )', 'e.prp'), /memory-safety sub-properties only/);
});

test('convert to GraphML: a 2.x violation witness becomes a chain to a violation node that lints clean', () => {
  const doc = readWitness(sequence('CHECK( init(main()), LTL(G ! call(reach_error())) )', RETURN_AND_TARGET), 'w.yml');
  const g = convertToGraphml(doc, { programText: PROGRAM });
  assert.ok(g.graphml, g.notes.map((n) => n.message).join('; '));
  const text = writeGraphml(g.graphml);
  assert.deepEqual(rules(text, PROGRAM), []);
  const back = readGraphml(text, 'w.graphml');
  const result = back.edges.find((e) => e.data.assumption !== undefined)!;
  assert.equal(result.data.assumption, '\\result == 3;');
  assert.equal(result.data['assumption.resultfunction'], '__VERIFIER_nondet_int');
  assert.equal(back.edges.at(-1)!.data.startline, '10');
  // Without the program the called function cannot be named: refused, saying why.
  const blind = convertToGraphml(doc);
  assert.equal(blind.graphml, undefined);
  assert.match(blind.notes[0]!.message, /give the program/);
  // A non-termination witness is not converted.
  const cycle = readWitness(sequence('CHECK( init(main()), LTL(F end) )', RETURN_AND_TARGET.replace(/action: "follow", location: \{file_name: "p.c", line: 10.*/, 'action: "cycle", location: {file_name: "p.c", line: 6, column: 3, function: "main"}, constraint: {value: "true"}}').replace('format_version: "2.0"', 'format_version: "2.1"').replace('type: "target"', 'type: "branching"')), 'c.yml');
  assert.equal(convertToGraphml(cycle, { programText: PROGRAM }).graphml, undefined);
});

test('GraphML correctness witness: node invariants are placed before the steps that leave their nodes', () => {
  const body = `    <node id="N1"><data key="invariant">0 &lt;= i</data><data key="invariant.scope">main</data></node>
    <node id="N2"/>
    <node id="N3"><data key="invariant">i &gt;= n</data></node>
    <node id="N4"><data key="invariant">true</data></node>
    <edge source="N0" target="N1"><data key="startline">5</data><data key="enterLoopHead">true</data></edge>
    <edge source="N1" target="N2"><data key="startline">6</data><data key="control">condition-true</data></edge>
    <edge source="N1" target="N3"><data key="startline">6</data><data key="control">condition-false</data></edge>
    <edge source="N2" target="N1"><data key="startline">7</data><data key="enterLoopHead">true</data></edge>
    <edge source="N3" target="N4"><data key="startline">9</data><data key="control">condition-false</data></edge>`;
  const text = graphml(['CHECK( init(main()), LTL(G ! call(reach_error())) )'], SHA256, body);
  const doc = { format: 'graphml' as const, file: 'w.graphml', graphml: readGraphml(text, 'w.graphml') };
  const { entry, notes } = graphmlInvariants(doc, scanProgram(PROGRAM), PROGRAM);
  assert.deepEqual(notes, []);
  const placed = entry.content.map((c) => ('location' in c && 'value' in c ? `${c.kind}@${c.location.line}:${c.location.column}:${c.value.text}` : ''));
  // N1 is left by the loop's condition (a loop invariant at `while`), N3 by the `if` on line 9.
  assert.deepEqual(placed, ['loop_invariant@6:3:0 <= i', 'location_invariant@9:3:i >= n']);
  assert.equal(entry.metadata.task?.input_file_hashes['p.c'], SHA256);
});

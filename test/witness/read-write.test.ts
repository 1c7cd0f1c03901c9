// Reading keeps positions and source texts; writing is deterministic; read -> write -> read round-trips.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { sharedPath, skipWithoutShared } from '../helpers/shared.js';
import {
  lintWitness,
  makeMetadata,
  readWitness,
  readWitnessFile,
  sha256OfFile,
  stripPositions,
  writeWitness,
  violationSequenceToGraphml,
  writeGraphml,
  type Entry,
  type InvariantSetEntry,
  type LoopInvariantEntry01,
  type ViolationSequenceEntry,
} from '../../src/witness/index.js';

test('read -> write -> read gives an equal model for every valid example, and writing is a fixpoint', { skip: skipWithoutShared }, () => {
  const dir = sharedPath('spec/examples/valid');
  let n = 0;
  for (const f of readdirSync(dir)) {
    const doc = readWitness(readFileSync(join(dir, f), 'utf8'), f);
    if (doc.format === 'yaml') assert.ok(doc.entries.every((e) => !('unknown' in e)), f);
    const once = writeWitness(doc);
    const again = readWitness(once, f);
    assert.deepEqual(stripPositions(again), stripPositions(doc), f);
    assert.equal(writeWitness(again), once, `${f}: writing is deterministic`);
    if (doc.format === 'yaml') assert.deepEqual(lintWitness(once, f).filter((d) => d.severity === 'error'), [], `${f}: written witness lints clean`);
    n++;
  }
  assert.equal(n, readdirSync(dir).length);
});

test('0.1 columns stay 0-based in the model (columnBase 0); 2.0 columns are 1-based', { skip: skipWithoutShared }, () => {
  const d01 = readWitness(readFileSync(sharedPath('spec/examples/valid/0.1-count.yml'), 'utf8'), 'a');
  const d20 = readWitness(readFileSync(sharedPath('spec/examples/valid/2.0-correctness-count.yml'), 'utf8'), 'b');
  assert.ok(d01.format === 'yaml' && d20.format === 'yaml');
  const e01 = d01.entries[0] as LoopInvariantEntry01;
  const e20 = d20.entries[0] as InvariantSetEntry;
  assert.ok(e01.entry_type === 'loop_invariant' && e20.entry_type === 'invariant_set');
  assert.deepEqual([e01.location.column, e01.location.columnBase, e01.location.at], [2, 0, { line: 19, column: 5 }]);
  const inv = e20.content[0];
  assert.ok(inv.kind === 'loop_invariant');
  assert.deepEqual([inv.location.column, inv.location.columnBase, inv.value.text], [3, 1, 's == 2 * i && i <= n && n <= 1000']);
  assert.deepEqual(e01.invariant.at, { line: 25, column: 13 });
});

test('YAML pitfalls: unquoted 2.0 stays "2.0", numbers in value become their source text, booleans in branching become "true"', () => {
  const text = [
    '- entry_type: violation_sequence',
    '  metadata: {format_version: 2.0, uuid: 6b3f6f3e-2f0a-4d55-9d2e-3c1b0a9e7c21, creation_time: 2024-05-01T12:00:00Z,',
    '    producer: {name: X, version: 1.10}, task: {input_files: [a.c], input_file_hashes: {a.c: 335b799059963370d0194da751f4eb87a1e259636a3c4fb9ce9548bea7cb3ef1},',
    '    specification: "CHECK( init(main()), LTL(G ! call(reach_error())) )", data_model: ILP32, language: C}}',
    '  content:',
    '    - segment:',
    '        - waypoint: {type: assumption, action: follow, location: {file_name: a.c, line: 3, column: 3}, constraint: {value: 1, format: c_expression}}',
    '    - segment:',
    '        - waypoint: {type: branching, action: follow, location: {file_name: a.c, line: 4, column: 3}, constraint: {value: true}}',
    '    - segment:',
    '        - waypoint: {type: target, action: follow, location: {file_name: a.c, line: 5, column: 5}}',
  ].join('\n');
  const doc = readWitness(text, 'w.yml');
  assert.ok(doc.format === 'yaml');
  const e = doc.entries[0] as ViolationSequenceEntry;
  assert.equal(e.metadata.format_version, '2.0');
  assert.equal(e.metadata.producer.version, '1.10');
  assert.equal(e.content[0].waypoints[0].constraint?.value, '1');
  assert.equal(e.content[1].waypoints[0].constraint?.value, 'true');
  const out = writeWitness(doc);
  assert.match(out, /format_version: "2\.0"/);
  assert.match(out, /version: "1\.10"/);
  assert.match(out, /value: "1"\n/);
  const rules = lintWitness(text, 'w.yml').map((d) => `${d.rule}@${d.line}:${d.column}`);
  assert.deepEqual(rules, ['version-not-string@2:30', 'value-not-string@3:34', 'value-not-string@7:124']);
});

test('writer: quotes every string, pins creation_time, fills empty UUIDs from the injected source, keeps key order', () => {
  const md = makeMetadata({
    formatVersion: '0.1',
    producer: { name: 'tarsier', version: '0.1.0' },
    task: { inputFiles: ['a.c'], inputFileHashes: { 'a.c': 'AB'.repeat(32) }, specification: 'CHECK( init(main()), LTL(G ! call(reach_error())) )', dataModel: 'LP64' },
    uuid: '',
    creationTime: '2024-01-01T00:00:00Z',
  });
  const entry: Entry = {
    entry_type: 'loop_invariant_certificate',
    metadata: { ...md, task: undefined },
    target: { uuid: '0f4c1a3e-8c7b-4a8e-9a54-2b1d6f0e9a01', type: 'loop_invariant', file_hash: 'ab'.repeat(32) },
    certification: { string: 'confirmed', type: 'verdict', format: 'confirmed | rejected' },
  };
  const ids = ['11111111-1111-4111-8111-111111111111'];
  const text = writeWitness({ format: 'yaml', entries: [entry] }, { uuid: () => ids.shift()!, creationTime: '2025-02-03T04:05:06Z' });
  assert.equal(
    text,
    [
      '- entry_type: "loop_invariant_certificate"',
      '  metadata:',
      '    format_version: "0.1"',
      '    uuid: "11111111-1111-4111-8111-111111111111"',
      '    creation_time: "2025-02-03T04:05:06Z"',
      '    producer:',
      '      name: "tarsier"',
      '      version: "0.1.0"',
      '  target:',
      '    uuid: "0f4c1a3e-8c7b-4a8e-9a54-2b1d6f0e9a01"',
      '    type: "loop_invariant"',
      '    file_hash: "' + 'ab'.repeat(32) + '"',
      '  certification:',
      '    string: "confirmed"',
      '    type: "verdict"',
      '    format: "confirmed | rejected"',
      '',
    ].join('\n'),
  );
  assert.equal(md.task?.input_file_hashes['a.c'], 'ab'.repeat(32), 'hashes are written lowercase');
  assert.deepEqual(lintWitness(text, 'c.yml').map((d) => d.rule), ['dangling-target']);
});

test('expressions that YAML would misread are quoted and survive', () => {
  const tricky = ['*b <= 127', "! multithreaded || (m_locked || g == 0)", 'x: 1 # y', '"q" == \'c\'', '\\result == 0', 'true'];
  const md = makeMetadata({
    formatVersion: '2.0',
    producer: { name: 't', version: '1' },
    task: { inputFiles: ['a.c'], inputFileHashes: { 'a.c': '0'.repeat(64) }, specification: 'CHECK( init(main()), LTL(G ! call(reach_error())) )', dataModel: 'ILP32' },
    uuid: '6b3f6f3e-2f0a-4d55-9d2e-3c1b0a9e7c21',
    creationTime: '2024-05-01T12:00:00Z',
  });
  const doc = {
    format: 'yaml' as const,
    file: 'x',
    entries: [
      {
        entry_type: 'invariant_set' as const,
        metadata: md,
        content: tricky.map((t, i) => ({ kind: 'location_invariant' as const, location: { file_name: 'a.c', line: i + 1, column: 1, columnBase: 1 as const }, value: { text: t, format: 'c_expression' } })),
      },
    ],
  };
  const back = readWitness(writeWitness(doc), 'x');
  assert.ok(back.format === 'yaml');
  const set = back.entries[0] as InvariantSetEntry;
  assert.deepEqual(set.content.map((c) => ('value' in c ? c.value.text : '')), tricky);
});

test('readWitnessFile reads gzip-compressed witnesses; sha256OfFile hashes bytes', { skip: skipWithoutShared }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-gz-'));
  try {
    const src = sharedPath('spec/examples/valid/2.0-correctness-count.yml');
    const gz = join(dir, 'w.yml.gz');
    writeFileSync(gz, gzipSync(readFileSync(src)));
    assert.deepEqual(stripPositions(readWitnessFile(gz)).format, 'yaml');
    assert.equal(sha256OfFile(sharedPath('spec/examples/programs/count.c')), '335b799059963370d0194da751f4eb87a1e259636a3c4fb9ce9548bea7cb3ef1');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('real witnesses of other tools read without crashing and keep every entry', { skip: skipWithoutShared }, () => {
  const walk = (d: string): string[] => readdirSync(d).flatMap((f) => (statSync(join(d, f)).isDirectory() ? walk(join(d, f)) : [join(d, f)]));
  const files = walk(sharedPath('witnesses/real')).filter((f) => /\.(ya?ml|graphml)$/.test(f));
  assert.ok(files.length >= 30);
  for (const f of files) {
    const doc = readWitnessFile(f);
    if (doc.format === 'yaml') {
      assert.ok(doc.entries.length > 0, f);
      assert.deepEqual(doc.entries.filter((e) => 'unknown' in e), [], f);
      lintWitness(readFileSync(f, 'utf8'), f); // must not throw
    } else assert.ok(doc.graphml.nodes.length > 0, f);
  }
  const cpa = readWitnessFile(sharedPath('witnesses/real/sv-witnesses/multivar_1-1.c.invariant_witness.yaml'));
  assert.ok(cpa.format === 'yaml' && cpa.entries[0].entry_type === 'loop_invariant');
  assert.equal(cpa.entries[0].metadata?.format_version, '0.1');
  const lint = lintWitness(readFileSync(sharedPath('witnesses/real/sv-witnesses/multivar_1-1.c.invariant_witness.yaml'), 'utf8'), 'm.yaml');
  assert.deepEqual(lint.filter((d) => d.severity === 'error').map((d) => `${d.rule}@${d.line}:${d.column}`), ['bad-hash@45:16']);
});

test('GraphML violation witness written from a violation sequence reads back and lints clean', { skip: skipWithoutShared }, () => {
  const doc = readWitness(readFileSync(sharedPath('spec/examples/valid/2.0-violation-bug.yml'), 'utf8'), 'v.yml');
  assert.ok(doc.format === 'yaml' && doc.entries[0].entry_type === 'violation_sequence');
  const { graphml, dropped } = violationSequenceToGraphml(doc.entries[0] as ViolationSequenceEntry, 'bug.c');
  assert.deepEqual(dropped, ['avoid waypoint (assumption) at line 11']);
  const xml = writeGraphml(graphml);
  assert.deepEqual(lintWitness(xml, 'v.graphml').filter((d) => d.severity === 'error'), []);
  const back = readWitness(xml, 'v.graphml');
  assert.ok(back.format === 'graphml');
  assert.equal(back.graphml.witnessType, 'violation_witness');
  assert.deepEqual(back.graphml.edges.map((e) => e.data.startline), ['10', '12', '13', '13', '15', '16']);
  assert.equal(back.graphml.edges[0].data.assumption, '\\result == 20;');
  assert.equal(back.graphml.edges[1].data.control, 'condition-true');
  assert.equal(back.graphml.nodes.at(-1)?.data.violation, 'true');
});

test('GraphML as hand-written files come: BOM, no namespace, no key definitions, comments inside the graph', () => {
  const xml = [
    '\uFEFF<?xml version="1.0"?>',
    '<graphml>',
    '  <graph edgedefault="directed">',
    '    <!-- a comment -->',
    '    <data key="witness-type">violation_witness</data>',
    '    <node id="A"><data key="entry">true</data></node>',
    '    <node id="B"><data key="cyclehead">true</data><data key="invariant">x &gt;= 12</data></node>',
    '    <edge source="A" target="B"><data key="startline">3</data><data key="assumption">x=12</data></edge>',
    '    <edge source="B" target="B"><data key="startline">4</data></edge>',
    '  </graph>',
    '</graphml>',
  ].join('\n');
  const doc = readWitness(xml, 'w10.graphml');
  assert.ok(doc.format === 'graphml');
  assert.equal(doc.graphml.witnessType, 'violation_witness');
  assert.equal(doc.graphml.nodes[1].data.invariant, 'x >= 12');
  const ds = lintWitness(xml, 'w10.graphml');
  assert.ok(ds.some((d) => d.rule === 'graphml-undefined-key' && d.line === 5 && d.column === 5));
  assert.ok(ds.some((d) => d.rule === 'graphml-namespace' && d.line === 2 && d.column === 1));
  assert.ok(ds.some((d) => d.rule === 'graphml-self-loop' && d.line === 9));
  // A termination witness (cyclehead) may carry invariants: not reported.
  assert.ok(!ds.some((d) => d.rule === 'graphml-key-not-allowed'));
});

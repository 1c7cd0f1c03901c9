// `validate` on the witnesses other tools write: what Tarsier cannot place
// ends UNKNOWN with the reason (never exit 1); descriptive metadata missing
// is no reason to refuse; GraphML correctness witnesses, 2.1 ghosts and
// non-termination (cycle) witnesses are validated; no-overflow checks work in
// programs that call reach_error; a memory-safety property with a
// valid-memcleanup line is verified in two steps.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/shared.js';
import { needTools } from '../helpers/tools.js';
import { validate } from '../../src/validate/index.js';
import { verify } from '../../src/verify/index.js';
import { violationNames } from '../../src/properties/index.js';
import { scoreResult } from '../../src/task/index.js';

const dir = mkdtempSync(join(tmpdir(), 'tarsier-clients-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const noGcc = needTools('gcc', 'gcc -m32');
const SPEC = {
  'unreach-call': 'CHECK( init(main()), LTL(G ! call(reach_error())) )',
  'no-overflow': 'CHECK( init(main()), LTL(G ! overflow) )',
  termination: 'CHECK( init(main()), LTL(F end) )',
} as const;
for (const [k, v] of Object.entries(SPEC)) writeFileSync(join(dir, `${k}.prp`), `${v}\n`);
const prp = (k: keyof typeof SPEC) => join(dir, `${k}.prp`);

function program(name: string, text: string): { file: string; hash: string } {
  const file = join(dir, name);
  writeFileSync(file, text);
  return { file, hash: createHash('sha256').update(text).digest('hex') };
}

function metadata(p: { hash: string }, name: string, spec: string, version = '2.0', producer = '{name: "hand", version: "1"}'): string {
  return `  metadata:
    format_version: "${version}"
    uuid: "6b3f6f3e-2f0a-4d55-9d2e-3c1b0a9e7c21"
    creation_time: "2024-05-01T12:00:00Z"
    producer: ${producer}
    task: {input_files: ["${name}"], input_file_hashes: {"${name}": "${p.hash}"}, specification: "${spec}", data_model: "ILP32", language: "C"}
`;
}

function witness(name: string, text: string): string {
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
}

// Under no-overflow, with a call of reach_error the checks must not count.
const CLAMP = `extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int main() {
  int a = __VERIFIER_nondet_int();
  int b = __VERIFIER_nondet_int();
  if (b > a) return 0;
  while (b < a) {
    b++;
  }
  if (b != a) reach_error();
  return 0;
}
`;

test('no-overflow correctness witnesses of a program that calls reach_error: the true invariant confirmed, wrong ones refuted', { skip: noGcc, timeout: 600_000 }, async () => {
  const p = program('clamp.c', CLAMP);
  const inv = (value: string) =>
    witness(`clamp-${value.replace(/\W+/g, '_')}.yml`, `- entry_type: "invariant_set"
${metadata(p, 'clamp.c', 'G ! overflow', '2.0', '{name: "Handcrafted"}')}  content:
    - invariant: {type: "loop_invariant", location: {file_name: "clamp.c", line: 7, column: 3, function: "main"}, value: "${value}", format: "c_expression"}
`);
  const good = await validate(p.file, inv('b <= a'), { prp: prp('no-overflow'), timeoutS: 60 });
  assert.equal(good.outcome, 'confirmed', good.reason);
  // producer.version is missing: reported, not refused.
  assert.ok(good.lint.findings.some((d) => d.rule === 'missing-required' && d.severity === 'warning'));
  for (const wrong of ['a == b', 'b < a', '0']) {
    const r = await validate(p.file, inv(wrong), { prp: prp('no-overflow'), timeoutS: 60 });
    assert.equal(r.outcome, 'refuted', `${wrong}: ${r.reason}`);
    assert.deepEqual(r.verdict, { kind: 'false', property: 'no-overflow' });
  }
});

test('a GraphML violation witness whose violation cannot be placed ends UNKNOWN with the reason, exit 0 and a verdict line', () => {
  const p = program('place.c', CLAMP);
  const w = witness('place.graphml', `<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <key id="witness-type" for="graph" attr.name="witness-type" attr.type="string"/>
  <key id="specification" for="graph" attr.name="specification" attr.type="string"/>
  <key id="programhash" for="graph" attr.name="programHash" attr.type="string"/>
  <key id="entry" for="node" attr.name="isEntryNode" attr.type="boolean"><default>false</default></key>
  <key id="violation" for="node" attr.name="isViolationNode" attr.type="boolean"><default>false</default></key>
  <key id="startline" for="edge" attr.name="startline" attr.type="int"/>
  <graph edgedefault="directed">
    <data key="witness-type">violation_witness</data>
    <data key="specification">${SPEC['unreach-call']}</data>
    <data key="programhash">${p.hash}</data>
    <node id="A"><data key="entry">true</data></node>
    <node id="B"><data key="violation">true</data></node>
    <edge source="A" target="B"><data key="startline">5</data></edge>
  </graph>
</graphml>
`);
  const r = spawnSync(process.execPath, [join(repoRoot, 'bin/tarsier.js'), 'validate', p.file, '--prop', prp('unreach-call'), '--witness', w, '--timeout', '20'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.at(-1), 'Verification result: UNKNOWN');
  assert.match(lines.at(-2)!, /^Witness unconfirmed: the GraphML witness's path to the violation cannot be placed in the program: .*reach_error/);
});

const SPIN = `extern unsigned int __VERIFIER_nondet_uint(void);
int main(void) {
  unsigned int x = 1;
  unsigned int y = __VERIFIER_nondet_uint();
  while (x < y) {
    if (x > 3) x++;
  }
  return 0;
}
`;

test('non-termination witness (2.1 cycle): values that loop forever confirm it, values that end refute it', { skip: noGcc, timeout: 600_000 }, async () => {
  const p = program('spin.c', SPIN);
  const lasso = (y: number) =>
    witness(`spin-${y}.yml`, `- entry_type: "violation_sequence"
${metadata(p, 'spin.c', SPEC.termination, '2.1')}  content:
    - segment:
        - waypoint: {type: "function_return", action: "follow", location: {file_name: "spin.c", line: 4, column: 43, function: "main"}, constraint: {value: "\\\\result == ${y}", format: "acsl_expression"}}
    - segment:
        - waypoint: {type: "branching", action: "cycle", location: {file_name: "spin.c", line: 5, column: 3, function: "main"}, constraint: {value: "true"}}
`);
  const forever = await validate(p.file, lasso(2), { prp: prp('termination'), timeoutS: 60 });
  assert.equal(forever.outcome, 'confirmed', forever.reason);
  assert.deepEqual(forever.verdict, { kind: 'false', property: 'termination' });
  const ends = await validate(p.file, lasso(1), { prp: prp('termination'), timeoutS: 60 });
  assert.equal(ends.outcome, 'refuted', ends.reason);
  assert.deepEqual(ends.verdict, { kind: 'true' });
});

const GHOST = `extern unsigned int __VERIFIER_nondet_uint(void);
extern void reach_error(void);
int main(void) {
  unsigned int n = __VERIFIER_nondet_uint();
  unsigned int i = 0;
  if (n > 5) return 0;
  while (i < n) {
    i = i + 1;
  }
  if (i > 5) reach_error();
  return 0;
}
`;

test('2.1 ghosts: an invariant over a ghost counter is confirmed when it holds, refuted when it does not', { skip: noGcc, timeout: 600_000 }, async () => {
  const p = program('ghost.c', GHOST);
  const w = (value: string) =>
    witness(`ghost-${value.replace(/\W+/g, '_')}.yml`, `- entry_type: "ghost_instrumentation"
${metadata(p, 'ghost.c', SPEC['unreach-call'], '2.1')}  content:
    ghost_variables:
      - {name: "g", scope: "global", type: "unsigned int", initial: {value: "0", format: "c_expression"}}
    ghost_updates:
      - location: {file_name: "ghost.c", line: 8, column: 5, function: "main"}
        updates:
          - {variable: "g", value: "g + 1", format: "c_expression"}
- entry_type: "invariant_set"
${metadata(p, 'ghost.c', SPEC['unreach-call'], '2.1')}  content:
    - invariant: {type: "loop_invariant", location: {file_name: "ghost.c", line: 7, column: 3, function: "main"}, value: "${value}", format: "c_expression"}
`);
  const good = await validate(p.file, w('g == i && i <= n && n <= 5'), { prp: prp('unreach-call'), timeoutS: 90 });
  assert.equal(good.outcome, 'confirmed', good.reason);
  const bad = await validate(p.file, w('g == i + 1'), { prp: prp('unreach-call'), timeoutS: 90 });
  assert.equal(bad.outcome, 'refuted', bad.reason);
});

test('GraphML correctness witness: confirmed with true node invariants, never confirmed with a false one', { skip: noGcc, timeout: 600_000 }, async () => {
  const p = program('gc.c', GHOST);
  const w = (value: string) =>
    witness(`gc-${value.replace(/\W+/g, '_')}.graphml`, `<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <key id="witness-type" for="graph" attr.name="witness-type" attr.type="string"/>
  <key id="specification" for="graph" attr.name="specification" attr.type="string"/>
  <key id="programfile" for="graph" attr.name="programFile" attr.type="string"/>
  <key id="programhash" for="graph" attr.name="programHash" attr.type="string"/>
  <key id="architecture" for="graph" attr.name="architecture" attr.type="string"/>
  <key id="entry" for="node" attr.name="isEntryNode" attr.type="boolean"><default>false</default></key>
  <key id="invariant" for="node" attr.name="invariant" attr.type="string"/>
  <key id="startline" for="edge" attr.name="startline" attr.type="int"/>
  <key id="control" for="edge" attr.name="control" attr.type="string"/>
  <graph edgedefault="directed">
    <data key="witness-type">correctness_witness</data>
    <data key="specification">${SPEC['unreach-call']}</data>
    <data key="programfile">gc.c</data>
    <data key="programhash">${p.hash}</data>
    <data key="architecture">32bit</data>
    <node id="N0"><data key="entry">true</data></node>
    <node id="N1"><data key="invariant">${value}</data></node>
    <node id="N2"/>
    <edge source="N0" target="N1"><data key="startline">6</data></edge>
    <edge source="N1" target="N2"><data key="startline">7</data><data key="control">condition-true</data></edge>
    <edge source="N2" target="N1"><data key="startline">8</data></edge>
  </graph>
</graphml>
`);
  const good = await validate(p.file, w('i &lt;= n &amp;&amp; n &lt;= 5'), { prp: prp('unreach-call'), timeoutS: 90 });
  assert.equal(good.outcome, 'confirmed', good.reason);
  const bad = await validate(p.file, w('i == 0'), { prp: prp('unreach-call'), timeoutS: 90 });
  assert.notEqual(bad.outcome, 'confirmed', bad.reason);
  assert.equal(bad.verdict.kind, 'unknown', bad.reason);
});

test('a memory-safety property with a valid-memcleanup line: a block still reachable at exit is FALSE(valid-memcleanup)', { skip: needTools('gcc', 'gcc -m32 -fsanitize=address'), timeout: 600_000 }, async () => {
  const four = join(dir, 'four.prp');
  writeFileSync(four, 'CHECK( init(main()), LTL(G valid-free) )\nCHECK( init(main()), LTL(G valid-deref) )\nCHECK( init(main()), LTL(G valid-memtrack) )\nCHECK( init(main()), LTL(G valid-memcleanup) )\n');
  const kept = program('kept.c', '#include <stdlib.h>\nint *g;\nint main(void) {\n  g = malloc(sizeof(int));\n  return 0;\n}\n');
  const r = await verify(kept.file, { prp: four, timeoutS: 60, witnessPath: join(dir, 'kept.graphml') });
  assert.deepEqual(r.verdict, { kind: 'false', property: 'valid-memcleanup' }, r.reason);
  // A FALSE(valid-memcleanup) answers the memory-safety task (the property table's mayInclude).
  assert.deepEqual(scoreResult({ verdict: false, subproperty: 'valid-memcleanup' }, r.verdict, { property: { kind: 'valid-memsafety', violationNames: violationNames('valid-memsafety') } }), { category: 'correct', points: 1 });
  const freed = program('freed.c', '#include <stdlib.h>\nint *g;\nint main(void) {\n  g = malloc(sizeof(int));\n  free(g);\n  return 0;\n}\n');
  const t = await verify(freed.file, { prp: four, timeoutS: 60, witnessPath: null });
  assert.equal(t.verdict.kind, 'true', t.reason);
});

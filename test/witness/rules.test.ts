// The §9 checks not covered by the spec examples, each with its exact position.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkCExpression, lintWitness, type Diagnostic } from '../../src/witness/index.js';

const HASH = '335b799059963370d0194da751f4eb87a1e259636a3c4fb9ce9548bea7cb3ef1';
const SPEC = 'CHECK( init(main()), LTL(G ! call(reach_error())) )';

/** A one-entry witness; `body` is the entry's keys after metadata (indented by 2). */
function entry(type: string, body: string, o: { version?: string; uuid?: string; task?: string; extraMeta?: string } = {}): string {
  return [
    `- entry_type: "${type}"`,
    '  metadata:',
    `    format_version: ${o.version ?? '"2.0"'}`,
    `    uuid: "${o.uuid ?? '6b3f6f3e-2f0a-4d55-9d2e-3c1b0a9e7c21'}"`,
    '    creation_time: "2024-05-01T12:00:00Z"',
    '    producer: {name: "t", version: "1"}',
    o.task ??
      `    task: {input_files: ["a.c"], input_file_hashes: {"a.c": "${HASH}"}, specification: "${SPEC}", data_model: "ILP32", language: "C"}`,
    ...(o.extraMeta ? [o.extraMeta] : []),
    body,
  ].join('\n');
}

const inv = (loc: string, value = 'x > 0', type = 'loop_invariant', format = 'c_expression') =>
  `    - invariant: {type: "${type}", location: {${loc}}, value: "${value}", format: "${format}"}`;

const show = (ds: Diagnostic[]) => ds.map((d) => `${d.severity[0]}:${d.rule}@${d.line}:${d.column}`);

const PROGRAM = [
  'int g;', //                                  1
  'int f(int a) {', //                          2
  '  return a + 1;', //                         3
  '}', //                                       4
  'int main(void) {', //                        5
  '  int x = f(2);', //                         6
  '  for (int i = 0; i < 3; i++) {', //         7
  '    if (x > 2 ? 1 : 0) x--;', //             8
  '  }', //                                     9
  '  do { x++; } while (x < 9);', //           10
  '  return 0;', //                            11
  '}', //                                      12
  '',
].join('\n');

function lintP(text: string): string[] {
  return show(lintWitness(text, 'w.yml', { programText: PROGRAM, programFile: 'a.c', programHash: HASH }));
}

test('unknown-version, 2.2 accepted with a warning, version-specific entry types', () => {
  assert.deepEqual(show(lintWitness(entry('invariant_set', '  content: []', { version: '"3.0"' }), 'w.yml')), ['e:unknown-version@3:21']);
  assert.deepEqual(show(lintWitness(entry('invariant_set', `  content:\n${inv('file_name: "a.c", line: 7, column: 3')}`, { version: '"2.2"' }), 'w.yml')), ['w:unknown-version-accepted@3:21']);
  assert.deepEqual(show(lintWitness(entry('invariant_set', '  content: []', { version: '"0.1"' }), 'w.yml')), ['e:entry-type-not-in-version@1:15']);
  assert.deepEqual(show(lintWitness(entry('ghost_instrumentation', '  content: {ghost_variables: [], ghost_updates: []}'), 'w.yml')), ['e:feature-not-in-version@1:15']);
  assert.deepEqual(show(lintWitness(entry('loop_summary', '  content: []'), 'w.yml')), ['w:unknown-entry-type@1:15']);
});

test('empty content, unknown keys, bad uuid, bad date-time, legacy data model, unknown specification', () => {
  assert.deepEqual(show(lintWitness(entry('invariant_set', '  content: []'), 'w.yml')), ['w:empty-content@8:3']);
  const bad = entry('invariant_set', `  content:\n${inv('file_name: "a.c", line: 7, column: 3, colour: 1')}`, {
    uuid: 'not-a-uuid',
    task: `    task: {input_files: ["a.c"], input_file_hashes: {"a.c": "${HASH}"}, specification: "G ! overflow", data_model: "32bit", language: "C"}`,
    extraMeta: '    comment: "x"',
  }).replace('2024-05-01T12:00:00Z', '2024-05-01 12:00');
  assert.deepEqual(show(lintWitness(bad, 'w.yml')), [
    'e:bad-uuid@4:11',
    'e:bad-datetime@5:20',
    'w:unknown-specification@7:145',
    'w:legacy-data-model@7:173',
    'w:unknown-key@8:5',
    'w:unknown-key@10:92',
  ].sort((a, b) => {
    const pa = a.split('@')[1].split(':').map(Number);
    const pb = b.split('@')[1].split(':').map(Number);
    return pa[0] - pb[0] || pa[1] - pb[1];
  }));
});

test('wrong types, entries that are not mappings, hash keys missing and extra, file not in task', () => {
  const t = entry('invariant_set', `  content:\n${inv('file_name: "b.c", line: "seven"')}\n- 42`, {
    task: `    task: {input_files: ["a.c"], input_file_hashes: {"a.c": "${HASH}", "x.h": "${HASH}"}, specification: "${SPEC}", data_model: "ILP32", language: "C"}`,
  });
  assert.deepEqual(show(lintWitness(t, 'w.yml')), ['w:hash-key-extra@7:129', 'e:wrong-type@9:78', 'e:entry-not-mapping@10:3']);
  // file-not-in-task is checked on entries the reader could map.
  const u = entry('invariant_set', `  content:\n${inv('file_name: "b.c", line: 7')}`);
  assert.deepEqual(show(lintWitness(u, 'w.yml')), ['e:file-not-in-task@9:53']);
});

test('duplicate uuids, mixed versions, multiple sequences, dangling and legacy certificate targets', () => {
  const target = '- entry_type: "violation_sequence"\n' + entry('x', '').split('\n').slice(1, 7).join('\n') + '\n  content:\n    - segment:\n        - waypoint: {type: "target", action: "follow", location: {file_name: "a.c", line: 11, column: 3}}';
  const two = target + '\n' + target.replace('"2.0"', '"2.1"');
  assert.deepEqual(show(lintWitness(two, 'w.yml')), ['w:mixed-versions@1:3', 'w:duplicate-uuid@14:11', 'w:multiple-sequences@11:3'].sort((a, b) => Number(a.split('@')[1].split(':')[0]) - Number(b.split('@')[1].split(':')[0])));
  const cert = [
    '- entry_type: "loop_invariant_certificate"',
    '  metadata: {format_version: "0.1", uuid: "17529611-1cdc-482b-a525-5473d42c5df7", creation_time: "2024-05-01T12:00:00Z", producer: {name: "t", version: "1"}}',
    `  target: {uuid: "23866108-8436-419c-a72b-3462e6942a7d", type: "loop-invariant", file_hash: "${HASH}"}`,
    '  certification: {string: "rejected", type: "verdict", format: "confirmed | rejected"}',
  ].join('\n');
  assert.deepEqual(show(lintWitness(cert, 'w.yml')), ['w:dangling-target@3:11', 'w:legacy-target-type@3:64']);
});

test('ghosts: duplicates; cycles with a target; labels need 2.1', () => {
  const ghost = entry(
    'ghost_instrumentation',
    '  content:\n    ghost_variables:\n      - {name: "m", scope: "global", type: "int", initial: {value: "0", format: "c_expression"}}\n      - {name: "m", scope: "global", type: "int", initial: {value: "1", format: "c_expression"}}\n    ghost_updates: []',
    { version: '"2.1"' },
  );
  assert.deepEqual(show(lintWitness(ghost, 'w.yml')), ['e:ghost-duplicate@11:9']);
  const cyc = entry(
    'violation_sequence',
    '  content:\n    - segment:\n        - waypoint: {type: "branching", action: "cycle", location: {file_name: "a.c", line: 8, column: 5}, constraint: {value: "true"}}\n    - segment:\n        - waypoint: {type: "target", action: "follow", location: {file_name: "a.c", line: 11, column: 3}}',
    { version: '"2.1"' },
  );
  assert.deepEqual(show(lintWitness(cyc, 'w.yml')), ['e:cycle-then-follow@12:21', 'e:cycle-with-target@12:21']);
  const labels = entry('invariant_set', '  content:\n    - invariant: {type: "loop_invariant", location: {file_name: "a.c", line: 7}, value: "1", format: "c_expression", labels: ["inductive"]}');
  assert.deepEqual(show(lintWitness(labels, 'w.yml')), ['e:feature-not-in-version@9:118']);
});

test('with the program: loop, statement, branching, call parenthesis, target, function and range checks', () => {
  const seq = (wps: string[]) =>
    entry('violation_sequence', '  content:\n' + wps.map((w) => `    - segment:\n        - waypoint: {${w}}`).join('\n'));
  // Right places: for at 7:3, do at 10:3, statement x-- at 8:24, ? at 8:15, call f(2) ) at 6:14, target return at 11:3.
  const good = seq([
    'type: "function_enter", action: "follow", location: {file_name: "a.c", line: 6, column: 14, function: "main"}',
    'type: "branching", action: "follow", location: {file_name: "a.c", line: 8, column: 15}, constraint: {value: "true"}',
    'type: "assumption", action: "follow", location: {file_name: "a.c", line: 8, column: 24}, constraint: {value: "x > 2", format: "c_expression"}',
    'type: "target", action: "follow", location: {file_name: "a.c", line: 11, column: 3}',
  ]);
  assert.deepEqual(lintP(good), []);
  const bad = seq([
    'type: "function_enter", action: "follow", location: {file_name: "a.c", line: 6, column: 13, function: "main"}',
    'type: "branching", action: "follow", location: {file_name: "a.c", line: 8, column: 16}, constraint: {value: "true"}',
    'type: "assumption", action: "follow", location: {file_name: "a.c", line: 3, column: 3, function: "main"}, constraint: {value: "a > 2", format: "c_expression"}',
    'type: "assumption", action: "follow", location: {file_name: "a.c", line: 8, column: 26}, constraint: {value: "1", format: "c_expression"}',
    'type: "target", action: "follow", location: {file_name: "a.c", line: 14, column: 1}',
  ]);
  assert.deepEqual(lintP(bad), [
    'e:call-paren-not-found@10:74',
    'e:branching-not-found@12:69',
    'e:function-mismatch@14:70',
    'e:statement-not-found@16:70',
    'e:line-beyond-eof@18:66',
  ]);
  const loops = entry('invariant_set', '  content:\n' + [
    inv('file_name: "a.c", line: 7, column: 3, function: "main"'),
    inv('file_name: "a.c", line: 10, column: 3'),
    inv('file_name: "a.c", line: 10, column: 15'),
    inv('file_name: "a.c", line: 7, column: 4'),
    inv('file_name: "a.c", line: 3, column: 40', 'a > 0'),
  ].join('\n'));
  assert.deepEqual(lintP(loops), ['e:loop-not-found@11:53', 'e:loop-not-found@12:53', 'e:line-beyond-eof@13:53']);
});

test('0.1 with the program: column 0 and the keyword are both fine; a 1-based column warns column-off-by-one', () => {
  const e01 = (column: number) =>
    entry('loop_invariant', `  location: {file_name: "a.c", file_hash: "${HASH}", line: 7, column: ${column}, function: "main"}\n  loop_invariant: {string: "i >= 0", type: "assertion", format: "C"}`, { version: '"0.1"' });
  assert.deepEqual(lintP(e01(0)), []);
  assert.deepEqual(lintP(e01(2)), []);
  assert.deepEqual(lintP(e01(3)), ['w:column-off-by-one@8:13']);
  assert.deepEqual(lintP(e01(9)), ['e:loop-not-found@8:13']);
});

test('names in expressions: undeclared anywhere, or visible only in another function; ghosts and file scope are fine', () => {
  const set = entry('invariant_set', '  content:\n' + [
    inv('file_name: "a.c", line: 7, column: 3', 'x > g && nope == 1'),
    inv('file_name: "a.c", line: 3, column: 3', 'a > x', 'location_invariant'),
    inv('file_name: "a.c", line: 3, column: 3', 'a > g', 'location_invariant'),
  ].join('\n'));
  assert.deepEqual(lintP(set), ['e:undeclared-name@9:100', 'e:undeclared-name@10:104']);
});

test('the checkExpression hook gets the 1-based location and can name its rule', () => {
  const calls: Array<[string, unknown]> = [];
  const text = entry('loop_invariant', `  location: {file_name: "a.c", file_hash: "${HASH}", line: 7, column: 2, function: "main"}\n  loop_invariant: {string: "i >= 0", type: "assertion", format: "C"}`, { version: '"0.1"' });
  const ds = lintWitness(text, 'w.yml', {
    checkExpression: (expr, ctx) => {
      calls.push([expr, ctx.location]);
      return 'type-error: i is a pointer';
    },
  });
  assert.deepEqual(calls, [['i >= 0', { file: 'a.c', line: 7, column: 3, function: 'main' }]]);
  assert.deepEqual(show(ds), ['e:type-error@9:28']);
  assert.equal(ds[0].message, 'i is a pointer');
});

test('C expression check: what tools write passes; side effects, syntax errors and \\at outside ext are found', () => {
  for (const ok of [
    '(long long )i + 254LL >= (long long )v',
    '(x >= 1024U) && (x <= 4294967295U) && (y == x)',
    'b == & g && *b != 0',
    '((__int128)x) > 0',
    '(size_t)n <= sizeof(int) * 4',
    'a[i].f->g == -1 ? 1 : 0',
    "c == 'a' || s[0] == '\\\\0'",
  ]) assert.deepEqual(checkCExpression(ok, false).findings, [], ok);
  assert.deepEqual(checkCExpression('\\at(x, AnyPrev) > x', true).findings, []);
  assert.deepEqual(checkCExpression('\\at(x, AnyPrev) > x', true).identifiers.map((i) => i.name), ['x', 'x']);
  const rules = (e: string, ext = false) => checkCExpression(e, ext).findings.map((f) => `${f.rule}@${f.offset}`);
  assert.deepEqual(rules('i++ < 3'), ['side-effect@1']);
  assert.deepEqual(rules('f(x) == 1'), ['side-effect@1']);
  assert.deepEqual(rules('x += 1'), ['side-effect@2']);
  assert.deepEqual(rules('\\result == 0'), ['ext-keyword-in-c@0']);
  assert.deepEqual(rules('x == (1'), ['expr-syntax@7']);
  assert.deepEqual(rules(''), ['expr-syntax@0']);
  assert.deepEqual(rules('x # y'), ['expr-syntax@2']);
  assert.deepEqual(rules('('.repeat(5000) + 'x' + ')'.repeat(5000)).length, 1, 'deep nesting is one finding, not a crash');
});

test('with the program: branching values must fit the keyword (true/false at if and ?, an integer or default at switch)', () => {
  const program = 'int main(void) {\n  int x = 0;\n  switch (x) { case 1: break; }\n  if (x) x = 1;\n  return 0;\n}\n';
  const seq = (wps: string[]) =>
    entry('violation_sequence', '  content:\n' + wps.map((w) => `    - segment:\n        - waypoint: {${w}}`).join('\n') + '\n    - segment:\n        - waypoint: {type: "target", action: "follow", location: {file_name: "a.c", line: 5, column: 3}}');
  const lint = (t: string) => show(lintWitness(t, 'w.yml', { programText: program, programFile: 'a.c', programHash: HASH }));
  assert.deepEqual(lint(seq([
    'type: "branching", action: "follow", location: {file_name: "a.c", line: 3, column: 3}, constraint: {value: 1}',
    'type: "branching", action: "follow", location: {file_name: "a.c", line: 4, column: 3}, constraint: {value: "false"}',
  ])), []);
  assert.deepEqual(lint(seq([
    'type: "branching", action: "follow", location: {file_name: "a.c", line: 3, column: 3}, constraint: {value: true}',
    'type: "branching", action: "follow", location: {file_name: "a.c", line: 4}, constraint: {value: "default"}',
  ])), ['e:boolean-at-switch@10:121', 'e:integer-at-if@12:110']);
  // A value that is no case constant selects the default branch: allowed, with a warning.
  assert.deepEqual(lint(seq([
    'type: "branching", action: "follow", location: {file_name: "a.c", line: 3, column: 3}, constraint: {value: 0x2}',
  ])), ['w:switch-value@10:121']);
});

test('with the program: a target in the middle of an expression is target-not-found', () => {
  const at = (column: number) =>
    entry('violation_sequence', `  content:\n    - segment:\n        - waypoint: {type: "target", action: "follow", location: {file_name: "a.c", line: 6, column: ${column}}}`);
  // Line 6 is `  int x = f(2);`: the argument 2 (column 14) starts no full expression.
  assert.deepEqual(lintP(at(14)), ['e:target-not-found@10:66']);
  // The declaration (column 3) and the initializer f(2) (column 11) are accepted.
  assert.deepEqual(lintP(at(3)), []);
  assert.deepEqual(lintP(at(11)), []);
});

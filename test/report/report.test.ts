import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildReport, probeGcc, renderReportPage, reportFromFiles } from '../../src/index.js';
import { cliPath, repoRoot, sharedPath, skipWithoutShared } from '../helpers/shared.js';

const ex = (...p: string[]) => sharedPath('spec', 'examples', ...p);

test('a violation witness becomes a numbered path; the nondet call of a function_return is named', { skip: skipWithoutShared }, () => {
  const data = reportFromFiles(ex('programs', 'bug.c'), ex('valid', '2.0-violation-bug.yml'));
  assert.equal(data.witness.kind, 'violation');
  assert.deepEqual(data.path.map((id) => data.markers[id].step), [1, 2, 3, 4, 5, 6, 7]);
  const first = data.markers[data.path[0]];
  assert.deepEqual([first.line, first.column, first.text, first.nondetCall], [10, 33, '\\result == 20', '__VERIFIER_nondet_int']);
  // The second function_return is at check(x), which is no nondet call.
  assert.equal(data.markers[data.path[4]].nondetCall, undefined);
  assert.equal(data.markers[data.path[6]].kind, 'target (follow)');
  assert.equal(data.diagnostics.length, 0);
});

test('a lint diagnostic is attached to the entry whose witness lines hold it', { skip: skipWithoutShared }, () => {
  const data = reportFromFiles(ex('programs', 'count.c'), ex('invalid', '2.0-loop-invariant-not-at-loop.yml'));
  assert.equal(data.markers.length, 1);
  const m = data.markers[0];
  assert.deepEqual([m.line, m.column, m.kind], [13, 5, 'loop_invariant']);
  assert.deepEqual(m.diagnostics.map((d) => d.rule), ['loop-not-found']);
  assert.deepEqual(data.general, []);
});

test('0.1 columns are shown counted from 1; certificates have no program location', { skip: skipWithoutShared }, () => {
  const data = reportFromFiles(ex('programs', 'count.c'), ex('valid', '0.1-count.yml'));
  const loop = data.markers.find((m) => m.kind === 'loop_invariant')!;
  assert.deepEqual([loop.line, loop.column], [12, 3]);
  assert.match(loop.columnNote ?? '', /column 2 \(counted from 0\)/);
  assert.equal(data.markers.find((m) => m.kind === 'loop_invariant_certificate')!.line, undefined);
});

test('GraphML: correctness invariants at the line of the steps leaving their node; violation edges as steps', { skip: skipWithoutShared }, () => {
  const ok = reportFromFiles(ex('programs', 'count.c'), ex('valid', 'graphml-correctness-count.graphml'));
  assert.deepEqual(ok.markers.map((m) => [m.category, m.line]), [['invariant', 12]]);
  const bad = reportFromFiles(ex('programs', 'bug.c'), ex('valid', 'graphml-violation-bug.graphml'));
  assert.deepEqual(bad.path.map((id) => [bad.markers[id].line, bad.markers[id].text]), [[10, 'x == 20;'], [12, '[then]'], [15, '[then]']]);
});

test('a witness for another program: the hash mismatch is shown, as are the entries that miss the program', { skip: skipWithoutShared }, () => {
  const data = reportFromFiles(ex('programs', 'loop.c'), ex('valid', '2.0-correctness-sum.yml'));
  assert.ok(data.general.some((d) => d.rule === 'hash-mismatch'));
  assert.ok(data.markers.some((m) => !m.inProgram), 'sum.c has lines loop.c does not');
  const page = renderReportPage(data);
  assert.match(page, /Outside the program/);
  assert.match(page, /hash-mismatch/);
});

test('a YAML syntax error gives a page with the error, not a blank one', () => {
  const data = buildReport({ programText: 'int main(void) { return 0; }\n', programFile: 'p.c', witnessText: '- entry_type: "invariant_set"\n  metadata: [unclosed\n', witnessFile: 'w.yml' });
  assert.equal(data.witness.kind, 'unreadable');
  assert.match(data.fatal ?? '', /^w\.yml:\d+:\d+: error: /);
  assert.ok(data.general.length > 0);
  const page = renderReportPage(data);
  assert.match(page, /role="alert"/);
  assert.match(page, /<div class="ln" id="L1" data-line="1">/);
});

test('a blank witness where one may be missing (the playground at start) is no witness, not an unreadable one', () => {
  const input = { programText: 'int main(void) { return 0; }\n', programFile: 'p.c', witnessText: '\n  \n', witnessFile: 'w.yml' };
  const none = buildReport({ ...input, witnessMayBeMissing: true });
  assert.equal(none.witness.kind, 'none');
  assert.equal(none.fatal, undefined);
  assert.deepEqual(none.diagnostics, []);
  const page = renderReportPage(none);
  assert.doesNotMatch(page, /role="alert"/);
  assert.match(page, /no witness yet/);
  // A blank witness file given to `report` is still unreadable.
  assert.equal(buildReport(input).witness.kind, 'unreadable');
});

test('the page is self-contained and escapes the texts it shows', () => {
  const data = buildReport({ programText: 'int main(void) { int x = 1 < 2; return 0; }\n', programFile: 'p.c', witnessText: '# </script><img src=x onerror=alert(1)>\n[]\n', witnessFile: 'w.yml' });
  const page = renderReportPage(data);
  assert.doesNotMatch(page, /<img/);
  assert.doesNotMatch(page, /\b(src|href)="(https?:)?\/\//);
  assert.equal(page.match(/<script>/g)?.length, 1);
  assert.match(page, /1 &lt; 2/);
});

test('tarsier report writes the page; a missing file is one line and exit status 2', { skip: skipWithoutShared }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-report-'));
  const out = join(dir, 'r.html');
  const ok = spawnSync(process.execPath, [cliPath, 'report', '--program', ex('programs', 'bug.c'), '--witness', ex('valid', '2.0-violation-bug.yml'), '-o', out], { encoding: 'utf8' });
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stderr, /7 located entries \(7 path steps\), 0 lint errors/);
  assert.match(readFileSync(out, 'utf8'), /^<!DOCTYPE html>/);
  const missing = spawnSync(process.execPath, [cliPath, 'report', '--program', join(dir, 'none.c'), '--witness', ex('valid', '2.0-violation-bug.yml')], { encoding: 'utf8' });
  assert.equal(missing.status, 2);
  assert.equal(missing.stderr.trim().split('\n').length, 1);
  assert.match(missing.stderr, /none\.c: error: no such file/);
});

test('verify --report writes the report of its violation witness', { skip: probeGcc().gcc ? false : 'skipped: gcc is not installed (a FALSE needs its replay)' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-verify-report-'));
  const r = spawnSync(process.execPath, [cliPath, 'verify', join(repoRoot, 'examples', 'mult.yml'), '--witness', join(dir, 'w.yml'), '--report', join(dir, 'r.html')], { encoding: 'utf8' });
  assert.match(r.stdout, /Verification result: FALSE\(unreach-call\)/);
  const page = readFileSync(join(dir, 'r.html'), 'utf8');
  assert.match(page, /__VERIFIER_nondet_int\(\) = 100/);
  assert.match(page, /violation witness/);
});

test('report --validate: the outcome, each entry\'s status and the violating run on the page; a refused witness shown, usage errors not', { skip: probeGcc().gcc ? false : 'skipped: gcc is not installed (a violation is confirmed by its replay)' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-report-validate-'));
  const report = (...args: string[]) => spawnSync(process.execPath, [cliPath, 'report', '--program', join(repoRoot, 'examples', 'mult.c'), ...args], { encoding: 'utf8', timeout: 300_000 });
  const witness = join(repoRoot, 'test', 'fixtures', 'witness', 'mult-violation.yml');
  const ok = report('--witness', witness, '--validate', '--property', 'unreach-call', '-o', join(dir, 'r.html'));
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stderr, /r\.html: 2 located entries \(2 path steps\), 0 lint errors, 0 warnings; witness confirmed \(FALSE\(unreach-call\)\)\n$/);
  const page = readFileSync(join(dir, 'r.html'), 'utf8');
  assert.match(page, /<div class="validation good" role="status"><b>Validation: witness confirmed<\/b> — FALSE\(unreach-call\)<p>the witness&#39;s 1 nondet values, run: replay/);
  assert.match(page, /The violating run: <code>__VERIFIER_nondet_int\(\) = 100<\/code>/);
  assert.equal(page.match(/<span class="status good">used<\/span>/g)?.length, 4, 'each waypoint, in its annotation and its details');
  // count.c's witness on mult.c: refused by the validator, and the page says so.
  const foreign = report('--witness', join(repoRoot, 'examples', 'count-invariants-0.1.yml'), '--validate', '--property', 'unreach-call', '-o', join(dir, 'f.html'));
  assert.equal(foreign.status, 0, foreign.stderr);
  assert.match(readFileSync(join(dir, 'f.html'), 'utf8'), /the validator refused the witness: \S*count-invariants-0\.1\.yml:\d+:\d+: error: the witness is for another program/);
  const noProperty = report('--witness', witness, '--validate');
  assert.equal(noProperty.status, 2);
  assert.equal(noProperty.stderr, 'tarsier: error: --validate needs the property: --prop P.prp or --property KIND (e.g. unreach-call)\n');
  assert.equal(report('--witness', witness, '--property', 'unreach-call').status, 2);
});

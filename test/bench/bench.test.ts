import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  runBench,
  templateTool,
  readRecords,
  runLimited,
  scoreDirectories,
  scoreJson,
  Progress,
  expandRuns,
  fillTemplate,
  tarsierValidateTemplate,
  validatorCommand,
  type RunRecord,
} from '../../src/bench/index.js';
import { cliPath } from '../helpers/shared.js';
import { makeBench, slowMixedTasks, toolCmd } from './fixtures.js';

const pick = (records: readonly RunRecord[]) =>
  Object.fromEntries(records.map((r) => [r.id, [r.status, r.category, r.points]]));

test('bench: answers are classified and scored as the rules say, with CSV, summary and page', async () => {
  const root = makeBench([
    { dir: 'loops', name: 'a', expected: 'true', answer: 'TRUE' },
    { dir: 'loops', name: 'b', expected: 'false', answer: 'FALSE(unreach-call)' },
    { dir: 'loops', name: 'c', expected: 'false', answer: 'TRUE' },
    { dir: 'loops', name: 'd', expected: 'true', answer: 'FALSE(unreach-call)' },
    { dir: 'heap', name: 'e', expected: 'false(valid-deref)', property: 'valid-memsafety', answer: 'FALSE(valid-free)' },
    { dir: 'heap', name: 'f', expected: 'false(valid-deref)', property: 'valid-memsafety', answer: 'FALSE(valid-deref)' },
    { dir: 'heap', name: 'g', expected: 'true', property: 'valid-memsafety', answer: 'UNKNOWN' },
    { dir: 'heap', name: 'h', expected: 'true', property: 'valid-memsafety', mode: 'garbage' },
  ]);
  const out = join(root, 'out');
  const r = await runBench({ sets: [join(root, 'set')], tool: templateTool(toolCmd(root), 'fake'), timeout: 10, jobs: 2, out });
  assert.equal(r.complete, true);
  assert.deepEqual(pick(r.records), {
    'heap/e.yml#valid-memsafety': ['false(valid-free)', 'wrong', -16],
    'heap/f.yml#valid-memsafety': ['false(valid-deref)', 'correct', 1],
    'heap/g.yml#valid-memsafety': ['unknown', 'unknown', 0],
    'heap/h.yml#valid-memsafety': ['error', 'unknown', 0],
    'loops/a.yml#unreach-call': ['true', 'correct', 2],
    'loops/b.yml#unreach-call': ['false(unreach-call)', 'correct', 1],
    'loops/c.yml#unreach-call': ['true', 'wrong', -32],
    'loops/d.yml#unreach-call': ['false(unreach-call)', 'wrong', -16],
  });
  const h = r.records.find((x) => x.id === 'heap/h.yml#valid-memsafety')!;
  assert.equal(h.reason, 'no result in the output (exit code 0)');
  const s = r.summary;
  assert.deepEqual(
    [s.score, s.correctTrue, s.correctFalse, s.incorrectTrue, s.incorrectFalse, s.unknown, s.timeouts, s.outOfMemory, s.errors, s.runs],
    [-60, 1, 2, 1, 2, 1, 0, 0, 1, 8],
  );
  const cat = (n: string) => s.categories.find((c) => c.name === n)!;
  assert.deepEqual([cat('unreach-call.loops').tasks, cat('unreach-call.loops').score], [4, -45]);
  assert.deepEqual([cat('valid-memsafety.heap').score, cat('valid-memsafety.heap').normalizedScore], [-15, -3.75]);
  // Overall: (-45/4 + -15/4) * 8 / 2 = -60.
  assert.equal(cat('Overall').score, -60);
  const csv = readFileSync(r.files.csv, 'utf8').split('\n');
  assert.equal(csv[0], 'id,task,property,directory,expected,status,category,points,cpu_time_s,wall_time_s,memory_mb,validation,reason,worker');
  assert.equal(csv.length, 10);
  assert.match(csv.find((l) => l.startsWith('loops/a.yml'))!, /^loops\/a\.yml#unreach-call,loops\/a\.yml,unreach-call,loops,true,true,correct,2,\d+\.\d\d,/);
  const html = readFileSync(r.files.html, 'utf8');
  assert.match(html, /<canvas id="quantile">/);
  assert.ok(html.includes('Chart.js'), 'chart.js is inlined');
  assert.ok(!/<script[^>]+src=/.test(html), 'no external scripts');
  const text = readFileSync(r.files.summary, 'utf8').split('\n');
  assert.match(text[0], /^tool\s+score\s+runs\s+correct true\s+correct false\s+wrong true\s+wrong false\s+unknown\s+timeout\s+out of mem\s+error\s+CPU s \(correct\)$/);
  assert.match(text[1], /^fake\s+-60\s+8\s+1\s+2\s+1\s+2\s+1\s+0\s+0\s+1\s+\d+\.\d$/);
});

test('bench: placeholders of --tool-cmd are filled', async () => {
  const root = makeBench([{ dir: 'x', name: 'p q', expected: 'true', mode: 'args', answer: 'TRUE', dataModel: 'LP64' }]);
  const out = join(root, 'out');
  const r = await runBench({ sets: [join(root, 'set', 'x', 'p q.yml')], tool: templateTool(toolCmd(root)), timeout: 10, jobs: 1, out });
  const log = readFileSync(join(out, r.records[0].log!), 'utf8');
  assert.ok(
    log.includes(`ARGS ${JSON.stringify({ program: join(root, 'set', 'x', 'p q.c'), prop: join(root, 'set', 'properties', 'unreach-call.prp'), dataModel: 'LP64' })}`),
    log,
  );
  assert.equal(r.records[0].status, 'true');
});

test('limits: a tool that hangs without using CPU is stopped by the wall-time guard, which says so', async () => {
  const root = makeBench([
    { dir: 'x', name: 'hang', expected: 'true', mode: 'hang' },
    { dir: 'x', name: 'ok', expected: 'true', answer: 'TRUE' },
  ]);
  let progress = '';
  const sink = new Progress(2, { write: (t: string) => ((progress += t), true) } as unknown as NodeJS.WritableStream, false);
  // The default guard is three times the CPU limit.
  const r = await runBench({ sets: [join(root, 'set')], tool: templateTool(toolCmd(root)), timeout: 1, jobs: 2, out: join(root, 'out'), progress: sink });
  const rec = r.records.find((x) => x.id === 'hang.yml#unreach-call')!;
  assert.equal(rec.status, 'timeout');
  assert.equal(rec.limit, 'wall-time');
  assert.match(rec.reason!, /^wall-time limit \(\d+\.\d+ s wall, \d+\.\d+ s CPU; raise it with --wall-timeout\)$/);
  // Ordering, not speed: the guard (3x the CPU limit) never fires before its limit, and the tool used almost no CPU.
  assert.ok(rec.wallTime >= 3, `wall ${rec.wallTime}`);
  assert.ok(rec.cpuTime < 0.9 && rec.cpuTime < rec.wallTime, `cpu ${rec.cpuTime}`);
  assert.equal(rec.points, 0);
  assert.match(progress, /hang\.yml#unreach-call: timeout \(unknown, \+0\) \d+\.\d\d s CPU, ended by the wall-time limit after \d+\.\d\d s wall \(raise it with --wall-timeout\)\n/);
  // The summary counts it once, as a time-out, and names the cause.
  const summary = readFileSync(r.files.summary, 'utf8').split('\n');
  assert.match(summary[1], /^node\s+2\s+2\s+1\s+0\s+0\s+0\s+0\s+1\s+0\s+0\s/);
  assert.equal(summary[2], '1 of the 1 time-outs were ended by the wall-time limit before their CPU time was used up (a loaded machine?); raise the guard with --wall-timeout');
  assert.deepEqual([r.summary.timeouts, r.summary.wallTimeouts, r.summary.unknown], [1, 1, 0]);
  await assert.rejects(
    runBench({ sets: [join(root, 'set')], tool: templateTool(toolCmd(root)), timeout: 2, wallTimeout: 1, jobs: 1, out: join(root, 'out2') }),
    /--wall-timeout must be at least --timeout/,
  );
});

test('limits: a tool exceeding the memory limit is out of memory', async () => {
  const root = makeBench([{ dir: 'x', name: 'hog', expected: 'true', mode: 'hog' }]);
  const r = await runBench({
    sets: [join(root, 'set')],
    tool: templateTool(toolCmd(root)),
    timeout: 20,
    memory: 150e6,
    jobs: 1,
    out: join(root, 'out'),
    pollMs: 50,
  });
  const rec = r.records[0];
  assert.equal(rec.status, 'out of memory');
  assert.ok(rec.memory > 150e6, `peak ${rec.memory}`);
  assert.equal(rec.points, 0);
});

test('limits: CPU time counts every process of the tree', async () => {
  const m = await runLimited(
    process.execPath,
    ['-e', "const {spawn}=require('child_process'); for (let i=0;i<2;i++) spawn(process.execPath,['-e','for(;;){}'],{stdio:'ignore'}); setTimeout(()=>{},1e9)"],
    { cpuTime: 1.2, wallTime: 60 },
    { pollMs: 50 },
  );
  // The CPU limit ends the run (the wall-time guard is far away, so a loaded machine does not matter).
  assert.equal(m.termination, 'cputime');
  assert.ok(m.cpuTime >= 1.2, `cpu ${m.cpuTime}`);
  // Exact accounting at the end for a tool that waits for its children.
  const e = await runLimited('/bin/sh', ['-c', 'i=0; while [ $i -lt 50000 ]; do i=$((i+1)); done; echo ok'], { cpuTime: 30, wallTime: 30 });
  assert.equal(e.termination, 'exited');
  assert.equal(e.cpuExact, true);
  assert.ok(e.cpuTime > 0 && e.cpuTime <= e.wallTime + 0.05, `cpu ${e.cpuTime} wall ${e.wallTime}`);
  assert.equal(e.output, 'ok\n');
});

test('bench: witness validation confirms or not, and unconfirmed answers score 0', async () => {
  const root = makeBench([
    { dir: 'x', name: 'ok', expected: 'false', mode: 'witness', answer: 'FALSE(unreach-call)' },
    { dir: 'x', name: 'nowit', expected: 'false', answer: 'FALSE(unreach-call)' },
    { dir: 'x', name: 'memsafe', expected: 'true', property: 'valid-memsafety', answer: 'TRUE' },
  ]);
  // The fake tool writes a witness whose validator line decides: make it confirm.
  writeFileSync(
    join(root, 'tool.mjs'),
    readFileSync(join(root, 'tool.mjs'), 'utf8').replace("'- entry_type: violation_sequence\\n'", "'# validator: FALSE(unreach-call)\\n'"),
  );
  const r = await runBench({
    sets: [join(root, 'set')],
    tool: templateTool(toolCmd(root)),
    timeout: 10,
    jobs: 1,
    out: join(root, 'out'),
    validateCmd: `${JSON.stringify(process.execPath)} ${JSON.stringify(join(root, 'validator.mjs'))} {witness}`,
  });
  const by = Object.fromEntries(r.records.map((x) => [`${x.directory}/${x.task}`, x]));
  assert.deepEqual([by['x/ok.yml'].validation?.status, by['x/ok.yml'].category, by['x/ok.yml'].points], ['confirmed', 'correct', 1]);
  assert.deepEqual([by['x/nowit.yml'].validation?.status, by['x/nowit.yml'].category, by['x/nowit.yml'].points], ['no-witness', 'correct-unconfirmed', 0]);
  // Memory safety: correctness witnesses are not supported, so a TRUE needs none.
  assert.deepEqual([by['x/memsafe.yml'].validation?.status, by['x/memsafe.yml'].points], ['not-required', 2]);
  assert.deepEqual([r.summary.confirmed, r.summary.unconfirmed], [1, 1]);
  // Columns add up to the runs: the unconfirmed answer is in its own column, not also under unknown.
  const text = readFileSync(r.files.summary, 'utf8').split('\n');
  assert.match(text[0], /wrong false\s+unconfirmed\s+unknown\s+timeout\s+out of mem\s+error\s+CPU s \(correct\)$/);
  assert.match(text[1], /^node\s+3\s+3\s+1\s+1\s+0\s+0\s+1\s+0\s+0\s+0\s+0\s+\d+\.\d$/);
  assert.equal(text[2], 'witnesses: 1 confirmed, 1 not confirmed (a correct answer without a confirmed witness scores 0)');
});

test('bench: an interrupted run resumes with the same results', async () => {
  const root = makeBench(slowMixedTasks(6));
  const args = (out: string, jobs = '1') => [cliPath, 'bench', join(root, 'set'), '--tool-cmd', toolCmd(root), '--name', 'fake', '--timeout', '10', '--jobs', jobs, '--out', out];
  // Reference: uninterrupted.
  const ref = spawnSync(process.execPath, args(join(root, 'ref'), '2'), { encoding: 'utf8' });
  assert.equal(ref.status, 0, ref.stderr);
  // Interrupted: kill the runner once three results are written.
  const out = join(root, 'cut');
  const child = spawn(process.execPath, args(out), { stdio: 'ignore' });
  await new Promise<void>((resolveWait) => {
    const t = setInterval(() => {
      const f = join(out, 'results.jsonl');
      if (existsSync(f) && readFileSync(f, 'utf8').split('\n').length > 2) {
        clearInterval(t);
        child.kill('SIGKILL');
        resolveWait();
      }
    }, 20);
  });
  await new Promise((r) => child.once('exit', r));
  const partial = readRecords(join(out, 'results.jsonl'));
  assert.ok(partial.length >= 2 && partial.length < 6, `${partial.length} results before the kill`);
  // A line cut in the middle of writing is dropped on resume.
  appendFileSync(join(out, 'results.jsonl'), '{"id":"t5.yml#unreach-call","sta');
  const again = spawnSync(process.execPath, args(out), { encoding: 'utf8' });
  assert.equal(again.status, 2, 'refuses to overwrite without --resume');
  assert.match(again.stderr, /results\.jsonl: error: already holds results; use --resume/);
  const resumed = spawnSync(process.execPath, [...args(out), '--resume'], { encoding: 'utf8' });
  assert.equal(resumed.status, 0, resumed.stderr);
  assert.match(resumed.stderr, new RegExp(`6 runs planned, ${6 - partial.length} to do`));
  const a = readRecords(join(root, 'ref', 'results.jsonl'));
  const b = readRecords(join(out, 'results.jsonl'));
  assert.equal(b.length, 6);
  assert.deepEqual(pick(b), pick(a));
  assert.equal(new Set(b.map((r) => r.id)).size, 6);
  assert.equal(readFileSync(join(out, 'results.csv'), 'utf8').split('\n').length, 8);
});

test('score: several result folders side by side, as JSON', async () => {
  const root = makeBench([
    { dir: 'loops', name: 'a', expected: 'true', answer: 'TRUE' },
    { dir: 'loops', name: 'b', expected: 'false', answer: 'FALSE(unreach-call)' },
  ]);
  await runBench({ sets: [join(root, 'set')], tool: templateTool(toolCmd(root), 'one'), timeout: 10, jobs: 2, out: join(root, 'one') });
  // A second "tool": a copy of the results with one answer changed to a wrong TRUE.
  mkdirSync(join(root, 'two'));
  const recs = readFileSync(join(root, 'one', 'results.jsonl'), 'utf8').replace('"status":"false(unreach-call)"', '"status":"true"');
  writeFileSync(join(root, 'two', 'results.jsonl'), recs.replace(/"tool":"one"/g, '"tool":"two"'));
  const { tools } = scoreDirectories([join(root, 'two'), join(root, 'one')]);
  const j = scoreJson(tools);
  assert.deepEqual(
    j.tools.map((t) => [t.name, t.score, t.correctTrue, t.correctFalse, t.incorrectTrue, t.incorrectFalse, t.unknown]),
    [
      ['one', 3, 1, 1, 0, 0, 0],
      ['two', -30, 1, 0, 1, 0, 0],
    ],
  );
  assert.deepEqual(j.tools[0].categories.map((c) => [c.name, c.tasks, c.score, c.normalizedScore]), [
    ['Overall', 2, 3, 1.5],
    ['unreach-call', 2, 3, 1.5],
    ['unreach-call.loops', 2, 3, 1.5],
  ]);
  const cli = spawnSync(process.execPath, [cliPath, 'score', join(root, 'one'), join(root, 'two'), '--format', 'json', '--html', join(root, 'cmp.html')], { encoding: 'utf8' });
  assert.equal(cli.status, 0, cli.stderr);
  const parsed = JSON.parse(cli.stdout) as { tools: Array<{ name: string; score: number; cpuTimeCorrect: number }> };
  assert.deepEqual(parsed.tools.map((t) => [t.name, t.score]), [['one', 3], ['two', -30]]);
  assert.match(readFileSync(join(root, 'cmp.html'), 'utf8'), /<canvas id="scatter">/);
  const bad = spawnSync(process.execPath, [cliPath, 'score', join(root, 'nothing')], { encoding: 'utf8' });
  assert.equal(bad.status, 2);
  assert.equal(bad.stderr, `${join(root, 'nothing', 'results.jsonl')}: error: no results.jsonl here\n`);
});

test('bench: Ctrl-C stops the runs it started (they live in sessions of their own)', async () => {
  const root = makeBench([{ dir: 'x', name: 'h', expected: 'true', mode: 'hangpid' }]);
  const out = join(root, 'out');
  const child = spawn(process.execPath, [cliPath, 'bench', join(root, 'set'), '--tool-cmd', toolCmd(root), '--timeout', '60', '--out', out], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  const pidFile = join(out, 'runs', 'h.yml_unreach-call', 'pid.txt');
  await new Promise<void>((resolveWait) => {
    const t = setInterval(() => {
      if (existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '') {
        clearInterval(t);
        resolveWait();
      }
    }, 20);
  });
  const toolPid = Number(readFileSync(pidFile, 'utf8'));
  child.kill('SIGINT');
  const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  assert.equal(code, 130);
  assert.match(stderr, /interrupted: run again with --resume/);
  // Gone, or a zombie waiting for init to reap it (containers may have no reaping init).
  const state = existsSync(`/proc/${toolPid}/stat`) ? readFileSync(`/proc/${toolPid}/stat`, 'utf8').replace(/^.*\) /s, '')[0] : 'gone';
  assert.ok(state === 'gone' || state === 'Z', `tool process state ${state}`);
  // The cut run is not a result.
  assert.equal(readFileSync(join(out, 'results.jsonl'), { encoding: 'utf8', flag: 'a+' }), '');
});

test('bench: skipped property entries are warned about, and an empty plan is an error', () => {
  const root = makeBench([
    { dir: 'x', name: 'a', expected: 'true', answer: 'TRUE' },
    { dir: 'x', name: 'b', expected: 'true', answer: 'TRUE' },
  ]);
  const bench = (...extra: string[]) =>
    spawnSync(process.execPath, [cliPath, 'bench', join(root, 'set'), '--tool-cmd', toolCmd(root), '--out', join(root, `out${extra.length}`), ...extra], { encoding: 'utf8' });
  const coverage = join(root, 'set', 'properties', 'coverage-error-call.prp');
  const ok = bench();
  assert.equal(ok.status, 0, ok.stderr);
  assert.equal(ok.stderr.split('\n')[0], `warning: ${coverage}: property entry skipped in 2 tasks: property file '../properties/coverage-error-call.prp' does not exist`);
  assert.match(ok.stderr.split('\n')[1], /^2 runs planned, 2 to do \(node, 900 s CPU, 2700 s wall, 15000 MB, 1 at a time\)$/);
  const none = bench('--property', 'foo');
  assert.equal(none.status, 2);
  assert.equal(
    none.stderr.split('\n').slice(1).join('\n'),
    'tarsier: error: no runs planned: no task has the property foo (the 2 task files have unreach-call)\n',
  );
  assert.equal(existsSync(join(root, 'out2')), false, 'nothing written');
  writeFileSync(join(root, 'set', 'Empty.set'), '# nothing yet\n');
  const empty = spawnSync(process.execPath, [cliPath, 'bench', join(root, 'set', 'Empty.set'), '--tool-cmd', toolCmd(root)], { encoding: 'utf8' });
  assert.equal(empty.status, 2);
  assert.equal(empty.stderr, `tarsier: error: no runs planned: no task files in ${join(root, 'set', 'Empty.set')}\n`);
});

test('bench: --validate tarsier runs tarsier validate TASK --property KIND --witness W --timeout S', () => {
  const root = makeBench([{ dir: 'x', name: 'a', expected: 'false', answer: 'FALSE(unreach-call)' }]);
  const run = expandRuns([join(root, 'set')]).runs[0];
  const { template, resultStyle } = validatorCommand({ kind: 'tarsier' });
  assert.equal(template, tarsierValidateTemplate());
  assert.equal(resultStyle, 'verification-result');
  assert.equal(
    fillTemplate(template, run, { timeout: 9, runDir: '/r', witness: '/r/witness.yml' }),
    `${process.execPath} ${cliPath} validate ${run.taskFile} --property unreach-call --witness /r/witness.yml --timeout 9`,
  );
  // Accepted (no longer refused), and recorded so that --resume keeps the same validator.
  const out = join(root, 'out');
  const r = spawnSync(process.execPath, [cliPath, 'bench', join(root, 'set'), '--tool-cmd', toolCmd(root), '--validate', 'tarsier', '--out', out], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(JSON.parse(readFileSync(join(out, 'bench.json'), 'utf8')).validate, 'tarsier');
  const both = spawnSync(process.execPath, [cliPath, 'bench', join(root, 'set'), '--tool-cmd', toolCmd(root), '--validate', 'tarsier', '--validate-cmd', 'v {witness}'], { encoding: 'utf8' });
  assert.equal(both.status, 2);
  assert.equal(both.stderr, 'tarsier: error: give either --validate or --validate-cmd, not both\n');
});

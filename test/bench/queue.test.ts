import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runBench, templateTool, readRecords, type RunRecord } from '../../src/bench/index.js';
import { localRun, parseRedisUrl, taskFilesOf, type RunJob } from '../../src/bench/queue.js';
import { expandRuns } from '../../src/bench/sets.js';
import { cliPath } from '../helpers/shared.js';
import { makeBench, slowMixedTasks, toolCmd, type FakeTask } from './fixtures.js';
import { freePort, skipWithoutRedis, startRedis, type TestRedis } from './redis.js';

const pick = (records: readonly RunRecord[]) =>
  Object.fromEntries(records.map((r) => [r.id, [r.status, r.category, r.points]]));

let redis: TestRedis | undefined;
before(async () => {
  if (!skipWithoutRedis) redis = await startRedis();
});
after(async () => {
  await redis?.stop();
});

/** Waits until `done()` holds; fails after a minute instead of hanging. */
async function waitFor(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(20);
  }
}

interface TestWorker {
  readonly child: ChildProcess;
  /** Kills the worker (SIGKILL: as if its machine died) and waits for it to end. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `tarsier worker` and waits until it takes jobs. */
async function startWorker(url: string, name: string, ...args: string[]): Promise<TestWorker> {
  const child = spawn(process.execPath, [cliPath, 'worker', url, '--name', name, '--stall-timeout', '1', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (b: Buffer) => {
      err += b.toString();
      if (err.includes('takes jobs from')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker ${name} ended with ${code}: ${err}`)));
  });
  return {
    child,
    async kill(signal: NodeJS.Signals = 'SIGKILL') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill(signal);
      await exited;
    },
  };
}

const VARIED: FakeTask[] = [
  { dir: 'loops', name: 'a', expected: 'true', answer: 'TRUE' },
  { dir: 'loops', name: 'b', expected: 'false', answer: 'FALSE(unreach-call)' },
  { dir: 'loops', name: 'c', expected: 'false', answer: 'TRUE' },
  { dir: 'loops', name: 'd', expected: 'true', mode: 'slow', answer: 'FALSE(unreach-call)' },
  { dir: 'heap', name: 'e', expected: 'false(valid-deref)', property: 'valid-memsafety', answer: 'FALSE(valid-free)' },
  { dir: 'heap', name: 'f', expected: 'false(valid-deref)', property: 'valid-memsafety', mode: 'witness', answer: 'FALSE(valid-deref)' },
  { dir: 'heap', name: 'g', expected: 'true', property: 'valid-memsafety', answer: 'UNKNOWN' },
  { dir: 'heap', name: 'h', expected: 'true', property: 'valid-memsafety', mode: 'garbage' },
];

test('queue: the same set through two workers gives the same statuses and scores as a local run', { skip: skipWithoutRedis, timeout: 120_000 }, async () => {
  const root = makeBench(VARIED);
  const options = { sets: [join(root, 'set')], tool: templateTool(toolCmd(root), 'fake'), timeout: 10, jobs: 2 };
  const local = await runBench({ ...options, out: join(root, 'local') });
  const workers = [await startWorker(redis!.url, 'w1'), await startWorker(redis!.url, 'w2', '--jobs', '2')];
  try {
    const queued = await runBench({ ...options, out: join(root, 'queued'), queue: redis!.url, queuePollMs: 100 });
    assert.equal(queued.complete, true);
    assert.deepEqual(pick(queued.records), pick(local.records));
    assert.deepEqual(
      [queued.summary.score, queued.summary.correctTrue, queued.summary.correctFalse, queued.summary.incorrectTrue, queued.summary.incorrectFalse, queued.summary.errors],
      [local.summary.score, local.summary.correctTrue, local.summary.correctFalse, local.summary.incorrectTrue, local.summary.incorrectFalse, local.summary.errors],
    );
    // Each result says where it ran; logs and witnesses come back as from a local run.
    for (const r of queued.records) {
      assert.ok(r.machine && ['w1', 'w2'].includes(r.machine.worker), `${r.id} ran on ${JSON.stringify(r.machine)}`);
      assert.ok(r.machine.cores >= 1 && r.machine.memory > 0 && r.machine.cpuModel !== '');
    }
    assert.ok(local.records.every((r) => r.machine?.worker === 'local'));
    const a = queued.records.find((r) => r.id === 'loops/a.yml#unreach-call')!;
    assert.match(readFileSync(join(root, 'queued', a.log!), 'utf8'), /Verification result: TRUE/);
    assert.ok(existsSync(join(root, 'queued', 'runs', 'heap_f.yml_valid-memsafety', 'witness.yml')));
    assert.equal(readRecords(join(root, 'queued', 'results.jsonl')).length, VARIED.length);
    assert.match(readFileSync(queued.files.csv, 'utf8').split('\n')[1], /,w[12]$/);
    assert.match(readFileSync(queued.files.html, 'utf8'), /"machine":"w[12] on [^"]+ \(.+, \d+ cores\)"/);
  } finally {
    for (const w of workers) await w.kill('SIGTERM');
  }
});

test('queue: a worker killed in the middle of a run: another worker does it again, and it is recorded once', { skip: skipWithoutRedis, timeout: 120_000 }, async () => {
  const tasks = Array.from({ length: 3 }, (_, i): FakeTask => ({ dir: 'x', name: `s${i}`, expected: 'true', mode: 'sleepy', answer: 'TRUE' }));
  const root = makeBench(tasks);
  const workDir = mkdtempSync(join(tmpdir(), 'tarsier-worker-a-'));
  const a = await startWorker(redis!.url, 'A', '--work-dir', workDir);
  let b: TestWorker | undefined;
  try {
    const bench = runBench({ sets: [join(root, 'set')], tool: templateTool(toolCmd(root)), timeout: 10, jobs: 1, out: join(root, 'out'), queue: redis!.url, queuePollMs: 100 });
    // Kill A once its tool is running.
    const runs = join(workDir, 'runs');
    await waitFor(() => existsSync(runs) && readdirSync(runs).some((d) => existsSync(join(runs, d, 'pid.txt'))), 'worker A to start a run');
    await a.kill();
    b = await startWorker(redis!.url, 'B', '--jobs', '2');
    const r = await bench;
    assert.equal(r.complete, true);
    const records = readRecords(join(root, 'out', 'results.jsonl'));
    assert.deepEqual(records.map((x) => x.id).sort(), ['s0.yml#unreach-call', 's1.yml#unreach-call', 's2.yml#unreach-call']);
    assert.ok(records.every((x) => x.status === 'true' && x.points === 2));
    // A finished nothing: every run, the interrupted one included, was B's.
    assert.deepEqual(records.map((x) => x.machine?.worker), ['B', 'B', 'B']);
  } finally {
    await a.kill();
    await b?.kill('SIGTERM');
  }
});

test('queue: a coordinator killed and started again with --resume finishes the set', { skip: skipWithoutRedis, timeout: 120_000 }, async () => {
  const tasks = slowMixedTasks(6);
  const root = makeBench(tasks);
  const out = join(root, 'out');
  // The task files travel in the jobs here.
  const args = [cliPath, 'bench', join(root, 'set'), '--tool-cmd', toolCmd(root), '--name', 'fake', '--timeout', '10', '--out', out, '--queue', redis!.url, '--ship-tasks'];
  const workDir = mkdtempSync(join(tmpdir(), 'tarsier-worker-'));
  let w: TestWorker | undefined;
  try {
    // No worker yet: the coordinator says so, and waits.
    const coordinator = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    coordinator.stderr!.on('data', (b: Buffer) => (err += b.toString()));
    await waitFor(() => err.includes('no worker is connected'), 'the note that no worker is connected');
    assert.match(err, new RegExp(`no worker is connected to ${redis!.url} yet; start one on each machine with: tarsier worker ${redis!.url}\n`));
    w = await startWorker(redis!.url, 'w', '--work-dir', workDir);
    const results = join(out, 'results.jsonl');
    await waitFor(() => existsSync(results) && readFileSync(results, 'utf8').split('\n').length > 2, 'two results');
    coordinator.kill('SIGKILL');
    await new Promise((r) => coordinator.once('exit', r));
    const partial = readRecords(results).length;
    assert.ok(partial >= 2 && partial < 6, `${partial} results before the kill`);
    const resumed = spawnSync(process.execPath, [...args, '--resume'], { encoding: 'utf8' });
    assert.equal(resumed.status, 0, resumed.stderr);
    assert.match(resumed.stderr, new RegExp(`6 runs planned, ${6 - partial} to do`));
    const records = readRecords(results);
    assert.equal(new Set(records.map((r) => r.id)).size, 6);
    assert.equal(records.length, 6);
    const expected = Object.fromEntries(
      tasks.map((t) => {
        const status = t.answer === 'TRUE' ? 'true' : 'false(unreach-call)';
        const right = (t.expected === 'true') === (status === 'true');
        return [`${t.name}.yml#unreach-call`, [status, right ? 'correct' : 'wrong', right ? (status === 'true' ? 2 : 1) : status === 'true' ? -32 : -16]];
      }),
    );
    assert.deepEqual(pick(records), expected);
    assert.ok(existsSync(join(workDir, 'tasks')), 'the worker ran the shipped copies');
  } finally {
    await w?.kill('SIGTERM');
  }
});

test('queue: an unreachable Redis is one line and exit status 2, for bench and worker', async () => {
  const root = makeBench([{ dir: 'x', name: 'a', expected: 'true', answer: 'TRUE' }]);
  const url = `redis://127.0.0.1:${await freePort()}`;
  const started = Date.now();
  const bench = spawnSync(process.execPath, [cliPath, 'bench', join(root, 'set'), '--tool-cmd', toolCmd(root), '--out', join(root, 'out'), '--queue', url], {
    encoding: 'utf8',
  });
  assert.equal(bench.status, 2);
  assert.match(bench.stderr, new RegExp(`^${url}: error: cannot reach Redis: .*ECONNREFUSED.*\\n$`));
  assert.equal(existsSync(join(root, 'out')), false, 'nothing written');
  const worker = spawnSync(process.execPath, [cliPath, 'worker', url], { encoding: 'utf8' });
  assert.equal(worker.status, 2);
  assert.match(worker.stderr, new RegExp(`^${url}: error: cannot reach Redis: .*ECONNREFUSED.*\\n$`));
  const bad = spawnSync(process.execPath, [cliPath, 'worker', 'http://example.org'], { encoding: 'utf8' });
  assert.equal(bad.status, 2);
  assert.equal(bad.stderr, "tarsier: error: expected a Redis address redis://HOST:PORT[/DB], not 'http://example.org'\n");
  assert.ok(Date.now() - started < 30_000);
});

test('queue: task files travel by path (checked by content) or in the job', () => {
  const root = makeBench([{ dir: 'x', name: 'a', expected: 'true', answer: 'TRUE' }]);
  const [run] = expandRuns([join(root, 'set')]).runs;
  const job = (ship: boolean): RunJob => ({
    bench: 'b1',
    run,
    tool: { kind: 'template', name: 'fake', template: toolCmd(root), resultStyle: 'auto' },
    timeout: 10,
    wallTimeout: 30,
    memory: null,
    validator: null,
    task: taskFilesOf(run, ship, new Map()),
  });
  const byPath = job(false);
  const shipped = job(true);
  const cache = mkdtempSync(join(tmpdir(), 'tarsier-cache-'));
  // By path: the same files.
  assert.deepEqual(localRun(byPath, cache), run);
  // Shipped: copies below the cache, in the same layout (the task file names its files relatively).
  const copy = localRun(shipped, cache);
  assert.ok(copy.taskFile.startsWith(cache) && copy.propertyFile.startsWith(cache));
  assert.equal(readFileSync(copy.inputFiles[0], 'utf8'), readFileSync(run.inputFiles[0], 'utf8'));
  assert.equal(readFileSync(copy.propertyFile, 'utf8'), readFileSync(run.propertyFile, 'utf8'));
  assert.deepEqual(expandRuns([copy.taskFile]).runs[0].inputFiles, copy.inputFiles);
  // A file that differs from the coordinator's is refused, not run.
  writeFileSync(run.inputFiles[0], '// mode: answer\n// answer: FALSE(unreach-call)\n');
  assert.throws(() => localRun(byPath, cache), /a\.c differs from the coordinator's file of the same path/);
  assert.deepEqual(localRun(shipped, cache).inputFiles, copy.inputFiles, 'shipped copies do not depend on the local file');
});

test('queue: Redis addresses', () => {
  assert.deepEqual(parseRedisUrl('redis://10.0.0.5:6380/2'), { url: 'redis://10.0.0.5:6380/2', host: '10.0.0.5', port: 6380, db: 2 });
  assert.deepEqual(parseRedisUrl('redis://:s%40cret@queue.lan'), { url: 'redis://:s%40cret@queue.lan', host: 'queue.lan', port: 6379, db: 0, password: 's@cret' });
  assert.equal(parseRedisUrl('redis://[::1]:7000').host, '::1');
  for (const bad of ['localhost:6379', 'redis://host/db', 'rediss://host', 'redis://']) {
    assert.throws(() => parseRedisUrl(bad), new RegExp(`expected a Redis address redis://HOST:PORT\\[/DB\\], not '${bad.replace(/[/.]/g, '\\$&')}'`));
  }
});

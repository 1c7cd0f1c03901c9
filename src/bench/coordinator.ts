import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import { makeRecord, runFileName, type RunOutcome } from './execute.js';
import type { ProgressSink } from './progress.js';
import { bullConnection, checkRedis, jobIdOf, lostRedis, parseRedisUrl, QUEUE_NAME, taskFilesOf, type RunJob, type RunJobResult } from './queue.js';
import type { RunRecord } from './results.js';
import type { RunSpec } from './sets.js';

export interface QueueRunOptions {
  /** `redis://HOST:PORT[/DB]`. */
  readonly url: string;
  /** The benchmark's id: names its jobs, so that a resumed coordinator finds them. */
  readonly bench: string;
  readonly todo: readonly RunSpec[];
  /** The job fields that are the same for every run. */
  readonly settings: Omit<RunJob, 'bench' | 'run' | 'task'>;
  /** Ship the task files in the jobs (workers without the tasks at the same paths). */
  readonly shipTasks?: boolean;
  /** The result folder: logs and witnesses are written there as by a local run. */
  readonly out: string;
  readonly signal: AbortSignal;
  readonly progress?: ProgressSink;
  /** Called with each run's record, once per run. */
  readonly onRecord: (record: RunRecord) => void;
  /** How often finished jobs are looked for, in ms (default 500). */
  readonly pollMs?: number;
  /** Called with a line for the user (no worker is connected). */
  readonly onNotice?: (line: string) => void;
}

const ADD_CHUNK = 200;
/** How long to wait for a first worker before saying that none is there. */
const WORKER_CHECK_MS = 3000;

/** Workers connected to the queue, or undefined where Redis does not tell (CLIENT LIST disabled). */
async function workerCount(queue: Queue<RunJob, RunJobResult>): Promise<number | undefined> {
  try {
    return await queue.getWorkersCount();
  } catch {
    return undefined;
  }
}

/**
 * Runs the runs on a BullMQ queue: adds one job per run (a job of an earlier,
 * interrupted coordinator of the same benchmark is kept, or collected when it
 * finished), then collects finished jobs until every run has its record or
 * `signal` aborts. A collected job is removed after its record is handed
 * over, so a run is recorded once.
 */
export async function runOnQueue(o: QueueRunOptions): Promise<void> {
  const address = parseRedisUrl(o.url);
  await checkRedis(address);
  let lost = false;
  const queue = new Queue<RunJob, RunJobResult>(QUEUE_NAME, { connection: bullConnection(address, () => (lost = true)) });
  // Errors while Redis reconnects are expected; the connection gives up by itself.
  queue.on('error', () => undefined);
  try {
    await work(queue, o);
  } catch (e) {
    throw lost ? lostRedis(address) : e;
  } finally {
    await queue.close().catch(() => undefined);
  }
}

async function work(queue: Queue<RunJob, RunJobResult>, o: QueueRunOptions): Promise<void> {
  const pending = new Map(o.todo.map((run) => [jobIdOf(o.bench, run.id), run]));
  const ours = `${o.bench}-`;
  // Finished jobs of runs recorded before an interruption (the coordinator
  // died between recording and removing): drop them.
  for (const id of await queue.getRanges(['completed', 'failed'])) {
    if (id.startsWith(ours) && !pending.has(id)) await queue.remove(id);
  }
  const toAdd: RunSpec[] = [];
  const entries = [...pending];
  for (let i = 0; i < entries.length && !o.signal.aborted; i += ADD_CHUNK) {
    const chunk = entries.slice(i, i + ADD_CHUNK);
    const states = await Promise.all(chunk.map(([id]) => queue.getJobState(id)));
    for (let k = 0; k < chunk.length; k++) {
      const [id, run] = chunk[k];
      if (states[k] === 'failed') await queue.remove(id); // a resumed benchmark tries again
      if (states[k] === 'unknown' || states[k] === 'failed') toAdd.push(run);
    }
  }
  const hashes = new Map<string, string>();
  for (let i = 0; i < toAdd.length && !o.signal.aborted; i += ADD_CHUNK) {
    await queue.addBulk(
      toAdd.slice(i, i + ADD_CHUNK).map((run) => ({
        name: run.id,
        data: { ...o.settings, bench: o.bench, run, task: taskFilesOf(run, o.shipTasks ?? false, hashes) },
        opts: { jobId: jobIdOf(o.bench, run.id), removeOnComplete: false, removeOnFail: false },
      })),
    );
  }
  const started = new Set<string>();
  const since = Date.now();
  let workersChecked = false;
  while (pending.size > 0 && !o.signal.aborted) {
    if (!workersChecked && Date.now() - since >= WORKER_CHECK_MS) {
      workersChecked = true;
      if ((await workerCount(queue)) === 0) {
        o.onNotice?.(`no worker is connected to ${o.url} yet; start one on each machine with: tarsier worker ${o.url}`);
      }
    }
    for (const id of await queue.getRanges(['active'])) {
      if (pending.has(id) && !started.has(id)) {
        started.add(id);
        o.progress?.started(pending.get(id)!.id);
      }
    }
    for (const id of await queue.getRanges(['completed', 'failed'])) {
      const run = pending.get(id);
      if (!run || o.signal.aborted) continue;
      if (!started.has(id)) o.progress?.started(run.id);
      const job = await queue.getJob(id);
      if (!job) continue;
      o.onRecord(job.returnvalue ? recordFromResult(run, job.data, job.returnvalue, o.out) : failedRecord(run, job.data, job.failedReason));
      pending.delete(id);
      await job.remove();
    }
    await sleep(o.pollMs ?? 500, undefined, { signal: o.signal }).catch(() => undefined);
  }
}

/** Writes the worker's log, validation log and witnesses where a local run puts them, and makes the record. */
function recordFromResult(run: RunSpec, job: RunJob, result: RunJobResult, out: string): RunRecord {
  const name = runFileName(run.id);
  const log = join('logs', `${name}.log`);
  mkdirSync(join(out, 'logs'), { recursive: true });
  writeFileSync(join(out, log), result.log);
  if (result.validationLog !== undefined) writeFileSync(join(out, 'logs', `${name}.validation.log`), result.validationLog);
  const runDir = join(out, 'runs', name);
  mkdirSync(runDir, { recursive: true });
  for (const w of result.witnesses) writeFileSync(join(runDir, w.name), w.content);
  let outcome: RunOutcome = result.outcome;
  const validated = outcome.validation?.witness;
  if (validated) {
    // The witness the worker validated, as saved here.
    const base = validated.split('/').pop()!;
    outcome = { ...outcome, validation: { ...outcome.validation!, witness: join(runDir, base) } };
  }
  return makeRecord(run, job.tool.name, outcome, { log, machine: result.machine });
}

/** A job BullMQ gave up on (its workers died too often while running it). */
function failedRecord(run: RunSpec, job: RunJob, reason: string | undefined): RunRecord {
  const outcome: RunOutcome = {
    status: 'error',
    reason: `the queue gave up on the run: ${reason ?? 'no reason given'}`,
    cpuTime: 0,
    wallTime: 0,
    memory: 0,
    exitCode: null,
    signal: null,
  };
  return makeRecord(run, job.tool.name, outcome, {});
}

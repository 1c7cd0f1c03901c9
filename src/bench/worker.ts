import { existsSync, mkdirSync, openSync, readSync, closeSync, readFileSync, rmSync, statSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker, WaitingError, type Job } from 'bullmq';
import { usageError } from '../common/errors.js';
import { executeRun, type RunOutcome, type RunSettings } from './execute.js';
import { machineInfo, type MachineInfo } from './machine.js';
import { bullConnection, checkRedis, localRun, lostRedis, parseRedisUrl, QUEUE_NAME, type RunJob, type RunJobResult } from './queue.js';
import { toolFromDescription, validatorCommand } from './tools.js';

export interface WorkerOptions {
  /** `redis://HOST:PORT[/DB]`. */
  readonly url: string;
  /** Runs at the same time (default 1). */
  readonly jobs?: number;
  /** The name recorded with each result (default: HOST-PID). */
  readonly name?: string;
  /** Where runs work and shipped tasks are kept (default: a folder in the system's temporary folder). */
  readonly workDir?: string;
  /**
   * Seconds after which a job of a worker that stopped answering (died,
   * lost its network) goes back to the queue for another worker (default 30).
   */
  readonly stallTimeout?: number;
  /** Aborting stops the worker: its running runs are killed and their jobs go back to the queue. */
  readonly signal?: AbortSignal;
  /** Called with one line per event (connected, run finished, run given back). */
  readonly onEvent?: (line: string) => void;
  readonly pollMs?: number;
}

/** Bytes of a log sent back; the rest is cut (the worker's log file is deleted after the run). */
const MAX_LOG = 4 * 1024 * 1024;
/** How often a job may be taken from a worker that stopped answering before the queue gives up on it. */
const MAX_STALLS = 2;

/**
 * A benchmark worker: takes run jobs from the queue, runs them as a local
 * `tarsier bench` would (same limits and measurement), and sends back the
 * outcome, the log and the witnesses. Runs until `signal` aborts.
 */
export async function runWorker(o: WorkerOptions): Promise<{ runs: number }> {
  const address = parseRedisUrl(o.url);
  const jobs = o.jobs ?? 1;
  if (!Number.isInteger(jobs) || jobs < 1) throw usageError('--jobs must be a positive whole number');
  const stall = o.stallTimeout ?? 30;
  if (!(stall > 0)) throw usageError('--stall-timeout must be a positive number of seconds');
  await checkRedis(address);
  const name = o.name ?? `${hostname()}-${process.pid}`;
  const machine = machineInfo(name);
  const workDir = o.workDir ?? join(tmpdir(), `tarsier-worker-${name.replace(/[^A-Za-z0-9._-]+/g, '_')}`);
  mkdirSync(workDir, { recursive: true });
  const stop = new AbortController();
  let runs = 0;
  let lost = false;
  const worker = new Worker<RunJob, RunJobResult>(
    QUEUE_NAME,
    async (job, token) => {
      const result = await runJob(job, { machine, workDir, pollMs: o.pollMs, signal: stop.signal });
      if (!result) {
        // Stopped in the middle: the run is not a result; give it to another worker now.
        await job.moveToWait(token);
        o.onEvent?.(`${job.data.run.id}: given back to the queue`);
        throw new WaitingError();
      }
      runs++;
      o.onEvent?.(`${job.data.run.id}: ${result.outcome.status} (${result.outcome.cpuTime.toFixed(2)} s CPU)`);
      return result;
    },
    {
      connection: bullConnection(address, () => {
        lost = true;
        stop.abort();
      }),
      concurrency: jobs,
      lockDuration: stall * 1000,
      stalledInterval: stall * 1000,
      maxStalledCount: MAX_STALLS,
      autorun: false,
    },
  );
  // Errors while Redis reconnects are expected (the connection gives up by itself, see above).
  worker.on('error', () => undefined);
  worker.on('failed', (job, e) => {
    if (job && !(e instanceof WaitingError)) o.onEvent?.(`${job.data.run.id}: failed on this worker: ${e.message}`);
  });
  const onAbort = () => stop.abort();
  o.signal?.addEventListener('abort', onAbort, { once: true });
  if (o.signal?.aborted) stop.abort();
  const running = worker.run();
  o.onEvent?.(`worker ${name} (${machine.cpuModel}, ${machine.cores} cores, ${Math.round(machine.memory / 2 ** 30)} GiB) takes jobs from ${o.url}, ${jobs} at a time`);
  await new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve(), { once: true }));
  o.signal?.removeEventListener('abort', onAbort);
  await worker.close().catch(() => undefined);
  await running.catch(() => undefined);
  if (lost) throw lostRedis(address);
  return { runs };
}

interface JobContext {
  readonly machine: MachineInfo;
  readonly workDir: string;
  readonly pollMs?: number;
  readonly signal: AbortSignal;
}

/** Does one run; undefined when the worker was stopped during it. */
async function runJob(job: Job<RunJob, RunJobResult>, c: JobContext): Promise<RunJobResult | undefined> {
  const data = job.data;
  const name = job.id!;
  let run;
  try {
    run = localRun(data, join(c.workDir, 'tasks'));
  } catch (e) {
    // The run cannot be done here: an error result that says why.
    const outcome: RunOutcome = { status: 'error', reason: `worker ${c.machine.worker}: ${(e as Error).message}`, cpuTime: 0, wallTime: 0, memory: 0, exitCode: null, signal: null };
    return { outcome, machine: c.machine, log: '', witnesses: [] };
  }
  const settings: RunSettings = {
    tool: toolFromDescription(data.tool),
    timeout: data.timeout,
    wallTimeout: data.wallTimeout,
    ...(data.memory ? { memory: data.memory } : {}),
    ...(data.validator ? { validator: validatorCommand(data.validator) } : {}),
    ...(c.pollMs ? { pollMs: c.pollMs } : {}),
  };
  const paths = {
    runDir: join(c.workDir, 'runs', name),
    logFile: join(c.workDir, 'logs', `${name}.log`),
    validationLogFile: join(c.workDir, 'logs', `${name}.validation.log`),
  };
  mkdirSync(join(c.workDir, 'logs'), { recursive: true });
  try {
    const outcome = await executeRun(run, settings, paths, c.signal);
    if (c.signal.aborted) return undefined;
    const witnesses = ['witness.yml', 'witness.graphml']
      .filter((f) => existsSync(join(paths.runDir, f)))
      .map((f) => ({ name: f, content: readFileSync(join(paths.runDir, f), 'utf8') }));
    return {
      outcome,
      machine: c.machine,
      log: readLog(paths.logFile),
      ...(existsSync(paths.validationLogFile) ? { validationLog: readLog(paths.validationLogFile) } : {}),
      witnesses,
    };
  } finally {
    rmSync(paths.runDir, { recursive: true, force: true });
    rmSync(paths.logFile, { force: true });
    rmSync(paths.validationLogFile, { force: true });
  }
}

/** A log file's text, cut after MAX_LOG bytes with a note. */
function readLog(file: string): string {
  const size = statSync(file).size;
  if (size <= MAX_LOG) return readFileSync(file, 'utf8');
  const fd = openSync(file, 'r');
  const buf = Buffer.alloc(MAX_LOG);
  try {
    readSync(fd, buf, 0, MAX_LOG, 0);
  } finally {
    closeSync(fd);
  }
  return `${buf.toString('utf8')}\n[log cut by the worker after ${MAX_LOG} of ${size} bytes]\n`;
}

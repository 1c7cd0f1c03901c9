import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import type { RedisOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { TarsierError, usageError } from '../common/errors.js';
import type { RunOutcome } from './execute.js';
import type { MachineInfo } from './machine.js';
import { commonFolder, type RunSpec } from './sets.js';
import type { ToolDescription, ValidatorDescription } from './tools.js';

// The job format shared by `tarsier bench --queue` (which enqueues runs and
// collects their results) and `tarsier worker` (which runs them), and the
// connection to Redis both use.

/** The BullMQ queue all benchmarks share; a job's `bench` field tells whose it is. */
export const QUEUE_NAME = 'tarsier-bench';

/** One file a run needs: by path (the worker checks it has the same content) or shipped. */
export interface JobFile {
  /** Relative to `TaskFiles.root`. */
  readonly path: string;
  readonly sha256: string;
  /** Base64 content, when the tasks are shipped in the jobs. */
  readonly content?: string;
}

export interface TaskFiles {
  /** The coordinator's folder the paths are relative to (the common folder of the files). */
  readonly root: string;
  readonly files: readonly JobFile[];
}

/** Everything a worker needs to do one run. */
export interface RunJob {
  /** The benchmark's id (kept in its bench.json). */
  readonly bench: string;
  /** The run, with the coordinator's paths. */
  readonly run: RunSpec;
  readonly tool: ToolDescription;
  readonly timeout: number;
  readonly wallTimeout: number;
  readonly memory: number | null;
  readonly validator: ValidatorDescription | null;
  readonly task: TaskFiles;
}

/** What a worker sends back. */
export interface RunJobResult {
  readonly outcome: RunOutcome;
  readonly machine: MachineInfo;
  readonly log: string;
  readonly validationLog?: string;
  /** The witnesses the tool wrote in its working folder (witness.yml, witness.graphml). */
  readonly witnesses: ReadonlyArray<{ readonly name: string; readonly content: string }>;
}

/** The job id of a run: one job per run and benchmark, so adding it again is a no-op. */
export function jobIdOf(bench: string, runId: string): string {
  return `${bench}-${createHash('sha256').update(runId).digest('hex').slice(0, 24)}`;
}

export interface RedisAddress {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly db: number;
  readonly username?: string;
  readonly password?: string;
}

/** `redis://[USER:PASSWORD@]HOST[:PORT][/DB]`. */
export function parseRedisUrl(url: string): RedisAddress {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw usageError(`expected a Redis address redis://HOST:PORT[/DB], not '${url}'`);
  }
  const db = u.pathname.replace(/^\//, '');
  if (u.protocol !== 'redis:' || !u.hostname || (db !== '' && !/^\d+$/.test(db))) {
    throw usageError(`expected a Redis address redis://HOST:PORT[/DB], not '${url}'`);
  }
  return {
    url,
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port ? Number(u.port) : 6379,
    db: db ? Number(db) : 0,
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
  };
}

/** Reconnection attempts before giving up on a Redis that went away (about two minutes). */
const RECONNECT_ATTEMPTS = 60;

/**
 * Connection options for BullMQ: commands wait while reconnecting, and
 * reconnecting is bounded; `onGiveUp` is called when it stops.
 */
export function bullConnection(a: RedisAddress, onGiveUp: () => void = () => undefined): RedisOptions {
  return {
    host: a.host,
    port: a.port,
    db: a.db,
    ...(a.username ? { username: a.username } : {}),
    ...(a.password ? { password: a.password } : {}),
    connectTimeout: 5000,
    maxRetriesPerRequest: null,
    retryStrategy: (times: number) => {
      if (times <= RECONNECT_ATTEMPTS) return Math.min(200 * times, 2000);
      onGiveUp();
      return null;
    },
  };
}

/**
 * Checks that Redis answers, with one connection attempt of at most a few
 * seconds, so that a wrong address is one clear error instead of a hang.
 */
export async function checkRedis(a: RedisAddress): Promise<void> {
  const client = new Redis({ ...bullConnection(a), lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0, enableOfflineQueue: false });
  let failure: string | undefined;
  client.on('error', (e: Error) => (failure ??= e.message));
  try {
    await client.connect();
    await client.ping();
  } catch (e) {
    const detail = failure ?? (e instanceof Error ? e.message : String(e));
    throw new TarsierError('queue', `cannot reach Redis: ${detail}`, { file: a.url }, 2);
  } finally {
    client.disconnect();
  }
}

/** The error for a Redis connection lost during the work (reconnecting gave up). */
export function lostRedis(a: RedisAddress): TarsierError {
  return new TarsierError('queue', 'lost the connection to Redis (no answer for two minutes); run again to continue', { file: a.url }, 2);
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The files of a run (task file, programs, property file), by path or, with `ship`, with their content. */
export function taskFilesOf(run: RunSpec, ship: boolean, hashes: Map<string, string>): TaskFiles {
  const paths = [...new Set([run.taskFile, ...run.inputFiles, run.propertyFile])];
  const root = commonFolder(paths);
  const files = paths.map((p) => {
    const data = readFileSync(p);
    let hash = hashes.get(p);
    if (!hash) hashes.set(p, (hash = sha256(data)));
    return { path: relative(root, p).split(sep).join('/'), sha256: hash, ...(ship ? { content: data.toString('base64') } : {}) };
  });
  return { root, files };
}

/**
 * The run with paths on this machine: shipped files are written below
 * `cacheDir` (keeping their relative layout, which task files rely on);
 * files by path must be there with the coordinator's content. Throws a
 * message for the run's record when they are not.
 */
export function localRun(job: RunJob, cacheDir: string): RunSpec {
  const shipped = job.task.files.every((f) => f.content !== undefined);
  const base = shipped ? join(cacheDir, job.bench, createHash('sha256').update(job.task.root).digest('hex').slice(0, 16)) : job.task.root;
  for (const f of job.task.files) {
    const path = join(base, f.path);
    if (f.content !== undefined) {
      if (existsSync(path) && sha256(readFileSync(path)) === f.sha256) continue;
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, Buffer.from(f.content, 'base64'));
    } else if (!existsSync(path)) {
      throw new Error(`${path} is not on this machine (make the tasks reachable by the same path, or ship them with --ship-tasks)`);
    } else if (sha256(readFileSync(path)) !== f.sha256) {
      throw new Error(`${path} differs from the coordinator's file of the same path`);
    }
  }
  const here = (p: string) => join(base, relative(job.task.root, p));
  return {
    ...job.run,
    taskFile: here(job.run.taskFile),
    inputFiles: job.run.inputFiles.map(here),
    propertyFile: here(job.run.propertyFile),
  };
}

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { TarsierError, usageError } from '../common/errors.js';
import { runOnQueue } from './coordinator.js';
import { executeRun, makeRecord, runFileName, type RunSettings } from './execute.js';
import { writeHtmlReport } from './html.js';
import { machineInfo } from './machine.js';
import { checkRedis, parseRedisUrl } from './queue.js';
import type { ProgressSink } from './progress.js';
import { appendRecord, readRecords, writeCsv, type RunRecord } from './results.js';
import { expandRuns, type RunSpec, type SetWarning } from './sets.js';
import { formatSummary, summarize, type ToolSummary } from './summary.js';
import { checkTemplate, validatorCommand, type ResultStyle, type ToolSpec, type ValidatorDescription } from './tools.js';

export interface BenchOptions {
  readonly sets: readonly string[];
  readonly tool: ToolSpec;
  /** CPU seconds per run. */
  readonly timeout: number;
  /** Wall-time guard in seconds (default: `WALL_GUARD_FACTOR` times `timeout`). */
  readonly wallTimeout?: number;
  /** Bytes of memory per run (sum of RSS of the process tree). */
  readonly memory?: number;
  readonly jobs: number;
  readonly out: string;
  readonly resume?: boolean;
  readonly properties?: readonly string[];
  /** Validator command template (`{witness}` and the run placeholders); see the rules' validation limits. */
  readonly validateCmd?: string;
  readonly validateStyle?: ResultStyle;
  /** Validate with Tarsier's own `validate` command (instead of `validateCmd`). */
  readonly validate?: 'tarsier';
  /** Run on the workers of this BullMQ queue (`redis://HOST:PORT[/DB]`) instead of this machine. */
  readonly queue?: string;
  /** With `queue`: put the task files in the jobs, for workers that cannot reach them by the same paths. */
  readonly shipTasks?: boolean;
  /** With `queue`: how often finished jobs are looked for, in ms. */
  readonly queuePollMs?: number;
  /** Called with a line for the user while the runs go on (with `queue`: no worker is connected). */
  readonly onNotice?: (line: string) => void;
  readonly pollMs?: number;
  readonly progress?: ProgressSink;
  /** Called with each warning about the SETs (skipped property entries, unreadable task files) as soon as they are read. */
  readonly onWarning?: (warning: SetWarning) => void;
  /** Called with the list of runs before any starts (e.g. for a header line). */
  readonly onPlan?: (info: { total: number; todo: number; warnings: readonly SetWarning[] }) => void;
}

export interface BenchResult {
  readonly summary: ToolSummary;
  readonly records: readonly RunRecord[];
  readonly warnings: readonly SetWarning[];
  /** Whether every planned run has a result (false after an interruption). */
  readonly complete: boolean;
  readonly files: { results: string; csv: string; summary: string; html: string };
}

interface BenchMeta {
  /** Names the benchmark's jobs on a queue (kept by --resume). */
  id?: string;
  tool: string;
  signature: string;
  timeout: number;
  wallTimeout: number;
  memory: number | null;
  validate: string | null;
}

/**
 * The default wall-time guard is this many times the CPU-time limit. The guard
 * only exists to stop a tool that waits without using CPU; the rules limit CPU
 * time, and on a shared machine a run gets less than a core, so a guard equal
 * to the CPU limit would end runs that still had CPU time left.
 */
export const WALL_GUARD_FACTOR = 3;

export function defaultWallTimeout(timeout: number): number {
  return WALL_GUARD_FACTOR * timeout;
}

/**
 * Runs a tool over the SETs under limits, appending one record per run to
 * OUT/results.jsonl as it ends; then writes results.csv, summary.txt and
 * index.html. With `resume`, runs already in results.jsonl are kept.
 */
export async function runBench(o: BenchOptions): Promise<BenchResult> {
  if (!(o.timeout > 0)) throw usageError('--timeout must be a positive number of seconds');
  if (!(o.jobs >= 1)) throw usageError('--jobs must be at least 1');
  if (o.wallTimeout !== undefined && !(o.wallTimeout >= o.timeout)) throw usageError('--wall-timeout must be at least --timeout');
  if (o.validateCmd && o.validate) throw usageError('give either --validate or --validate-cmd, not both');
  if (o.validateCmd) checkTemplate(o.validateCmd, '--validate-cmd');
  // An unreachable queue and bad SETs fail before anything is written.
  if (o.queue) await checkRedis(parseRedisUrl(o.queue));
  const { runs, warnings, tasks, properties } = expandRuns(o.sets, o.properties ? { properties: o.properties } : {});
  for (const w of warnings) o.onWarning?.(w);
  if (runs.length === 0) throw emptyPlan(o, tasks, properties);
  const out = resolve(o.out);
  const files = {
    results: join(out, 'results.jsonl'),
    csv: join(out, 'results.csv'),
    summary: join(out, 'summary.txt'),
    html: join(out, 'index.html'),
    meta: join(out, 'bench.json'),
  };
  const validator: ValidatorDescription | undefined = o.validateCmd
    ? { kind: 'template', template: o.validateCmd, resultStyle: o.validateStyle ?? 'auto' }
    : o.validate === 'tarsier'
      ? { kind: 'tarsier' }
      : undefined;
  const settings: RunSettings = {
    tool: o.tool,
    timeout: o.timeout,
    wallTimeout: o.wallTimeout ?? defaultWallTimeout(o.timeout),
    ...(o.memory ? { memory: o.memory } : {}),
    ...(validator ? { validator: validatorCommand(validator) } : {}),
    ...(o.pollMs ? { pollMs: o.pollMs } : {}),
  };
  const meta: BenchMeta = {
    tool: o.tool.name,
    signature: o.tool.signature,
    timeout: o.timeout,
    wallTimeout: settings.wallTimeout,
    memory: o.memory ?? null,
    validate: o.validateCmd ?? o.validate ?? null,
  };
  let previous: RunRecord[] = [];
  let id: string | undefined;
  if (existsSync(files.results)) {
    if (!o.resume) {
      throw new TarsierError('bench', 'already holds results; use --resume to complete them, or another --out folder', { file: files.results }, 2);
    }
    if (existsSync(files.meta)) {
      const old = JSON.parse(readFileSync(files.meta, 'utf8')) as BenchMeta;
      for (const k of Object.keys(meta) as Array<keyof BenchMeta>) {
        if (k === 'wallTimeout' && old[k] === undefined) continue;
        if (JSON.stringify(old[k]) !== JSON.stringify(meta[k])) {
          throw new TarsierError('bench', `--resume with a different ${k} (${JSON.stringify(old[k])} before, ${JSON.stringify(meta[k])} now)`, { file: files.meta }, 2);
        }
      }
      id = old.id;
    }
    previous = readRecords(files.results, { repair: true });
  }
  meta.id = id ?? randomBytes(6).toString('hex');
  mkdirSync(join(out, 'logs'), { recursive: true });
  writeFileSync(files.meta, JSON.stringify(meta, null, 2) + '\n');

  const done = new Map(previous.map((r) => [r.id, r]));
  const todo = runs.filter((r) => !done.has(r.id));
  o.onPlan?.({ total: runs.length, todo: todo.length, warnings });

  // Runs live in sessions of their own, so a Ctrl-C does not reach them: kill them here.
  const abort = new AbortController();
  const onSignal = () => abort.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const fresh: RunRecord[] = [];
  const onRecord = (record: RunRecord) => {
    appendRecord(files.results, record);
    fresh.push(record);
    o.progress?.finished(record);
  };
  try {
    if (o.queue) {
      await runOnQueue({
        url: o.queue,
        bench: meta.id,
        todo,
        settings: {
          tool: o.tool.description,
          timeout: settings.timeout,
          wallTimeout: settings.wallTimeout,
          memory: o.memory ?? null,
          validator: validator ?? null,
        },
        ...(o.shipTasks ? { shipTasks: true } : {}),
        ...(o.queuePollMs ? { pollMs: o.queuePollMs } : {}),
        ...(o.onNotice ? { onNotice: o.onNotice } : {}),
        out,
        signal: abort.signal,
        ...(o.progress ? { progress: o.progress } : {}),
        onRecord,
      });
    } else {
      await runHere(todo, settings, o.jobs, out, abort.signal, o.progress, onRecord);
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    o.progress?.close();
  }

  // Keep the planned order (and only planned runs) in tables.
  const all = new Map([...previous, ...fresh].map((r) => [r.id, r]));
  const records = runs.map((r) => all.get(r.id)).filter((r): r is RunRecord => r !== undefined);
  const summary = summarize(o.tool.name, records, out);
  writeCsv(files.csv, records);
  writeFileSync(files.summary, formatSummary([summary]) + '\n');
  writeHtmlReport(files.html, [{ summary, records }]);
  return { summary, records, warnings, complete: !abort.signal.aborted && records.length === runs.length, files };
}

/** Runs the runs on this machine, `jobs` at a time, until done or `signal` aborts. */
async function runHere(
  todo: readonly RunSpec[],
  settings: RunSettings,
  jobs: number,
  out: string,
  signal: AbortSignal,
  progress: ProgressSink | undefined,
  onRecord: (r: RunRecord) => void,
): Promise<void> {
  const machine = machineInfo('local');
  let next = 0;
  const worker = async () => {
    while (!signal.aborted && next < todo.length) {
      const run = todo[next++];
      progress?.started(run.id);
      const name = runFileName(run.id);
      const log = join('logs', `${name}.log`);
      const outcome = await executeRun(run, settings, {
        runDir: join(out, 'runs', name),
        logFile: join(out, log),
        validationLogFile: join(out, 'logs', `${name}.validation.log`),
      }, signal);
      // A run cut short by the interruption is not a result; --resume redoes it.
      if (signal.aborted) break;
      onRecord(makeRecord(run, settings.tool.name, outcome, { log, machine }));
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, Math.max(1, todo.length)) }, worker));
}

/** Why nothing would run: no task files, or none with the asked-for properties. */
function emptyPlan(o: BenchOptions, tasks: number, properties: readonly string[]): TarsierError {
  if (tasks === 0) return usageError(`no runs planned: no task files in ${o.sets.join(' ')}`);
  if (properties.length === 0) return usageError(`no runs planned: none of the ${tasks} task files has a usable verification property`);
  const asked = (o.properties ?? []).join(', ');
  return usageError(`no runs planned: no task has the property ${asked} (the ${tasks} task files have ${properties.join(', ')})`);
}

export { formatSummary, summarize };

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { TarsierError, usageError } from '../common/errors.js';
import { runLimited, type Limits } from './limits.js';
import type { ProgressSink } from './progress.js';
import {
  appendRecord,
  classifyRun,
  readRecords,
  scoreRecord,
  writeCsv,
  type RunRecord,
  type ValidationRecord,
} from './results.js';
import { expandRuns, expectedString, type RunSpec, type SetWarning } from './sets.js';
import { formatSummary, summarize, type ToolSummary } from './summary.js';
import { fillTemplate, readAnswer, type ResultStyle, type ToolSpec, checkTemplate } from './tools.js';
import { writeHtmlReport } from './html.js';

export interface BenchOptions {
  readonly sets: readonly string[];
  readonly tool: ToolSpec;
  /** CPU seconds per run. */
  readonly timeout: number;
  /** Wall-time guard in seconds (default: `timeout`, as the rules do; more on a loaded machine). */
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
  readonly pollMs?: number;
  readonly progress?: ProgressSink;
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
  tool: string;
  signature: string;
  timeout: number;
  wallTimeout: number;
  memory: number | null;
  validate: string | null;
}

/** Validation limits of the rules: 90 s of 900 (violation), 300 s of 900 (correctness). */
export const VALIDATION_SHARE = { violation: 0.1, correctness: 1 / 3 } as const;

/**
 * Whether a result needs a confirmed witness to score (the rules' table,
 * without the category exceptions): every FALSE; TRUE only for unreach-call
 * and no-overflow, where correctness witnesses are required.
 */
export function witnessRequired(run: Pick<RunSpec, 'property'>, status: string): boolean {
  if (status.startsWith('false')) return true;
  return status === 'true' && (run.property === 'unreach-call' || run.property === 'no-overflow');
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
  if (o.validateCmd) checkTemplate(o.validateCmd, '--validate-cmd');
  // Bad SETs fail before anything is written.
  const { runs, warnings } = expandRuns(o.sets, o.properties ? { properties: o.properties } : {});
  const out = resolve(o.out);
  const files = {
    results: join(out, 'results.jsonl'),
    csv: join(out, 'results.csv'),
    summary: join(out, 'summary.txt'),
    html: join(out, 'index.html'),
    meta: join(out, 'bench.json'),
  };
  const meta: BenchMeta = {
    tool: o.tool.name,
    signature: o.tool.signature,
    timeout: o.timeout,
    wallTimeout: o.wallTimeout ?? o.timeout,
    memory: o.memory ?? null,
    validate: o.validateCmd ?? null,
  };
  let previous: RunRecord[] = [];
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
    }
    previous = readRecords(files.results, { repair: true });
  }
  mkdirSync(join(out, 'logs'), { recursive: true });
  writeFileSync(files.meta, JSON.stringify(meta, null, 2) + '\n');

  const done = new Map(previous.map((r) => [r.id, r]));
  const todo = runs.filter((r) => !done.has(r.id));
  o.onPlan?.({ total: runs.length, todo: todo.length, warnings });

  // Runs live in sessions of their own, so a Ctrl-C does not reach them: kill them here.
  const abort = new AbortController();
  let interrupted = false;
  const onSignal = () => {
    interrupted = true;
    abort.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const fresh: RunRecord[] = [];
  try {
    let next = 0;
    const worker = async () => {
      while (!interrupted && next < todo.length) {
        const run = todo[next++];
        o.progress?.started(run.id);
        const record = await executeRun(run, o, out, abort.signal);
        // A run cut short by the interruption is not a result; --resume redoes it.
        if (interrupted) break;
        appendRecord(files.results, record);
        fresh.push(record);
        o.progress?.finished(record);
      }
    };
    await Promise.all(Array.from({ length: Math.min(o.jobs, Math.max(1, todo.length)) }, worker));
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
  return { summary, records, warnings, complete: !interrupted && records.length === runs.length, files };
}

function logName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]+/g, '_') + '.log';
}

async function executeRun(run: RunSpec, o: BenchOptions, out: string, signal: AbortSignal): Promise<RunRecord> {
  const runDir = join(out, 'runs', logName(run.id).replace(/\.log$/, ''));
  // A fresh folder: a witness left by an interrupted attempt must not be validated.
  rmSync(runDir, { recursive: true, force: true });
  mkdirSync(runDir, { recursive: true });
  const limits: Limits = { cpuTime: o.timeout, wallTime: o.wallTimeout ?? o.timeout, ...(o.memory ? { memory: o.memory } : {}) };
  const { command, args } = o.tool.commandFor(run, { timeout: o.timeout, runDir });
  const log = join('logs', logName(run.id));
  const m = await runLimited(command, args, limits, { cwd: runDir, logFile: join(out, log), pollMs: o.pollMs, signal });
  const { status, reason } = classifyRun(m, readAnswer(m.output, o.tool.resultStyle));
  let validation: ValidationRecord | undefined;
  if (o.validateCmd && (status === 'true' || status.startsWith('false'))) {
    validation = await validate(run, status, o, runDir, out, signal);
  }
  const base = {
    id: run.id,
    task: run.task,
    taskFile: run.taskFile,
    directory: run.directory,
    property: run.property,
    propertyFile: run.propertyFile,
    expected: expectedString(run.expected),
    tool: o.tool.name,
    status,
    ...(reason ? { reason } : {}),
    cpuTime: m.cpuTime,
    wallTime: m.wallTime,
    memory: m.memory,
    exitCode: m.exitCode,
    signal: m.signal,
    ...(validation ? { validation } : {}),
    log,
  };
  return { ...base, ...scoreRecord(base) };
}

async function validate(run: RunSpec, status: string, o: BenchOptions, runDir: string, out: string, signal: AbortSignal): Promise<ValidationRecord> {
  if (!witnessRequired(run, status)) return { status: 'not-required' };
  // The rules: witness.yml wins over witness.graphml.
  const witness = ['witness.yml', 'witness.graphml'].map((f) => join(runDir, f)).find((f) => existsSync(f));
  if (!witness) return { status: 'no-witness' };
  const share = status === 'true' ? VALIDATION_SHARE.correctness : VALIDATION_SHARE.violation;
  const timeout = Math.max(1, Math.round(o.timeout * share * 10) / 10);
  const cmd = fillTemplate(o.validateCmd!, run, { timeout, runDir, witness });
  const m = await runLimited('/bin/sh', ['-c', cmd], { cpuTime: timeout, wallTime: timeout, ...(o.memory ? { memory: o.memory } : {}) }, {
    cwd: runDir,
    logFile: join(out, 'logs', logName(run.id).replace(/\.log$/, '.validation.log')),
    pollMs: o.pollMs,
    signal,
  });
  const v = classifyRun(m, readAnswer(m.output, o.validateStyle ?? 'auto'));
  // A validator confirms a violation witness by finding the violation (FALSE)
  // and a correctness witness by proving the program with it (TRUE).
  const confirmed = status === 'true' ? v.status === 'true' : v.status.startsWith('false');
  return { status: confirmed ? 'confirmed' : 'not-confirmed', validatorStatus: v.status, cpuTime: m.cpuTime, witness };
}

export { formatSummary, summarize };

import { appendFileSync, existsSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { TarsierError } from '../common/errors.js';
import { violationNames } from '../properties/index.js';
import { scoreResult, type ResultCategory } from '../task/score.js';
import type { PropertyKind } from '../task/property.js';
import { parseVerdictString, verdictString, type Verdict } from '../task/verdict.js';
import type { Measurement } from './limits.js';
import type { MachineInfo } from './machine.js';
import { parseExpectedString } from './sets.js';

/** The classification of a run, as the rules list outcomes. */
export type RunStatus = 'true' | `false(${string})` | 'false' | 'unknown' | 'timeout' | 'out of memory' | 'error';

export type ValidationStatus = 'confirmed' | 'not-confirmed' | 'no-witness' | 'not-required';

export interface ValidationRecord {
  readonly status: ValidationStatus;
  /** The validator's answer (`true`, `false(...)`, `unknown`, `timeout`, `error`...). */
  readonly validatorStatus?: string;
  readonly cpuTime?: number;
  readonly witness?: string;
}

export type RunLimit = 'cpu-time' | 'wall-time' | 'memory';

/** One line of results.jsonl. */
export interface RunRecord {
  readonly id: string;
  readonly task: string;
  readonly taskFile: string;
  readonly directory: string;
  readonly property: PropertyKind;
  readonly propertyFile: string;
  /** `true`, `false`, `false(sub)`, or null when the task gives none. */
  readonly expected: string | null;
  readonly tool: string;
  readonly status: RunStatus;
  /** Why the run gave no answer (timeout, exit code, ...), or the tool's reason for UNKNOWN. */
  readonly reason?: string;
  /** The limit that ended the run, if one did. */
  readonly limit?: RunLimit;
  readonly cpuTime: number;
  readonly wallTime: number;
  /** Peak memory in bytes. */
  readonly memory: number;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly validation?: ValidationRecord;
  readonly category: ResultCategory;
  readonly points: number;
  readonly log?: string;
  /** The worker and machine that ran it. */
  readonly machine?: MachineInfo;
}

/** The answer a status stands for (timeouts and the like are unknown). */
export function statusVerdict(status: RunStatus): Verdict {
  return parseVerdictString(status) ?? { kind: 'unknown' };
}

/**
 * Classifies a finished run: a limit hit wins (timeout, out of memory); else
 * the answer read from the output; a tool that crashed or printed no answer
 * is an error.
 */
export function classifyRun(m: Measurement, answer: Verdict | undefined): { status: RunStatus; reason?: string; limit?: RunLimit } {
  if (m.termination === 'cputime') return { status: 'timeout', limit: 'cpu-time', reason: `CPU time limit (${m.cpuTime} s used)` };
  if (m.termination === 'walltime') {
    return { status: 'timeout', limit: 'wall-time', reason: `wall-time limit (${m.wallTime} s wall, ${m.cpuTime} s CPU; raise it with --wall-timeout)` };
  }
  if (m.termination === 'memory') {
    return { status: 'out of memory', limit: 'memory', reason: `memory limit (${Math.round(m.memory / 1048576)} MB used)` };
  }
  if (m.termination === 'aborted') return { status: 'error', reason: 'interrupted' };
  if (m.termination === 'spawn-error') return { status: 'error', reason: m.error ?? 'could not start the tool' };
  if (m.termination === 'signal') return { status: 'error', reason: `killed by ${m.signal}` };
  if (!answer) {
    return { status: 'error', reason: `no result in the output (exit code ${m.exitCode})` };
  }
  if (answer.kind === 'unknown') return { status: 'unknown', ...(answer.reason ? { reason: answer.reason } : {}) };
  return { status: verdictString(answer) as RunStatus };
}

/** Scores a record from its status, expectation and validation (used again by `tarsier score`). */
export function scoreRecord(r: Pick<RunRecord, 'status' | 'expected' | 'property' | 'validation'>): { category: ResultCategory; points: number } {
  const confirmed = r.validation ? r.validation.status === 'confirmed' || r.validation.status === 'not-required' : undefined;
  const s = scoreResult(parseExpectedString(r.expected), statusVerdict(r.status), {
    property: { kind: r.property, violationNames: violationNames(r.property) },
    ...(confirmed !== undefined ? { confirmed } : {}),
  });
  return { category: s.category, points: s.points };
}

/** Appends one record as a line; the line is complete or (after a crash) detectably cut. */
export function appendRecord(file: string, r: RunRecord): void {
  appendFileSync(file, JSON.stringify(r) + '\n');
}

/**
 * Reads results.jsonl. A last line without its newline (the runner was
 * killed while writing) is dropped, and with `repair` cut off the file.
 */
export function readRecords(file: string, options: { repair?: boolean } = {}): RunRecord[] {
  if (!existsSync(file)) throw new TarsierError('io', 'no results.jsonl here', { file }, 2);
  const text = readFileSync(file, 'utf8');
  const end = text.lastIndexOf('\n') + 1;
  if (end < text.length && options.repair) truncateSync(file, Buffer.byteLength(text.slice(0, end)));
  const records: RunRecord[] = [];
  text
    .slice(0, end)
    .split('\n')
    .forEach((line, i) => {
      if (!line.trim()) return;
      let r: unknown;
      try {
        r = JSON.parse(line);
      } catch {
        throw new TarsierError('results', 'not a JSON line', { file, line: i + 1, column: 1 });
      }
      const rec = r as RunRecord;
      if (typeof rec?.id !== 'string' || typeof rec.status !== 'string') {
        throw new TarsierError('results', 'not a run record (needs id and status)', { file, line: i + 1, column: 1 });
      }
      records.push(rec);
    });
  return records;
}

const CSV_COLUMNS = [
  'id',
  'task',
  'property',
  'directory',
  'expected',
  'status',
  'category',
  'points',
  'cpu_time_s',
  'wall_time_s',
  'memory_mb',
  'validation',
  'reason',
  'worker',
] as const;

function csvCell(v: unknown): string {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function recordsToCsv(records: readonly RunRecord[]): string {
  const rows = [CSV_COLUMNS.join(',')];
  for (const r of records) {
    rows.push(
      [
        r.id,
        r.task,
        r.property,
        r.directory,
        r.expected,
        r.status,
        r.category,
        r.points,
        r.cpuTime.toFixed(2),
        r.wallTime.toFixed(2),
        (r.memory / 1048576).toFixed(1),
        r.validation?.status ?? '',
        r.reason ?? '',
        r.machine?.worker ?? '',
      ]
        .map(csvCell)
        .join(','),
    );
  }
  return rows.join('\n') + '\n';
}

export function writeCsv(file: string, records: readonly RunRecord[]): void {
  writeFileSync(file, recordsToCsv(records));
}

import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { correctnessWitnessRequired } from '../properties/index.js';
import { runLimited } from './limits.js';
import type { MachineInfo } from './machine.js';
import { classifyRun, scoreRecord, type RunRecord, type ValidationRecord } from './results.js';
import { expectedString, type RunSpec } from './sets.js';
import { fillTemplate, readAnswer, type ResultStyle, type ToolSpec } from './tools.js';

/** How every run of a benchmark is done: the same on this machine and on a queue worker. */
export interface RunSettings {
  readonly tool: ToolSpec;
  /** CPU seconds per run. */
  readonly timeout: number;
  /** Wall-time guard in seconds. */
  readonly wallTimeout: number;
  /** Bytes of memory per run (sum of RSS of the process tree). */
  readonly memory?: number;
  /** The witness validator (a command template) and how to read its answer. */
  readonly validator?: { readonly template: string; readonly resultStyle: ResultStyle };
  readonly pollMs?: number;
}

/** Where one run works and writes: its working folder (the witness lands there) and its logs. */
export interface RunPaths {
  readonly runDir: string;
  readonly logFile: string;
  readonly validationLogFile: string;
}

/** What a run measured and answered: a result record without the task's and the scoring's fields. */
export type RunOutcome = Pick<RunRecord, 'status' | 'reason' | 'limit' | 'cpuTime' | 'wallTime' | 'memory' | 'exitCode' | 'signal' | 'validation'>;

/** Validation limits of the rules: 90 s of 900 (violation), 300 s of 900 (correctness). */
export const VALIDATION_SHARE = { violation: 0.1, correctness: 1 / 3 } as const;

/**
 * Whether a result needs a confirmed witness to score (the rules' table,
 * without the category exceptions): every FALSE; TRUE where the property
 * table says correctness witnesses are required.
 */
export function witnessRequired(run: Pick<RunSpec, 'property'>, status: string): boolean {
  if (status.startsWith('false')) return true;
  return status === 'true' && correctnessWitnessRequired(run.property);
}

/** A file-system-safe name for a run (its log file and folder). */
export function runFileName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]+/g, '_');
}

/** Runs the tool on one run under the limits, then the validator on its witness when one is required. */
export async function executeRun(run: RunSpec, s: RunSettings, paths: RunPaths, signal?: AbortSignal): Promise<RunOutcome> {
  // A fresh folder: a witness left by an interrupted attempt must not be validated.
  rmSync(paths.runDir, { recursive: true, force: true });
  mkdirSync(paths.runDir, { recursive: true });
  const { command, args } = s.tool.commandFor(run, { timeout: s.timeout, runDir: paths.runDir });
  const m = await runLimited(command, args, { cpuTime: s.timeout, wallTime: s.wallTimeout, ...(s.memory ? { memory: s.memory } : {}) }, {
    cwd: paths.runDir,
    logFile: paths.logFile,
    pollMs: s.pollMs,
    signal,
  });
  const { status, reason, limit } = classifyRun(m, readAnswer(m.output, s.tool.resultStyle));
  let validation: ValidationRecord | undefined;
  if (s.validator && (status === 'true' || status.startsWith('false'))) {
    validation = await validate(run, status, s, paths, signal);
  }
  return {
    status,
    ...(reason ? { reason } : {}),
    ...(limit ? { limit } : {}),
    cpuTime: m.cpuTime,
    wallTime: m.wallTime,
    memory: m.memory,
    exitCode: m.exitCode,
    signal: m.signal,
    ...(validation ? { validation } : {}),
  };
}

async function validate(run: RunSpec, status: string, s: RunSettings, paths: RunPaths, signal?: AbortSignal): Promise<ValidationRecord> {
  if (!witnessRequired(run, status)) return { status: 'not-required' };
  // The rules: witness.yml wins over witness.graphml.
  const witness = ['witness.yml', 'witness.graphml'].map((f) => join(paths.runDir, f)).find((f) => existsSync(f));
  if (!witness) return { status: 'no-witness' };
  const share = status === 'true' ? VALIDATION_SHARE.correctness : VALIDATION_SHARE.violation;
  const timeout = Math.max(1, Math.round(s.timeout * share * 10) / 10);
  const wallTimeout = (timeout * s.wallTimeout) / s.timeout;
  const cmd = fillTemplate(s.validator!.template, run, { timeout, runDir: paths.runDir, witness });
  const m = await runLimited('/bin/sh', ['-c', cmd], { cpuTime: timeout, wallTime: wallTimeout, ...(s.memory ? { memory: s.memory } : {}) }, {
    cwd: paths.runDir,
    logFile: paths.validationLogFile,
    pollMs: s.pollMs,
    signal,
  });
  const v = classifyRun(m, readAnswer(m.output, s.validator!.resultStyle));
  // A validator confirms a violation witness by finding the violation (FALSE)
  // and a correctness witness by proving the program with it (TRUE).
  const confirmed = status === 'true' ? v.status === 'true' : v.status.startsWith('false');
  return { status: confirmed ? 'confirmed' : 'not-confirmed', validatorStatus: v.status, cpuTime: m.cpuTime, witness };
}

/** The result record of a run: the task's fields, the outcome, where it ran, and the score. */
export function makeRecord(run: RunSpec, toolName: string, outcome: RunOutcome, extra: { log?: string; machine?: MachineInfo }): RunRecord {
  const base = {
    id: run.id,
    task: run.task,
    taskFile: run.taskFile,
    directory: run.directory,
    property: run.property,
    propertyFile: run.propertyFile,
    expected: expectedString(run.expected),
    tool: toolName,
    ...outcome,
    ...(extra.log ? { log: extra.log } : {}),
    ...(extra.machine ? { machine: extra.machine } : {}),
  };
  return { ...base, ...scoreRecord(base) };
}

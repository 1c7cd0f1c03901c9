// Benchmarking: running tools over task sets under limits, results, scores, reports.
export { runLimited, type Limits, type Measurement, type Termination, type RunLimitedOptions } from './limits.js';
export { parseProcStat, processTree, type ProcStat } from './proc.js';
export { expandRuns, collectTaskFiles, type RunSpec, type SetWarning } from './sets.js';
export {
  tarsierTool,
  tarsierValidateTemplate,
  toolFromDescription,
  validatorCommand,
  type ToolDescription,
  type ValidatorDescription,
  templateTool,
  fillTemplate,
  readAnswer,
  shellQuote,
  RESULT_STYLES,
  type ToolSpec,
  type ResultStyle,
  type RunContext,
} from './tools.js';
export {
  classifyRun,
  scoreRecord,
  readRecords,
  recordsToCsv,
  type RunRecord,
  type RunLimit,
  type RunStatus,
  type ValidationRecord,
  type ValidationStatus,
} from './results.js';
export { summarize, formatSummary, scoreJson, baseCategory, type ToolSummary, type CategoryEntry } from './summary.js';
export { renderHtmlReport, writeHtmlReport, type ReportInput } from './html.js';
export { Progress, type ProgressSink } from './progress.js';
export { runBench, defaultWallTimeout, WALL_GUARD_FACTOR, type BenchOptions, type BenchResult } from './bench.js';
export { executeRun, makeRecord, witnessRequired, VALIDATION_SHARE, type RunSettings, type RunPaths, type RunOutcome } from './execute.js';
export { machineInfo, type MachineInfo } from './machine.js';
export { parseRedisUrl, checkRedis, QUEUE_NAME, type RunJob, type RunJobResult, type RedisAddress } from './queue.js';
export { runOnQueue, type QueueRunOptions } from './coordinator.js';
export { runWorker, type WorkerOptions } from './worker.js';
export { scoreDirectories, type ScoreDirectoriesOptions } from './rescore.js';

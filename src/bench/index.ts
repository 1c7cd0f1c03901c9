// Benchmarking: running tools over task sets under limits, results, scores, reports.
export { runLimited, type Limits, type Measurement, type Termination, type RunLimitedOptions } from './limits.js';
export { parseProcStat, processTree, type ProcStat } from './proc.js';
export { expandRuns, collectTaskFiles, type RunSpec, type SetWarning } from './sets.js';
export {
  tarsierTool,
  tarsierValidateTemplate,
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
  type RunStatus,
  type ValidationRecord,
  type ValidationStatus,
} from './results.js';
export { summarize, formatSummary, scoreJson, baseCategory, type ToolSummary, type CategoryEntry } from './summary.js';
export { renderHtmlReport, writeHtmlReport, type ReportInput } from './html.js';
export { Progress, type ProgressSink } from './progress.js';
export { runBench, witnessRequired, VALIDATION_SHARE, type BenchOptions, type BenchResult } from './bench.js';
export { scoreDirectories, type ScoreDirectoriesOptions } from './rescore.js';

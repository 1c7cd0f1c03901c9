import { usageError } from '../../common/errors.js';
import { defaultWallTimeout, Progress, RESULT_STYLES, runBench, tarsierTool, templateTool, type ResultStyle } from '../../bench/index.js';
import { formatSummary } from '../../bench/summary.js';
import type { CommandRegistrar } from '../command.js';
import { choiceOption } from '../options.js';

interface BenchFlags {
  tool?: string;
  toolCmd?: string;
  name?: string;
  resultStyle: ResultStyle;
  property?: string[];
  timeout: string;
  wallTimeout?: string;
  memory: string;
  jobs: string;
  out: string;
  resume?: boolean;
  validateCmd?: string;
  validate?: 'tarsier';
  queue?: string;
  shipTasks?: boolean;
}

/** `15GB`, `512MB`, `2GiB`, `800M`, or a plain number of megabytes; in bytes. */
export function parseMemory(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:([kmgt])(i?)b?|(b))?\s*$/i.exec(text);
  if (!m) throw usageError(`--memory: expected a size such as 15GB or 800MB, not '${text}'`);
  const power = m[4] ? 0 : m[2] ? 'kmgt'.indexOf(m[2].toLowerCase()) + 1 : 2;
  const bytes = Number(m[1]) * (m[3] ? 1024 : 1000) ** power;
  if (!(bytes > 0)) throw usageError('--memory must be positive');
  return Math.round(bytes);
}

export const registerBench: CommandRegistrar = (program, run) => {
  program
    .command('bench')
    .description('run a verifier over task sets under CPU-time and memory limits, score the results as SV-COMP does, write tables and a page')
    .argument('<set...>', 'task-definition files (.yml), folders (all .yml below), or set files (.set, one pattern a line)')
    .addOption(choiceOption('--tool <name>', 'the tool to run', ['tarsier']))
    .option('--tool-cmd <template>', 'any tool: command template with {program} {prop} {property} {data_model} {bits} {task} {timeout}')
    .option('--name <name>', 'name of the tool in tables (default: tarsier, or the first word of --tool-cmd)')
    .addOption(choiceOption('--result-style <style>', 'how to read the answer of a --tool-cmd tool', RESULT_STYLES, 'auto'))
    .option('--property <kind...>', 'only these properties (e.g. unreach-call no-overflow)')
    .option('--timeout <seconds>', 'CPU-time limit per run', '900')
    .option('--wall-timeout <seconds>', 'wall-time guard per run (default: 3 times --timeout)')
    .option('--memory <size>', 'memory limit per run (sum of RSS of the process tree), e.g. 15GB', '15GB')
    .option('--jobs <n>', 'runs at the same time', '1')
    .option('--out <dir>', 'result folder', 'bench-results')
    .option('--resume', 'keep the runs already in OUT/results.jsonl and do only the missing ones')
    .option('--validate-cmd <template>', 'witness validator: command template with {witness} and the placeholders above; confirms when it answers the same verdict')
    .addOption(choiceOption('--validate <tool>', 'validate witnesses with a known validator', ['tarsier']))
    .option('--queue <redis-url>', 'run on the workers of a BullMQ queue (redis://HOST:PORT[/DB]; start them with tarsier worker)')
    .option('--ship-tasks', 'with --queue: put the task files in the jobs (workers without the tasks at the same paths)')
    .action(
      run(async (sets: string[], flags: BenchFlags) => {
        if (flags.tool && flags.toolCmd) throw usageError('give either --tool or --tool-cmd, not both');
        const timeout = Number(flags.timeout);
        if (!Number.isFinite(timeout) || timeout <= 0) throw usageError(`--timeout needs a positive number of seconds, not '${flags.timeout}'`);
        const wallTimeout = flags.wallTimeout === undefined ? undefined : Number(flags.wallTimeout);
        if (wallTimeout !== undefined && !Number.isFinite(wallTimeout)) throw usageError(`--wall-timeout needs a number of seconds, not '${flags.wallTimeout}'`);
        const jobs = Number(flags.jobs);
        if (!Number.isInteger(jobs) || jobs < 1) throw usageError(`--jobs needs a positive whole number, not '${flags.jobs}'`);
        const memory = parseMemory(flags.memory);
        const tool = flags.toolCmd ? templateTool(flags.toolCmd, flags.name, flags.resultStyle) : tarsierTool(flags.name);
        if (flags.shipTasks && !flags.queue) throw usageError('--ship-tasks needs --queue');
        const isTty = Boolean(process.stderr.isTTY);
        let progress: Progress | undefined;
        const result = await runBench({
          sets,
          tool,
          timeout,
          ...(wallTimeout !== undefined ? { wallTimeout } : {}),
          memory,
          jobs,
          out: flags.out,
          ...(flags.resume ? { resume: true } : {}),
          ...(flags.property ? { properties: flags.property } : {}),
          ...(flags.validateCmd ? { validateCmd: flags.validateCmd } : {}),
          ...(flags.validate ? { validate: flags.validate } : {}),
          ...(flags.queue ? { queue: flags.queue } : {}),
          ...(flags.shipTasks ? { shipTasks: true } : {}),
          onWarning: (w) => process.stderr.write(`warning: ${w.message}\n`),
          onNotice: (line) => process.stderr.write(`${line}\n`),
          onPlan: ({ total, todo }) => {
            const wall = wallTimeout ?? defaultWallTimeout(timeout);
            const where = flags.queue ? `on the queue ${flags.queue}` : `${jobs} at a time`;
            process.stderr.write(`${total} runs planned, ${todo} to do (${tool.name}, ${timeout} s CPU, ${wall} s wall, ${Math.round(memory / 1e6)} MB, ${where})\n`);
            progress = new Progress(total, process.stderr, isTty, total - todo);
          },
          progress: {
            started: (id) => progress?.started(id),
            finished: (r) => progress?.finished(r),
            close: () => progress?.close(),
          },
        });
        process.stdout.write(formatSummary([result.summary]) + '\n');
        process.stdout.write(`\nresults: ${result.files.results}\ntable: ${result.files.csv}\npage: ${result.files.html}\n`);
        if (!result.complete) {
          const rest = flags.queue ? 'the workers go on with the queued runs; run again with --resume to collect them' : 'run again with --resume to complete the results';
          process.stderr.write(`interrupted: ${rest}\n`);
          return 130;
        }
        return 0;
      }),
    );
};

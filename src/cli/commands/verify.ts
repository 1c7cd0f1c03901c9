import { TarsierError } from '../../common/errors.js';
import { witnessFileNames } from '../../properties/index.js';
import { SOLVER_NAMES } from '../../smt/index.js';
import { formatResultLine } from '../../task/verdict.js';
import { CHECK_DESCRIPTIONS, DEFAULT_CHECKS } from '../../task/property.js';
import { timeLimitReason } from '../../verify/time-limit.js';
import { readFileSync } from 'node:fs';
import { formatTrace } from '../../verify/trace.js';
import type { VerifyResult } from '../../verify/verify.js';
import { verifyWithHardLimit, type TimedOut } from '../../verify/worker.js';
import type { CommandRegistrar } from '../command.js';
import { onInterrupt } from '../interrupt.js';
import { checkOutputFile, choiceOption, parseSeconds } from '../options.js';

interface VerifyFlags {
  property?: string;
  prop?: string;
  dataModel?: 'ILP32' | 'LP64';
  timeout: string;
  /** Undefined: the rules' file name for the witness's format, in the current folder. */
  witness?: string;
  format: 'text' | 'json';
  verbose?: boolean;
  solver: string;
  report?: string;
}

/** The one object `verify --format json` prints, whatever happened (docs/verify.md). */
interface JsonResult {
  verdict: string;
  result: string;
  property: string | null;
  /** For the property `default` (a program given without one): the properties checked together. */
  checks: string[] | null;
  reason: string | null;
  program: string | null;
  dataModel: string | null;
  witness: string | null;
  replay: string | null;
  bound: number | null;
  /** FALSE: the path to the violation, step by step (docs/verify.md, "Trace"); null otherwise or when it could not be retraced. */
  trace: VerifyResult['trace'] | null;
  /** Termination TRUE by ranking functions: the ranking function of each loop. */
  rankingFunctions?: VerifyResult['rankingFunctions'];
  cpuTimeS: number | null;
  wallTimeS: number | null;
  error: { file: string | null; line: number | null; column: number | null; message: string } | null;
}

const EMPTY: JsonResult = {
  verdict: 'unknown',
  result: 'UNKNOWN',
  property: null,
  checks: null,
  reason: null,
  program: null,
  dataModel: null,
  witness: null,
  replay: null,
  bound: null,
  trace: null,
  cpuTimeS: null,
  wallTimeS: null,
  error: null,
};

/** After the hard limit: what the input stands for, read here (the worker's result is lost); null fields if that fails. */
async function resolvedAfterTimeOut(input: string, flags: VerifyFlags): Promise<Partial<JsonResult>> {
  try {
    const r = (await import('../../properties/resolve.js')).resolveInput(input, { property: flags.property, prp: flags.prop, dataModel: flags.dataModel });
    return { property: r.property.kind, program: r.program, dataModel: r.dataModel };
  } catch {
    return {};
  }
}

async function jsonOf(r: VerifyResult | TimedOut, timeoutS: number, input: string, flags: VerifyFlags): Promise<JsonResult> {
  if ('timedOut' in r) {
    return {
      ...EMPTY,
      ...(await resolvedAfterTimeOut(input, flags)),
      reason: timeLimitReason(r.bound),
      bound: r.bound,
      cpuTimeS: timeoutS,
      wallTimeS: Number(r.wallTimeS.toFixed(3)),
    };
  }
  return {
    ...EMPTY,
    verdict: r.verdict.kind === 'false' ? `false(${r.verdict.property})` : r.verdict.kind,
    result: formatResultLine(r.verdict).replace('Verification result: ', ''),
    property: r.property,
    checks: r.property === 'default' ? [...DEFAULT_CHECKS] : null,
    reason: r.reason,
    program: r.program,
    dataModel: r.dataModel,
    witness: r.witnessPath ?? null,
    replay: r.replay ? r.replay.status : null,
    bound: r.bound ?? null,
    trace: r.trace ?? null,
    ...(r.rankingFunctions ? { rankingFunctions: r.rankingFunctions } : {}),
    cpuTimeS: Number(r.cpuTimeS.toFixed(3)),
    wallTimeS: Number(r.wallTimeS.toFixed(3)),
  };
}

function jsonOfError(e: unknown): JsonResult {
  const loc = e instanceof TarsierError ? e.location : undefined;
  return {
    ...EMPTY,
    verdict: 'error',
    result: 'ERROR',
    error: {
      file: loc?.file ?? null,
      line: loc && 'line' in loc ? loc.line : null,
      column: loc && 'column' in loc ? loc.column : null,
      message: e instanceof Error ? e.message : String(e),
    },
  };
}

export const registerVerify: CommandRegistrar = (program, run) => {
  program
    .command('verify')
    .description('verify a task (TASK.yml) or a C program with a property; prints the verdict last')
    .argument('<input>', 'task-definition file (.yml) or C program (.c/.i)')
    .option('--property <kind>', 'the property to check: one of the task\'s, or for a program a standard property (unreach-call, no-overflow, ...), assert (assert() of <assert.h>), div-by-zero, or default (a program without --prop or --property: assertions, reach_error, memory safety, signed overflow, division by zero)')
    .option('--prop <file>', 'with a program: the property file (.prp)')
    .addOption(choiceOption('--data-model <model>', 'data model of the program', ['ILP32', 'LP64']))
    .option('--timeout <seconds>', 'total CPU-time limit in seconds', '900')
    .option('--witness <path>', 'where to write the witness of a TRUE or FALSE answer (overwritten if it exists); default: the file name the rules give its format (witness.yml, or witness.graphml for GraphML) in the current folder')
    .addOption(choiceOption('--format <format>', 'output format', ['text', 'json'], 'text'))
    .option('--verbose', 'tell what each engine did and how long it took')
    .addOption(choiceOption('--solver <name>', 'SMT solver: auto = z3 on PATH, else the built-in WebAssembly Z3 (same answers, different speed)', SOLVER_NAMES, 'auto'))
    .option('--report <file>', 'also write the HTML report of the witness written (violation or correctness) on the program (see tarsier report)')
    .action(
      run(async (input: string, flags: VerifyFlags) => {
        const timeoutS = parseSeconds('--timeout', flags.timeout);
        let r: VerifyResult | TimedOut;
        let bound = 0;
        const started = Date.now();
        // Interrupted: the bound established so far, UNKNOWN.
        const stopListening = onInterrupt((signal) => {
          const reason = `interrupted (${signal})${bound > 0 ? `; no violation up to bound ${bound}` : ''}`;
          if (flags.format === 'json') process.stdout.write(JSON.stringify({ ...EMPTY, reason, bound, wallTimeS: (Date.now() - started) / 1000 }) + '\n');
          else process.stdout.write(`${reason}\nVerification result: UNKNOWN\n`);
        });
        try {
          // Before the work: a bad witness path must not cost the verdict.
          for (const file of flags.witness !== undefined ? [flags.witness] : witnessFileNames()) checkOutputFile(file, '--witness');
          if (flags.report) checkOutputFile(flags.report, '--report');
          r = await verifyWithHardLimit(
            input,
            {
              property: flags.property,
              prp: flags.prop,
              dataModel: flags.dataModel,
              timeoutS,
              // Without --witness: the rules' file name, in the current folder.
              ...(flags.witness !== undefined ? { witnessPath: flags.witness } : { witnessFolder: '.' }),
              verbose: flags.verbose,
              solver: flags.solver,
              // The limit is this process's CPU time, start-up included.
              cpuOriginMs: 0,
            },
            (b) => (bound = b),
          );
        } catch (e) {
          if (flags.format === 'json') process.stdout.write(JSON.stringify(jsonOfError(e)) + '\n');
          throw e;
        } finally {
          stopListening();
        }
        if (flags.report && !('timedOut' in r)) {
          // Loaded only when asked for: every verification pays for what it loads.
          const trace = r.trace ? formatTrace(r.trace, readFileSync(r.program, 'utf8').split('\n'), Infinity) : undefined;
          if (r.witnessPath) (await import('../../report/index.js')).writeReportFile(r.program, r.witnessPath, flags.report, undefined, trace);
          else process.stderr.write(`${flags.report}: not written: no witness was written\n`);
        }
        if (flags.format === 'json') process.stdout.write(JSON.stringify(await jsonOf(r, timeoutS, input, flags)) + '\n');
        else if ('timedOut' in r) process.stdout.write(`${timeLimitReason(r.bound)}\nVerification result: UNKNOWN\n`);
        else {
          if (r.property === 'default') process.stdout.write(`Checks (no property given): ${DEFAULT_CHECKS.map((k) => `${CHECK_DESCRIPTIONS[k]} (${k})`).join(', ')}\n`);
          if (r.witnessPath) process.stdout.write(`Witness written to ${r.witnessPath}\n`);
          if (r.trace) {
            const lines = readFileSync(r.program, 'utf8').split('\n');
            process.stdout.write(`Counterexample trace (line:column, function, step):\n${formatTrace(r.trace, lines).join('\n')}\n`);
          }
          process.stdout.write(`${r.reason}\n${formatResultLine(r.verdict)}\n`);
        }
        if (!('timedOut' in r) && r.witnessError) {
          process.stderr.write(`tarsier: error: ${r.witnessError}\n`);
          return 1;
        }
        return 0;
      }),
    );
};

import { Option } from 'commander';
import { usageError } from '../../common/errors.js';
import { SOLVER_NAMES } from '../../smt/index.js';
import { writeReportFile } from '../../report/index.js';
import { formatResultLine } from '../../task/index.js';
import { verifyWithHardLimit } from '../../verify/worker.js';
import type { CommandRegistrar } from '../command.js';

interface VerifyFlags {
  property?: string;
  prop?: string;
  dataModel?: 'ILP32' | 'LP64';
  timeout: string;
  witness: string;
  format: 'text' | 'json';
  verbose?: boolean;
  solver: string;
  report?: string;
}

export const registerVerify: CommandRegistrar = (program, run) => {
  program
    .command('verify')
    .description('verify a task (TASK.yml) or a C program with a property file; prints the verdict last')
    .argument('<input>', 'task-definition file (.yml) or C program (.c/.i)')
    .option('--property <name>', 'with a task file: the property to check (e.g. unreach-call)')
    .option('--prop <file>', 'with a program: the property file (.prp)')
    .addOption(new Option('--data-model <model>', 'data model of the program').choices(['ILP32', 'LP64']))
    .option('--timeout <seconds>', 'CPU-time limit in seconds', '900')
    .option('--witness <path>', 'where to write the violation witness', 'witness.yml')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .option('--verbose', 'tell what each engine did and how long it took')
    .addOption(new Option('--solver <name>', 'SMT solver: auto = z3 on PATH, else the built-in WebAssembly Z3 (same answers, different speed)').choices([...SOLVER_NAMES]).default('auto'))
    .option('--report <file>', 'with a violation witness: also write the HTML report of it on the program (see tarsier report)')
    .action(
      run(async (input: string, flags: VerifyFlags) => {
        const timeoutS = Number(flags.timeout);
        if (!Number.isFinite(timeoutS) || timeoutS <= 0) throw usageError(`--timeout needs a positive number of seconds, not '${flags.timeout}'`);
        const r = await verifyWithHardLimit(input, {
          property: flags.property,
          prp: flags.prop,
          dataModel: flags.dataModel,
          timeoutS,
          witnessPath: flags.witness,
          verbose: flags.verbose,
          solver: flags.solver,
        });
        if (r === 'timeout') {
          const reason = 'time limit reached';
          if (flags.format === 'json') process.stdout.write(JSON.stringify({ verdict: 'unknown', result: 'UNKNOWN', reason, cpuTimeS: timeoutS }) + '\n');
          else process.stdout.write(`${reason}\nVerification result: UNKNOWN\n`);
          return 0;
        }
        const line = formatResultLine(r.verdict);
        if (flags.report) {
          if (r.witnessPath) writeReportFile(r.program, r.witnessPath, flags.report);
          else process.stderr.write(`${flags.report}: not written: no witness was written\n`);
        }
        if (flags.format === 'json') {
          process.stdout.write(
            JSON.stringify({
              verdict: r.verdict.kind === 'false' ? `false(${r.verdict.property})` : r.verdict.kind,
              result: line.replace('Verification result: ', ''),
              property: r.property,
              reason: r.reason,
              program: r.program,
              dataModel: r.dataModel,
              witness: r.witnessPath ?? null,
              replay: r.replay ? r.replay.status : null,
              bound: r.bound ?? null,
              cpuTimeS: Number(r.cpuTimeS.toFixed(3)),
              wallTimeS: Number(r.wallTimeS.toFixed(3)),
            }) + '\n',
          );
        } else {
          if (r.witnessPath) process.stdout.write(`Witness written to ${r.witnessPath}\n`);
          process.stdout.write(`${r.reason}\n${line}\n`);
        }
        return 0;
      }),
    );
};

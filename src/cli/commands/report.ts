import { Option } from 'commander';
import { TarsierError, usageError } from '../../common/errors.js';
import { renderReportPage, reportFromFiles, validationView, writeReportFile, type ReportValidation, type ValidationView } from '../../report/index.js';
import { validateWithHardLimit } from '../../validate/worker.js';
import type { CommandRegistrar } from '../command.js';
import { checkOutputFile } from '../options.js';

interface ReportFlags {
  program: string;
  witness: string;
  output?: string;
  validate?: boolean;
  prop?: string;
  property?: string;
  dataModel?: 'ILP32' | 'LP64';
  timeout?: string;
}

/** `tarsier validate`'s findings for the page; a refused witness or a time-out is shown as such. */
async function validation(flags: ReportFlags): Promise<ValidationView | ReportValidation> {
  const timeoutS = flags.timeout === undefined ? undefined : Number(flags.timeout);
  if (timeoutS !== undefined && (!Number.isFinite(timeoutS) || timeoutS <= 0)) throw usageError(`--timeout needs a positive number of seconds, not '${flags.timeout}'`);
  if (!flags.prop && !flags.property) throw usageError('--validate needs the property: --prop P.prp or --property KIND (e.g. unreach-call)');
  const unconfirmed = (reason: string): ReportValidation => ({ outcome: 'unconfirmed', verdict: 'UNKNOWN', reason });
  try {
    const r = await validateWithHardLimit(flags.program, flags.witness, {
      ...(flags.prop ? { prp: flags.prop } : {}),
      ...(flags.property ? { property: flags.property } : {}),
      ...(flags.dataModel ? { dataModel: flags.dataModel } : {}),
      ...(timeoutS !== undefined ? { timeoutS } : {}),
    });
    return r === 'timeout' ? unconfirmed('time limit reached') : validationView(r, flags.witness);
  } catch (e) {
    // A witness the validator refuses (another program's, unreadable) is shown on the page; usage errors are not.
    if (e instanceof TarsierError && e.exitCode !== 2) return unconfirmed(`the validator refused the witness: ${e.format()}`);
    if (e instanceof TarsierError) throw e;
    return unconfirmed(`the validator failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}

export const registerReport: CommandRegistrar = (program, run) => {
  program
    .command('report')
    .description('write one self-contained HTML page showing a witness on its program: every invariant and waypoint at its line and column, the violation path, lint diagnostics; with --validate also what validation found')
    .requiredOption('--program <file>', 'the C program the witness is for')
    .requiredOption('--witness <file>', 'the witness (YAML 0.1/2.0/2.1 or GraphML 1.0; gzip is accepted)')
    .option('-o, --output <file>', 'write the page here instead of standard output')
    .option('--validate', "validate the witness first (as tarsier validate) and show the outcome, each entry's status and the counterexample")
    .option('--prop <file>', 'with --validate: the property file (.prp)')
    .option('--property <kind>', 'with --validate: the property kind (e.g. unreach-call), instead of --prop')
    .addOption(new Option('--data-model <model>', 'with --validate: the data model of the program').choices(['ILP32', 'LP64']))
    .option('--timeout <seconds>', 'with --validate: CPU-time limit of the validation (default as tarsier validate)')
    .action(
      run(async (flags: ReportFlags) => {
        if (!flags.validate && (flags.prop || flags.property || flags.dataModel || flags.timeout)) {
          throw usageError('--prop, --property, --data-model and --timeout go with --validate');
        }
        // The output path is checked before the (possibly long) validation.
        if (flags.output && flags.validate) checkOutputFile(flags.output, '--output');
        const v = flags.validate ? await validation(flags) : undefined;
        if (!flags.output) {
          process.stdout.write(renderReportPage(reportFromFiles(flags.program, flags.witness, v)));
          return 0;
        }
        const data = writeReportFile(flags.program, flags.witness, flags.output, v);
        const errors = data.diagnostics.filter((d) => d.severity === 'error').length;
        // Entries at a line or column the program lacks (another program's witness) are counted apart, as the page lists them apart.
        const located = data.markers.filter((m) => m.line !== undefined && m.inProgram).length;
        const outside = data.markers.filter((m) => m.line !== undefined && !m.inProgram).length;
        const validated = v ? `; witness ${v.outcome} (${v.verdict})` : '';
        process.stderr.write(`${flags.output}: ${located} located entries${outside ? `, ${outside} outside the program` : ''}${data.path.length ? ` (${data.path.length} path steps)` : ''}, ${errors} lint errors, ${data.diagnostics.length - errors} warnings${data.fatal ? '; the witness is unreadable' : ''}${validated}\n`);
        return 0;
      }),
    );
};

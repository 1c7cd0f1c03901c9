import { renderReportPage, reportFromFiles, writeReportFile } from '../../report/index.js';
import type { CommandRegistrar } from '../command.js';

interface ReportFlags {
  program: string;
  witness: string;
  output?: string;
}

export const registerReport: CommandRegistrar = (program, run) => {
  program
    .command('report')
    .description('write one self-contained HTML page showing a witness on its program: every invariant and waypoint at its line and column, the violation path, lint diagnostics')
    .requiredOption('--program <file>', 'the C program the witness is for')
    .requiredOption('--witness <file>', 'the witness (YAML 0.1/2.0/2.1 or GraphML 1.0; gzip is accepted)')
    .option('-o, --output <file>', 'write the page here instead of standard output')
    .action(
      run((flags: ReportFlags) => {
        if (!flags.output) {
          process.stdout.write(renderReportPage(reportFromFiles(flags.program, flags.witness)));
          return 0;
        }
        const data = writeReportFile(flags.program, flags.witness, flags.output);
        const errors = data.diagnostics.filter((d) => d.severity === 'error').length;
        const located = data.markers.filter((m) => m.line !== undefined).length;
        process.stderr.write(`${flags.output}: ${located} located entries${data.path.length ? ` (${data.path.length} path steps)` : ''}, ${errors} lint errors, ${data.diagnostics.length - errors} warnings${data.fatal ? '; the witness is unreadable' : ''}\n`);
        return 0;
      }),
    );
};

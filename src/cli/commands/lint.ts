import { Option } from 'commander';
import { readTextFile } from '../../common/files.js';
import { formatDiagnosticLine, lintWitness, readWitnessText, sha256OfFile } from '../../witness/index.js';
import type { CommandRegistrar } from '../command.js';
import { expressionCheckerForFile } from '../../c/index.js';

interface LintFlags {
  program?: string;
  format: 'text' | 'json';
}

export const registerLint: CommandRegistrar = (program, run) => {
  program
    .command('lint')
    .description('check a witness (YAML 0.1/2.0/2.1 or GraphML 1.0): syntax, schema, consistency; with --program also hashes and locations')
    .argument('<witness>', 'the witness file (witness.yml, witness.graphml; gzip is accepted)')
    .option('--program <file>', 'the C program the witness is for')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(
      run((witness: string, flags: LintFlags) => {
        const text = readWitnessText(witness);
        const options = flags.program
          ? { programText: readTextFile(flags.program), programFile: flags.program, programHash: sha256OfFile(flags.program), checkExpression: expressionCheckerForFile(flags.program) }
          : {};
        const diagnostics = lintWitness(text, witness, options);
        const errors = diagnostics.filter((d) => d.severity === 'error').length;
        if (flags.format === 'json') {
          process.stdout.write(JSON.stringify(diagnostics, null, 2) + '\n');
        } else {
          for (const d of diagnostics) process.stdout.write(formatDiagnosticLine(d) + '\n');
        }
        return errors > 0 ? 1 : 0;
      }),
    );
};

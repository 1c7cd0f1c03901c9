import { readTextFile } from '../../common/files.js';
import { formatDiagnosticLine, lintWitness, readWitness, readWitnessText, sha256OfFile } from '../../witness/index.js';
import { choiceOption } from '../options.js';
import type { CommandRegistrar } from '../command.js';
import { expressionCheckerForFile } from '../../c/index.js';

interface LintFlags {
  program?: string;
  format: 'text' | 'json';
  quiet?: boolean;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** What was checked: the number of YAML entries, or the GraphML witness; undefined when the witness cannot be read. */
function checkedWhat(text: string, file: string): string | undefined {
  try {
    const doc = readWitness(text, file);
    return doc.format === 'yaml' ? plural(doc.entries.length, 'entry').replace(/entrys$/, 'entries') : 'a GraphML witness';
  } catch {
    return undefined;
  }
}

export const registerLint: CommandRegistrar = (program, run) => {
  program
    .command('lint')
    .description('check a witness (YAML 0.1/2.0/2.1 or GraphML 1.0): syntax, schema, consistency; with --program also hashes and locations')
    .argument('<witness>', 'the witness file (witness.yml, witness.graphml; gzip is accepted)')
    .option('--program <file>', 'the C program the witness is for')
    .addOption(choiceOption('--format <format>', 'output format', ['text', 'json'], 'text'))
    .option('--quiet', 'print the problems only, without the summary line')
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
          // A witness that cannot be read at all (a syntax error, hostile nesting) gets its one error line only.
          const unreadable = diagnostics.some((d) => d.severity === 'error' && /syntax/.test(d.rule));
          const what = unreadable ? undefined : checkedWhat(text, witness);
          if (!flags.quiet && what !== undefined) {
            const warnings = diagnostics.length - errors;
            process.stdout.write(`${witness}: ${what} checked: ${plural(errors, 'error')}, ${plural(warnings, 'warning')}\n`);
          }
        }
        return errors > 0 ? 1 : 0;
      }),
    );
};

import { writeFileSync } from 'node:fs';
import { TarsierError, usageError } from '../../common/errors.js';
import { describeIoError, readTextFile } from '../../common/files.js';
import { convertTo20, convertToGraphml, formatDiagnosticLine, lintWitness, readWitness, readWitnessText, writeGraphml, writeWitness } from '../../witness/index.js';
import type { CommandRegistrar } from '../command.js';
import { checkOutputFile, choiceOption } from '../options.js';

interface ConvertFlags {
  to: string;
  out?: string;
  creationTime?: string;
  program?: string;
}

export const registerConvert: CommandRegistrar = (program, run) => {
  program
    .command('convert')
    .description('convert a witness to format 2.0 (0.1 loop/location invariants to an invariant_set, GraphML violation witnesses to a violation_sequence) or a 2.x violation witness to GraphML 1.0')
    .argument('<witness>', 'the witness file')
    .addOption(choiceOption('--to <version>', 'target format version (graphml: GraphML 1.0)', ['2.0', 'graphml']).makeOptionMandatory())
    .option('--out <file>', 'write the result here instead of standard output')
    .option('--creation-time <time>', 'creation_time of new entries (default: taken from the input)')
    .option('--program <file>', 'the program: recognises 0.1 columns that already count from 1; places GraphML assumptions and the target (needed when the violation follows a branch)')
    .action(
      run((witness: string, flags: ConvertFlags) => {
        if (flags.creationTime !== undefined && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(flags.creationTime)) {
          throw usageError(`--creation-time needs an ISO 8601 date-time such as 2024-05-01T12:00:00Z, not '${flags.creationTime}'`);
        }
        if (flags.out) checkOutputFile(flags.out, '--out');
        const doc = readWitness(readWitnessText(witness), witness);
        const programText = flags.program ? readTextFile(flags.program) : undefined;
        const say = (notes: readonly { at?: { line: number; column: number }; message: string }[]) => {
          for (const n of notes) process.stderr.write(`${n.at ? `${witness}:${n.at.line}:${n.at.column}` : witness}: warning: ${n.message}\n`);
        };
        let text: string;
        if (flags.to === 'graphml') {
          const g = convertToGraphml(doc, programText !== undefined ? { programText } : {});
          say(g.notes);
          if (!g.graphml) throw new TarsierError('convert', `nothing in this witness can be converted to GraphML${g.notes.length ? ' (see the warnings above)' : ''}`, { file: witness });
          text = writeGraphml(g.graphml);
        } else text = convertedTo20(doc, witness, flags, programText, say);
        // Never write what Tarsier's own linter rejects.
        const outName = flags.out ?? (flags.to === 'graphml' ? 'converted.graphml' : 'converted.yml');
        const lintOptions = programText !== undefined && flags.program ? { programText, programFile: flags.program } : {};
        const rejected = lintWitness(text, outName, lintOptions).filter((d) => d.severity === 'error');
        if (rejected.length > 0) {
          throw new TarsierError('convert', `the converted witness would not lint clean, so it is not written: ${formatDiagnosticLine(rejected[0]!)}`, { file: witness });
        }
        if (flags.out) {
          try {
            writeFileSync(flags.out, text);
          } catch (e) {
            throw new TarsierError('io', `cannot write: ${describeIoError(e)}`, { file: flags.out }, 2);
          }
        } else process.stdout.write(text);
        return 0;
      }),
    );
};

/** The witness in format 2.0 (YAML text); fails when nothing converts. */
function convertedTo20(doc: ReturnType<typeof readWitness>, witness: string, flags: ConvertFlags, programText: string | undefined, say: (notes: ReturnType<typeof convertTo20>['notes']) => void): string {
  const result = convertTo20(doc, {
    ...(flags.creationTime ? { creationTime: flags.creationTime } : {}),
    ...(programText !== undefined ? { programText } : {}),
  });
  say(result.notes);
  if (result.document.entries.length === 0) {
    throw new TarsierError('convert', `nothing in this witness can be converted to format 2.0${result.notes.length ? ' (see the warnings above)' : ''}`, { file: witness });
  }
  return writeWitness(result.document);
}

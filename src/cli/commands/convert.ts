import { writeFileSync } from 'node:fs';
import { Option } from 'commander';
import { TarsierError, usageError } from '../../common/errors.js';
import { readTextFile } from '../../common/files.js';
import { convertTo20, readWitness, readWitnessText, writeWitness } from '../../witness/index.js';
import type { CommandRegistrar } from '../command.js';

interface ConvertFlags {
  to: string;
  out?: string;
  creationTime?: string;
  program?: string;
}

export const registerConvert: CommandRegistrar = (program, run) => {
  program
    .command('convert')
    .description('convert a witness to format 2.0 (0.1 loop/location invariants to an invariant_set, GraphML violation witnesses to a violation_sequence)')
    .argument('<witness>', 'the witness file')
    .addOption(new Option('--to <version>', 'target format version').choices(['2.0']).makeOptionMandatory())
    .option('--out <file>', 'write the result here instead of standard output')
    .option('--creation-time <time>', 'creation_time of new entries (default: taken from the input)')
    .option('--program <file>', 'the program: recognises 0.1 columns that already count from 1')
    .action(
      run((witness: string, flags: ConvertFlags) => {
        if (flags.creationTime !== undefined && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(flags.creationTime)) {
          throw usageError(`--creation-time needs an ISO 8601 date-time such as 2024-05-01T12:00:00Z, not '${flags.creationTime}'`);
        }
        const doc = readWitness(readWitnessText(witness), witness);
        const result = convertTo20(doc, {
          ...(flags.creationTime ? { creationTime: flags.creationTime } : {}),
          ...(flags.program ? { programText: readTextFile(flags.program) } : {}),
        });
        for (const n of result.notes) {
          const where = n.at ? `${witness}:${n.at.line}:${n.at.column}` : witness;
          process.stderr.write(`${where}: warning: ${n.message}\n`);
        }
        if (result.document.entries.length === 0) {
          throw new TarsierError('convert', 'nothing in this witness can be converted to format 2.0', { file: witness });
        }
        const text = writeWitness(result.document);
        if (flags.out) {
          try {
            writeFileSync(flags.out, text);
          } catch (e) {
            throw new TarsierError('io', `cannot write: ${(e as Error).message}`, { file: flags.out }, 2);
          }
        } else process.stdout.write(text);
        return 0;
      }),
    );
};

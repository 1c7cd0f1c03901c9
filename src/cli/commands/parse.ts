import { parseCFile } from '../../c/index.js';
import { dumpAst, dumpLoops, dumpTypes, summary } from '../../c/dump.js';
import type { DataModel } from '../../c/types.js';
import { consoleOutput, type CommandRegistrar } from '../command.js';
import { choiceOption } from '../options.js';

export const registerParse: CommandRegistrar = (program, run) => {
  program
    .command('parse')
    .description('parse and type-check a C program (preprocessing a .c with directives through cpp); print a summary or a dump')
    .argument('<file>', 'the C program (.c or preprocessed .i)')
    .addOption(choiceOption('--data-model <model>', 'the data model: ILP32 as gcc -m32, LP64 as gcc -m64', ['ILP32', 'LP64'], 'ILP32'))
    .addOption(choiceOption('--dump <what>', 'print the typed AST, the types with sizes, or every loop', ['ast', 'types', 'loops']))
    .action(
      run((file: string, flags: { dataModel: DataModel; dump?: 'ast' | 'types' | 'loops' }) => {
        const prog = parseCFile(file, { dataModel: flags.dataModel });
        const lines =
          flags.dump === 'ast' ? dumpAst(prog) : flags.dump === 'types' ? dumpTypes(prog) : flags.dump === 'loops' ? dumpLoops(prog) : summary(prog);
        if (lines.length) consoleOutput.out(lines.join('\n'));
        return 0;
      }),
    );
};

import { formatSummary, scoreDirectories, scoreJson, writeHtmlReport } from '../../bench/index.js';
import type { CommandRegistrar } from '../command.js';
import { choiceOption } from '../options.js';

interface ScoreFlags {
  format: 'text' | 'json';
  html?: string;
  name?: string[];
}

export const registerScore: CommandRegistrar = (program, run) => {
  program
    .command('score')
    .description('re-score saved benchmark results (folders of tarsier bench) and compare tools side by side')
    .argument('<dir...>', 'result folders, each with a results.jsonl')
    .addOption(choiceOption('--format <format>', 'output format', ['text', 'json'], 'text'))
    .option('--name <name...>', 'names of the tools, in the order of the folders')
    .option('--html <file>', 'also write a comparison page (scatter plot of the first two tools)')
    .action(
      run(async (dirs: string[], flags: ScoreFlags) => {
        const { tools, inputs } = scoreDirectories(dirs, flags.name ? { names: flags.name } : {});
        if (flags.format === 'json') process.stdout.write(JSON.stringify(scoreJson(tools), null, 2) + '\n');
        else process.stdout.write(formatSummary(tools) + '\n');
        if (flags.html) writeHtmlReport(flags.html, inputs);
        return 0;
      }),
    );
};

import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { describeFailure, type CommandRegistrar } from './command.js';
import { registerImp } from './commands/imp.js';
import { registerVerify } from './commands/verify.js';
import { registerBench } from './commands/bench.js';
import { registerScore } from './commands/score.js';
import { registerParse } from './commands/parse.js';
import { registerLint } from './commands/lint.js';
import { registerConvert } from './commands/convert.js';
import { registerSelect } from './commands/select.js';
import { registerValidate } from './commands/validate.js';
import { registerReport } from './commands/report.js';
import { registerServe } from './commands/serve.js';

/** Every sub-command, in the order `--help` lists them. */
const commands: CommandRegistrar[] = [registerVerify, registerParse, registerImp, registerBench, registerScore, registerLint, registerConvert, registerSelect, registerValidate, registerReport, registerServe];

function packageVersion(): string {
  const url = new URL('../../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
}

export async function main(argv: string[]): Promise<number> {
  let exitCode = 0;
  const program = new Command('tarsier')
    .description('A software verifier and witness toolkit for C programs (SV-COMP conventions).')
    .version(packageVersion(), '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  program.configureOutput({ writeErr: (s) => process.stderr.write(s) });

  const run = <A extends unknown[]>(action: (...args: A) => Promise<number> | number) =>
    async (...args: A): Promise<void> => {
      try {
        exitCode = await action(...args);
      } catch (e) {
        const failure = describeFailure(e);
        process.stderr.write(failure.message + '\n');
        exitCode = failure.exitCode;
      }
    };
  for (const register of commands) register(program, run);
  program.commands.forEach((c) => c.exitOverride());

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version end here with exit code 0; usage errors with 2.
      return e.exitCode === 0 ? 0 : 2;
    }
    const failure = describeFailure(e);
    process.stderr.write(failure.message + '\n');
    return failure.exitCode;
  }
  return exitCode;
}

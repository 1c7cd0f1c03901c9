import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { describeFailure, type CommandRegistrar } from './command.js';
import { registerImp } from './commands/imp.js';
import { registerVerify } from './commands/verify.js';
import { registerBench } from './commands/bench.js';
import { registerScore } from './commands/score.js';
import { registerWorker } from './commands/worker.js';
import { registerParse } from './commands/parse.js';
import { registerLint } from './commands/lint.js';
import { registerConvert } from './commands/convert.js';
import { registerSelect } from './commands/select.js';
import { registerValidate } from './commands/validate.js';
import { registerReport } from './commands/report.js';
import { registerServe } from './commands/serve.js';

/** Every sub-command, in the order `--help` lists them. */
const commands: CommandRegistrar[] = [registerVerify, registerValidate, registerParse, registerImp, registerBench, registerScore, registerWorker, registerLint, registerConvert, registerSelect, registerReport, registerServe];

function packageVersion(): string {
  const url = new URL('../../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
}

/**
 * A reader that stops early (`tarsier lint … | head`) closes stdout: from
 * then on output is dropped, quietly, and the command ends as it would
 * (its files written, its exit code kept).
 */
function dropOutputOnClosedStdout(): void {
  if (process.stdout.listenerCount('error') > 0) return;
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE' && e.code !== 'ERR_STREAM_DESTROYED') throw e;
    process.stdout.write = (() => true) as typeof process.stdout.write;
  });
}

export async function main(argv: string[]): Promise<number> {
  dropOutputOnClosedStdout();
  let exitCode = 0;
  const program = new Command('tarsier')
    .description('A software verifier and witness toolkit for C programs (SV-COMP conventions).')
    .version(packageVersion(), '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  // Commander's own usage errors read like every other error: `tarsier: error: ...`.
  program.configureOutput({ writeErr: (s) => process.stderr.write(s), outputError: (s, write) => write(s.startsWith('error:') ? `tarsier: ${s}` : s) });

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

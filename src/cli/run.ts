// The CLI's frame: commander set up, the sub-commands given registered, one
// style for errors and exit codes.
import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import type { CommandRegistrar } from './command.js';
import { describeFailure } from './command.js';
import { describeIoError } from '../common/files.js';

/** A sub-command: its name and how to load the module that registers it. */
export interface CommandEntry {
  readonly name: string;
  readonly load: () => Promise<CommandRegistrar>;
}

function packageVersion(): string {
  const url = new URL('../../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
}

/** Why standard output could not be written (a full disk, `> /dev/full`), once it failed. */
let stdoutFailure: string | undefined;

/**
 * A reader that stops early (`tarsier lint … | head`) closes stdout: from
 * then on output is dropped, quietly, and the command ends as it would
 * (its files written, its exit code kept). Any other failure to write it
 * (`> /dev/full`) is one error line and exit status 3, never a stack trace.
 */
function guardStdout(): void {
  if (process.stdout.listenerCount('error') > 0) return;
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    process.stdout.write = (() => true) as typeof process.stdout.write;
    if (e.code === 'EPIPE' || e.code === 'ERR_STREAM_DESTROYED' || stdoutFailure) return;
    stdoutFailure = `tarsier: error: cannot write to standard output: ${e.code === 'ENOSPC' ? 'no space left on the device' : describeIoError(e)}`;
    process.stderr.write(stdoutFailure + '\n');
    // The failure may come after the command returned its status: it overrides it.
    process.exitCode = 3;
  });
}

/** Runs the CLI on `argv` with the sub-commands `commands` (each module loaded only when it runs). */
export async function runCli(argv: string[], commands: readonly CommandEntry[]): Promise<number> {
  guardStdout();
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
  // A known command name first: register that command alone; `--version`
  // alone needs none (loading them all cost a second); otherwise all (help, suggestions).
  const named = commands.filter((c) => c.name === argv[0]);
  const versionOnly = argv.length === 1 && (argv[0] === '-V' || argv[0] === '--version');
  for (const c of named.length > 0 ? named : versionOnly ? [] : commands) (await c.load())(program, run);
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
  return stdoutFailure ? 3 : exitCode;
}

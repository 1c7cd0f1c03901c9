import type { Command } from 'commander';
import { TarsierError } from '../common/errors.js';

/** A sub-command module: adds itself to the program. */
export type CommandRegistrar = (program: Command, run: ActionRunner) => void;

/**
 * Wraps a command action so that its exit status reaches `main`, and so that
 * a TarsierError is printed as one line instead of a stack trace.
 */
export type ActionRunner = <A extends unknown[]>(
  action: (...args: A) => Promise<number> | number,
) => (...args: A) => Promise<void>;

export interface Output {
  out(line: string): void;
  err(line: string): void;
}

export const consoleOutput: Output = {
  out: (line) => process.stdout.write(line + '\n'),
  err: (line) => process.stderr.write(line + '\n'),
};

export function describeFailure(e: unknown): { message: string; exitCode: number } {
  if (e instanceof TarsierError) return { message: e.format(), exitCode: e.exitCode };
  const detail = e instanceof Error ? e.message : String(e);
  if (process.env.TARSIER_DEBUG) console.error(e);
  return { message: `tarsier: internal error: ${detail} (set TARSIER_DEBUG=1 for details)`, exitCode: 3 };
}

// Option values shared by the commands, checked one way: choices are
// case-insensitive and every bad value is a one-line usage error (exit 2)
// in the same words; output files are checked before any work starts.
import { accessSync, constants, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Option } from 'commander';
import { TarsierError, usageError } from '../common/errors.js';

/** `a`, `a or b`, `a, b or c`. */
function alternatives(values: readonly string[]): string {
  return values.length <= 1 ? values.join('') : `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`;
}

/** The name of an option as users type it (`--format`). */
function optionName(flags: string): string {
  return /--[\w-]+/.exec(flags)?.[0] ?? flags;
}

/** An option with a fixed set of values, matched without regard to case (`lp64` is `LP64`). */
export function choiceOption(flags: string, description: string, choices: readonly string[], defaultValue?: string): Option {
  const name = optionName(flags);
  const option = new Option(flags, `${description} (${choices.join(', ')})`).argParser((value: string) => {
    const found = choices.find((c) => c.toLowerCase() === value.toLowerCase());
    if (found === undefined) throw usageError(`${name} must be ${alternatives(choices)}, not '${value}'`);
    return found;
  });
  return defaultValue === undefined ? option : option.default(defaultValue);
}

/** A positive number of seconds. */
export function parseSeconds(name: string, text: string): number {
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds <= 0 || text.trim() === '') throw usageError(`${name} must be a positive number of seconds, not '${text}'`);
  return seconds;
}

/**
 * Fails with a usage error (exit 2) unless `path` can be written: its folder
 * exists and is writable, and the path is not a folder. Run before the work
 * so that no result is lost to a bad output path.
 */
export function checkOutputFile(path: string, option: string): void {
  const fail = (why: string) => {
    throw new TarsierError('usage', `${option}: ${why}`, { file: path }, 2);
  };
  const full = resolve(path);
  let existing: ReturnType<typeof statSync> | undefined;
  try {
    existing = statSync(full);
  } catch {
    existing = undefined;
  }
  if (existing?.isDirectory()) fail('is a directory, not a file');
  const folder = dirname(full);
  let folderStat: ReturnType<typeof statSync> | undefined;
  try {
    folderStat = statSync(folder);
  } catch {
    fail(`the folder ${dirname(path)} does not exist`);
  }
  if (!folderStat!.isDirectory()) fail(`${dirname(path)} is not a folder`);
  try {
    accessSync(existing ? full : folder, constants.W_OK);
  } catch {
    fail('permission denied');
  }
}

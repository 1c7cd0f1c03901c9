import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (tests run from dist/test/...). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * The project's shared material (`../shared` beside the repository), or
 * undefined in a user's clone that has none; tests then skip, saying so.
 */
export const sharedDir: string | undefined = (() => {
  const dir = process.env.TARSIER_SHARED ?? resolve(repoRoot, '../shared');
  return existsSync(join(dir, 'spec')) ? dir : undefined;
})();

export const skipWithoutShared: string | false = sharedDir
  ? false
  : 'skipped: ../shared (spec examples and benchmark tasks) is not present beside the repository';

export function sharedPath(...parts: string[]): string {
  if (!sharedDir) throw new Error(String(skipWithoutShared));
  return join(sharedDir, ...parts);
}

/** The CLI entry point, for tests that run `tarsier` as a process. */
export const cliPath = join(repoRoot, 'bin', 'tarsier.js');

// `tarsier verify` alone: the entry of the one-file bundle of what a
// verification loads in the main thread (scripts/bundle-cli.mjs), which
// cli/entry.ts runs instead of main.ts for `verify`. The same command, as
// main.ts registers it.
import { registerVerify } from './commands/verify.js';
import { runCli } from './run.js';

export function main(argv: string[]): Promise<number> {
  return runCli(argv, [{ name: 'verify', load: async () => registerVerify }]);
}

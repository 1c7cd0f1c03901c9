import { runCli, type CommandEntry } from './run.js';

/**
 * Every sub-command, in the order `--help` lists them, with the module that
 * registers it. Modules are loaded on demand: a run of one command loads
 * that command's modules only (start-up time counts in every verification).
 */
const commands: readonly CommandEntry[] = [
  { name: 'verify', load: async () => (await import('./commands/verify.js')).registerVerify },
  { name: 'validate', load: async () => (await import('./commands/validate.js')).registerValidate },
  { name: 'parse', load: async () => (await import('./commands/parse.js')).registerParse },
  { name: 'imp', load: async () => (await import('./commands/imp.js')).registerImp },
  { name: 'bench', load: async () => (await import('./commands/bench.js')).registerBench },
  { name: 'score', load: async () => (await import('./commands/score.js')).registerScore },
  { name: 'worker', load: async () => (await import('./commands/worker.js')).registerWorker },
  { name: 'lint', load: async () => (await import('./commands/lint.js')).registerLint },
  { name: 'convert', load: async () => (await import('./commands/convert.js')).registerConvert },
  { name: 'select', load: async () => (await import('./commands/select.js')).registerSelect },
  { name: 'report', load: async () => (await import('./commands/report.js')).registerReport },
  { name: 'serve', load: async () => (await import('./commands/serve.js')).registerServe },
];

export function main(argv: string[]): Promise<number> {
  return runCli(argv, commands);
}

import { usageError } from '../../common/errors.js';
import { runWorker } from '../../bench/index.js';
import type { CommandRegistrar } from '../command.js';

interface WorkerFlags {
  jobs: string;
  name?: string;
  workDir?: string;
  stallTimeout: string;
}

export const registerWorker: CommandRegistrar = (program, run) => {
  program
    .command('worker')
    .description('take the runs of tarsier bench --queue from a BullMQ queue and run them on this machine')
    .argument('<redis-url>', 'the queue: redis://HOST:PORT[/DB]')
    .option('--jobs <n>', 'runs at the same time', '1')
    .option('--name <name>', 'the name recorded with each result (default: HOST-PID)')
    .option('--work-dir <dir>', 'where runs work and shipped tasks are kept (default: in the system temporary folder)')
    .option('--stall-timeout <seconds>', 'after this long without a sign of life from a worker, its runs go to another worker', '30')
    .action(
      run(async (url: string, flags: WorkerFlags) => {
        const jobs = Number(flags.jobs);
        if (!Number.isInteger(jobs) || jobs < 1) throw usageError(`--jobs needs a positive whole number, not '${flags.jobs}'`);
        const stallTimeout = Number(flags.stallTimeout);
        if (!(stallTimeout > 0)) throw usageError(`--stall-timeout needs a positive number of seconds, not '${flags.stallTimeout}'`);
        // Ctrl-C or SIGTERM: kill the running runs and give their jobs back to the queue.
        const stop = new AbortController();
        const onSignal = () => stop.abort();
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
        try {
          const { runs } = await runWorker({
            url,
            jobs,
            stallTimeout,
            ...(flags.name ? { name: flags.name } : {}),
            ...(flags.workDir ? { workDir: flags.workDir } : {}),
            signal: stop.signal,
            onEvent: (line) => process.stderr.write(line + '\n'),
          });
          process.stderr.write(`worker stopped after ${runs} runs\n`);
        } finally {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
        }
        return 0;
      }),
    );
};

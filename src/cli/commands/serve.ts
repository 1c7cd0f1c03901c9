import { usageError } from '../../common/errors.js';
import { servePlayground } from '../../report/serve.js';
import type { CommandRegistrar } from '../command.js';

interface ServeFlags {
  port: string;
  host: string;
  tasks?: string;
}

export const registerServe: CommandRegistrar = (program, run) => {
  program
    .command('serve')
    .description('serve the playground: a program and a witness in the browser, the report view, lint and verify (Z3 in WebAssembly); verify with gcc replay on this server')
    .option('--port <n>', 'TCP port (0: any free port)', '8080')
    .option('--host <address>', 'address to listen on (the server compiles and runs posted programs: keep it on loopback)', '127.0.0.1')
    .option('--tasks <dir>', 'a folder of task-definition files (e.g. sv-benchmarks/c) to pick programs from')
    .action(
      run(async (flags: ServeFlags) => {
        const port = Number(flags.port);
        if (!Number.isInteger(port) || port < 0 || port > 65535) throw usageError(`--port needs a port number, not '${flags.port}'`);
        const { server, url } = await servePlayground({ port, host: flags.host, ...(flags.tasks ? { tasksDir: flags.tasks } : {}) });
        process.stderr.write(`tarsier playground at ${url} (Ctrl-C stops it)\n`);
        await new Promise<void>((done) => {
          const stop = () => server.close(() => done());
          process.once('SIGINT', stop);
          process.once('SIGTERM', stop);
        });
        return 0;
      }),
    );
};

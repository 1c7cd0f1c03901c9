import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** A free TCP port on the loopback interface (nothing listens on it when this returns). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Why queue tests are skipped, or false when redis-server is there. */
export const skipWithoutRedis: string | false =
  spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0
    ? false
    : 'skipped: redis-server is not installed (scripts/install-system-tools.sh installs it)';

export interface TestRedis {
  readonly url: string;
  stop(): Promise<void>;
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('error', () => resolve(false));
    s.once('connect', () => s.write('PING\r\n'));
    s.once('data', (b) => {
      s.destroy();
      resolve(b.toString().startsWith('+PONG'));
    });
  });
}

/** Starts a private redis-server on a free loopback port, without persistence. */
export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  let up = false;
  for (let i = 0; i < 100 && !(up = await answersPing(port)); i++) await sleep(50);
  if (!up) {
    child.kill('SIGKILL');
    throw new Error(`redis-server did not answer on port ${port}`);
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

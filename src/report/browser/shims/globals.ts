/**
 * `process` and `Buffer` for the browser bundle (esbuild injects these where
 * the library uses them): no environment, CPU time measured as wall time,
 * and the few Buffer conversions the C front end makes (UTF-8 bytes).
 */
const start = performance.now();

export const process = {
  env: {} as Record<string, string | undefined>,
  platform: 'browser',
  argv: [] as string[],
  cwd: () => '/',
  /** Wall time stands in for CPU time: the browser does not tell the latter. */
  cpuUsage(previous?: { user: number; system: number }) {
    const user = Math.round((performance.now() - start) * 1000);
    return previous ? { user: user - previous.user, system: 0 } : { user, system: 0 };
  },
  hrtime: { bigint: () => BigInt(Math.round(performance.now() * 1e6)) },
  memoryUsage: () => ({ rss: 0, heapUsed: 0, heapTotal: 0, external: 0, arrayBuffers: 0 }),
  getuid: undefined as undefined | (() => number),
  stdout: { write: (s: string) => console.log(s) },
  stderr: { write: (s: string) => console.warn(s) },
  exitCode: 0,
};

function utf8Only(encoding?: string): void {
  if (encoding && encoding !== 'utf8' && encoding !== 'utf-8') throw new Error(`Buffer encoding ${encoding} is not available in the browser`);
}

/** Bytes whose toString decodes UTF-8, as a Buffer's does. */
function bytesWithText(bytes: Uint8Array): Uint8Array {
  return Object.assign(bytes, {
    toString(encoding?: string): string {
      utf8Only(encoding);
      return new TextDecoder().decode(bytes);
    },
  });
}

export const Buffer = {
  from(value: string | ArrayLike<number>, encoding?: string): Uint8Array {
    if (typeof value === 'string') {
      utf8Only(encoding);
      return bytesWithText(new TextEncoder().encode(value));
    }
    return bytesWithText(Uint8Array.from(Array.from(value)));
  },
  isBuffer(v: unknown): boolean {
    return v instanceof Uint8Array;
  },
  concat(list: readonly Uint8Array[]): Uint8Array {
    const all = new Uint8Array(list.reduce((n, b) => n + b.length, 0));
    let at = 0;
    for (const b of list) (all.set(b, at), (at += b.length));
    return bytesWithText(all);
  },
};

/**
 * `tarsier serve`: the playground's static files (dist/browser, from the
 * browser build) with the cross-origin isolation headers Z3's WebAssembly
 * threads need, and the server parts: `GET /api/health` and
 * `POST /api/verify`, which runs the library's `verify` here so that gcc can
 * replay a counterexample. Listens on the loopback address unless told
 * otherwise: the verify endpoint compiles and runs the posted program.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TarsierError } from '../common/errors.js';
import { probeGcc } from '../replay/index.js';
import { verify } from '../verify/verify.js';

export interface ServeOptions {
  readonly port?: number;
  readonly host?: string;
  /** The static files (default: dist/browser of this package). */
  readonly root?: string;
  /** CPU-time budget of one server-side verify run, in seconds (default 60). */
  readonly verifyTimeoutS?: number;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.map': 'application/json',
  '.css': 'text/css; charset=utf-8',
};

/** Cross-origin isolation (SharedArrayBuffer for Z3's threads), and no framing or sniffing. */
const HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'X-Content-Type-Options': 'nosniff',
};

const PROPERTIES: Record<string, string> = {
  'unreach-call': 'CHECK( init(main()), LTL(G ! call(reach_error())) )\n',
  'no-overflow': 'CHECK( init(main()), LTL(G ! overflow) )\n',
};

const MAX_BODY = 4 * 1024 * 1024;

export function defaultPlaygroundRoot(): string {
  return resolve(fileURLToPath(new URL('.', import.meta.url)), '../../browser');
}

function send(res: ServerResponse, status: number, body: string | Buffer, type: string): void {
  res.writeHead(status, { ...HEADERS, 'Content-Type': type, 'Cache-Control': 'no-cache' });
  res.end(body);
}

const json = (res: ServerResponse, status: number, value: unknown) => send(res, status, JSON.stringify(value), 'application/json');

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        fail(new Error(`request body larger than ${MAX_BODY} bytes`));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
    req.on('error', fail);
  });
}

/** One server-side verify at a time: each may use a core fully. */
let verifyQueue: Promise<unknown> = Promise.resolve();

async function serverVerify(body: string, timeoutS: number): Promise<{ status: number; value: unknown }> {
  let req: { programName?: unknown; programText?: unknown; property?: unknown; dataModel?: unknown };
  try {
    req = JSON.parse(body) as typeof req;
  } catch {
    return { status: 400, value: { error: 'the request is not JSON' } };
  }
  if (typeof req.programText !== 'string') return { status: 400, value: { error: 'programText is missing' } };
  const prp = PROPERTIES[String(req.property)];
  if (!prp) return { status: 400, value: { error: `property must be one of ${Object.keys(PROPERTIES).join(', ')}` } };
  const dataModel = req.dataModel === 'LP64' ? 'LP64' : 'ILP32';
  const name = basename(String(req.programName || 'program.c')).replace(/[^\w.-]/g, '_') || 'program.c';
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-serve-'));
  try {
    const program = join(dir, /\.[ci]$/.test(name) ? name : `${name}.c`);
    writeFileSync(program, req.programText);
    writeFileSync(join(dir, 'property.prp'), prp);
    const witnessPath = join(dir, 'witness.yml');
    const r = await verify(program, { prp: join(dir, 'property.prp'), dataModel, timeoutS, witnessPath });
    const verdict = r.verdict.kind === 'false' ? `FALSE(${r.verdict.property})` : r.verdict.kind.toUpperCase();
    const witness = r.witnessPath && existsSync(r.witnessPath) ? readFileSync(r.witnessPath, 'utf8') : undefined;
    return { status: 200, value: { verdict, reason: r.reason, ...(witness ? { witness } : {}) } };
  } catch (e) {
    if (e instanceof TarsierError) return { status: 200, value: { error: e.format().split(dir + sep).join('') } };
    throw e;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Creates the server (not yet listening). */
export function createPlaygroundServer(options: ServeOptions = {}): Server {
  const root = resolve(options.root ?? defaultPlaygroundRoot());
  const timeoutS = options.verifyTimeoutS ?? 60;
  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    void (async () => {
      if (url.pathname === '/api/health') return json(res, 200, { ok: true, gcc: probeGcc().gcc });
      if (url.pathname === '/api/verify') {
        if (req.method !== 'POST') return json(res, 405, { error: 'POST a program' });
        const body = await readBody(req);
        const run = verifyQueue.then(() => serverVerify(body, timeoutS));
        verifyQueue = run.catch(() => undefined);
        const r = await run;
        return json(res, r.status, r.value);
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed', 'text/plain');
      const rel = decodeURIComponent(url.pathname === '/' ? '/index.html' : url.pathname);
      const file = resolve(root, '.' + rel);
      if (!file.startsWith(root + sep) || !existsSync(file) || !statSync(file).isFile()) return send(res, 404, 'not found', 'text/plain');
      send(res, 200, readFileSync(file), TYPES[extname(file)] ?? 'application/octet-stream');
    })().catch((e: unknown) => json(res, 500, { error: `internal error: ${e instanceof Error ? e.message : String(e)}` }));
  });
}

/** Starts the server; resolves with its address once it listens. */
export function servePlayground(options: ServeOptions = {}): Promise<{ server: Server; url: string }> {
  const root = options.root ?? defaultPlaygroundRoot();
  if (!existsSync(join(root, 'index.html'))) {
    return Promise.reject(new TarsierError('serve', 'the playground is not built (run npm run build)', { file: root }, 2));
  }
  const server = createPlaygroundServer(options);
  const host = options.host ?? '127.0.0.1';
  return new Promise((done, fail) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      fail(new TarsierError('serve', e.code === 'EADDRINUSE' ? `port ${options.port} is in use` : e.message, undefined, 2)),
    );
    server.listen(options.port ?? 8080, host, () => {
      const a = server.address();
      const port = typeof a === 'object' && a ? a.port : options.port;
      done({ server, url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/` });
    });
  });
}

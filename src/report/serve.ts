/**
 * `tarsier serve`: the playground's static files (dist/browser, from the
 * browser build) with the cross-origin isolation headers Z3's WebAssembly
 * threads need, and the server parts: `GET /api/health`, `POST /api/verify`
 * and `POST /api/validate`, which run the library's `verify` and `validate`
 * here so that gcc can replay a counterexample, and with a task folder `GET /api/tasks` and
 * `GET /api/task?path=` (a task's program and property, to pick). Listens on the loopback address unless told
 * otherwise: the verify endpoint compiles and runs the posted program.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, extname, join, relative, resolve, sep } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { TarsierError } from '../common/errors.js';
import { probeGcc } from '../replay/index.js';
import { preferredProperty } from '../properties/index.js';
import { builtInProperty, PROPERTY_KINDS, readTaskFile } from '../task/index.js';
import { validate } from '../validate/index.js';
import { verify } from '../verify/verify.js';
import { validationView } from './validation.js';

export interface ServeOptions {
  readonly port?: number;
  readonly host?: string;
  /** The static files (default: dist/browser of this package). */
  readonly root?: string;
  /** CPU-time budget of one server-side verify or validate run, in seconds (default 60). */
  readonly verifyTimeoutS?: number;
  /** A folder of task-definition files (e.g. sv-benchmarks) the page offers to pick from. */
  readonly tasksDir?: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.map': 'application/json',
  '.css': 'text/css; charset=utf-8',
};

/** Cross-origin isolation (SharedArrayBuffer for Z3's threads), and no content sniffing. */
const HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'X-Content-Type-Options': 'nosniff',
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

/** One server-side run (verify, validate) at a time: each may use a core fully. */
let runQueue: Promise<unknown> = Promise.resolve();

interface RunRequest {
  programName?: unknown;
  programText?: unknown;
  witnessName?: unknown;
  witnessText?: unknown;
  property?: unknown;
  dataModel?: unknown;
}

type Reply = { status: number; value: unknown };

/** A posted file name, safe to write in a temporary folder. */
const safeName = (name: unknown, fallback: string) => basename(String(name || fallback)).replace(/[^\w.-]/g, '_') || fallback;

/**
 * Parses the posted request, writes the program, its property file (and the
 * witness, when `withWitness`) into a temporary folder, runs `work` on them,
 * and removes the folder; the folder's path never reaches the page.
 */
async function inTempFolder(
  body: string,
  withWitness: boolean,
  work: (files: { program: string; prp: string; witness: string; witnessName: string; dataModel: 'ILP32' | 'LP64'; dir: string }) => Promise<Reply>,
): Promise<Reply> {
  let req: RunRequest;
  try {
    req = JSON.parse(body) as RunRequest;
  } catch {
    return { status: 400, value: { error: 'the request is not JSON' } };
  }
  if (typeof req.programText !== 'string') return { status: 400, value: { error: 'programText is missing' } };
  if (withWitness && typeof req.witnessText !== 'string') return { status: 400, value: { error: 'witnessText is missing' } };
  // Any standard property: the server runs the same verify and validate as the command line.
  const property = builtInProperty(String(req.property));
  if (!property) return { status: 400, value: { error: `property must be one of ${PROPERTY_KINDS.join(', ')}` } };
  const dataModel = req.dataModel === 'LP64' ? 'LP64' : 'ILP32';
  const name = safeName(req.programName, 'program.c');
  const witnessName = safeName(req.witnessName, 'witness.yml');
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-serve-'));
  try {
    const program = join(dir, /\.[ci]$/.test(name) ? name : `${name}.c`);
    writeFileSync(program, req.programText);
    writeFileSync(join(dir, 'property.prp'), property.specification + '\n');
    // The witness in a folder of its own: its name may be the program's.
    const witness = join(dir, 'witness', witnessName);
    if (withWitness) {
      mkdirSync(join(dir, 'witness'));
      writeFileSync(witness, String(req.witnessText));
    }
    return await work({ program, prp: join(dir, 'property.prp'), witness, witnessName, dataModel, dir });
  } catch (e) {
    if (e instanceof TarsierError) return { status: 200, value: { error: e.format().split(join(dir, 'witness') + sep).join('').split(dir + sep).join('') } };
    throw e;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function serverVerify(body: string, timeoutS: number): Promise<Reply> {
  return inTempFolder(body, false, async ({ program, prp, dataModel, dir }) => {
    const witnessPath = join(dir, 'witness.yml');
    const r = await verify(program, { prp, dataModel, timeoutS, witnessPath });
    const verdict = r.verdict.kind === 'false' ? `FALSE(${r.verdict.property})` : r.verdict.kind.toUpperCase();
    const witness = r.witnessPath && existsSync(r.witnessPath) ? readFileSync(r.witnessPath, 'utf8') : undefined;
    return { status: 200, value: { verdict, reason: r.reason, ...(witness ? { witness } : {}) } };
  });
}

/** Validates the posted witness here, where gcc replays (what confirms a violation witness). */
function serverValidate(body: string, timeoutS: number): Promise<Reply> {
  return inTempFolder(body, true, async ({ program, prp, witness, witnessName, dataModel }) => {
    const r = await validate(program, witness, { prp, dataModel, timeoutS });
    return { status: 200, value: validationView(r, witnessName, 'server') };
  });
}

const MAX_TASKS = 5000;

/** Task-definition files under a folder (relative paths, sorted), at most MAX_TASKS. */
function listTasks(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (out.length >= MAX_TASKS) return;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.ya?ml$/.test(e.name) && /^\s*input_files\s*:/m.test(readFileSync(p, 'utf8').slice(0, 4096))) out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out;
}

/** A task's program and the property the engines decide, for the page. */
function taskForPage(dir: string, rel: string): { status: number; value: unknown } {
  const file = resolve(dir, rel);
  if (!file.startsWith(dir + sep) || !existsSync(file)) return { status: 404, value: { error: 'no such task' } };
  try {
    const task = readTaskFile(file, { skipUnusableProperties: true });
    if (task.inputFiles.length !== 1) return { status: 200, value: { error: `the task has ${task.inputFiles.length} input files; the playground takes one` } };
    const kinds = task.properties.map((p) => p.property);
    const property = preferredProperty(kinds);
    return {
      status: 200,
      value: { programName: basename(task.inputFiles[0]), programText: readFileSync(task.inputFiles[0], 'utf8'), dataModel: task.dataModel, ...(property ? { property } : {}), properties: kinds },
    };
  } catch (e) {
    if (e instanceof TarsierError) return { status: 200, value: { error: e.format() } };
    throw e;
  }
}

/**
 * Z3's Emscripten files, which the browser build copies beside the page; an
 * installed package leaves the 35 MB copy out and serves them from z3-solver.
 */
function z3Fallback(name: string): string | undefined {
  if (name !== 'z3-built.js' && name !== 'z3-built.wasm') return undefined;
  try {
    const file = join(resolve(createRequire(import.meta.url).resolve('z3-solver/build/browser.js'), '..'), name);
    return existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

/** Creates the server (not yet listening). */
export function createPlaygroundServer(options: ServeOptions = {}): Server {
  const root = resolve(options.root ?? defaultPlaygroundRoot());
  const timeoutS = options.verifyTimeoutS ?? 60;
  const tasksDir = options.tasksDir ? resolve(options.tasksDir) : undefined;
  let tasks: string[] | undefined;
  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    void (async () => {
      if (url.pathname === '/api/health') return json(res, 200, { ok: true, gcc: probeGcc().gcc, tasks: tasksDir !== undefined });
      if (url.pathname === '/api/tasks') {
        if (!tasksDir) return json(res, 404, { error: 'no task folder (tarsier serve --tasks DIR)' });
        tasks ??= listTasks(tasksDir);
        return json(res, 200, { tasks });
      }
      if (url.pathname === '/api/task') {
        if (!tasksDir) return json(res, 404, { error: 'no task folder (tarsier serve --tasks DIR)' });
        const r = taskForPage(tasksDir, url.searchParams.get('path') ?? '');
        return json(res, r.status, r.value);
      }
      if (url.pathname === '/api/verify' || url.pathname === '/api/validate') {
        if (req.method !== 'POST') return json(res, 405, { error: url.pathname === '/api/verify' ? 'POST a program' : 'POST a program and a witness' });
        const body = await readBody(req);
        const work = url.pathname === '/api/verify' ? serverVerify : serverValidate;
        const run = runQueue.then(() => work(body, timeoutS));
        runQueue = run.catch(() => undefined);
        const r = await run;
        return json(res, r.status, r.value);
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed', 'text/plain');
      const rel = decodeURIComponent(url.pathname === '/' ? '/index.html' : url.pathname);
      let file = resolve(root, '.' + rel);
      if (!file.startsWith(root + sep)) return send(res, 404, 'not found', 'text/plain');
      if (!existsSync(file)) file = z3Fallback(rel.slice(1)) ?? file;
      if (!existsSync(file) || !statSync(file).isFile()) return send(res, 404, 'not found', 'text/plain');
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
  if (options.tasksDir !== undefined && !(existsSync(options.tasksDir) && statSync(options.tasksDir).isDirectory())) {
    return Promise.reject(new TarsierError('serve', 'no such folder', { file: options.tasksDir }, 2));
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

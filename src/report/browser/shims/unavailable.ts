/**
 * `node:child_process`, `node:os`, `node:zlib`, `node:worker_threads`,
 * `node:module`, `node:url` in the browser bundle: what needs a process, a
 * compiler or threads is not there. `spawnSync` answers like a missing
 * program (ENOENT), so that the library says "gcc is not installed" and
 * gives UNKNOWN instead of an unconfirmed FALSE.
 */
const missing = (what: string) => Object.assign(new Error(`${what} is not available in the browser`), { code: 'ENOENT' });

export function spawnSync(command: string) {
  return { error: missing(command), status: null, stdout: '', stderr: '', signal: null, pid: 0, output: [] };
}
export function execFileSync(command: string): never {
  throw missing(command);
}
export function spawn(command: string): never {
  throw missing(command);
}
export function tmpdir(): string {
  return '/tmp';
}
export function cpus(): unknown[] {
  return [{}];
}
export function totalmem(): number {
  return 4 * 2 ** 30;
}
export function availableParallelism(): number {
  return 1;
}
export const EOL = '\n';
export function gunzipSync(): never {
  throw new Error('gzip-compressed witnesses cannot be read in the browser; decompress the file first');
}
export class Worker {
  constructor() {
    throw missing('worker_threads');
  }
}
export const isMainThread = true;
export const parentPort = null;
export const workerData = undefined;
export function createRequire(): never {
  throw missing('require');
}
export function fileURLToPath(u: string | URL): string {
  return typeof u === 'string' ? new URL(u).pathname : u.pathname;
}
export function pathToFileURL(p: string): URL {
  return new URL(`file://${p}`);
}
export default { spawnSync, execFileSync, spawn, tmpdir, cpus, totalmem, availableParallelism, EOL, gunzipSync, Worker, isMainThread, parentPort, workerData, createRequire, fileURLToPath, pathToFileURL };

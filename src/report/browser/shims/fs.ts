/**
 * `node:fs` in the browser bundle: an in-memory file system (the playground
 * puts the program and property there before calling the library), plus the
 * witness JSON Schemas, embedded at build time, at any path ending in their
 * file names (the linter finds them relative to its own module URL).
 */
/** The texts of schemas/*.json by file name, defined by the browser build (scripts/build-browser.mjs). */
declare const __TARSIER_SCHEMAS__: Record<string, string>;

const files = new Map<string, Uint8Array>();
const schemas: Record<string, string> = typeof __TARSIER_SCHEMAS__ === 'object' ? __TARSIER_SCHEMAS__ : {};

function pathOf(p: string | URL): string {
  return typeof p === 'string' ? p : p.pathname;
}

function noEntry(path: string): Error {
  return Object.assign(new Error(`ENOENT: no such file, '${path}'`), { code: 'ENOENT' });
}

/** Puts a file into the in-memory file system. */
export function putFile(path: string, text: string): void {
  files.set(path, new TextEncoder().encode(text));
}

function bytesOf(path: string): Uint8Array {
  const name = path.replace(/^.*\//, '');
  if (name in schemas) return new TextEncoder().encode(schemas[name]);
  const b = files.get(path);
  if (!b) throw noEntry(path);
  return b;
}

export function readFileSync(p: string | URL, encoding?: string | { encoding?: string }): Uint8Array | string {
  const bytes = bytesOf(pathOf(p));
  const enc = typeof encoding === 'string' ? encoding : encoding?.encoding;
  return enc ? new TextDecoder().decode(bytes) : bytes;
}

export function writeFileSync(p: string | URL, data: string | Uint8Array): void {
  files.set(pathOf(p), typeof data === 'string' ? new TextEncoder().encode(data) : data);
}

export function appendFileSync(p: string | URL, data: string): void {
  const old = files.get(pathOf(p));
  writeFileSync(p, (old ? new TextDecoder().decode(old) : '') + data);
}

export function existsSync(p: string | URL): boolean {
  try {
    bytesOf(pathOf(p));
    return true;
  } catch {
    return false;
  }
}

export function statSync(p: string | URL): { size: number; isDirectory: () => boolean; isFile: () => boolean } {
  const b = bytesOf(pathOf(p));
  return { size: b.length, isDirectory: () => false, isFile: () => true };
}

export function realpathSync(p: string): string {
  return p;
}

export function mkdirSync(): void {}
export function mkdtempSync(prefix: string): string {
  return prefix + Math.random().toString(36).slice(2);
}
export function rmSync(): void {}
export function accessSync(p: string): void {
  bytesOf(p);
}
export function readdirSync(): string[] {
  return [];
}
export const constants = { X_OK: 1, R_OK: 4 };
export default { readFileSync, writeFileSync, appendFileSync, existsSync, statSync, realpathSync, mkdirSync, mkdtempSync, rmSync, accessSync, readdirSync, constants };

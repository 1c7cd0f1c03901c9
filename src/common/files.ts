import { readFileSync, statSync } from 'node:fs';
import { TarsierError } from './errors.js';

export interface ReadOptions {
  /** Refuse files larger than this many bytes (default 64 MiB). */
  maxBytes?: number;
}

/**
 * Reads a UTF-8 text file for analysis, turning every way it can fail
 * (missing, a directory, too large, not UTF-8) into a one-line TarsierError
 * with exit status 2, as an unreadable input is not a verdict.
 */
export function readTextFile(path: string, options: ReadOptions = {}): string {
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  let size: number;
  try {
    const st = statSync(path);
    if (st.isDirectory()) throw new TarsierError('io', 'is a directory, not a file', { file: path }, 2);
    size = st.size;
  } catch (e) {
    if (e instanceof TarsierError) throw e;
    throw new TarsierError('io', describeIoError(e), { file: path }, 2);
  }
  if (size > maxBytes) {
    throw new TarsierError('io', `file is too large (${size} bytes; the limit is ${maxBytes})`, { file: path }, 2);
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw new TarsierError('io', describeIoError(e), { file: path }, 2);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    const at = firstInvalidUtf8(bytes);
    throw new TarsierError('encoding', `file is not valid UTF-8 (first bad byte at offset ${at})`, { file: path }, 2);
  }
}

function firstInvalidUtf8(bytes: Buffer): number {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let lo = 0;
  let hi = bytes.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    try {
      decoder.decode(bytes.subarray(0, mid));
      lo = mid + 1;
    } catch {
      hi = mid;
    }
  }
  return Math.max(0, lo - 4);
}

export function describeIoError(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  switch (err?.code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory, not a file';
    default:
      return err?.message ?? String(e);
  }
}

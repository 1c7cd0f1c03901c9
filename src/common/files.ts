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
  return decodeUtf8(bytes, path);
}

/**
 * The text of UTF-8 bytes (a leading BOM dropped); invalid bytes give a
 * TarsierError (exit 2) at the line, column and byte offset of the first one.
 */
export function decodeUtf8(bytes: Uint8Array, path: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    const at = firstBadUtf8(bytes);
    let line = 1;
    let lineStart = 0;
    for (let i = 0; i < at; i++) if (bytes[i] === 0x0a) (line++, (lineStart = i + 1));
    throw new TarsierError(
      'encoding',
      `file is not valid UTF-8 (byte 0x${bytes[at].toString(16).padStart(2, '0')} at offset ${at})`,
      { file: path, line, column: at - lineStart + 1 },
      2,
    );
  }
}

/** Offset of the first byte that does not belong to a well-formed UTF-8 sequence. */
function firstBadUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    const n = b < 0x80 ? 0 : b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
    if (n < 0) return i;
    for (let k = 1; k <= n; k++) {
      if (i + k >= bytes.length || (bytes[i + k] & 0xc0) !== 0x80) return i;
    }
    // Overlong and surrogate forms.
    if ((b === 0xe0 && bytes[i + 1] < 0xa0) || (b === 0xed && bytes[i + 1] > 0x9f) || (b === 0xf0 && bytes[i + 1] < 0x90) || (b === 0xf4 && bytes[i + 1] > 0x8f)) return i;
    i += n + 1;
  }
  return bytes.length;
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

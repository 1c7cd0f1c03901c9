/** `node:path` in the browser bundle: the POSIX functions the library uses. */
export const sep = '/';
export const delimiter = ':';

export function isAbsolute(p: string): boolean {
  return p.startsWith('/');
}

export function normalize(p: string): string {
  const abs = isAbsolute(p);
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..' && out.length && out[out.length - 1] !== '..') out.pop();
    else if (part !== '..' || !abs) out.push(part);
  }
  return (abs ? '/' : '') + out.join('/') || (abs ? '/' : '.');
}

export function join(...parts: string[]): string {
  return normalize(parts.filter(Boolean).join('/'));
}

export function resolve(...parts: string[]): string {
  let p = '';
  for (const part of parts) p = isAbsolute(part) ? part : `${p}/${part}`;
  return normalize(isAbsolute(p) ? p : `/${p}`);
}

export function dirname(p: string): string {
  const i = p.replace(/\/+$/, '').lastIndexOf('/');
  return i < 0 ? '.' : i === 0 ? '/' : p.slice(0, i);
}

export function basename(p: string, ext?: string): string {
  const b = p.replace(/\/+$/, '').replace(/^.*\//, '');
  return ext && b.endsWith(ext) ? b.slice(0, -ext.length) : b;
}

export function extname(p: string): string {
  const m = /\.[^./]*$/.exec(basename(p));
  return m ? m[0] : '';
}

export function relative(from: string, to: string): string {
  return to.startsWith(from + '/') ? to.slice(from.length + 1) : to;
}

export default { sep, delimiter, isAbsolute, normalize, join, resolve, dirname, basename, extname, relative };

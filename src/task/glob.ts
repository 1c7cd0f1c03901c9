import { readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

/**
 * Expands a file-name pattern with shell wildcards (`*`, `?`, `[...]`, no
 * `**`) relative to `baseDir`, as task-definition files use them. Returns
 * the matching regular files, sorted, each as `{ absolute, relative }`,
 * where `relative` keeps the pattern's own spelling for non-wildcard parts.
 */
export function expandPattern(pattern: string, baseDir: string): Array<{ absolute: string; relative: string }> {
  if (!/[*?[]/.test(pattern)) {
    const absolute = resolve(baseDir, pattern);
    return isRegularFile(absolute) ? [{ absolute, relative: pattern }] : [];
  }
  const parts = pattern.split('/');
  let current: Array<{ dir: string; rel: string }> = [
    isAbsolute(pattern) ? { dir: '/', rel: '/' } : { dir: baseDir, rel: '' },
  ];
  if (isAbsolute(pattern)) parts.shift();
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    const last = i === parts.length - 1;
    const next: Array<{ dir: string; rel: string }> = [];
    for (const c of current) {
      const names = /[*?[]/.test(part) ? listMatching(c.dir, part) : [part];
      for (const name of names) {
        const dir = join(c.dir, name);
        const rel = c.rel === '' ? name : c.rel.endsWith('/') ? c.rel + name : `${c.rel}/${name}`;
        next.push({ dir, rel });
      }
    }
    current = last ? next : next.filter((n) => isDirectory(n.dir));
  }
  return current
    .filter((c) => isRegularFile(c.dir))
    .map((c) => ({ absolute: resolve(c.dir), relative: c.rel }))
    .sort((a, b) => (a.absolute < b.absolute ? -1 : a.absolute > b.absolute ? 1 : 0));
}

function listMatching(dir: string, part: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const re = wildcardToRegExp(part);
  // Like the shell, a wildcard does not match a leading dot.
  return names.filter((n) => re.test(n) && (!n.startsWith('.') || part.startsWith('.'))).sort();
}

export function wildcardToRegExp(part: string): RegExp {
  let re = '';
  for (let i = 0; i < part.length; i++) {
    const ch = part[i];
    if (ch === '*') re += '[^/]*';
    else if (ch === '?') re += '[^/]';
    else if (ch === '[') {
      const close = part.indexOf(']', i + 2);
      if (close < 0) {
        re += '\\[';
        continue;
      }
      let body = part.slice(i + 1, close);
      if (body.startsWith('!')) body = '^' + body.slice(1);
      re += '[' + body.replace(/\\/g, '\\\\') + ']';
      i = close;
    } else re += ch.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp('^' + re + '$');
}

function isRegularFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

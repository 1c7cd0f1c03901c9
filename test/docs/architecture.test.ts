// docs/ARCHITECTURE.md is the maintainers' map of the code: every folder of
// src/ must have its section there, and every page the README links must exist.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/shared.js';

test('every folder of src/ has a section in docs/ARCHITECTURE.md', () => {
  const doc = readFileSync(join(repoRoot, 'docs', 'ARCHITECTURE.md'), 'utf8');
  const folders = readdirSync(join(repoRoot, 'src'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  assert.ok(folders.length > 5, 'src/ has its folders');
  const missing = folders.filter((f) => !doc.includes(`### \`src/${f}/\``));
  assert.deepEqual(missing, [], `folders of src/ without a section in docs/ARCHITECTURE.md: ${missing.join(', ')}`);
});

test('every local link of README.md and docs/ points at a file that exists', () => {
  const pages = ['README.md', ...readdirSync(join(repoRoot, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join('docs', f))];
  const broken: string[] = [];
  for (const page of pages) {
    const text = readFileSync(join(repoRoot, page), 'utf8');
    for (const m of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/.test(target)) continue;
      const base = page.includes('/') ? join(repoRoot, 'docs') : repoRoot;
      if (!existsSync(join(base, target))) broken.push(`${page}: ${target}`);
    }
  }
  assert.deepEqual(broken, []);
});

// The browser build (part of `npm run build`): bundles the playground page
// and the verifier's Web Worker into dist/browser/ (browser-bundle.mjs), and
// copies Z3's WebAssembly build and the playground's static files beside them.
import { bundleForBrowser, z3Files } from './browser-bundle.mjs';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'browser');
const browserSrc = join(root, 'src', 'report', 'browser');
mkdirSync(out, { recursive: true });

await bundleForBrowser(join(browserSrc, 'playground.ts'), join(out, 'playground.js'));
await bundleForBrowser(join(browserSrc, 'verify-worker.ts'), join(out, 'verify-worker.js'), { z3Worker: true });
for (const f of z3Files()) copyFileSync(f, join(out, basename(f)));
copyFileSync(join(browserSrc, 'index.html'), join(out, 'index.html'));

// The examples a visitor can pick (also when the page is served as static files).
const examples = readdirSync(join(root, 'examples'))
  .filter((f) => f.endsWith('.c'))
  .sort()
  .map((f) => ({ name: f, text: readFileSync(join(root, 'examples', f), 'utf8') }));
writeFileSync(join(out, 'examples.json'), JSON.stringify(examples));

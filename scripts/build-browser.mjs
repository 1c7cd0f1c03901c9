// The browser build (part of `npm run build`): bundles the playground page
// and the verifier's Web Worker from src/ with esbuild into dist/browser/,
// with Node's modules replaced by src/report/browser/shims/, and copies
// Z3's WebAssembly build and the playground's static files beside them.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'browser');
const browserSrc = join(root, 'src', 'report', 'browser');
mkdirSync(out, { recursive: true });

const shim = (name) => join(browserSrc, 'shims', `${name}.ts`);
const NODE_SHIMS = {
  fs: shim('fs'),
  path: shim('path'),
  crypto: shim('crypto'),
  child_process: shim('unavailable'),
  os: shim('unavailable'),
  zlib: shim('unavailable'),
  worker_threads: shim('unavailable'),
  module: shim('unavailable'),
  url: shim('unavailable'),
};

/** Node built-ins to shims; `z3-solver` to its browser build; src/smt's Node back end to the browser one. */
const browserModules = {
  name: 'tarsier-browser-modules',
  setup(b) {
    b.onResolve({ filter: /^(node:)?(fs|path|crypto|child_process|os|zlib|worker_threads|module|url)$/ }, (a) => ({ path: NODE_SHIMS[a.path.replace(/^node:/, '')] }));
    b.onResolve({ filter: /^z3-solver$/ }, () => ({ path: join(browserSrc, 'z3-solver-browser.ts') }));
    b.onResolve({ filter: /^z3-solver\/build\/browser\.js$/ }, () => ({ path: createRequire(import.meta.url).resolve('z3-solver/build/browser.js') }));
    b.onResolve({ filter: /\/z3wasm\.js$/ }, (a) => (a.importer.includes(`${join('src', 'smt')}`) ? { path: join(browserSrc, 'z3-channel.ts') } : undefined));
    // TypeScript sources import './x.js'; resolve to './x.ts' under src/.
    b.onResolve({ filter: /^\.\.?\/.*\.js$/ }, (a) => {
      if (!a.importer.startsWith(join(root, 'src'))) return undefined;
      return { path: resolve(a.resolveDir, a.path.replace(/\.js$/, '.ts')) };
    });
  },
};

const schemas = Object.fromEntries(
  readdirSync(join(root, 'schemas'))
    .filter((f) => /^witness-.*\.schema\.json$/.test(f))
    .map((f) => [f, readFileSync(join(root, 'schemas', f), 'utf8')]),
);

const common = {
  bundle: true,
  platform: 'browser',
  format: 'iife',
  target: 'es2022',
  sourcemap: true,
  logLevel: 'warning',
  plugins: [browserModules],
  inject: [join(browserSrc, 'shims', 'globals.ts')],
  define: {
    global: 'globalThis',
    'import.meta.url': '"file:///tarsier/dist/src/module.js"',
    __TARSIER_SCHEMAS__: JSON.stringify(schemas),
  },
};

await build({ ...common, entryPoints: [join(browserSrc, 'playground.ts')], outfile: join(out, 'playground.js') });
// The worker loads Z3's Emscripten script first: it defines the global initZ3.
await build({ ...common, entryPoints: [join(browserSrc, 'verify-worker.ts')], outfile: join(out, 'verify-worker.js'), banner: { js: "importScripts('z3-built.js');" } });

const z3Dir = dirname(createRequire(import.meta.url).resolve('z3-solver/build/browser.js'));
for (const f of ['z3-built.js', 'z3-built.wasm']) copyFileSync(join(z3Dir, f), join(out, f));
copyFileSync(join(browserSrc, 'index.html'), join(out, 'index.html'));

// The examples a visitor can pick (also when the page is served as static files).
const examples = readdirSync(join(root, 'examples'))
  .filter((f) => f.endsWith('.c'))
  .sort()
  .map((f) => ({ name: f, text: readFileSync(join(root, 'examples', f), 'utf8') }));
writeFileSync(join(out, 'examples.json'), JSON.stringify(examples));

// Bundles TypeScript sources of src/ for the browser with esbuild: Node's
// modules replaced by src/report/browser/shims/, `z3-solver` by its browser
// build, src/smt's Node back end (z3wasm) by the browser one (z3-channel),
// src/witness's compiled schema validators by ajv at run time.
// Used by build-browser.mjs and by tests that bundle a fixture.
import { build } from 'esbuild';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const browserSrc = join(root, 'src', 'report', 'browser');
const require = createRequire(import.meta.url);

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
    b.onResolve({ filter: /^z3-solver\/build\/browser\.js$/ }, () => ({ path: require.resolve('z3-solver/build/browser.js') }));
    b.onResolve({ filter: /\/z3wasm\.js$/ }, (a) => (a.importer.includes(`${join('src', 'smt')}`) ? { path: join(browserSrc, 'z3-channel.ts') } : undefined));
    b.onResolve({ filter: /\/schema-validators\.js$/ }, (a) => (a.importer.includes(`${join('src', 'witness')}`) ? { path: join(browserSrc, 'schema-validators.ts') } : undefined));
    // TypeScript sources (src/, test/) import './x.js'; resolve to './x.ts'.
    b.onResolve({ filter: /^\.\.?\/.*\.js$/ }, (a) => {
      if (!a.importer.startsWith(root + '/') || a.importer.includes('node_modules')) return undefined;
      return { path: resolve(a.resolveDir, a.path.replace(/\.js$/, '.ts')) };
    });
  },
};

const schemas = () => Object.fromEntries(
  readdirSync(join(root, 'schemas'))
    .filter((f) => /^witness-.*\.schema\.json$/.test(f))
    .map((f) => [f, readFileSync(join(root, 'schemas', f), 'utf8')]),
);

const common = () => ({
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
    __TARSIER_SCHEMAS__: JSON.stringify(schemas()),
  },
});

/**
 * Bundles one entry point into one IIFE file. `z3Worker`: the file is a Web
 * Worker that loads Z3's Emscripten script first (it defines the global
 * initZ3); the page's directory must hold the files of `z3Files()`.
 */
export async function bundleForBrowser(entry, outfile, { z3Worker = false } = {}) {
  await build({ ...common(), entryPoints: [entry], outfile, ...(z3Worker ? { banner: { js: "importScripts('z3-built.js');" } } : {}) });
}

/** Z3's Emscripten script and WebAssembly module, to serve beside a z3Worker bundle. */
export function z3Files() {
  const dir = dirname(require.resolve('z3-solver/build/browser.js'));
  return [join(dir, 'z3-built.js'), join(dir, 'z3-built.wasm')];
}

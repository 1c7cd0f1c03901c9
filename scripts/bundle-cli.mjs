// Part of `npm run build`: bundles what `tarsier verify` loads in the main
// thread (dist/src/cli/verify-main.js: commander, the command, the hard
// limit around the worker) into one file beside it, dist/src/cli/verify.bundle.js,
// which cli/entry.ts loads instead of some twenty modules (about 15 ms less
// CPU time in every verification). What the command imports only when it
// needs it (dynamic imports: the report, the input read again after a
// time-out, the verifier of the worker) stays outside, imported from dist/.
import { build } from 'esbuild';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dir = join(root, 'dist', 'src', 'cli');
const outfile = join(dir, 'verify.bundle.js');

/** A module imported dynamically: left outside, its path relative to the bundle. */
const lazyOutside = {
  name: 'tarsier-lazy-outside',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (a) => {
      if (a.kind !== 'dynamic-import') return undefined;
      const path = relative(dirname(outfile), resolve(a.resolveDir, a.path));
      return { path: path.startsWith('.') ? path : `./${path}`, external: true };
    });
  },
};

await build({
  entryPoints: [join(dir, 'verify-main.js')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['z3-solver'],
  plugins: [lazyOutside],
  // CommonJS packages in the bundle (commander) call require().
  banner: { js: "import { createRequire as __tarsierRequire } from 'node:module'; const require = __tarsierRequire(import.meta.url);" },
  logLevel: 'warning',
});

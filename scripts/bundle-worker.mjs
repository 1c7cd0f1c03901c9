// Part of `npm run build`: bundles the worker thread of `tarsier verify`
// (dist/src/verify/worker.js and everything it loads, npm packages
// included) into one CommonJS file beside it, dist/src/verify/worker.bundle.cjs,
// and trains V8's code cache of it (worker.bundle.cache) by verifying the
// examples mult.yml and sum.yml with it; verify/worker-loader.ts loads the
// bundle with that cache. Loading one file instead of some two hundred
// modules saves about 0.1 s of CPU time in every verification, the cache
// (its functions already compiled) 20-30 ms more. verify/worker.ts uses the
// bundle when it is not older than worker.js (a `tsc` without this step
// leaves it stale). z3-solver stays outside: its WebAssembly build runs in
// a worker of its own.
import { build } from 'esbuild';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dir = join(root, 'dist', 'src', 'verify');
const loader = await import(join(dir, 'worker-loader.js'));
await build({
  entryPoints: [join(dir, 'worker.js')],
  outfile: loader.BUNDLE,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['z3-solver'],
  // Modules find their files relative to their own URL; in the bundle, the bundle's.
  define: { 'import.meta.url': '__tarsierUrl' },
  // The build id first (see worker-loader.ts).
  banner: { js: `// tarsier-build ${randomUUID()}\nconst __tarsierUrl = require('node:url').pathToFileURL(__filename).href;` },
  logLevel: 'warning',
});

// Training: the functions that run while verifying, compiled, go into the cache.
const bundle = loader.loadBundle(false);
const work = mkdtempSync(join(tmpdir(), 'tarsier-train-'));
try {
  const training = (async () => {
    for (const [task, property] of [['mult.yml', 'unreach-call'], ['mult.yml', 'no-overflow'], ['sum.yml', 'unreach-call']]) {
      const options = { property, timeoutS: 20, witnessPath: join(work, 'witness.yml'), creationTime: '2024-01-01T00:00:00Z' };
      await bundle.exports.runJob({ input: join(root, 'examples', task), options }, () => {}, () => {}).catch((e) => {
        // Without a solver or gcc the cache holds less: only slower.
        console.warn(`bundle-worker: training on ${task} (${property}): ${e instanceof Error ? e.message : e}`);
      });
    }
  })();
  // A training that does not end (it runs without the hard limit) must not hold the build: the cache then holds what ran.
  let timer;
  await Promise.race([training, new Promise((r) => (timer = setTimeout(() => r(console.warn('bundle-worker: training stopped after 120 s')), 120_000)))]);
  clearTimeout(timer);
  loader.writeCache(bundle);
} finally {
  bundle.exports.killSolverProcesses();
  rmSync(work, { recursive: true, force: true });
}
// Solver workers of the training must not hold the build open.
process.exit(0);

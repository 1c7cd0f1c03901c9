// Part of `npm run build`: bundles the worker threads of `tarsier verify`
// and `tarsier validate` (dist/src/{verify,validate}/worker.js and
// everything they load, npm packages included) each into one CommonJS file
// beside it, worker.bundle.cjs, and trains V8's code cache of it
// (worker.bundle.cache): verify's by verifying the examples mult.yml and
// sum.yml, validate's by validating the witnesses that wrote.
// common/bundle-loader.ts loads a bundle with that cache when it is not
// older than the worker's module (a `tsc` without this step leaves it
// stale). z3-solver stays outside: its WebAssembly build runs in a worker
// of its own.
import { build } from 'esbuild';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const loader = await import(join(root, 'dist', 'src', 'common', 'bundle-loader.js'));

/** Bundles dist/src/<name>/worker.js; the bundle's path. */
async function bundle(name) {
  const own = join(root, 'dist', 'src', name, 'worker.js');
  const outfile = loader.bundleOf(pathToFileURL(own));
  await build({
    entryPoints: [own],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['z3-solver'],
    // Modules find their files relative to their own URL; in the bundle, the bundle's.
    define: { 'import.meta.url': '__tarsierUrl' },
    // The build id first (see common/bundle-loader.ts).
    banner: { js: `// tarsier-build ${randomUUID()}\nconst __tarsierUrl = require('node:url').pathToFileURL(__filename).href;` },
    logLevel: 'warning',
  });
  return outfile;
}

/** Runs the loaded bundle's job on each example, at most 120 s in all (it runs without the hard limit), then writes its cache. */
async function train(path, loaded, jobs) {
  const training = (async () => {
    for (const [what, job] of jobs) {
      await loaded.exports.runJob(job, () => {}, () => {}).catch((e) => {
        // Without a solver or gcc the cache holds less: only slower.
        console.warn(`bundle-worker: training on ${what}: ${e instanceof Error ? e.message : e}`);
      });
    }
  })();
  let timer;
  await Promise.race([training, new Promise((r) => (timer = setTimeout(() => r(console.warn(`bundle-worker: training of ${path} stopped after 120 s`)), 120_000)))]);
  clearTimeout(timer);
  loader.writeCache(loaded, path);
}

const verifyBundle = await bundle('verify');
const validateBundle = await bundle('validate');
const work = mkdtempSync(join(tmpdir(), 'tarsier-train-'));
const verifier = loader.loadBundle(verifyBundle, false);
let validator;
try {
  // Training: the functions that run, compiled, go into the cache. The witnesses verify writes are validate's examples.
  const examples = [
    ['mult.yml', 'unreach-call'],
    ['mult.yml', 'no-overflow'],
    ['sum.yml', 'unreach-call'],
  ].map(([task, property], i) => ({ task: join(root, 'examples', task), property, witness: join(work, `witness-${i}.yml`) }));
  await train(
    verifyBundle,
    verifier,
    examples.map((e) => [`${e.task} (${e.property})`, { input: e.task, options: { property: e.property, timeoutS: 20, witnessPath: e.witness, creationTime: '2024-01-01T00:00:00Z' } }]),
  );
  validator = loader.loadBundle(validateBundle, false);
  await train(
    validateBundle,
    validator,
    examples.filter((e) => existsSync(e.witness)).map((e) => [`the witness of ${e.task} (${e.property})`, { input: e.task, witness: e.witness, options: { property: e.property, timeoutS: 20 } }]),
  );
} finally {
  verifier.exports.killSolverProcesses();
  validator?.exports.killSolverProcesses();
  rmSync(work, { recursive: true, force: true });
}
// Solver workers of the training must not hold the build open.
process.exit(0);

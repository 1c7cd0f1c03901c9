// The entry of verify's worker thread when the build made its bundle
// (scripts/bundle-worker.mjs): loads dist/src/verify/worker.bundle.cjs, one
// CommonJS file with the verifier and its packages, through V8's code cache
// that the build trained on example tasks. Compiling the bundle's source and
// then, during the run, each function it calls cost some 30 ms of CPU per
// verification; the cache holds them compiled.
//
// The cache is used only with the bundle of the same build (a build id,
// written first in both files): V8 itself checks the V8 version and flags,
// but of the source only its length.

import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { isMainThread } from 'node:worker_threads';

export const BUNDLE = fileURLToPath(new URL('./worker.bundle.cjs', import.meta.url));
export const CACHE = fileURLToPath(new URL('./worker.bundle.cache', import.meta.url));

/** The build id the first line of the bundle names (`// tarsier-build ID`). */
function buildIdOf(source: string): string | undefined {
  return /^\/\/ tarsier-build (\S+)\n/.exec(source)?.[1];
}

export interface LoadedBundle {
  readonly exports: Record<string, unknown>;
  readonly script: Script;
  readonly buildId: string | undefined;
  /** Whether V8 took the cache. */
  readonly cached: boolean;
}

/** Runs the bundle in this thread (as CommonJS), with the code cache when it belongs to the bundle. */
export function loadBundle(useCache = true, bundle = BUNDLE, cache = CACHE): LoadedBundle {
  const source = readFileSync(bundle, 'utf8');
  const buildId = buildIdOf(source);
  let cachedData: Buffer | undefined;
  if (useCache && buildId) {
    try {
      const file = readFileSync(cache);
      const newline = file.indexOf(10);
      if (newline > 0 && file.subarray(0, newline).toString('latin1') === buildId) cachedData = file.subarray(newline + 1);
    } catch {
      // no cache: compiled as it runs
    }
  }
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: bundle, cachedData });
  const module = { exports: {} as Record<string, unknown> };
  (script.runInThisContext() as (...a: unknown[]) => void)(module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  return { exports: module.exports, script, buildId, cached: cachedData !== undefined && !script.cachedDataRejected };
}

/** Writes the code cache of a loaded bundle (at build time, after running it on examples), whole or not at all. */
export function writeCache(b: LoadedBundle): void {
  if (!b.buildId) throw new Error(`${BUNDLE}: no build id`);
  const partial = `${CACHE}.${process.pid}`;
  writeFileSync(partial, Buffer.concat([Buffer.from(`${b.buildId}\n`, 'latin1'), b.script.createCachedData()]));
  renameSync(partial, CACHE);
}

// As the worker's entry: load the bundle, which serves the job (verify/worker.ts).
if (!isMainThread) loadBundle();

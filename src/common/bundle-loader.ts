// A worker thread's one-file bundle (scripts/bundle-worker.mjs: one CommonJS
// file beside the worker's module, worker.bundle.cjs, with the module and
// everything it imports, npm packages included) and V8's code cache of it
// that the build trained on examples (worker.bundle.cache). Loading one
// file instead of some two hundred modules saves 0.1-0.2 s of CPU time per
// run, the cache (its functions already compiled) some 30 ms more.
//
// The cache is used only with the bundle of the same build (a build id,
// written first in both files): V8 itself checks the V8 version and flags,
// but of the source only its length.

import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import type { WorkerEntry } from './hard-limit.js';

/** The bundle beside a worker's module. */
export function bundleOf(own: URL): string {
  return fileURLToPath(new URL('./worker.bundle.cjs', own));
}

/** The code cache of a bundle. */
export function cacheOf(bundle: string): string {
  return bundle.replace(/\.cjs$/, '.cache');
}

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

/** Runs the bundle in this thread (as CommonJS), with the code cache `cache` when it belongs to the bundle. */
export function loadBundle(bundle: string, useCache = true, cache = cacheOf(bundle)): LoadedBundle {
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
export function writeCache(b: LoadedBundle, bundle: string): void {
  if (!b.buildId) throw new Error(`${bundle}: no build id`);
  const cache = cacheOf(bundle);
  const partial = `${cache}.${process.pid}`;
  writeFileSync(partial, Buffer.concat([Buffer.from(`${b.buildId}\n`, 'latin1'), b.script.createCachedData()]));
  renameSync(partial, cache);
}

/**
 * How to start the worker whose module is `own`: from its bundle (through
 * common/worker-entry.ts) when the bundle is at least as new as `own` (a
 * `tsc` without the bundling step leaves it stale); else from `own`.
 */
export function workerEntry(own: URL): WorkerEntry {
  const bundle = bundleOf(own);
  try {
    // By way of ../common/: the same file from the CLI's bundle (dist/src/cli/).
    if (statSync(bundle).mtimeMs >= statSync(fileURLToPath(own)).mtimeMs) return { url: new URL('../common/worker-entry.js', import.meta.url), bundle };
  } catch {
    // no bundle (a build without the bundling step)
  }
  return { url: own };
}

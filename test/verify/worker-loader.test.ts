// The worker bundle is loaded through the code cache the build trained, and
// only through the cache of its own build.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUNDLE, CACHE, loadBundle } from '../../src/verify/worker-loader.js';

const built = existsSync(BUNDLE) && existsSync(CACHE) ? false : 'skipped: no worker bundle (npm run build makes it)';

test('a fresh process takes the code cache the build made for the bundle', { skip: built }, () => {
  const script = `const l = await import(${JSON.stringify(pathToFileURL(BUNDLE.replace(/worker\.bundle\.cjs$/, 'worker-loader.js')).href)});
const b = l.loadBundle(); console.log(JSON.stringify({ cached: b.cached, job: typeof b.exports.runJob })); process.exit(0);`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { cached: true, job: 'function' });
});

test('the cache of another build is not used: the bundle is compiled from its source', { skip: built }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-cache-'));
  try {
    const cache = readFileSync(CACHE);
    const newline = cache.indexOf(10);
    // The same cached code under another build id (as after a rebuild that left the old cache).
    const other = join(dir, 'other.cache');
    writeFileSync(other, Buffer.concat([Buffer.from('another-build\n'), cache.subarray(newline + 1)]));
    const b = loadBundle(true, BUNDLE, other);
    assert.equal(b.cached, false);
    assert.equal(typeof b.exports.runJob, 'function');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// The worker bundles (verify's and validate's) are loaded through the code
// cache the build trained, and only through the cache of their own build.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleOf, cacheOf, loadBundle, workerEntry } from '../../src/common/bundle-loader.js';

const workers = ['verify', 'validate'].map((name) => ({ name, own: new URL(`../../src/${name}/worker.js`, import.meta.url) }));

for (const { name, own } of workers) {
  const bundle = bundleOf(own);
  const built = existsSync(bundle) && existsSync(cacheOf(bundle)) ? false : `skipped: no ${name} worker bundle (npm run build makes it)`;

  test(`${name}: a fresh process takes the code cache the build made for the bundle, and the worker starts from the bundle`, { skip: built }, () => {
    const loader = new URL('../common/bundle-loader.js', own).href;
    const script = `const l = await import(${JSON.stringify(loader)});
const b = l.loadBundle(${JSON.stringify(bundle)}); console.log(JSON.stringify({ cached: b.cached, job: typeof b.exports.runJob })); process.exit(0);`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { cached: true, job: 'function' });
    assert.equal(workerEntry(own).bundle, bundle);
  });

  test(`${name}: the cache of another build is not used: the bundle is compiled from its source`, { skip: built }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'tarsier-cache-'));
    try {
      const cache = readFileSync(cacheOf(bundle));
      const newline = cache.indexOf(10);
      // The same cached code under another build id (as after a rebuild that left the old cache).
      const other = join(dir, 'other.cache');
      writeFileSync(other, Buffer.concat([Buffer.from('another-build\n'), cache.subarray(newline + 1)]));
      const b = loadBundle(bundle, true, other);
      assert.equal(b.cached, false);
      assert.equal(typeof b.exports.runJob, 'function');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('a worker whose module has no bundle starts from its module', () => {
  const own = new URL('../../src/common/hard-limit.js', import.meta.url);
  assert.deepEqual(workerEntry(own), { url: own });
});

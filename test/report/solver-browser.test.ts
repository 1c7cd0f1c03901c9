import assert from 'node:assert/strict';
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { createPlaygroundServer } from '../../src/index.js';
import { repoRoot } from '../helpers/shared.js';
import { collectPageErrors, launchChromium, skipWithoutChromium } from './chromium.js';

interface Bundler {
  bundleForBrowser(entry: string, outfile: string, options?: { z3Worker?: boolean }): Promise<void>;
  z3Files(): string[];
}

test('the browser back end of the Solver interface answers sat, unsat and models in a Web Worker', { skip: skipWithoutChromium, timeout: 120_000 }, async () => {
  const { bundleForBrowser, z3Files } = (await import(pathToFileURL(join(repoRoot, 'scripts', 'browser-bundle.mjs')).href)) as Bundler;
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-solver-browser-'));
  await bundleForBrowser(join(repoRoot, 'test', 'report', 'fixtures', 'solver-worker.ts'), join(dir, 'solver-worker.js'), { z3Worker: true });
  for (const f of z3Files()) symlinkSync(f, join(dir, basename(f)));
  writeFileSync(join(dir, 'index.html'), `<!DOCTYPE html><title>waiting</title><link rel="icon" href="data:,"><script>
new Worker('solver-worker.js').onmessage = (e) => { window.result = e.data; document.title = 'done'; };
</script>`);
  const server = createPlaygroundServer({ root: dir });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { browser, close } = await launchChromium();
  try {
    const page = await browser.newPage();
    const errors = collectPageErrors(page);
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await page.waitForFunction(() => document.title === 'done', { timeout: 100_000 });
    const result = await page.evaluate(() => (window as unknown as { result: unknown }).result);
    assert.deepEqual(result, { name: 'z3-wasm', statuses: ['sat', 'unsat', 'sat'], x: '4' });
    assert.deepEqual(errors, []);
  } finally {
    await close();
    server.close();
  }
});

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { servePlayground } from '../../src/index.js';
import { repoRoot } from '../helpers/shared.js';
import { collectPageErrors, launchChromium, skipWithoutChromium } from './chromium.js';

const root = join(repoRoot, 'dist', 'browser');
const skip = skipWithoutChromium || (existsSync(join(root, 'index.html')) ? false : 'skipped: the playground is not built (npm run build)');
let browser: Browser | undefined;
let close: (() => Promise<void>) | undefined;
let server: Server | undefined;
let url = '';

before(async () => {
  if (skip) return;
  ({ browser, close } = await launchChromium());
  ({ server, url } = await servePlayground({ port: 0 }));
});
after(async () => {
  await close?.();
  server?.close();
});

async function openPlayground(at: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser!.newPage();
  await page.setViewport({ width: 1300, height: 900 });
  const errors = collectPageErrors(page);
  await page.goto(at);
  await page.waitForFunction(() => document.querySelectorAll('#example option').length > 1 && document.getElementById('status')!.textContent !== '');
  return { page, errors };
}

async function verifyExample(page: Page, example: string): Promise<string[]> {
  await page.select('#example', example);
  await page.click('#verify');
  await page.waitForFunction(() => /Verification result|the worker failed|error/i.test([...document.querySelectorAll('#out .verdict, #out .error')].map((e) => e.textContent).join('')), { timeout: 240_000 });
  return page.$$eval('#out div', (ds) => ds.map((d) => d.textContent ?? ''));
}

test('the playground verifies examples/sum.c in the browser: TRUE', { skip, timeout: 300_000 }, async () => {
  const { page, errors } = await openPlayground(url);
  assert.equal(await page.evaluate(() => crossOriginIsolated), true, 'tarsier serve makes the page cross-origin isolated');
  const lines = await verifyExample(page, 'sum.c');
  assert.equal(lines.at(-1), 'Verification result: TRUE', lines.join('\n'));
  assert.deepEqual(errors, []);
  await page.close();
});

test('a counterexample that gcc cannot replay in the browser is UNKNOWN, never FALSE', { skip, timeout: 300_000 }, async () => {
  const { page, errors } = await openPlayground(url);
  const lines = await verifyExample(page, 'mult.c');
  assert.equal(lines.at(-1), 'Verification result: UNKNOWN', lines.join('\n'));
  assert.match(lines.at(-2)!, /not confirmed: .*gcc/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the playground shows the report of a pasted witness, and a YAML syntax error instead of a blank page', { skip }, async () => {
  const { page, errors } = await openPlayground(url);
  await page.select('#example', 'sum.c');
  const witness = ['- entry_type: "invariant_set"', '  metadata:', '    format_version: "2.0"', '    uuid: "0a7e2a9c-3b1d-4c51-9a39-6f0e6b9e1f00"', '    creation_time: "2026-01-01T00:00:00Z"', '    producer: { name: "hand" }', '    task:', '      input_files: ["sum.c"]', '      input_file_hashes: { "sum.c": "0000000000000000000000000000000000000000000000000000000000000000" }', '      specification: "CHECK( init(main()), LTL(G ! call(reach_error())) )"', '      data_model: "ILP32"', '      language: "C"', '  content:', '    - invariant:', '        type: "loop_invariant"', '        location: { file_name: "sum.c", line: 10, column: 3, function: "main" }', '        value: "sum <= 55"', '        format: "c_expression"', ''].join('\n');
  await page.$eval('#witness', (el, text) => {
    (el as HTMLTextAreaElement).value = text;
  }, witness);
  await page.$eval('#witness-name', (el) => ((el as HTMLInputElement).value = 'w.yml'));
  await page.click('#lint');
  const pinLine = await page.$eval('#report .pin', (p) => (p.closest('.ln') as HTMLElement).dataset.line);
  assert.equal(pinLine, '10');
  // The hash is not sum.c's: the error is listed on the page.
  assert.match((await page.$$eval('#report .general .diag.error', (ds) => ds.map((d) => d.textContent))).join(''), /hash-mismatch/);
  await page.$eval('#witness', (el) => {
    (el as HTMLTextAreaElement).value = '- entry_type: [unclosed\n';
  });
  await page.click('#lint');
  const alert = await page.$eval('#report [role=alert]', (e) => e.textContent ?? '');
  assert.match(alert, /w\.yml:\d+:\d+: error:/);
  assert.ok((await page.$$('#report .ln')).length > 10, 'the program is still shown');
  assert.deepEqual(errors, []);
  await page.close();
});

/** A 2.0 invariant_set for examples/sum.c with three candidates at its loop (the hash is not sum.c's). */
function sumCandidates(values: readonly string[]): string {
  const head = ['- entry_type: "invariant_set"', '  metadata:', '    format_version: "2.0"', '    uuid: "0a7e2a9c-3b1d-4c51-9a39-6f0e6b9e1f00"', '    creation_time: "2026-01-01T00:00:00Z"', '    producer: { name: "hand" }', '    task:', '      input_files: ["sum.c"]', '      input_file_hashes: { "sum.c": "0000000000000000000000000000000000000000000000000000000000000000" }', '      specification: "CHECK( init(main()), LTL(G ! call(reach_error())) )"', '      data_model: "ILP32"', '      language: "C"', '  content:'];
  const items = values.flatMap((v) => ['    - invariant:', '        type: "loop_invariant"', '        location: { file_name: "sum.c", line: 10, column: 3, function: "main" }', `        value: "${v}"`, '        format: "c_expression"']);
  return [...head, ...items, ''].join('\n');
}

test('select in the browser marks each candidate of the witness selected or rejected, on the report', { skip, timeout: 300_000 }, async () => {
  const { page, errors } = await openPlayground(url);
  await page.select('#example', 'sum.c');
  await page.$eval('#witness', (el, text) => ((el as HTMLTextAreaElement).value = text), sumCandidates(['i <= n + 1 && n <= 10', 'sum == 0']));
  await page.click('#select');
  await page.waitForFunction(() => /Selection result|error/i.test([...document.querySelectorAll('#out .verdict, #out .error')].map((e) => e.textContent).join('')), { timeout: 240_000 });
  const lines = await page.$$eval('#out div', (ds) => ds.map((d) => d.textContent ?? ''));
  assert.ok(lines.includes('line 10, column 3: i <= n + 1 && n <= 10: selected'), lines.join('\n'));
  assert.ok(lines.includes('line 10, column 3: sum == 0: rejected (not preserved)'), lines.join('\n'));
  // select never claims a violation without a replay
  assert.match(lines.at(-1)!, /^Selection result: (TRUE|UNKNOWN)$/);
  const badges = await page.$$eval('#report .ann .status', (ss) => ss.map((s) => s.textContent));
  assert.deepEqual(badges, ['selected', 'rejected: not preserved']);
  assert.deepEqual(errors, []);
  await page.close();
});

/** Clicks a button and waits for the validation's last line (or an error); returns the output lines. */
async function runValidation(page: Page, button: '#validate' | '#validate-server'): Promise<string[]> {
  const before = await page.$$eval('#out div', (ds) => ds.length);
  await page.click(button);
  await page.waitForFunction(
    (n) => [...document.querySelectorAll('#out div')].slice(n).some((d) => /^Validation result|error/.test(d.textContent ?? '') && (d.classList.contains('verdict') || d.classList.contains('error'))),
    { timeout: 240_000 },
    before,
  );
  return (await page.$$eval('#out div', (ds) => ds.map((d) => d.textContent ?? ''))).slice(before);
}

const badges = (page: Page) => page.$$eval('#report .ann .status', (ss) => ss.map((s) => s.textContent ?? ''));

test('validate a correctness witness: in the browser each invariant confirmed or unconfirmed (no gcc), on the server the wrong one refuted with its counterexample', { skip, timeout: 300_000 }, async () => {
  const { page, errors } = await openPlayground(url);
  await page.select('#example', 'sum.c');
  await page.$eval('#witness', (el, text) => ((el as HTMLTextAreaElement).value = text), sumCandidates(['i <= n + 1 && n <= 10', 'sum == 0']).replace('{ name: "hand" }', '{ name: "hand", version: "1" }'));
  const inBrowser = await runValidation(page, '#validate');
  assert.equal(inBrowser.at(-1), 'Validation result: witness unconfirmed (UNKNOWN) [in the browser]', inBrowser.join('\n'));
  assert.ok(inBrowser.includes('witness line 17: loop_invariant i <= n + 1 && n <= 10 at line 10, column 3: confirmed'), inBrowser.join('\n'));
  assert.match(inBrowser.find((l) => l.startsWith('witness line 22:')) ?? '', /sum == 0 at line 10, column 3: unconfirmed: .*gcc is not available in the browser/);
  // Pinned on the loop of line 10, and the outcome above the program.
  const b = await badges(page);
  assert.equal(b[0], 'confirmed');
  assert.match(b[1], /^unconfirmed: /);
  assert.equal(await page.$eval('#report .ann .status', (s) => (s.closest('.ann') as HTMLElement).dataset.line), '10');
  assert.match(await page.$eval('#report .validation', (v) => v.textContent ?? ''), /^Validation: witness unconfirmed — UNKNOWN \(in the browser\)/);

  const onServer = await runValidation(page, '#validate-server');
  assert.equal(onServer.at(-1), 'Validation result: witness refuted (FALSE(unreach-call)) [on the server, with gcc replay]', onServer.join('\n'));
  const refuted = onServer.find((l) => l.startsWith('witness line 22:')) ?? '';
  const value = /counterexample: __VERIFIER_nondet_uint\(\) = (\d+)$/.exec(refuted);
  assert.ok(value, refuted);
  // A real counterexample to sum == 0 at the loop head: the loop runs (n >= 1) and n <= 10.
  assert.ok(Number(value[1]) >= 1 && Number(value[1]) <= 10, refuted);
  assert.match((await badges(page))[1], /^refuted: .*counterexample: __VERIFIER_nondet_uint\(\) = \d+$/);
  // Another program: the old results are gone.
  await page.select('#example', 'count.c');
  assert.equal((await page.$$('#report .validation')).length, 0);
  assert.deepEqual(await badges(page), []);
  assert.deepEqual(errors, []);
  await page.close();
});

test('validate a violation witness: confirmed on the server with the violating run, each waypoint marked on the program', { skip, timeout: 300_000 }, async () => {
  const { page, errors } = await openPlayground(url);
  await page.select('#example', 'mult.c');
  // The server's verify writes the witness into the page.
  await page.click('#verify-server');
  await page.waitForFunction(() => /the violation witness is shown below/.test(document.getElementById('out')!.textContent ?? ''), { timeout: 240_000 });
  const lines = await runValidation(page, '#validate');
  assert.equal(lines.at(-1), 'Validation result: witness confirmed (FALSE(unreach-call)) [on the server, with gcc replay]', lines.join('\n'));
  assert.ok(lines.includes('the violating run: __VERIFIER_nondet_int() = 100'), lines.join('\n'));
  assert.deepEqual(await badges(page), ['used', 'used']);
  const pinned = await page.$$eval('#report .ann', (as) => as.map((a) => (a as HTMLElement).dataset.line));
  assert.deepEqual(pinned, ['8', '15']);
  assert.match(await page.$eval('#report .validation', (v) => v.textContent ?? ''), /The violating run: __VERIFIER_nondet_int\(\) = 100/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('validate on bad input shows the diagnostic: a YAML syntax error, a witness for another program', { skip, timeout: 120_000 }, async () => {
  const { page, errors } = await openPlayground(url);
  await page.select('#example', 'sum.c');
  await page.$eval('#witness-name', (el) => ((el as HTMLInputElement).value = 'w.yml'));
  await page.$eval('#witness', (el) => ((el as HTMLTextAreaElement).value = '- entry_type: [unclosed\n'));
  const syntax = await runValidation(page, '#validate');
  assert.match(syntax.at(-1)!, /^validate: w\.yml:\d+:\d+: error: /);
  assert.ok((await page.$$('#report [role=alert]')).length === 1, 'the report shows the error too');
  const other = sumCandidates(['i <= n + 1']).replace('{ name: "hand" }', '{ name: "hand", version: "1" }').replaceAll('"sum.c"', '"count.c"');
  await page.$eval('#witness', (el, text) => ((el as HTMLTextAreaElement).value = text), other);
  const foreign = await runValidation(page, '#validate');
  assert.equal(foreign.at(-1), 'w.yml:3:5: error: the witness is for another program (count.c, another hash), not sum.c');
  assert.ok((await page.$$('#report .ln')).length > 10, 'the program is still shown');
  assert.deepEqual(errors, []);
  await page.close();
});

test('as static files (no server parts, no isolation headers) the page works with those parts switched off', { skip }, async () => {
  const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.json': 'application/json', '.wasm': 'application/wasm' };
  const plain = createServer((req, res) => {
    const file = join(root, req.url === '/' ? 'index.html' : (req.url ?? '').replace(/^\/+/, '').replace(/\.\./g, ''));
    if (!existsSync(file) || (req.url ?? '').startsWith('/api/')) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': types[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
  try {
    const { page, errors } = await openPlayground(`http://127.0.0.1:${(plain.address() as AddressInfo).port}/`);
    assert.match(await page.$eval('#status', (e) => e.textContent ?? ''), /static page: server parts \(replay, violation-witness validation\) off/);
    assert.equal(await page.$eval('#verify-server', (b) => (b as HTMLButtonElement).disabled), true);
    assert.equal(await page.$eval('#validate-server', (b) => (b as HTMLButtonElement).disabled), true);
    // A violation witness needs gcc: validate says it is not available here.
    await page.select('#example', 'mult.c');
    await page.$eval('#witness', (el, text) => ((el as HTMLTextAreaElement).value = text), readFileSync(join(repoRoot, 'test', 'fixtures', 'witness', 'mult-violation.yml'), 'utf8'));
    await page.click('#validate');
    assert.match((await page.$$eval('#out .error', (ds) => ds.map((d) => d.textContent))).join(''), /violation witness is confirmed only by running the program \(gcc replay\).*not available in the static page/);
    await page.select('#example', 'sum.c');
    assert.ok((await page.$$('#report .ln')).length > 10, 'the program is shown');
    await page.click('#verify');
    assert.match((await page.$$eval('#out .error', (ds) => ds.map((d) => d.textContent))).join(''), /cross-origin isolated/);
    // The /api/health probe's 404 is the only resource error.
    assert.deepEqual(errors.filter((e) => !/404/.test(e)), []);
    await page.close();
  } finally {
    plain.close();
  }
});

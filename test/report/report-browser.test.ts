import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import type { Browser } from 'puppeteer-core';
import { renderReportPage, reportFromFiles, type ReportData } from '../../src/index.js';
import { sharedPath, skipWithoutShared } from '../helpers/shared.js';
import { collectPageErrors, launchChromium, skipWithoutChromium } from './chromium.js';

const skip = skipWithoutShared || skipWithoutChromium;
let browser: Browser | undefined;
let close: (() => Promise<void>) | undefined;
const dir = mkdtempSync(join(tmpdir(), 'tarsier-report-browser-'));

before(async () => {
  if (!skip) ({ browser, close } = await launchChromium());
});
after(async () => close?.());

/** Writes the page and opens it from disk (file://: no server, as a user opens the report). */
async function open(data: ReportData, name: string) {
  const file = join(dir, name);
  writeFileSync(file, renderReportPage(data));
  const page = await browser!.newPage();
  const errors = collectPageErrors(page);
  await page.goto(pathToFileURL(file).href);
  return { page, errors };
}

/** For a pin: the line it is in, and the number of characters of the line before it (pins' own labels left out). */
const pinPlaceScript = (id: number) => `(() => {
  const pin = document.querySelector('.pin[data-marker="${id}"]');
  if (!pin) return null;
  const line = pin.closest('.ln');
  let before = 0;
  for (const node of line.querySelector('code').childNodes) {
    if (node === pin) break;
    if (!(node instanceof HTMLElement && node.classList.contains('pin'))) before += node.textContent.length;
  }
  return { line: Number(line.dataset.line), before, visible: pin.getBoundingClientRect().width > 0 };
})()`;

test('the report of a real witness shows each entry at its line and column', { skip }, async () => {
  const base = sharedPath('witnesses', 'real', 'goblint', '56-witness', '01-base-lor-enums');
  const data = reportFromFiles(`${base}.c`, `${base}.yml`);
  const located = data.markers.filter((m) => m.line !== undefined);
  assert.ok(located.length >= 3, 'the witness has several located invariants');
  const { page, errors } = await open(data, 'goblint.html');
  for (const m of located) {
    const place = (await page.evaluate(pinPlaceScript(m.id))) as { line: number; before: number; visible: boolean } | null;
    assert.ok(place, `marker ${m.id} has a pin`);
    assert.equal(place.line, m.line, `marker ${m.id} is on line ${m.line}`);
    assert.equal(place.before, (m.column ?? 1) - 1, `marker ${m.id} is before column ${m.column}`);
    assert.ok(place.visible);
    // Its annotation follows the line it is on.
    const annotated = await page.evaluate(`(() => { let e = document.getElementById('L${m.line}').nextElementSibling; while (e && e.classList.contains('ann')) { if (e.dataset.marker === '${m.id}') return true; e = e.nextElementSibling; } return false; })()`);
    assert.equal(annotated, true, `marker ${m.id} is annotated under line ${m.line}`);
  }
  // Clicking a pin shows its details with its YAML text and highlights its witness lines.
  const m = located[0];
  await page.click(`.pin[data-marker="${m.id}"]`);
  const shown = (await page.evaluate(`(() => { const d = document.querySelector('.detail[data-marker="${m.id}"]'); return { hidden: d.hidden, yaml: d.querySelector('pre.yaml').textContent, hl: [...document.querySelectorAll('.wl.hl')].map((e) => Number(e.dataset.wline)) }; })()`)) as { hidden: boolean; yaml: string; hl: number[] };
  assert.equal(shown.hidden, false);
  assert.ok(shown.yaml.includes(m.text.split(' ')[0]), `the YAML shown holds the invariant: ${shown.yaml}`);
  assert.deepEqual([shown.hl[0], shown.hl.at(-1)], [m.source.from, m.source.to]);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a lint error is shown at the program place it concerns, and a violation path in order', { skip }, async () => {
  const ex = (...p: string[]) => sharedPath('spec', 'examples', ...p);
  const { page, errors } = await open(reportFromFiles(ex('programs', 'count.c'), ex('invalid', '2.0-loop-invariant-not-at-loop.yml')), 'lint.html');
  // The invariant points at line 13 ('i++'), not at the loop: the error sits under line 13.
  const under13 = await page.evaluate(`(() => { const a = document.getElementById('L13').nextElementSibling; return a && a.classList.contains('ann') ? [...a.querySelectorAll('.diag.error')].map((d) => d.textContent) : []; })()`);
  assert.equal((under13 as string[]).length, 1);
  assert.match((under13 as string[])[0], /not a loop keyword.*\[loop-not-found\]/);
  assert.deepEqual(errors, []);
  await page.close();

  const violation = await open(reportFromFiles(ex('programs', 'bug.c'), ex('valid', '2.0-violation-bug.yml')), 'path.html');
  const steps = await violation.page.evaluate(`[...document.querySelectorAll('.path li .step')].map((s) => Number(document.querySelector('.pin[data-marker="' + s.dataset.marker + '"]').closest('.ln').dataset.line))`);
  assert.deepEqual(steps, [10, 11, 12, 13, 13, 15, 16]);
  assert.match(await violation.page.evaluate(`document.querySelector('.nondet').textContent`) as string, /__VERIFIER_nondet_int\(\) = 20/);
  assert.deepEqual(violation.errors, []);
  await violation.page.close();
});

test('an unreadable witness shows its error on the page', { skip }, async () => {
  const ex = (...p: string[]) => sharedPath('spec', 'examples', ...p);
  const data = reportFromFiles(ex('programs', 'count.c'), ex('invalid', '2.0-root-mapping.yml'));
  const { page, errors } = await open(data, 'fatal.html');
  const alert = (await page.evaluate(`document.querySelector('[role=alert]')?.textContent ?? ''`)) as string;
  assert.match(alert, /could not be read: .*2\.0-root-mapping\.yml:\d+:\d+: error:/);
  assert.equal(await page.evaluate(`document.querySelectorAll('.ln').length`), data.program.lines.length);
  assert.deepEqual(errors, []);
  await page.close();
});

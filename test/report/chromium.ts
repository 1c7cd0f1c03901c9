/**
 * Headless Chromium for the browser tests, driven by puppeteer-core (which
 * downloads no browser): the system's Chromium, or none, and then the tests
 * skip, saying so.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';

const CANDIDATES = [process.env.TARSIER_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

export const chromiumPath: string | undefined = CANDIDATES.find((p): p is string => !!p && existsSync(p));

export const skipWithoutChromium: string | false = chromiumPath
  ? false
  : 'skipped: no Chromium found (install Debian chromium with scripts/install-system-tools.sh, or set TARSIER_CHROMIUM)';

/** Flags for a sandbox-less machine without network: no first-run, background or update traffic. */
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export async function launchChromium(): Promise<{ browser: Browser; close: () => Promise<void> }> {
  const { default: puppeteer } = await import('puppeteer-core');
  const profile = mkdtempSync(join(tmpdir(), 'tarsier-chromium-'));
  const browser = await puppeteer.launch({ executablePath: chromiumPath, headless: true, args: [...FLAGS, `--user-data-dir=${profile}`] });
  return {
    browser,
    close: async () => {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * z3's WebAssembly build prints the report of an assertion failure inside
 * z3 on the console, line by line (seen once under load: Spacer's global
 * generalizer, z3 5.1.0, "UNEXPECTED CODE WAS REACHED"); the query fails and
 * the verifier goes on without it. A defect of z3, not an error of the page.
 */
const Z3_INTERNAL_REPORT = /^(ASSERTION VIOLATION|File: \.\.\/src\/\S+\.cpp|Line: \d+|UNEXPECTED CODE WAS REACHED\.|Z3 \d+(\.\d+)+|Please file an issue with this message .*Z3Prover.*)$/;

/** Collects what the page reports as errors: console errors (but z3's reports of its own assertion failures) and uncaught exceptions. */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !Z3_INTERNAL_REPORT.test(m.text())) errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`page error: ${(e as Error).message}`));
  return errors;
}

// `tarsier verify` runs from the bundle of what it loads when the build made
// it; the bundle and main.ts register the same command.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../helpers/shared.js';
import { verifyBundle } from '../../src/cli/entry.js';

const cli = join(repoRoot, 'dist', 'src', 'cli');

/** Output and exit code of `main(argv)` of one of the CLI's entry modules, in a process of its own. */
function run(module: string, argv: string[]): { out: string; err: string; code: number | null } {
  const script = `const m = await import(${JSON.stringify(pathToFileURL(module).href)}); process.exitCode = await m.main(${JSON.stringify(argv)});`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: repoRoot });
  return { out: r.stdout, err: r.stderr, code: r.status };
}

test('the build made the bundle of verify, and the entry takes it for verify only', () => {
  const bundle = verifyBundle();
  assert.ok(bundle, 'dist/src/cli/verify.bundle.js is missing or stale: run npm run build');
  assert.match(bundle.pathname, /verify\.bundle\.js$/);
});

test('verify from its bundle and from main.ts: the same help, the same usage errors', { skip: verifyBundle() ? false : 'skipped: no verify bundle' }, () => {
  for (const argv of [['verify', '--help'], ['verify', 'examples/mult.c', '--solver', 'bogus'], ['verify', 'examples/mult.c']]) {
    const bundled = run(join(cli, 'verify.bundle.js'), argv);
    const plain = run(join(cli, 'main.js'), argv);
    assert.deepEqual(bundled, plain, argv.join(' '));
  }
  assert.equal(run(join(cli, 'verify.bundle.js'), ['verify', '--help']).code, 0);
});

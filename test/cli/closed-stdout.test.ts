// A reader that stops early (`tarsier lint … | head`) closes stdout: every
// command then ends quietly, with its own exit code and no stack trace.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, repoRoot } from '../helpers/shared.js';

const dir = mkdtempSync(join(tmpdir(), 'tarsier-epipe-'));
after(() => rmSync(dir, { recursive: true, force: true }));
copyFileSync(join(repoRoot, 'examples', 'sum.c'), join(dir, 'sum.c'));

// 3000 invariants that name a variable that does not exist: one lint error each.
const invariant = `    - invariant:
        type: loop_invariant
        location: { file_name: sum.c, line: 10, column: 3, function: main }
        value: "nosuchvariable > 0"
        format: c_expression
`;
writeFileSync(
  join(dir, 'many.yml'),
  `- entry_type: invariant_set
  metadata:
    format_version: "2.0"
    uuid: "2fbd54bc-95e3-4273-b91f-fcc546aaab33"
    creation_time: "2024-05-01T12:00:00Z"
    producer: { name: test }
    task:
      input_files: [sum.c]
      input_file_hashes: { sum.c: "0000000000000000000000000000000000000000000000000000000000000000" }
      specification: "CHECK( init(main()), LTL(G ! call(reach_error())) )"
      data_model: ILP32
      language: C
  content:
${invariant.repeat(3000)}`,
);

/** Runs tarsier, closes its stdout after the first bytes, and returns its exit code and stderr. */
function readFirstBytes(...args: string[]): Promise<{ code: number | null; err: string; got: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [cliPath, ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    let got = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.once('data', (d: Buffer) => {
      got = d.toString();
      child.stdout.destroy();
    });
    child.on('close', (code) => done({ code, err, got }));
  });
}

test('lint | head: no EPIPE stack trace, the exit code of the lint (errors found)', async () => {
  const r = await readFirstBytes('lint', 'many.yml', '--program', 'sum.c');
  assert.match(r.got, /many\.yml:\d+:\d+: error: /);
  assert.equal(r.err, '');
  assert.equal(r.code, 1);
});

test('parse --dump ast | head: ends quietly with exit code 0', async () => {
  const r = await readFirstBytes('parse', '--dump', 'ast', 'sum.c');
  assert.notEqual(r.got, '');
  assert.equal(r.err, '');
  assert.equal(r.code, 0);
});

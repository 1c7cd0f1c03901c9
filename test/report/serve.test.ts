import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { probeGcc, servePlayground } from '../../src/index.js';
import { repoRoot, sharedPath, skipWithoutShared } from '../helpers/shared.js';

let server: Server | undefined;
let url = '';
before(async () => {
  ({ server, url } = await servePlayground({ port: 0 }));
});
after(() => server?.close());

test('tarsier serve listens on loopback and sends the cross-origin isolation headers', async () => {
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  const r = await fetch(url);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('cross-origin-opener-policy'), 'same-origin');
  assert.equal(r.headers.get('cross-origin-embedder-policy'), 'require-corp');
  assert.match(await r.text(), /Tarsier playground/);
  const wasm = await fetch(new URL('z3-built.wasm', url), { method: 'HEAD' });
  assert.equal(wasm.headers.get('content-type'), 'application/wasm');
  assert.equal((await fetch(new URL('/%2e%2e/%2e%2e/package.json', url))).status, 404);
});

test('POST /api/verify answers bad requests with 400 and a message', async () => {
  const r = await fetch(new URL('api/verify', url), { method: 'POST', body: '{"programText": "int main(void){return 0;}", "property": "bogus"}' });
  assert.equal(r.status, 400);
  assert.match(((await r.json()) as { error: string }).error, /property must be one of/);
  const parseError = await fetch(new URL('api/verify', url), { method: 'POST', body: JSON.stringify({ programName: 'p.c', programText: 'int main(void) { return 0 }\n', property: 'unreach-call' }) });
  assert.match(((await parseError.json()) as { error: string }).error, /^p\.c:1:\d+: error: /);
});

test('POST /api/verify runs verify with gcc replay on the server: FALSE with its witness', { skip: probeGcc().gcc ? false : 'skipped: gcc is not installed' }, async () => {
  const programText = readFileSync(join(repoRoot, 'examples', 'mult.c'), 'utf8');
  const r = await fetch(new URL('api/verify', url), { method: 'POST', body: JSON.stringify({ programName: 'mult.c', programText, property: 'unreach-call', dataModel: 'ILP32' }) });
  const body = (await r.json()) as { verdict: string; reason: string; witness?: string };
  assert.equal(body.verdict, 'FALSE(unreach-call)', body.reason);
  assert.match(body.witness ?? '', /entry_type: "violation_sequence"/);
});

test('POST /api/verify checks every standard property, memory safety included', { skip: probeGcc().gcc ? false : 'skipped: gcc is not installed' }, async () => {
  const programText = 'int main(void) {\n  int a[2];\n  a[2] = 1;\n  return 0;\n}\n';
  const r = await fetch(new URL('api/verify', url), { method: 'POST', body: JSON.stringify({ programName: 'oob.c', programText, property: 'valid-memsafety', dataModel: 'ILP32' }) });
  const body = (await r.json()) as { verdict: string; reason: string };
  assert.equal(body.verdict, 'FALSE(valid-deref)', body.reason);
});

test('POST /api/validate: bad requests answered with 400; a violation witness confirmed on the server (gcc), the folder never named', { skip: probeGcc().gcc ? false : 'skipped: gcc is not installed' }, async () => {
  const programText = readFileSync(join(repoRoot, 'examples', 'mult.c'), 'utf8');
  const witnessText = readFileSync(join(repoRoot, 'test', 'fixtures', 'witness', 'mult-violation.yml'), 'utf8');
  const post = (body: object) => fetch(new URL('api/validate', url), { method: 'POST', body: JSON.stringify(body) });
  const missing = await post({ programName: 'mult.c', programText, property: 'unreach-call' });
  assert.equal(missing.status, 400);
  assert.equal(((await missing.json()) as { error: string }).error, 'witnessText is missing');
  const r = await post({ programName: 'mult.c', programText, witnessName: 'w.yml', witnessText, property: 'unreach-call', dataModel: 'ILP32' });
  const v = (await r.json()) as { outcome: string; verdict: string; counterexample?: string[]; entries: Array<{ witnessLine: number; status: string }>; where: string };
  assert.equal(v.outcome, 'confirmed');
  assert.equal(v.verdict, 'FALSE(unreach-call)');
  assert.deepEqual(v.counterexample, ['__VERIFIER_nondet_int() = 100']);
  assert.deepEqual(v.entries.map((e) => e.status), ['used', 'used']);
  assert.equal(v.where, 'server');
  // The witness of another program: the error names the posted file, not the server's folder.
  const other = await post({ programName: 'sum.c', programText: readFileSync(join(repoRoot, 'examples', 'sum.c'), 'utf8'), witnessName: 'w.yml', witnessText, property: 'unreach-call' });
  const e = ((await other.json()) as { error: string }).error;
  assert.match(e, /^w\.yml:\d+:\d+: error: /);
  assert.doesNotMatch(e, /tarsier-serve-/);
});

test('with a task folder, the server lists its tasks and gives a task\'s program and property', { skip: skipWithoutShared }, async () => {
  const dir = sharedPath('spec', 'examples', 'tasks');
  const { server: s, url: u } = await servePlayground({ port: 0, tasksDir: dir });
  try {
    assert.equal(((await (await fetch(new URL('api/health', u))).json()) as { tasks: boolean }).tasks, true);
    const { tasks } = (await (await fetch(new URL('api/tasks', u))).json()) as { tasks: string[] };
    assert.ok(tasks.includes('bug.yml'), tasks.join(', '));
    const t = (await (await fetch(new URL('api/task?path=bug.yml', u))).json()) as { programName: string; programText: string; property: string };
    assert.equal(t.programName, 'bug.c');
    assert.equal(t.programText, readFileSync(sharedPath('spec', 'examples', 'programs', 'bug.c'), 'utf8'));
    assert.equal(t.property, 'unreach-call');
    assert.equal((await fetch(new URL('api/task?path=../programs/bug.c', u))).status, 404);
  } finally {
    s.close();
  }
  // Without a folder there are no tasks to list.
  assert.equal((await fetch(new URL('api/tasks', url))).status, 404);
});

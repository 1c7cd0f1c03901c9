// A solver process ends by itself at its own limits, even while its stdin
// stays open: what ends it when Tarsier was SIGKILLed in the middle of a check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { needTools } from '../helpers/tools.js';
import { PROCESS_LIMITS, processSolverSpec } from '../../src/smt/process.js';

/** Starts the solver as Tarsier does, with a 1 s limit; resolves with its answer and whether it ended by itself (not by the 60 s guard). */
function liveWithOpenStdin(name: string): Promise<{ out: string; endedItself: boolean }> {
  const spec = processSolverSpec(name, { wallS: 1, memoryMB: 256 });
  const proc = spawn(spec.path, [...spec.args], { stdio: ['pipe', 'pipe', 'ignore'] });
  let out = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stdin.write('(set-logic ALL)\n(check-sat)\n');
  const guard = setTimeout(() => proc.kill('SIGKILL'), 60_000);
  return new Promise((done) =>
    proc.on('exit', (_code, signal) => {
      clearTimeout(guard);
      done({ out, endedItself: signal !== 'SIGKILL' });
    }),
  );
}

test('z3 and cvc5 get a whole-process time limit (and z3 a memory limit) far above one run', () => {
  assert.deepEqual(processSolverSpec('/usr/bin/z3').args.slice(2), [`-T:${PROCESS_LIMITS.wallS}`, `-memory:${PROCESS_LIMITS.memoryMB}`]);
  assert.ok(processSolverSpec('cvc5').args.includes(`--tlimit=${PROCESS_LIMITS.wallS * 1000}`));
  assert.ok(PROCESS_LIMITS.wallS >= 900 && PROCESS_LIMITS.memoryMB >= 1024);
  assert.deepEqual(processSolverSpec('mysolver').args, []);
});

for (const name of ['z3', 'cvc5'] as const) {
  test(`${name} started with its limits answers, then ends at the limit though nobody closes its stdin`, { skip: needTools(name) }, async () => {
    const r = await liveWithOpenStdin(name);
    assert.match(r.out, /^sat$/m);
    assert.ok(r.endedItself, `${name} was still running after 60 s`);
  });
}

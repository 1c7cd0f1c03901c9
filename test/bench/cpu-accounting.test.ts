// The bench's CPU time of a run is that of the tool's whole process tree,
// each process counted exactly once: compared with /usr/bin/time (which
// counts the processes the tool waits for) on a tool that forks "solver"
// processes, and, for children re-parented away from the tool, with the CPU
// time those children report themselves. Polling every millisecond makes
// the races between a poll and a process ending as likely as they get.
// CPU time is compared with CPU time, so a loaded machine changes nothing.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLimited } from '../../src/bench/limits.js';

const noTime = existsSync('/usr/bin/time') ? false : 'skipped: /usr/bin/time is not installed';
/** A shell loop burning about a quarter of a CPU second. */
const BUSY = 'i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done';
/** Two solver-like children in parallel, then one more, each waited for. */
const FORKS = `sh -c '${BUSY}' & sh -c '${BUSY}' & wait; sh -c '${BUSY}'; echo answer`;

/**
 * Runs `sh -c script` under /usr/bin/time under the bench's runLimited: the
 * bench's CPU time and /usr/bin/time's (user + system) of the same run.
 */
async function measured(script: string, pollMs: number, cpuTime = 60) {
  const m = await runLimited('/usr/bin/time', ['-f', 'TIME %U %S', 'sh', '-c', script], { cpuTime, wallTime: 120 }, { pollMs });
  const t = /TIME ([\d.]+) ([\d.]+)/.exec(m.output);
  assert.ok(t, m.output);
  return { m, time: Number(t[1]) + Number(t[2]) };
}

/** Equal up to the clock ticks the two measures round differently. */
const close = (bench: number, reference: number) => Math.abs(bench - reference) <= 0.05 + 0.05 * reference;

test('bench CPU time: a tool that forks solver processes is counted once, as /usr/bin/time counts it', { skip: noTime }, async () => {
  for (const pollMs of [1, 1, 1, 5, 100]) {
    const { m, time } = await measured(FORKS, pollMs);
    assert.equal(m.termination, 'exited');
    assert.match(m.output, /^answer$/m);
    assert.equal(m.cpuExact, true);
    assert.ok(close(m.cpuTime, time), `poll ${pollMs} ms: bench ${m.cpuTime} s, /usr/bin/time ${time} s`);
  }
});

test('bench CPU time: children re-parented away from the tool (reaped by init) are counted too', { skip: noTime }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-cpu-'));
  try {
    const done = join(dir, 'orphan-times');
    // The orphan reports its own CPU time (`times`, first line) when it ends; the tool waits for that file.
    const script = `( sh -c '${BUSY}; times > ${done}.tmp; mv ${done}.tmp ${done}' & ) ; while [ ! -s ${done} ]; do sleep 0.05; done; echo answer`;
    const { m, time } = await measured(script, 10);
    assert.equal(m.termination, 'exited');
    const [user, system] = readFileSync(done, 'utf8').split('\n')[0]!.match(/(\d+)m([\d.]+)s/g)!.map((x) => {
      const [, min, sec] = /(\d+)m([\d.]+)s/.exec(x)!;
      return Number(min) * 60 + Number(sec);
    });
    const orphan = user! + system!;
    assert.ok(orphan > 0.05, `orphan ${orphan}`);
    // /usr/bin/time does not see the orphan (init reaps it): add what it reported. The
    // bench sees it at its polls, up to the last one before it ends (10 ms).
    assert.ok(close(m.cpuTime, time + orphan) || Math.abs(m.cpuTime - (time + orphan)) <= 0.1, `bench ${m.cpuTime} s, /usr/bin/time ${time} s + orphan ${orphan} s`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('bench: a run that answered and exited below the CPU limit is no timeout, even when a poll came late', { skip: noTime }, async () => {
  for (let i = 0; i < 3; i++) {
    const { m, time } = await measured(FORKS, 1, 30);
    assert.equal(m.termination, 'exited', `cpu ${m.cpuTime}, /usr/bin/time ${time}`);
    assert.match(m.output, /^answer$/m);
  }
  // A limit below what the run uses: a timeout.
  const m = await runLimited('/bin/sh', ['-c', FORKS], { cpuTime: 0.05, wallTime: 120 }, { pollMs: 100 });
  assert.equal(m.termination, 'cputime');
});

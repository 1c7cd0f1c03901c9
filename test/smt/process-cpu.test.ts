// The CPU time of the process tree, read often by hot loops: readings are
// never smaller than earlier ones and follow the work done.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { processTreeCpuMs } from '../../src/smt/process.js';

test('CPU readings never decrease, follow busy work, and count a child that ran', () => {
  let last = processTreeCpuMs();
  const start = last;
  // 100 000 readings in a row: each one cheap (most reuse the last /proc reading), none smaller than the one before.
  const t0 = performance.now();
  for (let i = 0; i < 100_000; i++) {
    const now = processTreeCpuMs();
    assert.ok(now >= last, `${now} < ${last}`);
    last = now;
  }
  assert.ok(performance.now() - t0 < 5_000, 'readings are cheap');
  // 300 ms of busy work (of this process's own CPU time, not the wall clock: a loaded machine gives less) shows as at least 200 ms.
  const ownCpu = () => (process.cpuUsage().user + process.cpuUsage().system) / 1000;
  const busyUntil = ownCpu() + 300;
  let x = 0;
  while (ownCpu() < busyUntil) for (let i = 0; i < 10_000; i++) x += Math.sqrt(x + 1);
  assert.ok(x > 0);
  const afterBusy = processTreeCpuMs();
  assert.ok(afterBusy - start >= 200, `${afterBusy - start} ms`);
  // A child that burned 300 ms of CPU and was waited for counts too.
  const child = spawnSync(process.execPath, ['-e', 'const cpu = () => process.cpuUsage().user / 1000; const e = cpu() + 300; while (cpu() < e);']);
  assert.equal(child.status, 0);
  // The next reading more than 10 ms later reads /proc again.
  const wait = performance.now() + 20;
  while (performance.now() < wait);
  assert.ok(processTreeCpuMs() - afterBusy >= 200, 'the child is counted');
});

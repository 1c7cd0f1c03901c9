// CPU time per phase of a verification, for `--verbose`.

import { processTreeCpuMs } from '../smt/index.js';

/** CPU seconds this process and its children (solvers, gcc) used since `startMs` (of processTreeCpuMs). */
export function cpuSeconds(startMs: number): number {
  return (processTreeCpuMs() - startMs) / 1000;
}

/**
 * CPU time (this process and its solver and gcc processes) per phase of a
 * run: `start-up` is what the process used before `verify` began (loading
 * modules, starting the worker thread).
 */
export class PhaseProfile {
  private readonly phases = new Map<string, number>();
  private last: number;
  constructor(private readonly start: number) {
    this.last = start;
  }
  /** Charges the CPU time since the last mark to `phase`. */
  mark(phase: string): void {
    const now = processTreeCpuMs();
    this.phases.set(phase, (this.phases.get(phase) ?? 0) + now - this.last);
    this.last = now;
  }
  summary(): string {
    const parts = [`start-up ${Math.round(this.start)}`, ...[...this.phases].map(([k, v]) => `${k} ${Math.round(v)}`)];
    return `profile (CPU ms): ${parts.join(', ')}; total ${Math.round(this.last)}`;
  }
}

import { availableParallelism, cpus, hostname, totalmem } from 'node:os';

/** Where a run ran: recorded with each result, so that reports can tell machines apart. */
export interface MachineInfo {
  /** The worker's name (`local` for runs of `tarsier bench` itself). */
  readonly worker: string;
  readonly host: string;
  readonly cpuModel: string;
  /** Logical cores available to the process. */
  readonly cores: number;
  /** Total memory in bytes. */
  readonly memory: number;
}

export function machineInfo(worker: string): MachineInfo {
  return {
    worker,
    host: hostname(),
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    cores: availableParallelism(),
    memory: totalmem(),
  };
}

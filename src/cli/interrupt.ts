// SIGINT and SIGTERM during a long command (verify, validate): every child
// process ends (solvers, gcc and what it runs), what was found so far is
// printed, and the process exits with the conventional status (130, 143).
// Node's default would exit at once and leave the solvers running.

import { killDescendants } from '../smt/process.js';

const STATUS = { SIGINT: 130, SIGTERM: 143 } as const;
type Interrupt = keyof typeof STATUS;

/** Until the returned function is called: on SIGINT/SIGTERM, children killed, `report(signal)` printed, exit. */
export function onInterrupt(report: (signal: Interrupt) => void): () => void {
  const handler = (signal: Interrupt) => {
    killDescendants();
    try {
      report(signal);
    } catch {
      // standard output is gone: the exit status still says it
    }
    process.exit(STATUS[signal]);
  };
  const handlers = (Object.keys(STATUS) as Interrupt[]).map((signal) => {
    const h = () => handler(signal);
    process.on(signal, h);
    return [signal, h] as const;
  });
  return () => {
    for (const [signal, h] of handlers) process.off(signal, h);
  };
}

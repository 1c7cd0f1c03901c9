// An SMT-LIB 2 solver run as a child process (z3, cvc5 or any binary that
// reads SMT-LIB on standard input), talking over pipes.
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, readFileSync, readdirSync } from 'node:fs';
import { totalmem } from 'node:os';
import { basename, delimiter, isAbsolute, join } from 'node:path';
import { SmtLibSolver, cvc5Dialect, genericDialect, z3Dialect, type Channel, type ChannelReply, type SmtLibDialect, type Solver } from './solver.js';

const SYNC = 'tarsier-sync';

/** The absolute path of an executable found on PATH (or the path itself when it is one), else undefined. */
export function findExecutable(name: string): string | undefined {
  const candidates = name.includes('/') ? [name] : (process.env.PATH ?? '').split(delimiter).filter(Boolean).map((d) => join(d, name));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      return isAbsolute(c) ? c : join(process.cwd(), c);
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICKS = 100;

/** utime+stime (+ cutime+cstime: waited-for children) of a process from /proc, in ticks. */
function procCpuTicks(pid: number | string, withChildren: boolean): { ticks: number; children: string[] } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may contain spaces.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  let ticks = Number(f[11]) + Number(f[12]);
  if (withChildren) ticks += Number(f[13]) + Number(f[14]);
  return { ticks, children: childPids(pid) };
}

/** The child processes of a process (of all its threads), from /proc; none without /proc. */
function childPids(pid: number | string): string[] {
  const children: string[] = [];
  try {
    for (const t of readdirSync(`/proc/${pid}/task`)) {
      children.push(...readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').split(' ').filter(Boolean));
    }
  } catch {
    // no children list on this kernel, or the process ended
  }
  return children;
}

/**
 * Ends every process this process started, and their descendants (solvers,
 * gcc and what gcc runs): all are listed first and then killed, so none is
 * re-parented away before it is found.
 */
export function killDescendants(): void {
  const all: string[] = [];
  const todo = childPids('self');
  while (todo.length > 0) {
    const pid = todo.pop()!;
    all.push(pid);
    todo.push(...childPids(pid));
  }
  for (const pid of all) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // ended meanwhile
    }
  }
}

/** The last reading of /proc: when it was taken (wall clock) and what it gave; and the largest value returned. */
let lastReading: { readonly wallMs: number; readonly cpuMs: number } | undefined;
let lastReturned = 0;

/**
 * Readings closer together than this reuse the last one, plus the wall
 * time since: /proc counts in 10-ms ticks anyway, and the one-path
 * execution, which checks its deadline every few thousand steps, spent a
 * third of its time reading /proc (1.7 of 5 s on 35 million steps).
 */
const READING_REUSE_MS = 10;

/**
 * CPU time of this process and everything it started (solver processes,
 * compilers), in ms: the process's threads, its waited-for children and its
 * live descendants. Falls back to this process alone without /proc. Never
 * less than an earlier reading.
 */
export function processTreeCpuMs(): number {
  const now = performance.now();
  let cpuMs: number;
  if (lastReading && now - lastReading.wallMs < READING_REUSE_MS) cpuMs = lastReading.cpuMs + (now - lastReading.wallMs);
  else {
    cpuMs = readProcessTreeCpuMs();
    lastReading = { wallMs: now, cpuMs };
  }
  lastReturned = Math.max(lastReturned, cpuMs);
  return lastReturned;
}

function readProcessTreeCpuMs(): number {
  try {
    const self = procCpuTicks('self', true);
    let ticks = self.ticks;
    const todo = [...self.children];
    while (todo.length > 0) {
      const pid = todo.pop()!;
      try {
        const c = procCpuTicks(pid, true);
        ticks += c.ticks;
        todo.push(...c.children);
      } catch {
        // ended meanwhile (then counted in cutime once waited for)
      }
    }
    return (ticks * 1000) / TICKS;
  } catch {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  }
}

export interface ProcessSolverSpec {
  readonly path: string;
  readonly args: readonly string[];
  readonly dialect: SmtLibDialect;
}

/**
 * The solver's own limits on its whole process: a solver whose parent was
 * SIGKILLed (a CPU limit, a killed bench run) does not read its closed stdin
 * while it checks, so only these end it. Far above what one run uses: a
 * solver that reaches them answers no more, the channel starts a new one.
 */
export interface ProcessLimits {
  readonly wallS: number;
  /** z3 only (cvc5 has no memory limit of its own). */
  readonly memoryMB: number;
}

export const PROCESS_LIMITS: ProcessLimits = { wallS: 3600, memoryMB: Math.min(8192, Math.floor(totalmem() / 2 / 2 ** 20)) };

/** How to run a solver binary: z3 and cvc5 are recognised by name; others get SMT-LIB on stdin and no options. */
export function processSolverSpec(path: string, limits: ProcessLimits = PROCESS_LIMITS): ProcessSolverSpec {
  const base = basename(path).toLowerCase();
  if (base.startsWith('z3')) return { path, args: ['-in', '-smt2', `-T:${limits.wallS}`, `-memory:${limits.memoryMB}`], dialect: z3Dialect };
  if (base.startsWith('cvc5') || base.startsWith('cvc4')) return { path, args: ['--lang=smt2', '--incremental', `--tlimit=${limits.wallS * 1000}`], dialect: cvc5Dialect };
  return { path, args: [], dialect: genericDialect };
}

type Refable = { ref?: () => unknown; unref?: () => unknown } | null | undefined;

function setReferenced(proc: ChildProcess, on: boolean): void {
  for (const h of [proc, proc.stdin, proc.stdout, proc.stderr] as Refable[]) {
    if (on) h?.ref?.();
    else h?.unref?.();
  }
}

/** Solver processes of this thread that are running. */
const live = new Set<ChildProcess>();

/** Ends every solver process this thread started (a process busy in a check would outlive its caller). */
export function killSolverProcesses(): void {
  for (const p of live) p.kill('SIGKILL');
  live.clear();
}

class ProcessChannel implements Channel {
  private proc: ChildProcess | undefined;
  private stdout = '';
  private stderr = '';
  private onData: (() => void) | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly spec: ProcessSolverSpec) {}

  private startProcess(): ChildProcess {
    const proc = spawn(this.spec.path, [...this.spec.args], { stdio: ['pipe', 'pipe', 'pipe'] });
    live.add(proc);
    this.stdout = '';
    this.stderr = '';
    proc.stdout!.setEncoding('utf8');
    proc.stderr!.setEncoding('utf8');
    proc.stdout!.on('data', (d: string) => {
      this.stdout += d;
      this.onData?.();
    });
    proc.stderr!.on('data', (d: string) => {
      this.stderr += d;
    });
    proc.stdin!.on('error', () => undefined); // reported through 'exit'
    const gone = () => {
      live.delete(proc);
      if (this.proc === proc) this.proc = undefined;
      this.onData?.();
    };
    proc.on('exit', gone);
    proc.on('error', (e) => {
      this.stderr += e.message;
      gone();
    });
    return proc;
  }

  exec(build: (fresh: boolean) => string, deadlineMs?: number): Promise<ChannelReply> {
    const run = async (): Promise<ChannelReply> => {
      let fresh = false;
      if (!this.proc) {
        this.proc = this.startProcess();
        fresh = true;
      }
      const proc = this.proc;
      this.stdout = '';
      setReferenced(proc, true);
      proc.stdin!.write(build(fresh) + `(echo "${SYNC}")\n`);
      return new Promise<ChannelReply>((resolve) => {
        let timer: NodeJS.Timeout | undefined;
        const finish = (r: ChannelReply) => {
          this.onData = undefined;
          if (timer) clearTimeout(timer);
          // An idle solver process never holds this process open.
          setReferenced(proc, false);
          resolve(r);
        };
        this.onData = () => {
          const m = new RegExp(`^"?${SYNC}"?\\r?$`, 'm').exec(this.stdout);
          if (m) {
            const output = this.stdout.slice(0, m.index);
            this.stdout = this.stdout.slice(m.index + m[0].length).replace(/^\n/, '');
            finish({ output });
          } else if (this.proc !== proc) {
            finish({ crashed: (this.stderr.trim() || this.stdout.trim() || 'the solver process ended').slice(0, 500) });
          }
        };
        if (deadlineMs !== undefined) {
          timer = setTimeout(() => {
            if (this.proc === proc) this.proc = undefined;
            proc.kill('SIGKILL');
            finish({ timedOut: true });
          }, deadlineMs);
        }
        this.onData();
      });
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  async dispose(): Promise<void> {
    const proc = this.proc;
    this.proc = undefined;
    if (!proc) return;
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        proc.kill('SIGKILL');
        resolve();
      }, 1000);
      proc.once('exit', () => {
        clearTimeout(t);
        resolve();
      });
      proc.stdin!.end('(exit)\n');
    });
  }
}

/**
 * Runs one whole SMT-LIB script on a fresh solver process (e.g. a Horn
 * query, which is no incremental session) and returns what it printed; the
 * process is killed at `deadlineMs` (wall clock).
 */
export function runProcessScript(spec: ProcessSolverSpec, script: string, deadlineMs: number): Promise<ChannelReply> {
  const channel = new ProcessChannel(spec);
  return channel.exec(() => script, deadlineMs).finally(() => channel.dispose());
}

export function createProcessSolver(spec: ProcessSolverSpec): Solver {
  return new SmtLibSolver(`process:${basename(spec.path)}`, new ProcessChannel(spec), spec.dialect);
}

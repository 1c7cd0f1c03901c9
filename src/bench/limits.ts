import { spawn } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { processTree, readProcStat, ticksPerSecond, parseProcStat, type ProcStat } from './proc.js';

export interface Limits {
  /** CPU seconds of the whole process tree. */
  readonly cpuTime: number;
  /** Wall seconds; a tool that hangs without using CPU is killed after this. */
  readonly wallTime: number;
  /** Bytes of resident memory summed over the process tree. */
  readonly memory?: number;
}

export type Termination = 'exited' | 'cputime' | 'walltime' | 'memory' | 'signal' | 'spawn-error' | 'aborted';

export interface Measurement {
  readonly termination: Termination;
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** CPU seconds of the tree (user + system). */
  readonly cpuTime: number;
  readonly wallTime: number;
  /** Peak of the polled sum of RSS of the tree, in bytes. */
  readonly memory: number;
  /** Whether CPU time came from the exact end-of-run accounting (not polling only). */
  readonly cpuExact: boolean;
  /** stdout and stderr, interleaved as received (truncated after `maxOutput` bytes). */
  readonly output: string;
  readonly outputTruncated: boolean;
  readonly error?: string;
}

export interface RunLimitedOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Polling interval in milliseconds (default 100). */
  readonly pollMs?: number;
  /** Bytes of output kept in memory (default 4 MiB; the rest is dropped but counted). */
  readonly maxOutput?: number;
  /** Also write the output to this file. */
  readonly logFile?: string;
  /** Aborting kills the whole tree; the measurement then says `aborted`. */
  readonly signal?: AbortSignal;
}

// The tool runs under a shell that waits for it and then reports its own
// /proc stat on fd 3: after the wait, the shell's cutime/cstime hold the CPU
// time of the tool and of every descendant that was waited for, to the clock
// tick, including the last moments that polling cannot see.
const WRAPPER = '"$@"; s=$?; read -r st < /proc/$$/stat; printf "%s\\n" "$st" >&3; exit $s';

/**
 * Runs `command args` as a child process in a session of its own, polling
 * /proc to measure and limit the CPU time and memory of its whole process
 * tree, with a wall-time guard. On any limit the whole tree gets SIGKILL.
 */
export function runLimited(command: string, args: readonly string[], limits: Limits, options: RunLimitedOptions = {}): Promise<Measurement> {
  const pollMs = options.pollMs ?? 100;
  const maxOutput = options.maxOutput ?? 4 * 1024 * 1024;
  const hz = ticksPerSecond();
  const start = process.hrtime.bigint();
  const elapsed = () => Number(process.hrtime.bigint() - start) / 1e9;

  return new Promise((resolvePromise) => {
    let log: number | undefined;
    if (options.logFile) log = openSync(options.logFile, 'w');
    const chunks: Buffer[] = [];
    let kept = 0;
    let truncated = false;
    const onData = (b: Buffer) => {
      if (log !== undefined) writeSync(log, b);
      if (kept < maxOutput) {
        const part = b.subarray(0, maxOutput - kept);
        chunks.push(part);
        kept += part.length;
        if (part.length < b.length) truncated = true;
      } else truncated = true;
    };
    let report = '';

    const child = spawn('/bin/sh', ['-c', WRAPPER, 'tarsier-bench', command, ...args], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      detached: true, // own session and process group, so the tree can be found and killed
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (b: Buffer) => (report += b.toString('utf8')));

    const pid = child.pid;
    let termination: Termination | undefined;
    let peakMemory = 0;
    let polledTicks = 0;
    /** CPU of processes that ended outside the tree's care (re-parented, reaped by init): no member's cutime holds it. */
    let orphanTicks = 0;
    /** CPU of the processes alive at the last poll. */
    let liveTicks = 0;
    let lastSeen = new Map<number, { ticks: number; ppid: number }>();
    const everSeen = new Set<number>();
    let spawnError: string | undefined;

    const killTree = () => {
      if (pid === undefined) return;
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
      // Descendants that left the process group.
      for (const p of lastSeen.keys()) {
        try {
          process.kill(p, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
    };

    const poll = () => {
      if (pid === undefined) return;
      const now = new Map<number, { ticks: number; ppid: number }>();
      let ticks = 0;
      let rss = 0;
      // Each process's time is its own plus that of the children it reaped:
      // read parents before their children, so a child reaped between the
      // two reads is missed for one poll instead of counted twice.
      for (const p of parentsFirst(processTree(pid, pid, everSeen))) {
        const s = readProcStat(p.pid);
        if (!s) continue;
        ticks += s.cpuTicks;
        rss += s.rssBytes;
        now.set(s.pid, { ticks: s.cpuTicks, ppid: s.ppid });
        everSeen.add(s.pid);
      }
      // A process that vanished while its parent was outside the tree (an
      // orphan adopted by init) was not reaped by the tree, so its time
      // reaches no tree member's cutime: keep it. A process whose parent was
      // ever in the tree was reaped by it, even if the parent's own stat was
      // not read at the last poll; its time moved up (counting it here too
      // counted it twice). The wrapper shell is reaped by this process: its
      // time is the report's (never added twice).
      for (const [p, info] of lastSeen) {
        if (!now.has(p) && p !== pid && info.ppid !== pid && !everSeen.has(info.ppid)) orphanTicks += info.ticks;
      }
      lastSeen = now;
      liveTicks = ticks;
      polledTicks = Math.max(polledTicks, ticks + orphanTicks);
      peakMemory = Math.max(peakMemory, rss);
      if (termination) return;
      if (polledTicks / hz >= limits.cpuTime) termination = 'cputime';
      else if (limits.memory !== undefined && rss > limits.memory) termination = 'memory';
      else if (elapsed() >= limits.wallTime) termination = 'walltime';
      if (termination) killTree();
    };

    const timer = setInterval(poll, pollMs);
    const onAbort = () => {
      termination ??= 'aborted';
      killTree();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    let finished = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (finished) return;
      finished = true;
      clearInterval(timer);
      options.signal?.removeEventListener('abort', onAbort);
      const wall = elapsed();
      // Kill anything the tool left behind (it counts as part of the run).
      if (pid !== undefined) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          /* none left */
        }
      }
      if (log !== undefined) closeSync(log);
      let cpuExact = false;
      let cpuTicks = polledTicks;
      const st = report.trim() ? parseProcStat(report.trim().split('\n').pop()!) : undefined;
      if (st) {
        // cutime + cstime of the wrapper = the tool's tree, as waited for;
        // plus orphans that ended outside it and what is still running
        // (the final poll saw no wrapper any more: only leftovers).
        const line = report.trim().split('\n').pop()!;
        const fields = line.slice(line.lastIndexOf(')') + 2).split(/\s+/);
        const childTicks = Number(fields[16 - 3]) + Number(fields[17 - 3]);
        if (Number.isFinite(childTicks)) {
          cpuTicks = childTicks + orphanTicks + liveTicks;
          cpuExact = true;
        }
      }
      const cpuTime = cpuTicks / hz;
      let exitCode = code;
      let sig: string | null = signal;
      // The wrapper reports a tool killed by signal N as exit status 128 + N.
      if (st && code !== null && code > 128 && code < 128 + 65) {
        sig = signalName(code - 128);
        exitCode = null;
      }
      // A report means the tool ended by itself (a kill ends the wrapper
      // too): its own ending stands, unless its exact CPU time reached the limit.
      let term: Termination = termination && !(st && termination !== 'aborted') ? termination : spawnError ? 'spawn-error' : sig ? 'signal' : 'exited';
      // The rules: TIME at or above the limit is a timeout even if the tool just finished.
      if (term !== 'memory' && term !== 'aborted' && cpuTime >= limits.cpuTime) term = 'cputime';
      const output = Buffer.concat(chunks).toString('utf8');
      resolvePromise({
        termination: term,
        exitCode,
        signal: sig,
        cpuTime: Math.round(cpuTime * 1000) / 1000,
        wallTime: Math.round(wall * 1000) / 1000,
        memory: peakMemory,
        cpuExact,
        output,
        outputTruncated: truncated,
        ...(spawnError ? { error: spawnError } : {}),
      });
    };
    child.on('error', (e) => {
      spawnError = e.message;
      finish(null, null);
    });
    // 'close' waits for the pipes, which a leftover grandchild may hold open:
    // use 'exit', then give the pipes a moment to drain.
    child.on('exit', (code, signal) => {
      poll();
      const done = () => finish(code, signal);
      let pending = 3;
      const drained = () => {
        if (--pending === 0) done();
      };
      for (const s of [child.stdout!, child.stderr!, child.stdio[3] as NodeJS.ReadableStream]) {
        if ((s as NodeJS.ReadableStream & { readableEnded?: boolean }).readableEnded) drained();
        else s.once('end', drained);
      }
      setTimeout(() => {
        if (finished) return;
        killTree();
        setTimeout(done, 200);
      }, 500);
    });
  });
}

/** The processes ordered so that each comes after its parent (when its parent is among them). */
function parentsFirst(procs: readonly ProcStat[]): ProcStat[] {
  const byPid = new Map(procs.map((p) => [p.pid, p]));
  const depth = new Map<number, number>();
  const depthOf = (p: ProcStat): number => {
    let d = depth.get(p.pid);
    if (d !== undefined) return d;
    depth.set(p.pid, 0); // a cycle cannot happen, but never loop
    const parent = byPid.get(p.ppid);
    d = parent ? depthOf(parent) + 1 : 0;
    depth.set(p.pid, d);
    return d;
  };
  return [...procs].sort((a, b) => depthOf(a) - depthOf(b));
}

const SIGNALS: Record<number, string> = {
  1: 'SIGHUP',
  2: 'SIGINT',
  3: 'SIGQUIT',
  4: 'SIGILL',
  6: 'SIGABRT',
  7: 'SIGBUS',
  8: 'SIGFPE',
  9: 'SIGKILL',
  11: 'SIGSEGV',
  13: 'SIGPIPE',
  14: 'SIGALRM',
  15: 'SIGTERM',
  24: 'SIGXCPU',
  25: 'SIGXFSZ',
};

function signalName(n: number): string {
  return SIGNALS[n] ?? `signal ${n}`;
}

import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** What /proc/<pid>/stat tells about one process. */
export interface ProcStat {
  readonly pid: number;
  readonly ppid: number;
  readonly pgrp: number;
  readonly session: number;
  readonly state: string;
  /** utime + stime + cutime + cstime, in clock ticks: the process and its reaped descendants. */
  readonly cpuTicks: number;
  /** Resident set size in bytes. */
  readonly rssBytes: number;
}

function getconf(name: string, fallback: number): number {
  try {
    const v = Number(execFileSync('getconf', [name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    return Number.isFinite(v) && v > 0 ? v : fallback;
  } catch {
    return fallback;
  }
}

let clockTicks: number | undefined;
let pageSize: number | undefined;

/** Clock ticks per second of the times in /proc (`getconf CLK_TCK`, 100 on Linux). */
export function ticksPerSecond(): number {
  return (clockTicks ??= getconf('CLK_TCK', 100));
}

export function pageBytes(): number {
  return (pageSize ??= getconf('PAGESIZE', 4096));
}

/**
 * Parses one /proc/<pid>/stat line. The command name is in parentheses and
 * may itself contain spaces and parentheses, so fields are counted from the
 * last ')'.
 */
export function parseProcStat(line: string): ProcStat | undefined {
  const open = line.indexOf('(');
  const close = line.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const pid = Number(line.slice(0, open).trim());
  const f = line.slice(close + 2).trim().split(/\s+/);
  // f[0] is field 3 (state) of proc(5); field n is f[n - 3].
  if (f.length < 22) return undefined;
  const n = (field: number) => Number(f[field - 3]);
  return {
    pid,
    state: f[0],
    ppid: n(4),
    pgrp: n(5),
    session: n(6),
    cpuTicks: n(14) + n(15) + n(16) + n(17),
    rssBytes: n(24) * pageBytes(),
  };
}

export function readProcStat(pid: number): ProcStat | undefined {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Every process visible in /proc. */
export function allProcesses(): ProcStat[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: ProcStat[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const s = readProcStat(Number(name));
    if (s) out.push(s);
  }
  return out;
}

/**
 * The processes of the tree rooted at `root`: its descendants by parent
 * link, plus every process of its session (which catches descendants whose
 * parent died and who were re-parented, unless they started a new session).
 * Zombies are kept: their times reach the parent's cutime only when reaped.
 */
export function processTree(root: number, sessionId: number, known: ReadonlySet<number> = new Set()): ProcStat[] {
  const procs = allProcesses();
  const children = new Map<number, ProcStat[]>();
  for (const p of procs) {
    const list = children.get(p.ppid);
    if (list) list.push(p);
    else children.set(p.ppid, [p]);
  }
  const inTree = new Map<number, ProcStat>();
  const byPid = new Map(procs.map((p) => [p.pid, p]));
  const stack: ProcStat[] = [];
  const rootStat = byPid.get(root);
  if (rootStat) stack.push(rootStat);
  for (const p of procs) if (p.session === sessionId || known.has(p.pid)) stack.push(p);
  while (stack.length > 0) {
    const p = stack.pop()!;
    if (inTree.has(p.pid)) continue;
    inTree.set(p.pid, p);
    for (const c of children.get(p.pid) ?? []) stack.push(c);
  }
  return [...inTree.values()];
}

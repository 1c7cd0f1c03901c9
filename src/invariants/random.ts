// Random small IMP programs with (nested) loops and random inline candidate
// sets, for the differential soundness test and the benchmark. Deterministic
// for a given seed. Every loop is bounded by a counter so that concrete runs
// terminate; candidates are drawn from templates over the program's variables
// so that some are invariant, some hold only on entry, and some hold together
// but not alone.

import { rng } from '../common/random.js';

export { rng };

export interface RandomProgramOptions {
  /** Candidates per loop (default 3). */
  readonly candidatesPerLoop?: number;
  /** Probability that a loop body contains a nested loop (default 0.4). */
  readonly nestProb?: number;
  /** Number of outermost loops (default 1). */
  readonly loops?: number;
}

const DATA = ['x', 'y', 'z', 'w'];

export function randomProgram(seed: number, opts: RandomProgramOptions = {}): string {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  const k = opts.candidatesPerLoop ?? 3;
  const nestProb = opts.nestProb ?? 0.4;
  const counters: string[] = [];
  const assigned: Set<string>[] = [];
  const lines: string[] = [];
  const counter = () => {
    const c = `i${counters.length}`;
    counters.push(c);
    return c;
  };
  // Initial constants: candidates `v == init` hold on entry, and are the
  // ones that can be preserved only thanks to each other.
  const init = new Map<string, number>();
  const atom = (vars: readonly string[]): string => {
    const a = pick(vars);
    if (init.has(a) && r() < 0.35) return `${a} == ${init.get(a)}`;
    const b = pick(vars.filter((x) => x !== a).concat(a));
    switch (int(0, 6)) {
      case 0:
        return `${a} == ${int(-1, 2)}`;
      case 1:
        return `${a} >= ${int(-1, 2)}`;
      case 2:
        return `${a} <= ${int(0, 6)}`;
      case 3:
        return `${a} == ${b}`;
      case 4:
        return `${a} <= ${b}`;
      case 5:
        return `${a} + ${b} >= ${int(-1, 3)}`;
      default:
        return `${a} - ${b} == ${int(-1, 1)}`;
    }
  };
  const candidate = (vars: readonly string[]): string => {
    const u = r();
    if (u < 0.7) return atom(vars);
    if (u < 0.85) return `${atom(vars)} && ${atom(vars)}`;
    return `${atom(vars)} || ${atom(vars)}`;
  };
  const assign = (): string => {
    const t = pick(DATA);
    const a = pick(DATA);
    assigned.forEach((set) => set.add(t));
    switch (int(0, 6)) {
      case 6:
        // an accumulator: t grows by a, which grows itself
        if (a === t) return `${t} := ${t} + ${t};`;
        assigned.forEach((set) => set.add(a));
        return `${t} := ${t} + ${a}; ${a} := ${a} + 1;`;
      case 0:
        return `${t} := ${t} + ${int(1, 2)};`;
      case 1:
        return `${t} := ${a};`;
      case 2:
        return `${t} := ${t} + ${a};`;
      case 3:
        return `${t} := ${int(0, 2)};`;
      case 4:
        return `${t} := ${a} - ${t};`;
      default:
        return `${t} := ${t} - 1;`;
    }
  };
  const loop = (indent: string, depth: number): void => {
    const c = counter();
    const bound = depth === 0 ? 'n' : 'm';
    lines.push(`${indent}${c} := 0;`);
    const vars = [...DATA, c, bound];
    lines.push(`${indent}while (${c} < ${bound})`);
    const at = lines.length;
    const mine = new Set<string>();
    assigned.push(mine);
    lines.push(`${indent}{`);
    const inner = indent + '  ';
    const stmts = int(1, 3);
    const nestAt = depth < 2 && r() < nestProb ? int(0, stmts) : -1;
    for (let s = 0; s <= stmts; s++) {
      if (s === nestAt) loop(inner, depth + 1);
      if (s === stmts) break;
      if (r() < 0.25) {
        lines.push(`${inner}if (${atom(DATA)}) {`, `${inner}  ${assign()}`, `${inner}} else {`, `${inner}  ${assign()}`, `${inner}}`);
      } else lines.push(`${inner}${assign()}`);
    }
    lines.push(`${inner}${c} := ${c} + 1;`);
    lines.push(`${indent}}`);
    assigned.pop();
    // Half of the candidates talk about variables the loop writes.
    const written = [...mine].sort();
    const cands: string[] = [];
    for (let j = 0; j < k; j++) cands.push(`${indent}  candidate ${candidate(written.length > 0 && r() < 0.5 ? written : vars)};`);
    lines.splice(at, 0, ...cands);
  };
  const body: string[] = [];
  for (const x of DATA) {
    if (r() < 0.6) {
      const c = int(0, 1);
      init.set(x, c);
      body.push(`  ${x} := ${c};`);
    } else body.push(`  ${x} := havoc;`, `  assume ${-1} <= ${x} && ${x} <= ${int(1, 3)};`);
  }
  body.push('  n := havoc;', `  assume 0 <= n && n <= ${int(2, 4)};`, '  m := havoc;', '  assume 0 <= m && m <= 2;');
  const nLoops = opts.loops ?? 1;
  for (let l = 0; l < nLoops; l++) loop('  ', 0);
  body.push(...lines);
  const decls = [...DATA, 'n', 'm', ...counters].join(', ');
  return `procedure main()\n{\n  var ${decls}: int;\n${body.join('\n')}\n}\n`;
}

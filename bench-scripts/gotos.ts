/**
 * What the goto elimination costs: for every function with a goto (or a
 * switch with nested case labels) of the programs of ../shared/bench (and of
 * TARSIER_CORPUS when set), the jumps, the flags and loops it adds, the
 * statements before and after, and its time.
 * Usage: node dist/bench-scripts/gotos.js [--verbose]
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { BlockItem, CompoundStmt } from '../src/c/ast.js';
import { parseCFile } from '../src/c/index.js';
import { eliminateGotos, needsGotoElimination } from '../src/c/goto-elimination.js';
import type { DataModel } from '../src/c/types.js';

const verbose = process.argv.includes('--verbose');
const root = resolve(process.argv[1], '../../../../shared/bench/sv-benchmarks');
const programs = new Map<string, DataModel>();
for (const line of readFileSync(join(root, 'MANIFEST.csv'), 'utf8').trim().split('\n').slice(1)) {
  const cols = line.split(',');
  programs.set(join(root, cols[1]), cols[5] as DataModel);
}
const corpus = process.env.TARSIER_CORPUS;
if (corpus && existsSync(corpus)) {
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (/\.[ci]$/.test(e.name) && !programs.has(join(dir, e.name))) programs.set(join(dir, e.name), 'ILP32');
    }
  };
  walk(corpus);
}

interface Counts {
  statements: number;
  gotos: number;
  ifs: number;
  loops: number;
  syntheticIfs: number;
  syntheticLoops: number;
}

function count(body: CompoundStmt): Counts {
  const c: Counts = { statements: 0, gotos: 0, ifs: 0, loops: 0, syntheticIfs: 0, syntheticLoops: 0 };
  const visit = (s: BlockItem): void => {
    c.statements++;
    switch (s.kind) {
      case 'Compound': for (const x of s.items) visit(x); return;
      case 'If': c.ifs++; if (s.synthetic) c.syntheticIfs++; visit(s.then); if (s.else) visit(s.else); return;
      case 'While': case 'For': c.loops++; visit(s.body); return;
      case 'DoWhile': c.loops++; if (s.synthetic) c.syntheticLoops++; visit(s.body); return;
      case 'Switch': case 'Case': case 'Default': case 'Label': visit(s.body); return;
      case 'Goto': c.gotos++; return;
      default: return;
    }
  };
  visit(body);
  return c;
}

const total = { functions: 0, gotos: 0, before: 0, after: 0, flags: 0, ifs: 0, loops: 0, ms: 0 };
const failures: string[] = [];
for (const [file, dm] of [...programs].sort()) {
  let prog;
  try {
    prog = parseCFile(file, { dataModel: dm });
  } catch {
    continue;
  }
  const ids = { value: 2_000_000_000 };
  for (const f of prog.functions) {
    if (!f.body || !needsGotoElimination(f.body)) continue;
    const before = count(f.body);
    const t0 = process.hrtime.bigint();
    let body: CompoundStmt;
    try {
      body = eliminateGotos(f.body, dm, ids);
    } catch (e) {
      failures.push(`${file} ${f.name}: ${(e as Error).message}`);
      continue;
    }
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const after = count(body);
    const flags = body.items.filter((x) => x.kind === 'DeclStmt' && x.declaration.declarators.some((d) => d.decl.kind === 'Var' && d.decl.synthetic)).length;
    total.functions++;
    total.gotos += before.gotos;
    total.before += before.statements;
    total.after += after.statements;
    total.flags += flags;
    total.ifs += after.syntheticIfs;
    total.loops += after.syntheticLoops;
    total.ms += ms;
    if (verbose) {
      console.log(`${file.replace(root + '/', '')} ${f.name}: ${before.gotos} gotos, ${before.statements} -> ${after.statements} statements, ${flags} flags and temporaries, ${after.syntheticIfs} tests, ${after.syntheticLoops} loops added, ${ms.toFixed(1)} ms`);
    }
  }
}
console.log(`${total.functions} functions with jumps, ${total.gotos} gotos: statements ${total.before} -> ${total.after} (x${(total.after / Math.max(1, total.before)).toFixed(2)}), ${total.flags} flags and temporaries, ${total.ifs} tests and ${total.loops} loops added, ${total.ms.toFixed(1)} ms in all`);
for (const f of failures) console.log(`failed: ${f}`);

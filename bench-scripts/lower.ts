/**
 * Lowers every program of ../shared/bench (MANIFEST.csv) to IMP and counts
 * how many lower without an unsupported construct (and type-check), per
 * directory, with the unsupported constructs that block the others.
 * Usage: node dist/bench-scripts/lower.js [--property unreach-call|no-overflow] [--verbose]
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseCFile } from '../src/c/index.js';
import type { DataModel } from '../src/c/types.js';
import { typecheckImp } from '../src/ivl/typecheck.js';
import { lowerProgram } from '../src/lower/index.js';
import { passesOf } from '../src/properties/index.js';

const root = resolve(process.argv[1], '../../../../shared/bench/sv-benchmarks');
const verbose = process.argv.includes('--verbose');
const manifest = readFileSync(join(root, 'MANIFEST.csv'), 'utf8').trim().split('\n').slice(1);
const seen = new Map<string, { dir: string; dm: DataModel; props: Set<string> }>();
for (const line of manifest) {
  const [, program, property, , , dm, dir] = line.split(',');
  const key = `${program}|${dm}`;
  const entry = seen.get(key) ?? { dir, dm: dm as DataModel, props: new Set<string>() };
  entry.props.add(property);
  seen.set(key, entry);
}
const perDir = new Map<string, { total: number; ok: number }>();
const reasons = new Map<string, number>();
let ok = 0;
let total = 0;
const started = Date.now();
for (const [key, { dir, dm, props }] of [...seen.entries()].sort()) {
  const program = key.split('|')[0];
  const property = props.has('no-overflow') && !props.has('unreach-call') ? 'no-overflow' : 'unreach-call';
  const d = perDir.get(dir) ?? { total: 0, ok: 0 };
  perDir.set(dir, d);
  d.total++;
  total++;
  let reason: string | undefined;
  try {
    const c = parseCFile(join(root, program), { dataModel: dm });
    const lowered = lowerProgram(c, { passes: passesOf(property), dataModel: dm });
    if (lowered.unsupported) {
      const u = lowered.unsupported;
      reason = `unsupported: ${u.construct}`;
      if (verbose) console.log(`${program}: ${u.loc.line}:${u.loc.column}: ${u.construct}`);
    } else {
      const diags = typecheckImp(lowered.imp);
      if (diags.length) {
        reason = `IMP type error: ${diags[0].message}`;
        console.log(`${program}: IMP type error at ${diags[0].loc.line}:${diags[0].loc.column}: ${diags[0].message}`);
      }
    }
  } catch (e) {
    reason = `error: ${(e as Error).message.split('\n')[0]}`;
    if (verbose) console.log(`${program}: ${reason}`);
  }
  if (reason) reasons.set(reason.replace(/'[^']*'/g, "'…'"), (reasons.get(reason.replace(/'[^']*'/g, "'…'")) ?? 0) + 1);
  else {
    ok++;
    d.ok++;
  }
}
console.log('directory                      lowered / programs');
for (const [dir, d] of [...perDir.entries()].sort()) console.log(`${dir.padEnd(30)} ${String(d.ok).padStart(4)} / ${d.total}`);
console.log(`${'total'.padEnd(30)} ${String(ok).padStart(4)} / ${total}   (${((Date.now() - started) / 1000).toFixed(1)} s)`);
console.log('\nblocking reasons:');
for (const [r, n] of [...reasons.entries()].sort((a, b) => b[1] - a[1])) console.log(`${String(n).padStart(4)}  ${r}`);

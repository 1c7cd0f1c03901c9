// Validation of a non-termination witness (2.1 violation sequence with
// `cycle` segments): the stem's values, then the cycle's values repeated
// forever. The witness's values (`function_return` waypoints, `\result == N`)
// are pinned in the C text: each nondet call at a pinned place returns the
// next value of the sequence (after the stem, the cycle's values over and
// over); a pinned call out of turn is a run the witness does not represent
// and ends it (`abort()`, which terminates). Nondet calls at other places
// stay free. The pinned program goes through `verify` under termination:
// a non-termination it proves (a lasso gcc replays) is an infinite run of
// the program that the witness represents (confirmed, FALSE(termination));
// a proof that it terminates shows no represented run is infinite (refuted,
// TRUE). The branching waypoints of the cycle name its loop; the values
// already fix the run, so they are not checked.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { typeToString, type CProgram } from '../c/index.js';
import { TarsierError } from '../common/errors.js';
import { propertyRow } from '../properties/index.js';
import { NONDET_TYPES } from '../replay/harness.js';
import { verify, type Resolved } from '../verify/index.js';
import { toOneBasedColumn, type ViolationSequenceEntry, type Waypoint } from '../witness/model.js';
import { ProgramEdits } from './instrument.js';
import { programPoints, type CallPoint } from './program-points.js';
import type { Outcome } from './violation.js';

export interface CycleValidation {
  readonly outcome: Outcome;
  readonly reason: string;
  /** The program with the witness's values pinned (for `--emit-program`). */
  readonly program: string;
}

export interface CycleContext {
  readonly resolved: Resolved;
  readonly c: CProgram;
  readonly text: string;
  readonly entry: ViolationSequenceEntry;
  readonly budgetS: () => number;
  readonly log: (m: string) => void;
}

/** The witness has cycle segments: it stands for an infinite run. */
export function isCycleWitness(entry: ViolationSequenceEntry): boolean {
  return entry.content.some((s) => s.waypoints.some((w) => w.action === 'cycle'));
}

const RESULT = /^\s*\\result\s*==\s*\(?\s*([-+]?\s*(0[xX][0-9a-fA-F]+|\d+))\s*[uUlL]*\s*\)?\s*$/;

interface Pin {
  readonly site: number;
  readonly value: bigint;
}

export async function validateCycle(ctx: CycleContext): Promise<CycleValidation> {
  const { resolved } = ctx;
  const unconfirmed = (reason: string): CycleValidation => ({ outcome: 'unconfirmed', reason, program: ctx.text });
  // The property table says which property's violation witnesses are lassos.
  if (propertyRow(resolved.property.kind).validation?.violation !== 'cycle') {
    return unconfirmed(`a witness with cycle segments stands for non-termination, not for ${resolved.property.kind}`);
  }
  const points = programPoints(ctx.c, ctx.text);
  const sites: CallPoint[] = [];
  const stem: Pin[] = [];
  const cycle: Pin[] = [];
  for (const seg of ctx.entry.content) {
    for (const w of seg.waypoints) {
      if (w.action === 'avoid') return unconfirmed(`an avoid waypoint at line ${w.location.line} in a non-termination witness is not checked`);
      if (w.type === 'branching' && w.action === 'cycle') continue;
      const pin = pinOf(w, points.calls, sites);
      if (typeof pin === 'string') return unconfirmed(`${pin}: only non-termination witnesses that give the nondet values (\\result == N at the calls) are checked`);
      (w.action === 'cycle' ? cycle : stem).push(pin);
    }
  }
  const program = pinnedProgram(ctx.text, points.firstDefinition, sites, stem, cycle);
  const budget = ctx.budgetS();
  if (budget < 2) return { outcome: 'unconfirmed', reason: 'no time left', program };
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-cycle-'));
  try {
    const file = join(dir, basename(resolved.program));
    writeFileSync(file, program);
    let v;
    try {
      v = await verify(file, { propertyDetails: resolved.property, dataModel: resolved.dataModel, timeoutS: budget, witnessPath: null, log: ctx.log });
    } catch (e) {
      if (e instanceof TarsierError) return { outcome: 'unconfirmed', reason: `the program with the witness's values cannot be checked: ${e.message}`, program };
      throw e;
    }
    const what = `the program with the witness's ${stem.length} stem and ${cycle.length} cycle values`;
    if (v.verdict.kind === 'false') return { outcome: 'confirmed', reason: `${what} runs forever: ${v.reason}`, program };
    if (v.verdict.kind === 'true') return { outcome: 'refuted', reason: `${what} always terminates: ${v.reason}`, program };
    return { outcome: 'unconfirmed', reason: `${what}: ${v.reason}`, program };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A function_return waypoint `\result == N` at a nondet call, as a pin (the call joins `sites`), or why not. */
function pinOf(w: Waypoint, calls: readonly CallPoint[], sites: CallPoint[]): Pin | string {
  const where = `line ${w.location.line}`;
  if (w.type !== 'function_return') return `a ${w.type} waypoint at ${where}`;
  const m = RESULT.exec(String(w.constraint?.value ?? ''));
  if (!m) return `the constraint '${String(w.constraint?.value ?? '')}' at ${where} is not \\result == N`;
  const column = toOneBasedColumn(w.location);
  const call = calls.find((c) => c.rparen.line === w.location.line && (column === undefined || c.rparen.column === column) && c.callee !== undefined && NONDET_TYPES[c.callee] !== undefined);
  if (!call) return `no __VERIFIER_nondet call ends at ${where}${column === undefined ? '' : `, column ${column}`}`;
  let site = sites.indexOf(call);
  if (site < 0) site = sites.push(call) - 1;
  return { site, value: BigInt(m[1]!.replace(/\s+/g, '')) };
}

/** The program whose pinned nondet calls return the sequence's values in turn (the cycle's over and over). */
function pinnedProgram(text: string, preludeAt: number, sites: readonly CallPoint[], stem: readonly Pin[], cycle: readonly Pin[]): string {
  const edits = new ProgramEdits(text, preludeAt);
  const all = [...stem, ...cycle];
  // Plain branches, no arrays: the termination engine replays scalar states.
  const cases = all.map((p, i) => `if (__tarsier_next == ${i}) { if (site != ${p.site}) abort(); v = ${p.value > 9223372036854775807n ? `(long long)${p.value}ULL` : `${p.value}LL`}; }`).join(' else ');
  const next = cycle.length > 0 ? stem.length : all.length;
  edits.declare(
    [
      'void abort(void);',
      'static int __tarsier_next;',
      // Out of turn (another site, or no value left): not a run of the witness.
      `static long long __tarsier_pinned(int site) { long long v = 0; ${cases ? `${cases} else ` : ''}abort(); __tarsier_next = __tarsier_next + 1 < ${all.length} ? __tarsier_next + 1 : ${next}; return v; }`,
    ].join(' '),
  );
  sites.forEach((call, site) => {
    const type = NONDET_TYPES[call.callee!] ?? typeToString(call.call.type);
    edits.wrap(call.start, call.end, `((${type})__tarsier_pinned(${site}) /* `, ' */)');
  });
  return edits.render();
}

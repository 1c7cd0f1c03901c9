// A memory-safety property file with a fourth line, `LTL(G valid-memcleanup)`
// (the upstream file has had that form): valid-free, valid-deref and
// valid-memtrack are checked first (a violation is FALSE of that
// sub-property); only when all three hold, valid-memcleanup on its own (a
// block still allocated at the end of main is FALSE(valid-memcleanup)). TRUE
// needs both proofs; anything else is UNKNOWN.

import type { Property } from '../task/index.js';
import { resolveInput } from '../properties/resolve.js';
import type { VerifyOptions, VerifyResult } from './types.js';

type VerifyOne = (input: string, options: VerifyOptions) => Promise<VerifyResult>;

/** The property without its valid-memcleanup line, and that line as a property of its own. */
function split(p: Property): { memsafety: Property; memcleanup: Property } {
  const isCleanup = (formula: string) => /valid-memcleanup/.test(formula);
  const part = (keep: boolean, kind: Property['kind'], subproperties: readonly string[]): Property => {
    const lines = p.lines.filter((l) => isCleanup(l.formula) === keep);
    return { ...p, kind, subproperties, lines, specification: lines.map((l) => l.text).join('\n') };
  };
  return {
    memsafety: part(false, 'valid-memsafety', p.subproperties.filter((s) => s !== 'valid-memcleanup')),
    memcleanup: part(true, 'valid-memcleanup', ['valid-memcleanup']),
  };
}

/** Verifies a memory-safety property with a valid-memcleanup line in two steps; undefined for any other property (or bad input, which `verify` reports). */
export async function verifyWithMemcleanupLine(input: string, options: VerifyOptions, one: VerifyOne): Promise<VerifyResult | undefined> {
  let r;
  try {
    r = resolveInput(input, options);
  } catch {
    return undefined;
  }
  if (r.property.kind !== 'valid-memsafety' || !r.property.subproperties.includes('valid-memcleanup')) return undefined;
  const { memsafety, memcleanup } = split(r.property);
  const { property: _p, prp: _f, ...rest } = options;
  const timeoutS = options.timeoutS ?? 900;
  const first = await one(r.program, { ...rest, propertyDetails: memsafety, dataModel: r.dataModel, timeoutS });
  if (first.verdict.kind !== 'true') return { ...first, property: 'valid-memsafety' };
  const left = timeoutS - first.cpuTimeS;
  const holds = `valid-free, valid-deref and valid-memtrack hold (${first.reason})`;
  if (left < 1) {
    const reason = `${holds}; no time left for valid-memcleanup`;
    return { ...first, verdict: { kind: 'unknown', reason }, reason, property: 'valid-memsafety' };
  }
  const second = await one(r.program, { ...rest, propertyDetails: memcleanup, dataModel: r.dataModel, timeoutS: left });
  const both = { property: 'valid-memsafety' as const, cpuTimeS: first.cpuTimeS + second.cpuTimeS, wallTimeS: first.wallTimeS + second.wallTimeS };
  if (second.verdict.kind === 'false') return { ...second, ...both };
  const reason = `${holds}; valid-memcleanup: ${second.reason}`;
  if (second.verdict.kind === 'true') return { ...second, ...both, reason };
  return { ...second, ...both, verdict: { kind: 'unknown', reason }, reason };
}

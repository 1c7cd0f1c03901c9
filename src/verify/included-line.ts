// A property file with a line of another property that the property table
// lets it include (the upstream memory-safety file has had a fourth line,
// `LTL(G valid-memcleanup)`): the property's own lines are checked first (a
// violation is FALSE of that sub-property); only when they hold, the
// included line on its own (FALSE names its violation). TRUE needs both
// proofs; anything else is UNKNOWN.

import { includedProperty, violationNames } from '../properties/index.js';
import { parsePropertyText, type Property, type PropertyKind } from '../task/index.js';
import { resolveInput } from '../properties/resolve.js';
import type { VerifyOptions, VerifyResult } from './types.js';

type VerifyOne = (input: string, options: VerifyOptions) => Promise<VerifyResult>;

/** The property without the included property's lines, and those lines as a property of their own. */
function split(p: Property, included: PropertyKind): { own: Property; extra: Property } {
  const isIncluded = (text: string) => parsePropertyText(text, p.file).kind === included;
  const names = violationNames(included);
  const part = (keep: boolean, kind: PropertyKind, subproperties: readonly string[]): Property => {
    const lines = p.lines.filter((l) => isIncluded(l.text) === keep);
    return { ...p, kind, subproperties, lines, specification: lines.map((l) => l.text).join('\n') };
  };
  return {
    own: part(false, p.kind, p.subproperties.filter((s) => !names.includes(s))),
    extra: part(true, included, p.subproperties.filter((s) => names.includes(s))),
  };
}

/** Verifies a property whose file includes another property's line, in two steps; undefined for any other (or bad input, which `verify` reports). */
export async function verifyWithIncludedLine(input: string, options: VerifyOptions, one: VerifyOne): Promise<VerifyResult | undefined> {
  let r;
  try {
    r = resolveInput(input, options);
  } catch {
    return undefined;
  }
  const kind = r.property.kind;
  const included = includedProperty(kind);
  if (!included || !r.property.subproperties.some((s) => violationNames(included).includes(s))) return undefined;
  const { own, extra } = split(r.property, included);
  const { property: _p, prp: _f, ...rest } = options;
  const timeoutS = options.timeoutS ?? 900;
  const first = await one(r.program, { ...rest, propertyDetails: own, dataModel: r.dataModel, timeoutS });
  if (first.verdict.kind !== 'true') return { ...first, property: kind };
  const left = timeoutS - first.cpuTimeS;
  const holds = `${own.subproperties.join(', ')} hold (${first.reason})`;
  if (left < 1) {
    const reason = `${holds}; no time left for ${included}`;
    return { ...first, verdict: { kind: 'unknown', reason }, reason, property: kind };
  }
  const second = await one(r.program, { ...rest, propertyDetails: extra, dataModel: r.dataModel, timeoutS: left });
  const both = { property: kind, cpuTimeS: first.cpuTimeS + second.cpuTimeS, wallTimeS: first.wallTimeS + second.wallTimeS };
  if (second.verdict.kind === 'false') return { ...second, ...both };
  const reason = `${holds}; ${included}: ${second.reason}`;
  if (second.verdict.kind === 'true') return { ...second, ...both, reason };
  return { ...second, ...both, verdict: { kind: 'unknown', reason }, reason };
}

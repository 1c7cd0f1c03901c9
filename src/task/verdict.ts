/** A verifier's answer for one property. */
export type Verdict =
  | { kind: 'true' }
  | { kind: 'false'; property?: string }
  | { kind: 'unknown'; reason?: string };

export const VIOLATION_NAMES = [
  'unreach-call',
  'termination',
  'no-overflow',
  'valid-free',
  'valid-deref',
  'valid-memtrack',
  'valid-memcleanup',
  'no-data-race',
  // Tarsier's own properties (a program's own checks).
  'assert',
  'div-by-zero',
] as const;

const RESULT_LINE = /^\s*Verification result:\s*(TRUE|FALSE|UNKNOWN)\b(?:\s*\(\s*([A-Za-z0-9_-]+)\s*\))?(.*)$/i;

/**
 * Reads a `Verification result: TRUE | FALSE(p) | UNKNOWN` line (Tarsier's
 * last output line; CPAchecker prints the same prefix followed by prose).
 * Returns undefined for any other line.
 */
export function parseResultLine(line: string): Verdict | undefined {
  const m = RESULT_LINE.exec(line.replace(/\r$/, ''));
  if (!m) return undefined;
  const word = m[1].toUpperCase();
  if (word === 'TRUE') return m[2] ? undefined : { kind: 'true' };
  if (word === 'FALSE') return m[2] ? { kind: 'false', property: m[2] } : { kind: 'false' };
  const rest = m[3].replace(/^[\s.,:;-]+/, '').trim();
  return rest ? { kind: 'unknown', reason: rest } : { kind: 'unknown' };
}

/** The last result line of a tool's output, if any. */
export function findResult(output: string): Verdict | undefined {
  const lines = output.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const v = parseResultLine(lines[i]);
    if (v) return v;
  }
  return undefined;
}

/** BenchExec's lower-case result string: `true`, `false(p)`, `false`, `unknown`. */
export function verdictString(v: Verdict): string {
  if (v.kind === 'true') return 'true';
  if (v.kind === 'false') return v.property ? `false(${v.property})` : 'false';
  return 'unknown';
}

/** The line Tarsier prints: `Verification result: FALSE(unreach-call)`. */
export function formatResultLine(v: Verdict): string {
  if (v.kind === 'true') return 'Verification result: TRUE';
  if (v.kind === 'false') return `Verification result: FALSE${v.property ? `(${v.property})` : ''}`;
  return 'Verification result: UNKNOWN';
}

/** Inverse of `verdictString` (also accepts upper case); undefined if not a verdict. */
export function parseVerdictString(s: string): Verdict | undefined {
  const t = s.trim();
  if (/^true$/i.test(t)) return { kind: 'true' };
  const m = /^false(?:\(([A-Za-z0-9_-]+)\))?$/i.exec(t);
  if (m) return m[1] ? { kind: 'false', property: m[1] } : { kind: 'false' };
  if (/^unknown$/i.test(t)) return { kind: 'unknown' };
  return undefined;
}

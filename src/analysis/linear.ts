// Linear expressions and constraints over named integer variables, with
// exact (bigint) coefficients: the language of the loop relations that
// ranking-function synthesis works on.

export interface LinearExpr {
  /** Variable name → non-zero coefficient. */
  readonly coeffs: ReadonlyMap<string, bigint>;
  readonly constant: bigint;
}

/** `expr <= 0` (`le`) or `expr == 0` (`eq`). */
export interface LinearConstraint {
  readonly expr: LinearExpr;
  readonly kind: 'le' | 'eq';
}

export function linConst(c: bigint): LinearExpr {
  return { coeffs: new Map(), constant: c };
}

export function linVar(name: string, coeff = 1n): LinearExpr {
  return { coeffs: coeff === 0n ? new Map() : new Map([[name, coeff]]), constant: 0n };
}

/** a + k·b */
export function linAdd(a: LinearExpr, b: LinearExpr, k = 1n): LinearExpr {
  const coeffs = new Map(a.coeffs);
  for (const [v, c] of b.coeffs) {
    const s = (coeffs.get(v) ?? 0n) + k * c;
    if (s === 0n) coeffs.delete(v);
    else coeffs.set(v, s);
  }
  return { coeffs, constant: a.constant + k * b.constant };
}

export function linScale(a: LinearExpr, k: bigint): LinearExpr {
  return linAdd(linConst(0n), a, k);
}

/** The constant value of `a`, if it has no variables. */
export function linConstantValue(a: LinearExpr): bigint | undefined {
  return a.coeffs.size === 0 ? a.constant : undefined;
}

/** `a <= b` */
export function le(a: LinearExpr, b: LinearExpr): LinearConstraint {
  return { expr: linAdd(a, b, -1n), kind: 'le' };
}

/** `a < b` over the integers, i.e. `a + 1 <= b`. */
export function lt(a: LinearExpr, b: LinearExpr): LinearConstraint {
  return { expr: linAdd(linAdd(a, b, -1n), linConst(1n)), kind: 'le' };
}

export function eq(a: LinearExpr, b: LinearExpr): LinearConstraint {
  return { expr: linAdd(a, b, -1n), kind: 'eq' };
}

/** Readable form, e.g. `2*x - y + 3`. */
export function linToString(a: LinearExpr, name: (v: string) => string = (v) => v): string {
  const parts: string[] = [];
  for (const [v, c] of [...a.coeffs].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) {
    const mag = c < 0n ? -c : c;
    const term = mag === 1n ? name(v) : `${mag}*${name(v)}`;
    if (parts.length === 0) parts.push(c < 0n ? `-${term}` : term);
    else parts.push(c < 0n ? `- ${term}` : `+ ${term}`);
  }
  if (a.constant !== 0n || parts.length === 0) {
    if (parts.length === 0) parts.push(a.constant.toString());
    else parts.push(a.constant < 0n ? `- ${-a.constant}` : `+ ${a.constant}`);
  }
  return parts.join(' ');
}

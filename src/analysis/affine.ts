// Affine equalities between numeric dimensions (Karr's domain): the set of
// points satisfying `a·x + c = 0` for every row, over the rationals.
//
// A row is `[a_0, …, a_{n-1}, c]`: the constant is the last column, so an
// affine space is the null space of its rows in homogeneous coordinates
// (x, 1). Rows are kept in reduced row echelon form with integer entries
// (every pivot positive, other rows zero in a pivot's column, each row
// divided by the gcd of its entries): the form is unique, so equal spaces
// have equal rows. A pivot in the constant column means `c = 0` with c ≠ 0:
// the space is empty (null). The lattice has finite height (n + 1), so the
// join is its own widening.

export type Row = readonly bigint[];

/** Rows in canonical form over n dimensions (each row has n + 1 entries). */
export interface Affine {
  readonly n: number;
  readonly rows: readonly Row[];
}

function abs(x: bigint): bigint {
  return x < 0n ? -x : x;
}
function gcd(a: bigint, b: bigint): bigint {
  a = abs(a);
  b = abs(b);
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** The row divided by the gcd of its entries, its first non-zero entry made positive. */
function primitive(row: bigint[]): bigint[] {
  let g = 0n;
  let lead = 0n;
  for (const x of row) {
    if (x === 0n) continue;
    if (lead === 0n) lead = x;
    g = gcd(g, x);
  }
  if (g === 0n) return row;
  if (lead < 0n) g = -g;
  return row.map((x) => x / g);
}

function pivotOf(row: Row): number {
  return row.findIndex((x) => x !== 0n);
}

/** `row - (row[col] / p[col])·p`, scaled to stay integral: zero at col. */
function eliminate(row: Row, p: Row, col: number): bigint[] {
  const a = row[col]!;
  if (a === 0n) return [...row];
  const b = p[col]!;
  return primitive(row.map((x, i) => x * b - p[i]! * a));
}

/**
 * The canonical rows of the space the given rows define (any order, any
 * redundancy), or null when they are inconsistent.
 */
export function canonical(n: number, input: readonly Row[]): Affine | null {
  const rows: bigint[][] = [];
  for (const r of input) {
    let x: bigint[] = [...r];
    for (const p of rows) x = eliminate(x, p, pivotOf(p));
    const piv = pivotOf(x);
    if (piv < 0) continue;
    if (piv === n) return null;
    x = primitive(x);
    for (let i = 0; i < rows.length; i++) rows[i] = eliminate(rows[i]!, x, piv);
    rows.push(x);
  }
  rows.sort((a, b) => pivotOf(a) - pivotOf(b));
  return { n, rows };
}

export function top(n: number): Affine {
  return { n, rows: [] };
}

export function equal(a: Affine, b: Affine): boolean {
  return a.rows.length === b.rows.length && a.rows.every((r, i) => r.every((x, j) => x === b.rows[i]![j]));
}

export function meet(a: Affine, b: Affine): Affine | null {
  return b.rows.length === 0 ? a : canonical(a.n, [...a.rows, ...b.rows]);
}

/** a ⊆ b (both non-empty). */
export function leq(a: Affine, b: Affine): boolean {
  if (b.rows.length === 0) return true;
  const m = meet(a, b);
  return m !== null && equal(m, a);
}

/**
 * A basis of the vectors v (n + 1 entries) with row·v = 0 for every row of a
 * canonical system: one per non-pivot column.
 */
function nullSpace(a: Affine, columns: number): bigint[][] {
  const pivots = new Map<number, Row>();
  for (const r of a.rows) pivots.set(pivotOf(r), r);
  let scale = 1n;
  for (const [p, r] of pivots) scale = (scale * r[p]!) / gcd(scale, r[p]!);
  const out: bigint[][] = [];
  for (let f = 0; f < columns; f++) {
    if (pivots.has(f)) continue;
    const v = new Array<bigint>(columns).fill(0n);
    v[f] = scale;
    for (const [p, r] of pivots) v[p] = (-r[f]! * scale) / r[p]!;
    out.push(primitive(v));
  }
  return out;
}

/**
 * A basis of the integer vectors v (`columns` entries) with row·v = 0 for
 * every given row (each with `columns` entries): the linear relations every
 * row satisfies, e.g. the equalities among monomials that hold at every
 * sampled state when each row is one state's monomial values.
 */
export function kernel(rows: readonly Row[], columns: number): bigint[][] {
  const system = canonical(columns, rows.map((r) => [...r, 0n]));
  return system ? nullSpace(system, columns) : [];
}

/**
 * The smallest affine space containing both (the affine hull of their
 * union): in homogeneous coordinates the sum of the two null spaces, whose
 * equations are the vectors orthogonal to the generators of both.
 */
export function join(a: Affine, b: Affine): Affine {
  if (a.rows.length === 0 || b.rows.length === 0) return top(a.n);
  const generators = [...nullSpace(a, a.n + 1), ...nullSpace(b, b.n + 1)];
  const g = canonical(a.n + 1, generators.map((v) => [...v, 0n]));
  // The generators include points (last entry non-zero), so they span no
  // empty space: g is never null here.
  const rows = g ? nullSpace(g, a.n + 1) : [];
  return canonical(a.n, rows) ?? top(a.n);
}

/** Adds the equation `row` (n + 1 entries); null when the space becomes empty. */
export function addEquation(a: Affine, row: Row): Affine | null {
  return canonical(a.n, [...a.rows, row]);
}

/** Forgets dimension d (projects it out). */
export function forget(a: Affine, d: number): Affine {
  const i = a.rows.findIndex((r) => r[d] !== 0n);
  if (i < 0) return a;
  const p = a.rows[i]!;
  const rest = a.rows.filter((_, j) => j !== i).map((r) => eliminate(r, p, d));
  return canonical(a.n, rest) ?? top(a.n);
}

/**
 * `x_d := e·x + e_c` (e has n + 1 entries, the constant last), evaluated on
 * the old values. Invertible when e_d ≠ 0: the old x_d is substituted.
 */
export function assign(a: Affine, d: number, e: Row): Affine {
  const ed = e[d]!;
  if (ed === 0n) {
    const f = forget(a, d);
    const row = e.map((x) => -x);
    row[d] = 1n;
    return addEquation(f, row) ?? top(a.n);
  }
  // old x_d = (x_d' - Σ_{i≠d} e_i x_i - e_c) / e_d
  const rows = a.rows.map((r) => {
    const k = r[d]!;
    if (k === 0n) return r;
    return r.map((x, i) => (i === d ? k : x * ed - k * e[i]!));
  });
  return canonical(a.n, rows) ?? top(a.n);
}

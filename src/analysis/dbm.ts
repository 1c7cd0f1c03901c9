// Difference-bound matrices: constraints `x_i - x_j <= c` between a fixed set
// of numeric keys, with node 0 standing for the constant 0 (so `x_i <= c` is
// `x_i - x_0 <= c`). `null` is +infinity. Kept closed (shortest paths) by
// the operations, except right after a widening (which must not be closed,
// or the iteration may not terminate).

export type Bound = bigint | null;

export class Dbm {
  private constructor(
    /** Number of nodes (keys + 1). */
    readonly n: number,
    /** m[i * n + j]: bound of x_i - x_j. */
    private readonly m: Bound[],
  ) {}

  static top(keys: number): Dbm {
    const n = keys + 1;
    const m: Bound[] = new Array(n * n).fill(null);
    for (let i = 0; i < n; i++) m[i * n + i] = 0n;
    return new Dbm(n, m);
  }

  get(i: number, j: number): Bound {
    return this.m[i * this.n + j]!;
  }

  /** Whether the constraints are unsatisfiable (a negative cycle after closure). */
  isEmpty(): boolean {
    for (let i = 0; i < this.n; i++) {
      const d = this.get(i, i);
      if (d !== null && d < 0n) return true;
    }
    return false;
  }

  private copy(): Bound[] {
    return this.m.slice();
  }

  /** Adds `x_i - x_j <= c` and restores closure in O(n^2). */
  constrain(i: number, j: number, c: bigint): Dbm {
    const old = this.get(i, j);
    if (old !== null && old <= c) return this;
    const n = this.n;
    const m = this.copy();
    // Every path through the new edge i -> j: x_a - x_b <= (a - i) + c + (j - b).
    for (let a = 0; a < n; a++) {
      const ai = a === i ? 0n : m[a * n + i]!;
      if (ai === null) continue;
      for (let b = 0; b < n; b++) {
        const jb = b === j ? 0n : m[j * n + b]!;
        if (jb === null) continue;
        const v = ai + c + jb;
        const cur = m[a * n + b]!;
        if (cur === null || v < cur) m[a * n + b] = v;
      }
    }
    return new Dbm(n, m);
  }

  /** Forgets every constraint on key i (its node). */
  forget(i: number): Dbm {
    const n = this.n;
    const m = this.copy();
    for (let k = 0; k < n; k++) {
      if (k === i) continue;
      m[i * n + k] = null;
      m[k * n + i] = null;
    }
    m[i * n + i] = 0n;
    return new Dbm(n, m);
  }

  /** x_i := x_i + c. */
  shift(i: number, c: bigint): Dbm {
    const n = this.n;
    const m = this.copy();
    for (let k = 0; k < n; k++) {
      if (k === i) continue;
      const out = m[i * n + k]!;
      if (out !== null) m[i * n + k] = out + c;
      const inn = m[k * n + i]!;
      if (inn !== null) m[k * n + i] = inn - c;
    }
    return new Dbm(n, m);
  }

  /** x_i := x_j + c (i != j). */
  assignFrom(i: number, j: number, c: bigint): Dbm {
    return this.forget(i).constrain(i, j, c).constrain(j, i, -c);
  }

  private pointwise(o: Dbm, f: (a: Bound, b: Bound) => Bound): Bound[] {
    return this.m.map((a, k) => f(a, o.m[k]!));
  }

  /** Join of two closed matrices (closed again). */
  join(o: Dbm): Dbm {
    return new Dbm(this.n, this.pointwise(o, (a, b) => (a === null || b === null ? null : a > b ? a : b)));
  }

  /** Meet, closed. */
  meet(o: Dbm): Dbm {
    return new Dbm(this.n, this.pointwise(o, (a, b) => (a === null ? b : b === null ? a : a < b ? a : b))).close();
  }

  /** Standard widening: a bound that grew is dropped. */
  widen(o: Dbm): Dbm {
    return new Dbm(this.n, this.pointwise(o, (a, b) => (a !== null && b !== null && b <= a ? a : null)));
  }

  leq(o: Dbm): boolean {
    return this.m.every((a, k) => {
      const b = o.m[k]!;
      return b === null || (a !== null && a <= b);
    });
  }

  /** Floyd–Warshall closure. */
  close(): Dbm {
    const n = this.n;
    const m = this.copy();
    for (let k = 0; k < n; k++) {
      for (let a = 0; a < n; a++) {
        const ak = m[a * n + k]!;
        if (ak === null) continue;
        for (let b = 0; b < n; b++) {
          const kb = m[k * n + b]!;
          if (kb === null) continue;
          const v = ak + kb;
          const cur = m[a * n + b]!;
          if (cur === null || v < cur) m[a * n + b] = v;
        }
      }
    }
    return new Dbm(n, m);
  }
}

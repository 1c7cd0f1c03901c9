// Partitioning of abstract states by the values of boolean flags. The
// lowering of C implements early returns, breaks and gotos with boolean
// flags (`if (!$ret) { ... }`); joining the states where a flag is true with
// those where it is false would forget why the code after it runs. A
// partitioned state keeps one abstract state per valuation of the flags
// (a flag not constant in a state counts as unknown), up to a limit.
import type { Expr, ImpType, Stmt } from '../ivl/ast.js';
import { visitStmts } from '../ivl/walk.js';
import { type AbsState, type AbsValue, type Domain, keyId } from './domain.js';

/** Abstract states by flag valuation; empty: unreachable. */
export type Part = ReadonlyMap<string, AbsValue>;

const MAX_PARTS = 8;
const MAX_FLAGS = 8;

/**
 * Boolean variables assigned a constant somewhere (flags), then those that
 * are a loop's condition (`$t := i < n; if ($t) { … $t := … } while ($t)`:
 * a condition whose evaluation has steps), the first few.
 */
export function flagVars(body: readonly Stmt[], types: ReadonlyMap<string, ImpType>): string[] {
  const out: string[] = [];
  visitStmts(body, (s) => {
    if (s.kind === 'assign' && types.get(s.target)?.kind === 'bool' && s.value.kind === 'bool_lit' && !out.includes(s.target)) out.push(s.target);
  });
  // A loop's condition variable set only from conditions: after the flags proper (the lowering's `$loop` is one of them).
  visitStmts(body, (s) => {
    if (s.kind === 'while' && s.cond.kind === 'var' && types.get(s.cond.name)?.kind === 'bool' && !out.includes(s.cond.name)) out.push(s.cond.name);
  });
  return out.slice(0, MAX_FLAGS);
}

export class Partitions {
  constructor(
    private readonly dom: Domain,
    private readonly flags: readonly string[],
  ) {}

  private key(x: AbsValue): string {
    return this.flags
      .map((f) => {
        const v = this.dom.interval(x, keyId(f, 'm'));
        return v.lo === v.hi ? String(v.lo) : '*';
      })
      .join('');
  }

  /** The partition of a list of states (joined by key; all joined beyond the limit). */
  of(states: readonly AbsState[]): Part {
    const out = new Map<string, AbsValue>();
    for (const x of states) {
      if (!x) continue;
      const k = this.key(x);
      const old = out.get(k);
      out.set(k, old ? this.dom.join(old, x)! : x);
    }
    if (out.size <= MAX_PARTS) return out;
    const all = this.collapse(out)!;
    return new Map([[this.key(all), all]]);
  }

  collapse(p: Part): AbsState {
    let out: AbsState = null;
    for (const x of p.values()) out = this.dom.join(out, x);
    return out;
  }

  join(a: Part, b: Part): Part {
    return this.of([...a.values(), ...b.values()]);
  }

  assume(p: Part, e: Expr, positive: boolean): Part {
    return this.of([...p.values()].map((x) => this.dom.assume(x, e, positive)));
  }

  /** Widening key by key (keys are never merged here, so that the iteration ends). */
  widen(a: Part, b: Part): Part {
    const out = new Map(a);
    for (const [k, y] of b) {
      const x = a.get(k);
      out.set(k, x ? this.dom.widen(x, y)! : y);
    }
    return out;
  }

  /** Every state of b is below some state of a. */
  leq(b: Part, a: Part): boolean {
    return [...b.values()].every((y) => [...a.values()].some((x) => this.dom.leq(y, x)));
  }

  /** Pairwise meets (the meet of two unions). */
  meet(a: Part, b: Part): Part {
    const out: AbsState[] = [];
    for (const x of a.values()) for (const y of b.values()) out.push(this.dom.meet(x, y));
    return this.of(out);
  }
}

// An over-approximation of formulas for proofs: every division, remainder
// and product of two non-constant bit-vectors is replaced by a fresh
// constant (one per distinct application), so the solver need not build
// their circuits. What is unsatisfiable with the constants arbitrary is
// unsatisfiable with the operations' true values too.

import { mkConst, withArgs, type Term } from './terms.js';

const DIVISIONS = new Set(['bvudiv', 'bvurem', 'bvsdiv', 'bvsrem', 'bvsmod']);

function expensive(t: Term): boolean {
  if (DIVISIONS.has(t.op)) return true;
  return t.op === 'bvmul' && t.args.filter((a) => a.op !== 'bv').length > 1;
}

/** The formulas with their expensive operations abstracted; undefined when they have none. */
export function abstractExpensive(formulas: readonly Term[]): Term[] | undefined {
  const memo = new Map<Term, Term>();
  let count = 0;
  const rewrite = (t: Term): Term => {
    const known = memo.get(t);
    if (known) return known;
    let out: Term;
    if (expensive(t)) out = mkConst(`$abs${t.id}`, t.sort);
    else out = t.args.length === 0 ? t : withArgs(t, t.args.map(rewrite));
    if (out !== t && expensive(t)) count++;
    memo.set(t, out);
    return out;
  };
  const result = formulas.map(rewrite);
  return count > 0 ? result : undefined;
}

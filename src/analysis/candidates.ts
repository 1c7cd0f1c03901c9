// The analysis as a source of candidate loop invariants (for Houdini and
// k-induction): the facts at each while's head as IMP conditions. One
// analysis per program, cached; a program the analysis gives up on gives none.
import type { Expr, ImpProgram, ImpType, Stmt } from '../ivl/ast.js';
import { analyzeProgram, type AnalysisResult } from './analyze.js';
import { factToExpr, type LoopFact } from './facts.js';
import { printExpr } from '../ivl/printer.js';

/** Differences with a larger bound say little (those of 32-bit variables are checked as 64-bit bit-vectors, cheaply). */
const MAX_DIFFERENCE = 1n << 31n;

function useful(f: LoopFact): boolean {
  return f.kind !== 'difference' || (f.bound < MAX_DIFFERENCE && f.bound > -MAX_DIFFERENCE);
}

/** A candidate source over IMP programs; `budgetMs` per program analysed. */
export function analysisCandidates(options: { entry?: string; budgetMs: number }): (loop: Stmt, program: ImpProgram) => Expr[] {
  const cache = new WeakMap<ImpProgram, { result: AnalysisResult; types: Map<string, ImpType> }>();
  return (loop, program) => {
    let c = cache.get(program);
    if (!c) {
      const entry = options.entry ?? 'main';
      const result = analyzeProgram(program, { entry, deadline: Date.now() + options.budgetMs });
      const proc = program.procedures.find((p) => p.name === entry);
      const types = new Map<string, ImpType>();
      for (const d of [...program.globals, ...(proc?.params ?? []), ...(proc?.returns ?? []), ...(proc?.locals ?? [])]) types.set(d.name, d.type);
      c = { result, types };
      cache.set(program, c);
    }
    const facts = c.result.loops.get(loop)?.facts ?? [];
    // Two views of one equation are often the same condition (modulo 2^w): one candidate each.
    const byText = new Map<string, Expr>();
    for (const f of facts.filter(useful)) {
      const e = factToExpr(f, c.types);
      if (e) byText.set(printExpr(e), e);
    }
    return [...byText.values()];
  };
}

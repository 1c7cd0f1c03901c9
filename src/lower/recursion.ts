// Recursion beyond the inlining bounds: the unwinding assertion that cuts it (goal
// `recursion`), and recursion summaries (see RecursionSummaries in types.ts): a
// summarised call, the program that checks a function's summary, the decrease goals
// of its measure. Methods of the Lowerer (lower.ts).
import type { FunctionDecl } from '../c/ast.js';
import { isSignedKind, typeToString as cTypeToString, unqualified } from '../c/types.js';
import type { Expr, Stmt } from '../ivl/ast.js';
import { bvType } from '../ivl/ast.js';
import { and, app, bin, boolLit, bv, eq, havoc, type L, resize, v } from './imp-build.js';
import { UnsupportedError, type Val, intKindOf, intWidth } from './memory.js';
import { summaryGoalLoc, type RecursionMeasure, type SummaryCondition } from './types.js';
import { VOID } from './common.js';
import type { Lowerer } from './lower.js';

export class RecursionLowering {
  /**
   * A call of `fn` beyond the inlining bounds (`bounds` says which): with a
   * summary it returns any result the summary allows (a measured call is
   * also a decrease goal); otherwise recursion is cut here, an unwinding
   * assertion (goal `recursion`) after which no execution goes on.
   */
  notInlined(this: Lowerer, fn: FunctionDecl, args: readonly Val[], loc: L, cutLoc: L, measured: boolean, bounds: string): Val {
    const retType = unqualified(fn.type.returnType);
    const summary = this.options.summaries?.conditions.get(fn.name) ?? (measured ? [] : undefined);
    if (summary) {
      if (measured) this.decreaseGoal(fn, args, loc);
      const from = this.out.length;
      let ret = VOID;
      if (retType.kind === 'void') this.emit(havoc(this.temp(bvType(8)), loc));
      else ret = this.havocVal(retType, loc);
      this.recordSummarisedCall(fn, args, this.out.slice(from), loc);
      for (const c of summary) this.assumeThat(this.summaryCondition(c, args, ret, loc), loc, 'summary');
      return ret;
    }
    this.goal('recursion', boolLit(false, cutLoc), cutLoc, `recursion of ${fn.name} cut (${bounds})`, cutLoc);
    this.assumeThat(boolLit(false, cutLoc), cutLoc, 'recursion-cut');
    return retType.kind === 'void' ? VOID : this.havocVal(retType, loc);
  }

  /** The entry function called with arbitrary integer arguments, its summary's conditions as goals where it returns. */
  summaryCheck(this: Lowerer, name: string): void {
    const fn = this.program.functions.find((f) => f.name === name && f.body);
    if (!fn) throw new UnsupportedError(`a summary of '${name}', which has no body`, this.stmtLoc);
    const loc = fn.definitionLoc ?? fn.loc;
    const params: string[] = [];
    const args: Val[] = fn.params.map((p) => {
      const k = intKindOf(p.type);
      if (k === undefined) throw new UnsupportedError(`a summary of a function with parameter '${p.name}' of type ${cTypeToString(p.type)}`, p.loc);
      const t = this.temp(bvType(intWidth(k, this.dm, p.loc)));
      this.emit(havoc(t, p.loc));
      params.push(t);
      return { k: 'int', e: v(t, p.loc), ik: k } as Val;
    });
    this.entryArgs = args;
    const ret = this.inline(fn, args, loc, loc);
    this.entry = { params, ...(ret.k === 'int' ? { result: ret.e } : {}) };
    const conditions = this.options.summaries!.conditions.get(name) ?? [];
    conditions.forEach((c, i) => this.goal('summary', this.summaryCondition(c, args, ret, loc), summaryGoalLoc(this.program.file, i), `summary condition ${i + 1} of ${name}`, loc));
  }

  /**
   * Records the havoc among `emitted` (the statements of a summarised call)
   * as the call of `fn` with `args` converted to its parameters' types; not
   * where a conversion is not a resize (to _Bool) or the havoc is not one
   * of a bit-vector variable.
   */
  recordSummarisedCall(this: Lowerer, fn: FunctionDecl, args: readonly Val[], emitted: readonly Stmt[], loc: L): void {
    const havocs = emitted.filter((s) => s.kind === 'havoc');
    if (havocs.length !== 1 || this.decls.get(havocs[0]!.target)?.kind !== 'bv' || args.length !== fn.params.length) return;
    const converted: Expr[] = [];
    for (const [i, p] of fn.params.entries()) {
      const a = args[i]!;
      const k = intKindOf(p.type);
      if (a.k !== 'int' || k === undefined || k === 'bool') return;
      converted.push(resize(a.e, intWidth(a.ik, this.dm, loc), intWidth(k, this.dm, loc), isSignedKind(a.ik), loc));
    }
    this.summarisedCalls.set(havocs[0]!, { callee: fn.name, args: converted });
  }

  /** At a summarised call of a measured function, the goal that its measure is below the entry's. */
  decreaseGoal(this: Lowerer, fn: FunctionDecl, args: readonly Val[], loc: L): void {
    const measures = this.options.summaries!.measures!;
    const entry = this.program.functions.find((f) => f.name === this.options.summaries!.entry && f.body);
    const mine = measures.get(entry?.name ?? '');
    const theirs = measures.get(fn.name)!;
    if (!entry || !mine) throw new UnsupportedError('a recursion measure without one for the entry function', loc);
    // Both measures as 64-bit values: unsigned ones zero-extended, signed ones sign-extended (an entry's signed measure must be at least 0).
    const value = (f: FunctionDecl, vals: readonly Val[], m: RecursionMeasure): Expr => {
      const x = vals[m.index];
      const k = intKindOf(unqualified(f.params[m.index]!.type));
      if (x?.k !== 'int' || k === undefined) throw new UnsupportedError(`a recursion measure of ${f.name} that is not an integer parameter`, loc);
      // The argument converted to the parameter's type, as the call does.
      const w = intWidth(k, this.dm, loc);
      return resize(resize(x.e, intWidth(x.ik, this.dm, loc), w, isSignedKind(x.ik), loc), w, 64, m.signed, loc);
    };
    const outer = value(entry, this.entryArgs!, mine);
    const below = app('ult', [value(fn, args, theirs), outer], loc);
    const cond = mine.signed ? and(app('sge', [outer, bv(0n, 64, loc)], loc), below, loc) : below;
    const name = (f: FunctionDecl, m: RecursionMeasure) => `${f.name}'s '${f.params[m.index]!.name}'`;
    this.goal('decrease', cond, loc, `the call of ${fn.name} decreases the measure (${name(fn, theirs)} below ${name(entry, mine)})`, loc);
  }

  /** A summary condition over a call's arguments and result (integers of the result's type). */
  summaryCondition(this: Lowerer, c: SummaryCondition, args: readonly Val[], ret: Val, loc: L): Expr {
    if (ret.k !== 'int') throw new UnsupportedError('a summary of a function without an integer result', loc);
    const w = intWidth(ret.ik, this.dm, loc);
    let bound = bv(c.bound.constant, w, loc);
    for (const { index, sign } of c.bound.params) {
      const a = args[index];
      if (!a || a.k !== 'int' || a.ik !== ret.ik) throw new UnsupportedError('a summary bound of another type than the result', loc);
      bound = bin(sign > 0 ? '+' : '-', bound, a.e, loc);
    }
    if (c.op === '==') return eq(ret.e, bound, loc);
    const signed = isSignedKind(ret.ik);
    return app(c.op === '<=' ? (signed ? 'sle' : 'ule') : signed ? 'sge' : 'uge', [ret.e, bound], loc);
  }
}

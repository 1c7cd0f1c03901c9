// Statements and control flow: blocks and scopes, declarations, if, loops, switch,
// break/continue/return (flags and guards). Function bodies come without goto
// (c/goto-elimination.ts); what that pass made is no C branch, loop or
// variable of the source map. Methods of the Lowerer (lower.ts).
import type { BlockItem, Declaration, LoopStmt, Stmt as CStmt, SwitchStmt, VarDecl as CVarDecl } from '../c/ast.js';
import type { CType } from '../c/types.js';
import { isSignedKind, unqualified } from '../c/types.js';
import type { Expr, Stmt } from '../ivl/ast.js';
import { bvType, boolType } from '../ivl/ast.js';
import { and, app, assign, boolLit, bv, eq, ifs, type L, or, orAll, resize, un, v, whiles } from './imp-build.js';
import { UnsupportedError, intWidth } from './memory.js';
import { type LoopCtx } from './common.js';
import type { Lowerer } from './lower.js';

/** Flags a lowered statement may set, and whether it always jumps (the rest of the block is dead). */
interface Jump {
  readonly may: ReadonlySet<string>;
  readonly always: boolean;
}

const NOJUMP: Jump = { may: new Set(), always: false };

export class StatementLowering {
  /**
   * A block: after an item that may jump (break, continue, return), each
   * later item runs only while no such flag is set. A block of the goto
   * elimination opens no scope.
   */
  lowerBlock(this: Lowerer, items: readonly BlockItem[], synthetic = false): Jump {
    return synthetic ? this.lowerBlockItems(items) : this.inScope(() => this.lowerBlockItems(items));
  }

  lowerBlockItems(this: Lowerer, items: readonly BlockItem[]): Jump {
    const may = new Set<string>();
    const active: string[] = [];
    // Consecutive items under the same flags share one guard.
    let guarded: { key: string; flags: string[]; body: Stmt[] } | undefined;
    const flush = () => {
      if (guarded) this.emit(this.guard(guarded.flags, guarded.body));
      guarded = undefined;
    };
    for (const item of items) {
      const [buf, j] = this.buffer(() => this.lowerItem(item));
      if (buf.length) {
        if (active.length) {
          const key = active.join(',');
          if (guarded?.key !== key) {
            flush();
            guarded = { key, flags: [...active], body: [] };
          }
          guarded.body.push(...buf);
        } else {
          flush();
          this.emit(...buf);
        }
      }
      for (const f of j.may) {
        may.add(f);
        if (!active.includes(f)) active.push(f);
      }
      // An item that may jump can set a flag the current guard already
      // tests; the guard was evaluated before the item, so later items
      // need a fresh one.
      if (j.may.size) flush();
      // The rest is dead (no goto jumps into it: they are gone).
      if (j.always) {
        flush();
        return { may, always: true };
      }
    }
    flush();
    return { may, always: false };
  }

  /**
   * `if (!(f1 || ...)) { body }`. Its loc is where the first flag is set (a
   * `break`, `return`, `goto`, ... keyword), so it is never mistaken for a
   * C `if` of the source map.
   */
  guard(this: Lowerer, flags: readonly string[], body: Stmt[]): Stmt {
    const loc = this.flagLoc.get(flags[0]) ?? body[0].loc;
    return ifs(un('!', orAll(flags.map((f) => v(f, loc)), loc), loc), body, [], loc);
  }

  setFlag(this: Lowerer, flag: string, loc: L): void {
    if (!this.flagLoc.has(flag)) this.flagLoc.set(flag, loc);
    this.emit(assign(flag, boolLit(true, loc), loc));
  }

  lowerItem(this: Lowerer, s: BlockItem): Jump {
    if (s.kind === 'DeclStmt') {
      this.stmtLoc = s.loc;
      this.lowerDeclaration(s.declaration);
      return NOJUMP;
    }
    return this.lowerStmt(s);
  }

  lowerDeclaration(this: Lowerer, d: Declaration): void {
    for (const dc of d.declarators) {
      const decl = dc.decl;
      if (decl.kind !== 'Var') continue; // typedefs, prototypes
      if (decl.storage === 'extern') {
        // A file-scope variable: lowered when main reaches it (an unused one is not).
        if (!this.program.globals.some((g) => g.id === decl.id)) throw new UnsupportedError(`block-scope extern '${decl.name}'`, dc.loc);
        continue;
      }
      if (decl.vlaSizes?.length) {
        if (decl.storage === 'static') throw new UnsupportedError('static variable-length array', dc.loc);
        this.declareVla(decl, dc.loc);
      }
      if (decl.storage === 'static') {
        // Initialised once, before main runs.
        if (this.statics.has(decl.id)) continue;
        const root = this.makeRoot(`${decl.name}@${this.fnName}.static`, decl.type, dc.loc, { storage: 'static' });
        this.statics.set(decl.id, root);
        this.recordVariable(decl.name, this.fnName, decl.loc, root);
        const [init] = this.buffer(() => this.initObject(root, decl.type, dc.init ?? decl.init, dc.loc, true));
        this.prologue.push(...init);
        continue;
      }
      const root = this.makeRoot(`${decl.name}@${this.frame.label}`, decl.type, dc.loc);
      this.frame.env.set(decl.id, root);
      if (this.born(root, dc.loc)) this.scopes[this.scopes.length - 1]?.push(root);
      if (!decl.synthetic) this.recordVariable(decl.name, this.fnName, decl.loc, root);
      this.withVoidTarget(decl, () => this.initObject(root, decl.type, dc.init, dc.loc, false));
    }
  }

  /** Evaluates the sizes of a variable-length array declaration once; a size must be positive. */
  declareVla(this: Lowerer, decl: CVarDecl, loc: L): void {
    const sizes = decl.vlaSizes ?? [];
    let t = unqualified(decl.type);
    let k = 0;
    while (t.kind === 'array') {
      if (t.vla) {
        const e = sizes[k++];
        if (!e) throw new UnsupportedError('variable-length array without a size', loc);
        const val = this.rv(e);
        if (val.k !== 'int') throw new UnsupportedError('variable-length array size', loc);
        const w = intWidth(val.ik, this.dm, loc);
        const positive = isSignedKind(val.ik) ? app('sgt', [val.e, bv(0n, w, loc)], loc) : un('!', eq(val.e, bv(0n, w, loc), loc), loc);
        // A size <= 0 is undefined behaviour; gcc makes an object of no elements (or a huge one) and goes on.
        this.undefinedUnless(positive, loc, 'a variable-length array of size 0 or less', true);
        const len = this.tempOf(bvType(this.pw), resize(val.e, w, this.pw, isSignedKind(val.ik), loc), loc);
        this.vlaLength.set(t, len);
      }
      t = unqualified(t.element);
    }
  }

  /** The length of an array type as an IMP expression (constant, or a VLA's evaluated size). */
  arrayLength(this: Lowerer, t: CType, loc: L): Expr | undefined {
    const u = t.kind === 'array' ? t : undefined;
    if (!u) return undefined;
    if (u.length !== undefined && !u.vla) return bv(BigInt(u.length), this.pw, loc);
    return this.vlaLength.get(t) ?? this.vlaLength.get(unqualified(t));
  }

  lowerStmt(this: Lowerer, s: CStmt): Jump {
    switch (s.kind) {
      case 'Compound':
        return this.lowerBlock(s.items, s.synthetic);
      case 'ExprStmt':
        this.stmtLoc = s.loc;
        this.rv(s.expr, true);
        return NOJUMP;
      case 'Null':
        return NOJUMP;
      case 'If': {
        if (!s.synthetic) this.stmtLoc = s.loc;
        const c = this.cond(s.condition);
        const [th, tj] = this.buffer(() => this.lowerStmt(s.then));
        const [el, ej] = s.else ? this.buffer(() => this.lowerStmt(s.else!)) : [[], NOJUMP];
        if (!s.synthetic) this.map.addBranch({ loc: s.loc, keyword: 'if', function: this.fnName });
        this.emit(ifs(c, th, el, s.loc));
        return { may: new Set([...tj.may, ...ej.may]), always: tj.always && ej.always };
      }
      case 'While':
      case 'DoWhile':
        return this.lowerLoop(s);
      case 'For':
        // The scope of a declaration in the for header.
        return this.inScope(() => this.lowerLoop(s));
      case 'Switch':
        return this.lowerSwitch(s);
      case 'Label':
        // No goto jumps to it (the goto elimination took them away).
        return this.lowerStmt(s.body);
      case 'Case':
      case 'Default':
        throw new UnsupportedError('case label outside the top level of a switch body', s.loc);
      case 'Goto':
        // Function bodies come without goto; one inside a statement expression is left.
        throw new UnsupportedError('goto inside a statement expression', s.loc);
      case 'Break': {
        const ctx = this.loops[this.loops.length - 1];
        if (!ctx) throw new UnsupportedError('break outside a loop', s.loc);
        ctx.brk ??= this.temp(boolType, '$brk');
        this.setFlag(ctx.brk, s.loc);
        return { may: new Set([ctx.brk]), always: true };
      }
      case 'Continue': {
        const ctx = [...this.loops].reverse().find((l) => !l.isSwitch);
        if (!ctx) throw new UnsupportedError('continue outside a loop', s.loc);
        ctx.cont ??= this.temp(boolType, '$cont');
        this.setFlag(ctx.cont, s.loc);
        return { may: new Set([ctx.cont]), always: true };
      }
      case 'Return': {
        this.stmtLoc = s.loc;
        const f = this.frame;
        if (s.value) {
          const val = this.rv(s.value);
          if (f.retRoot) this.store({ type: f.fn.type.returnType, alts: [{ root: f.retRoot, path: [] }] }, val, s.loc);
        }
        // Leaving main: the blocks lost are lost at this return (the goal's target is where the run ends).
        if (this.mem && this.frames.length === 1 && f.fn.name === 'main' && this.entryArgs === undefined) this.leakGoal(s.loc, 'when main returns');
        f.retFlag ??= this.temp(boolType, '$ret');
        this.setFlag(f.retFlag, s.loc);
        return { may: new Set([f.retFlag]), always: true };
      }
      case 'Asm':
        throw new UnsupportedError('inline assembler', s.loc);
    }
  }

  /**
   * `while (c) S`, `for (i; c; n) S`, `do S while (c)` become an IMP while
   * at the C keyword. Without break/return in the body: `p; while (c) { S;
   * n; p }`, where p is what evaluating the condition needs (calls,
   * checks) and c the value (the state at the head is the one after p);
   * otherwise a condition variable:
   * `p; k := c; while (k) { S; if (!jumped) { n; p; k := c } else { k := false } }`.
   */
  lowerLoop(this: Lowerer, s: LoopStmt): Jump {
    const kw = s.keywordLoc;
    // A loop the goto elimination made for a backward jump is none of the program's loops.
    if (!(s.kind === 'DoWhile' && s.synthetic)) this.map.addLoop({ loc: kw, keyword: s.kind === 'While' ? 'while' : s.kind === 'For' ? 'for' : 'do', function: this.fnName });
    if (s.kind === 'For' && s.init) {
      this.stmtLoc = s.loc;
      if (s.init.kind === 'Declaration') this.lowerDeclaration(s.init);
      else this.rv(s.init, true);
    }
    const condExpr = s.kind === 'For' ? s.condition : s.condition;
    const condLoc = condExpr?.loc ?? kw;
    const [condPre, c] = this.buffer(() => {
      this.stmtLoc = condLoc;
      return condExpr ? this.cond(condExpr) : boolLit(true, kw);
    });
    const ctx: LoopCtx = { isSwitch: false };
    this.loops.push(ctx);
    let body: Stmt[];
    let bj: Jump;
    let step: Stmt[] = [];
    this.loopNesting++;
    try {
      [body, bj] = this.buffer(() => this.lowerStmt(s.body));
      if (s.kind === 'For' && s.step) {
        const st = s.step;
        [step] = this.buffer(() => {
          this.stmtLoc = st.loc;
          this.rv(st, true);
        });
      }
    } finally {
      this.loops.pop();
      this.loopNesting--;
    }
    const outer = [...bj.may].filter((f) => f !== ctx.brk && f !== ctx.cont);
    const exitFlags = [...(ctx.brk ? [ctx.brk] : []), ...outer];
    if (ctx.cont) body = [assign(ctx.cont, boolLit(false, kw), kw), ...body];
    if (ctx.brk) this.emit(assign(ctx.brk, boolLit(false, kw), kw));
    const notExited = un('!', orAll(exitFlags.map((f) => v(f, kw)), kw), kw);
    if (s.kind !== 'DoWhile' && exitFlags.length === 0) {
      // The condition itself at the head (not a copy in a flag): the analyses and invariants see what bounds the loop.
      this.emit(...condPre, whiles(c, [...body, ...step, ...condPre], kw));
    } else {
      const k = this.temp(boolType, '$loop');
      const next = [...step, ...condPre, assign(k, c, kw)];
      if (s.kind === 'DoWhile') this.emit(assign(k, boolLit(true, kw), kw));
      else this.emit(...condPre, assign(k, c, kw));
      const tail = exitFlags.length ? [ifs(notExited, next, [assign(k, boolLit(false, kw), kw)], kw)] : next;
      this.emit(whiles(v(k, kw), [...body, ...tail], kw));
    }
    // break and continue are consumed here; return flags propagate.
    return { may: new Set(outer), always: false };
  }

  /**
   * A switch whose case labels sit at the top level of its compound body:
   * `m := false`, then each labelled item runs when `m := m || (x == v)`;
   * `default` matches when no case value does. `break` sets the switch's flag.
   */
  lowerSwitch(this: Lowerer, s: SwitchStmt): Jump {
    this.stmtLoc = s.loc;
    const x = this.snapshot(this.rv(s.condition), s.condition.loc);
    if (x.k !== 'int') throw new UnsupportedError('switch on a non-integer', s.loc);
    if (s.body.kind !== 'Compound') throw new UnsupportedError('switch without a compound body', s.loc);
    const w = intWidth(x.ik, this.dm, s.loc);
    const top = new Set<CStmt>();
    const caseCond = (c: CStmt): Expr => {
      if (c.kind === 'Case') {
        const lo = bv(c.value, w, c.loc);
        if (c.last === undefined) return eq(x.e, lo, c.loc);
        const sg = isSignedKind(x.ik);
        return and(app(sg ? 'sle' : 'ule', [lo, x.e], c.loc), app(sg ? 'sle' : 'ule', [x.e, bv(c.last, w, c.loc)], c.loc), c.loc);
      }
      return boolLit(false, c.loc);
    };
    const anyCase = orAll(s.cases.filter((c) => c.kind === 'Case').map(caseCond), s.loc);
    // Flatten `case 1: case 2: stmt` chains into label lists per item.
    const items: Array<{ labels: CStmt[]; stmt: BlockItem }> = [];
    for (const it of s.body.items) {
      const labels: CStmt[] = [];
      let cur: BlockItem = it;
      while (cur.kind === 'Case' || cur.kind === 'Default') {
        labels.push(cur);
        top.add(cur);
        cur = cur.body;
      }
      items.push({ labels, stmt: cur });
    }
    for (const c of s.cases) if (!top.has(c)) throw new UnsupportedError('case label nested inside a switch body', c.loc);
    const m = this.temp(boolType, '$sw');
    this.emit(assign(m, boolLit(false, s.loc), s.loc));
    const ctx: LoopCtx = { isSwitch: true };
    this.loops.push(ctx);
    const may = new Set<string>();
    let body: Stmt[];
    try {
      [body] = this.buffer(() => {
        // Each item: update the match flag, then run it guarded by the flag
        // and by "no break/continue/return yet".
        const flags: string[] = [];
        for (const { labels, stmt } of items) {
          if (labels.length) {
            const hit = orAll(labels.map((l) => (l.kind === 'Default' ? un('!', anyCase, l.loc) : caseCond(l))), labels[0].loc);
            this.emit(assign(m, or(v(m, labels[0].loc), hit, labels[0].loc), labels[0].loc));
          }
          const [st, j] = this.buffer(() => this.lowerItem(stmt));
          for (const f of j.may) {
            may.add(f);
            if (!flags.includes(f)) flags.push(f);
          }
          const loc = s.loc; // the switch keyword: not a C branching of the source map
          const guard = and(v(m, loc), un('!', orAll(flags.map((f) => v(f, loc)), loc), loc), loc);
          if (st.length) this.emit(ifs(guard, st, [], loc));
        }
      });
    } finally {
      this.loops.pop();
    }
    // The guard above reads flags set by earlier items; they must start false.
    for (const f of may) if (f === ctx.brk) this.emit(assign(f, boolLit(false, s.loc), s.loc));
    this.emit(...body);
    const outer = [...may].filter((f) => f !== ctx.brk);
    return { may: new Set(outer), always: false };
  }
}

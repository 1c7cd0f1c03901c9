// Expressions: rvalues, conditions and short-circuit operators, comparisons, arithmetic
// with C's semantics on bit-vectors, assignments, ?:. Methods of the Lowerer (lower.ts).
import type { Assign, Binary, Expr as CExpr, IncDec } from '../c/ast.js';
import type { CType, DataModel, IntegerKind } from '../c/types.js';
import {
  isSignedKind,
  sameType,
  sizeOf as sizeOfElem,
  typeToString as cTypeToString,
  unqualified,
  integerKindName,
} from '../c/types.js';
import type { Expr, Stmt } from '../ivl/ast.js';
import { bvType, boolType } from '../ivl/ast.js';
import {
  and,
  andAll,
  app,
  assign,
  bin,
  boolLit,
  bv,
  eq,
  ifs,
  ite,
  type L,
  minSigned,
  or,
  orAll,
  resize,
  un,
  v,
} from './imp-build.js';
import { type LValue, type Region, UnsupportedError, type Val, intKindOf, intWidth, regionLayout } from './memory.js';
import { LIBRARY_FUNCTIONS } from './library.js';
import { VOID, stripCasts } from './common.js';
import type { Lowerer } from './lower.js';
import { floatKindOf } from './float-lowering.js';

function promote(k: IntegerKind, dm: DataModel): IntegerKind {
  switch (k) {
    case 'bool':
    case 'char':
    case 'schar':
    case 'uchar':
    case 'short':
    case 'ushort':
      return 'int';
    default:
      void dm;
      return k;
  }
}

export class ExpressionLowering {
  /** An expression as a condition (IMP bool). */
  cond(this: Lowerer, e: CExpr): Expr {
    if (e.kind === 'Binary') {
      if (e.op === '&&' || e.op === '||') return this.shortCircuit(e);
      if (['<', '>', '<=', '>=', '==', '!='].includes(e.op)) return this.compare(e);
    }
    if (e.kind === 'Unary' && e.op === '!') return un('!', this.cond(e.operand), e.loc);
    if (e.kind === 'ImplicitCast' && (e.castKind === 'IntegralToBoolean' || e.castKind === 'PointerToBoolean')) return this.cond(e.operand);
    return this.truthy(this.rv(e), e.loc);
  }

  shortCircuit(this: Lowerer, e: Binary): Expr {
    const isAnd = e.op === '&&';
    const l = this.cond(e.left);
    const [pre, r] = this.buffer(() => this.cond(e.right));
    if (pre.length === 0) return isAnd ? and(l, r, e.loc) : or(l, r, e.loc);
    const t = this.temp(boolType);
    this.emit(assign(t, l, e.loc));
    const branch = [...pre, assign(t, r, e.loc)];
    this.emit(ifs(isAnd ? v(t, e.loc) : un('!', v(t, e.loc), e.loc), branch, [], e.loc));
    return v(t, e.loc);
  }

  compare(this: Lowerer, e: Binary): Expr {
    const l = this.rv(e.left);
    const r = this.rv(e.right);
    const loc = e.loc;
    if (l.k === 'ptr' || r.k === 'ptr') {
      const lp = l.k === 'ptr' ? l : this.convert(l, e.right.type, loc);
      const rp = r.k === 'ptr' ? r : this.convert(r, e.left.type, loc);
      if (lp.k !== 'ptr' || rp.k !== 'ptr') throw new UnsupportedError('pointer comparison', loc);
      if (e.op === '==' || e.op === '!=') this.integerAddressUse([lp, rp], 'comparison of a pointer made from an integer with a pointer to an object', loc);
      else for (const p of [lp, rp]) this.integerAddressUse([p], 'relational comparison of a pointer made from an integer', loc);
      let same = and(eq(lp.base, rp.base, loc), eq(lp.off, rp.off, loc), loc);
      // A struct and its first member are one address in two regions.
      const known = [...(this.knownRegions?.values() ?? [])];
      const pairs: Array<readonly [Region, Region, number, number]> = known.flatMap((r) => this.firstMemberRegions(r).map((m) => [r, m, 1, 1] as const));
      // Views of one stored region (and the region itself): equal at equal byte offsets.
      for (const [i, a] of known.entries()) {
        for (const b of known.slice(i + 1)) {
          if (a.root.name !== b.root.name || a.path.join('.') !== b.path.join('.') || (!a.view && !b.view)) continue;
          pairs.push([a, b, sizeOfElem(a.elem, this.dm) ?? 1, sizeOfElem(b.elem, this.dm) ?? 1]);
        }
      }
      if (pairs.length && (e.op === '==' || e.op === '!=')) {
        const lb = this.named(bvType(32), lp.base, loc);
        const rb = this.named(bvType(32), rp.base, loc);
        const lo = this.named(bvType(this.pw), lp.off, loc);
        const ro = this.named(bvType(this.pw), rp.off, loc);
        const is = (b: Expr, r: Region) => eq(b, bv(BigInt(r.id), 32, loc), loc);
        const scaled = (o: Expr, m: number) => (m === 1 ? o : bin('*', o, bv(BigInt(m), this.pw, loc), loc));
        const across = pairs.map(([a, b, ma, mb]) =>
          or(and(and(is(lb, a), is(rb, b), loc), eq(scaled(lo, ma), scaled(ro, mb), loc), loc), and(and(is(lb, b), is(rb, a), loc), eq(scaled(lo, mb), scaled(ro, ma), loc), loc), loc),
        );
        same = or(and(eq(lb, rb, loc), eq(lo, ro, loc), loc), orAll(across, loc), loc);
      }
      switch (e.op) {
        case '==': return same;
        case '!=': return un('!', same, loc);
        default: {
          // Relational comparison: defined only within one object (C11 6.5.8p5);
          // across objects the result depends on the layout, which is not modelled.
          const { lo, ro } = this.sameObject(lp, rp, 'relational comparison of pointers into different objects', loc);
          const fn = { '<': 'slt', '>': 'sgt', '<=': 'sle', '>=': 'sge' } as const;
          return app(fn[e.op as '<' | '>' | '<=' | '>='], [lo, ro], loc);
        }
      }
    }
    if (l.k === 'float' || r.k === 'float') return this.floatCompare(e.op, l, r, loc);
    if (l.k !== 'int' || r.k !== 'int') throw new UnsupportedError('comparison of non-scalars', loc);
    const sg = isSignedKind(l.ik);
    switch (e.op) {
      case '==': return eq(l.e, r.e, loc);
      case '!=': return un('!', eq(l.e, r.e, loc), loc);
      case '<': return app(sg ? 'slt' : 'ult', [l.e, r.e], loc);
      case '>': return app(sg ? 'sgt' : 'ugt', [l.e, r.e], loc);
      case '<=': return app(sg ? 'sle' : 'ule', [l.e, r.e], loc);
      case '>=': return app(sg ? 'sge' : 'uge', [l.e, r.e], loc);
    }
    throw new UnsupportedError(`comparison ${e.op}`, loc);
  }

  /** An expression's value; `discard` when only its side effects matter. */
  rv(this: Lowerer, e: CExpr, discard = false): Val {
    switch (e.kind) {
      case 'IntegerLiteral': {
        const k = intKindOf(e.type);
        if (k === undefined) throw new UnsupportedError('integer literal of a non-integer type', e.loc);
        return { k: 'int', e: bv(e.value, intWidth(k, this.dm, e.loc), e.loc), ik: k };
      }
      case 'FloatLiteral':
        return this.floatLiteral(e);
      case 'StringLiteral':
        // A literal whose value is discarded (`("tag", f(x))`) has no effect; elsewhere it decays to a pointer first.
        if (discard) return VOID;
        throw new UnsupportedError('string literal', e.loc);
      case 'Identifier': {
        const d = e.decl;
        if (d.kind === 'EnumConstant') {
          const k = intKindOf(e.type) ?? 'int';
          return { k: 'int', e: bv(d.value, intWidth(k, this.dm, e.loc), e.loc), ik: k };
        }
        if (d.kind === 'Function') throw new UnsupportedError('function used as a value', e.loc);
        return this.readLv(this.lvalue(e), e.loc);
      }
      case 'Unary':
        return this.unary(e);
      case 'IncDec':
        return this.incDec(e, discard);
      case 'Binary':
        return this.binary(e);
      case 'Assign':
        return this.assignExpr(e, discard);
      case 'Conditional':
        return this.conditional(e, discard);
      case 'Comma':
        this.rv(e.left, true);
        return this.rv(e.right, discard);
      case 'Call':
        return this.call(e, discard);
      case 'Member':
      case 'Index':
        return this.readLv(this.lvalue(e), e.loc);
      case 'Cast':
        if (unqualified(e.type).kind === 'void') {
          this.rv(e.operand, true);
          return VOID;
        }
        return (
          this.offsetofIdiom(e.operand, e.type, e.loc) ??
          this.containerOf(e.operand, e.type, e.loc) ??
          this.allocation(e.operand, e.type) ??
          this.convert(this.typedRv(e.operand, e.type), e.type, e.loc)
        );
      case 'ImplicitCast':
        return this.implicitCast(e, discard);
      case 'SizeOf':
      case 'OffsetOf': {
        if (e.value === undefined) throw new UnsupportedError('sizeof of a variable-length array', e.loc);
        const k = intKindOf(e.type) ?? 'uint';
        return { k: 'int', e: bv(e.value, intWidth(k, this.dm, e.loc), e.loc), ik: k };
      }
      case 'CompoundLiteral':
        return this.readLv(this.lvalue(e), e.loc);
      case 'StatementExpr': {
        // The statement around it, for what must name a statement of the source (macros such as assert() expand to statement expressions).
        const outer = this.statementExprOuter;
        this.statementExprOuter ??= this.stmtLoc;
        try {
          const items = e.body.items;
          const last = items[items.length - 1];
          if (last && last.kind === 'ExprStmt' && unqualified(e.type).kind !== 'void') {
            const j = this.lowerBlock(items.slice(0, -1));
            if (j.may.size) throw new UnsupportedError('jump out of a statement expression', e.loc);
            this.stmtLoc = last.loc;
            return this.snapshot(this.rv(last.expr), last.loc);
          }
          const j = this.lowerBlock(items);
          if (j.may.size) throw new UnsupportedError('jump out of a statement expression', e.loc);
          return VOID;
        } finally {
          this.statementExprOuter = outer;
        }
      }
      case 'VaArg':
        throw new UnsupportedError('va_arg', e.loc);
      case 'BuiltinCall': {
        if (e.name === '__builtin_alloca') {
          const allocated = this.allocation(e, this.allocTypes[this.allocTypes.length - 1] ?? e.type);
          if (allocated) return allocated;
        }
        return this.builtinCall(e.name, e.args, e.type, e.loc);
      }
    }
  }

  builtinCall(this: Lowerer, name: string, args: readonly CExpr[], returnType: CType, loc: L): Val {
    switch (name) {
      case '__builtin_expect':
        if (args.length !== 2) break;
        {
          const r = this.rv(args[0]);
          this.rv(args[1], true);
          return r;
        }
      case '__builtin_abort':
      case '__builtin_trap':
      case '__builtin_unreachable':
        for (const a of args) this.rv(a, true);
        this.endOfRun(loc);
        this.assumeThat(boolLit(false, loc), loc, 'path-ends');
        return VOID;
      default:
        if (name.startsWith('__builtin_') && LIBRARY_FUNCTIONS.has(name.slice(10))) return this.library.call(name.slice(10), args, returnType, loc);
        break;
    }
    const math = this.mathCall(name, args, returnType, loc);
    if (math) return math;
    throw new UnsupportedError(`built-in '${name}'`, loc);
  }

  implicitCast(this: Lowerer, e: Extract<CExpr, { kind: 'ImplicitCast' }>, discard: boolean): Val {
    switch (e.castKind) {
      case 'ArrayToPointer': {
        const lv = this.lvalue(e.operand);
        const at = unqualified(lv.type);
        if (at.kind !== 'array') throw new UnsupportedError('array decay of a non-array', e.loc);
        if (unqualified(at.element).kind === 'array') throw new UnsupportedError('pointer to an array', e.loc);
        const n = this.arrayLength(lv.type, e.loc) ?? this.arrayLength(at, e.loc);
        if (n === undefined && lv.alts.some((a) => a.index !== undefined)) throw new UnsupportedError('array of unknown length inside an array', e.loc);
        return this.addressOf(lv, at.element, e.loc, n);
      }
      case 'FunctionToPointer': {
        const f = stripCasts(e.operand);
        if (f?.kind === 'Identifier' && f.decl.kind === 'Function') return this.functionPointer(f.decl, e.loc);
        throw new UnsupportedError('function pointer', e.loc);
      }
      case 'ToVoid':
        this.rv(e.operand, true);
        return VOID;
      case 'NoOp':
        return this.rv(e.operand, discard);
      case 'IntegralToFloating':
      case 'FloatingToIntegral':
      case 'FloatingToBoolean':
      case 'FloatingCast':
        return this.convert(this.rv(e.operand), e.type, e.loc);
      case 'IntegralToPointer':
      case 'NullToPointer':
      case 'PointerCast':
        return this.allocation(e.operand, e.type) ?? this.convert(this.typedRv(e.operand, e.type), e.type, e.loc);
      case 'PointerToIntegral':
        return this.offsetofIdiom(e.operand, e.type, e.loc) ?? this.convert(this.rv(e.operand), e.type, e.loc);
      case 'PointerToBoolean':
      case 'IntegralCast':
      case 'IntegralToBoolean':
        return this.convert(this.rv(e.operand), e.type, e.loc);
    }
  }

  unary(this: Lowerer, e: Extract<CExpr, { kind: 'Unary' }>): Val {
    const loc = e.loc;
    switch (e.op) {
      case '&': {
        const op = e.operand;
        if (op.kind === 'Unary' && op.op === '*') return this.convert(this.rv(op.operand), e.type, loc);
        if (op.kind === 'Identifier' && op.decl.kind === 'Function') return this.functionPointer(op.decl, loc);
        const lv = this.lvalue(op);
        if (unqualified(lv.type).kind === 'array') throw new UnsupportedError('pointer to an array', loc);
        return this.addressOf(lv, lv.type, loc);
      }
      case '*':
        return this.readLv(this.lvalue(e), loc);
      case '!':
        return { k: 'int', e: this.boolToInt(un('!', this.cond(e.operand), loc), intKindOf(e.type) ?? 'int', loc), ik: intKindOf(e.type) ?? 'int' };
      case '+':
        return this.rv(e.operand);
      case '-':
      case '~': {
        const x = this.rv(e.operand);
        if (x.k === 'float' && e.op === '-') return this.floatNegate(x, loc);
        if (x.k !== 'int') throw new UnsupportedError(`'${e.op}' on a non-integer`, loc);
        const w = intWidth(x.ik, this.dm, loc);
        if (e.op === '-' && isSignedKind(x.ik) && this.checksOverflow()) {
          this.overflowGoal(this.negationOk(x.e, w, loc), loc, `signed overflow in -${integerKindName(x.ik)}`);
        }
        return { k: 'int', e: un(e.op, x.e, loc), ik: x.ik };
      }
    }
  }

  /**
   * Integer arithmetic in the (already converted) operation type `ik`, with
   * the no-overflow check for signed types and `assume` for the undefined
   * cases that are not overflow (division by zero, bad shift amounts).
   */
  arith(this: Lowerer, op: string, a: Expr, b: Expr, ik: IntegerKind, bk: IntegerKind, loc: L): Expr {
    const w = intWidth(ik, this.dm, loc);
    const sg = isSignedKind(ik);
    const checking = this.checksOverflow() && sg;
    const what = `signed overflow in ${integerKindName(ik)} ${op} ${integerKindName(ik)}`;
    const MIN = bv(minSigned(w), w, loc);
    const MINUS1 = bv(-1n, w, loc);
    const ZERO = bv(0n, w, loc);
    switch (op) {
      case '+':
      case '-':
      case '*': {
        const r = bin(op, a, b, loc);
        if (checking) this.overflowGoal(this.noOverflow(op, a, b, w, loc), loc, what);
        return r;
      }
      case '/':
      case '%': {
        // A constant divisor decides both conditions here (no goal that cannot fail).
        const divisor = b.kind === 'bv_lit' ? b.value : undefined;
        const nonzero = divisor !== undefined ? boolLit(divisor !== 0n, loc) : un('!', eq(b, ZERO, loc), loc);
        if (this.passes.has('division-by-zero')) {
          this.goal('div-by-zero', nonzero, loc, `division by zero in ${integerKindName(ik)} ${op} ${integerKindName(ik)}`);
          this.assumeThat(nonzero, loc, 'checked');
        } else this.undefinedUnless(nonzero, loc, `division by zero in ${op}`);
        if (sg) {
          const ovf = and(eq(a, MIN, loc), eq(b, MINUS1, loc), loc);
          if (checking) this.overflowGoal(un('!', ovf, loc), loc, what);
          // INT_MIN / -1 traps on x86 at run time, but gcc may fold it away: not a certain end.
          else this.undefinedUnless(divisor !== undefined && divisor !== (1n << BigInt(w)) - 1n ? boolLit(true, loc) : un('!', ovf, loc), loc, `INT_MIN ${op} -1`);
        }
        return app(op === '/' ? (sg ? 'sdiv' : 'udiv') : sg ? 'srem' : 'urem', [a, b], loc);
      }
      case '&':
      case '|':
      case '^':
        return bin(op, a, b, loc);
      case '<<':
      case '>>': {
        // The amount has its own promoted type `bk`; it must be in [0, w).
        const bw = intWidth(bk, this.dm, loc);
        const bsg = isSignedKind(bk);
        const inRange = app(bsg ? 'slt' : 'ult', [b, bv(BigInt(w), bw, loc)], loc);
        this.undefinedUnless(bsg ? and(inRange, app('sge', [b, bv(0n, bw, loc)], loc), loc) : inRange, loc, `a shift amount outside [0, ${w})`);
        const amount = resize(b, bw, w, false, loc);
        if (op === '>>') return app(sg ? 'ashr' : 'lshr', [a, amount], loc);
        if (checking) this.overflowGoal(this.shiftOk(a, amount, w, loc), loc, `signed overflow in ${integerKindName(ik)} << ${integerKindName(bk)}`);
        return bin('<<', a, amount, loc);
      }
    }
    throw new UnsupportedError(`operator ${op}`, loc);
  }

  binary(this: Lowerer, e: Binary): Val {
    const loc = e.loc;
    switch (e.op) {
      case '&&':
      case '||':
      case '<':
      case '>':
      case '<=':
      case '>=':
      case '==':
      case '!=': {
        const k = intKindOf(e.type) ?? 'int';
        return { k: 'int', e: this.boolToInt(this.cond(e), k, loc), ik: k };
      }
    }
    const l = this.rv(e.left);
    const r = this.rv(e.right);
    if (floatKindOf(e.type)) return this.floatArith(e.op, l, r, e.type, loc);
    if (l.k === 'ptr' || r.k === 'ptr') return this.pointerArith(e, l, r);
    if (l.k !== 'int' || r.k !== 'int') throw new UnsupportedError(`operator ${e.op} on non-integers`, loc);
    const k = intKindOf(e.type);
    if (k === undefined) throw new UnsupportedError(`operator ${e.op} of type ${cTypeToString(e.type)}`, loc);
    return { k: 'int', e: this.arith(e.op, l.e, r.e, k, r.ik, loc), ik: k };
  }

  /**
   * The offset of `p op i`. The model counts a region's elements; where only
   * runs of them are adjacent in memory (the member of each element of an
   * array of structs), a step out of the run reaches other members' bytes in
   * the program but another element's member in the model: not modelled.
   */
  step(this: Lowerer, p: Val & { k: 'ptr' }, op: '+' | '-', i: Expr, loc: L): Expr {
    const off = bin(op, p.off, i, loc);
    if (i.kind === 'bv_lit' && i.value === 0n) return off;
    const conds: Expr[] = [];
    const names = new Set<string>();
    for (const r of this.knownRegions?.values() ?? []) {
      if (!sameType(unqualified(r.elem), unqualified(p.pointee))) continue;
      const run = regionLayout(r.root.type, r.path, this.dm).run;
      if (run === undefined) continue;
      const len = run * (r.view?.k ?? 1);
      const at = eq(p.base, bv(BigInt(r.id), 32, loc), loc);
      const stays = len === 1 ? eq(i, bv(0n, this.pw, loc), loc) : app('ult', [bin(op, app('urem', [p.off, bv(BigInt(len), this.pw, loc)], loc), i, loc), bv(BigInt(len), this.pw, loc)], loc);
      conds.push(or(un('!', at, loc), stays, loc));
      names.add(r.path[r.path.length - 1]!);
    }
    if (conds.length) this.uncertain(andAll(conds, loc), loc, `pointer arithmetic out of the member ${[...names].map((n) => `'${n}'`).join(', ')} of an array element (the other members' bytes are not modelled)`);
    return off;
  }

  pointerArith(this: Lowerer, e: Binary, l: Val, r: Val): Val {
    const loc = e.loc;
    if (l.k === 'ptr' && r.k === 'ptr') {
      if (e.op !== '-') throw new UnsupportedError(`operator ${e.op} on two pointers`, loc);
      const k = intKindOf(e.type);
      if (k === undefined) throw new UnsupportedError('pointer difference', loc);
      this.integerAddressUse([l], 'subtraction of pointers made from integers', loc);
      const { lo, ro } = this.sameObject(l, r, 'subtraction of pointers into different objects', loc);
      const d = bin('-', lo, ro, loc);
      return { k: 'int', e: resize(d, this.pw, intWidth(k, this.dm, loc), true, loc), ik: k };
    }
    const p = (l.k === 'ptr' ? l : r) as Extract<Val, { k: 'ptr' }>;
    const n = l.k === 'ptr' ? r : l;
    const i = this.index(n, loc);
    this.integerAddressUse([p], 'arithmetic on a pointer made from an integer', loc);
    if (unqualified(p.pointee).kind === 'void') {
      // GNU arithmetic on void * counts bytes; the offset counts the object's elements.
      const bytes = [...(this.knownRegions?.values() ?? [])].filter((x) => sizeOfElem(x.elem, this.dm) === 1).map((x) => eq(p.base, bv(BigInt(x.id), 32, loc), loc));
      this.uncertain(or(eq(i, bv(0n, this.pw, loc), loc), orAll(bytes, loc), loc), loc, 'arithmetic on a void * into an object of elements larger than a byte');
    }
    if (e.op === '+') return { ...p, off: this.step(p, '+', i, loc) };
    if (e.op === '-' && l.k === 'ptr') return { ...p, off: this.step(p, '-', i, loc) };
    throw new UnsupportedError(`operator ${e.op} on a pointer`, loc);
  }

  assignExpr(this: Lowerer, e: Assign, discard: boolean): Val {
    const loc = e.loc;
    if (e.op === '=') {
      const t = e.target.kind === 'Identifier' && e.target.decl.kind === 'Var' ? e.target.decl : undefined;
      const val = t ? this.withVoidTarget(t, () => this.rv(e.value)) : this.rv(e.value);
      const lv = this.lvalue(e.target);
      const s = discard ? val : this.snapshot(this.convert(val, lv.type, loc), loc);
      this.store(lv, s, loc);
      return discard ? VOID : unqualified(lv.type).kind === 'record' ? { k: 'agg', lv } : s;
    }
    // Compound assignment: lv = (T)((CT)lv op (CT)value).
    const op = e.op.slice(0, -1);
    const val = this.rv(e.value);
    const lv = this.lvalue(e.target);
    const ct = e.computationType ?? e.target.type;
    const old = this.readLv(lv, loc);
    let result: Val;
    if (old.k === 'ptr') {
      if (op !== '+' && op !== '-') throw new UnsupportedError(`${e.op} on a pointer`, loc);
      const i = this.index(val, loc);
      result = { ...old, off: this.step(old, op as '+' | '-', i, loc) };
    } else if (floatKindOf(ct)) {
      result = this.floatArith(op, old, val, ct, loc);
    } else {
      const a = this.convert(old, ct, loc);
      const shift = op === '<<' || op === '>>';
      const b = shift ? val : this.convert(val, ct, loc);
      if (a.k !== 'int' || b.k !== 'int') throw new UnsupportedError(`${e.op} on non-integers`, loc);
      result = { k: 'int', e: this.arith(op, a.e, b.e, a.ik, b.ik, loc), ik: a.ik };
    }
    const conv = this.convert(result, lv.type, loc);
    const s = discard ? conv : this.snapshot(conv, loc);
    this.store(lv, s, loc);
    return discard ? VOID : s;
  }

  incDec(this: Lowerer, e: IncDec, discard: boolean): Val {
    const loc = e.loc;
    const lv = this.lvalue(e.operand);
    const old0 = this.readLv(lv, loc);
    const old = discard || e.prefix ? old0 : this.snapshot(old0, loc);
    const op = e.op === '++' ? '+' : '-';
    let next: Val;
    if (old.k === 'ptr') {
      next = { ...old, off: this.step(old, op, bv(1n, this.pw, loc), loc) };
    } else if (old.k === 'float') {
      next = this.floatStep(old, op, loc);
    } else if (old.k === 'int') {
      // The operand is promoted (C11 6.5.3.1: E += 1), then converted back.
      const pk = promote(old.ik, this.dm);
      const a = this.convert(old, { kind: 'integer', name: pk }, loc);
      if (a.k !== 'int') throw new UnsupportedError('++/--', loc);
      const one = bv(1n, intWidth(pk, this.dm, loc), loc);
      next = this.convert({ k: 'int', e: this.arith(op, a.e, one, pk, pk, loc), ik: pk }, lv.type, loc);
    } else {
      throw new UnsupportedError('++/-- on a non-scalar', loc);
    }
    const s = discard || !e.prefix ? next : this.snapshot(next, loc);
    this.store(lv, s, loc);
    if (discard) return VOID;
    return e.prefix ? s : old;
  }

  conditional(this: Lowerer, e: Extract<CExpr, { kind: 'Conditional' }>, discard: boolean): Val {
    const loc = e.questionLoc;
    this.map.addBranch({ loc, keyword: '?', function: this.fnName });
    const type = unqualified(e.type);
    if (e.then === undefined) {
      // GNU a ?: b — a is evaluated once.
      const a = this.snapshot(this.rv(e.condition), e.condition.loc);
      const c = this.truthy(a, loc);
      const [pre, b] = this.buffer(() => this.rv(e.else));
      return this.merge(c, [], this.convert(a, type, loc), pre, this.convert(b, type, loc), type, loc, discard);
    }
    const c = this.cond(e.condition);
    const [preA, a] = this.buffer(() => this.rv(e.then!, discard));
    const [preB, b] = this.buffer(() => this.rv(e.else, discard));
    if (type.kind === 'void' || discard) {
      this.emit(ifs(c, preA, preB, loc));
      return VOID;
    }
    return this.merge(c, preA, this.convert(a, type, loc), preB, this.convert(b, type, loc), type, loc, false);
  }

  merge(this: Lowerer, c: Expr, preA: Stmt[], a: Val, preB: Stmt[], b: Val, type: CType, loc: L, discard: boolean): Val {
    if (discard) {
      if (preA.length || preB.length) this.emit(ifs(c, preA, preB, loc));
      return VOID;
    }
    if (a.k === 'int' && b.k === 'int') {
      if (!preA.length && !preB.length) return { k: 'int', e: ite(c, a.e, b.e, loc), ik: a.ik };
      const t = this.temp(bvType(intWidth(a.ik, this.dm, loc)));
      this.emit(ifs(c, [...preA, assign(t, a.e, loc)], [...preB, assign(t, b.e, loc)], loc));
      return { k: 'int', e: v(t, loc), ik: a.ik };
    }
    if (a.k === 'float' && b.k === 'float') {
      if (!preA.length && !preB.length) return { k: 'float', e: ite(c, a.e, b.e, loc), fk: a.fk };
      const t = this.floatTemp(a.fk);
      this.emit(ifs(c, [...preA, assign(t, a.e, loc)], [...preB, assign(t, b.e, loc)], loc));
      return { k: 'float', e: v(t, loc), fk: a.fk };
    }
    if (a.k === 'ptr' && b.k === 'ptr') {
      if (!preA.length && !preB.length) return { k: 'ptr', base: ite(c, a.base, b.base, loc), off: ite(c, a.off, b.off, loc), pointee: a.pointee };
      const tb = this.temp(bvType(32));
      const to = this.temp(bvType(this.pw));
      this.emit(ifs(c, [...preA, assign(tb, a.base, loc), assign(to, a.off, loc)], [...preB, assign(tb, b.base, loc), assign(to, b.off, loc)], loc));
      return { k: 'ptr', base: v(tb, loc), off: v(to, loc), pointee: a.pointee };
    }
    if (a.k === 'agg' && b.k === 'agg') {
      const root = this.makeRoot('$agg', type, loc);
      const lv: LValue = { type, alts: [{ root, path: [] }] };
      const [sa] = this.buffer(() => this.store(lv, a, loc));
      const [sb] = this.buffer(() => this.store(lv, b, loc));
      this.emit(ifs(c, [...preA, ...sa], [...preB, ...sb], loc));
      return { k: 'agg', lv };
    }
    throw new UnsupportedError(`conditional of type ${cTypeToString(type)}`, loc);
  }
}

// A C candidate invariant (a typed expression of the C front end) as an IMP
// condition over the bit-vector variables of one lowered loop instance, with
// C's integer semantics. Undefined behaviour (signed overflow, division by
// zero, bad shift amounts) is not given a value: the translation is
// `defined(e) && e`, so a selected candidate is defined and true at every
// visit of the loop head, whatever reading of undefined behaviour a
// validator takes.
import type { SourceLocation } from '../common/location.js';
import type { Expr as CExpr, VarDecl as CVarDecl } from '../c/ast.js';
import { type DataModel, type IntegerKind, integerBits, integerKind, isSignedKind, typeToString, unqualified, type CType } from '../c/types.js';
import type { BinaryOp, BuiltinName, BvWidth, Expr } from '../ivl/ast.js';

/** The candidate mentions something the translation does not model. */
export class UnsupportedCandidate extends Error {}

interface Val {
  readonly e: Expr;
  readonly ik: IntegerKind;
  /** When the value is defined (no undefined behaviour on the way). */
  readonly def: Expr;
}

/** Resolves a C variable to the IMP variable that holds it at the loop (undefined: not available). */
export type VariableResolver = (decl: CVarDecl) => string | undefined;

const T = (loc: SourceLocation): Expr => ({ kind: 'bool_lit', value: true, loc });

export class CandidateTranslator {
  constructor(
    private readonly dm: DataModel,
    private readonly resolve: VariableResolver,
    private readonly loc: SourceLocation,
  ) {}

  /** `defined(e) && e` as an IMP bool. */
  condition(e: CExpr): Expr {
    const c = this.cond(e);
    return this.and(c.def, c.e);
  }

  // ---- builders --------------------------------------------------------------
  private bv(value: bigint, w: BvWidth): Expr {
    return { kind: 'bv_lit', value: BigInt.asUintN(w, value), width: w, loc: this.loc };
  }
  private bin(op: BinaryOp, left: Expr, right: Expr): Expr {
    return { kind: 'binary', op, left, right, loc: this.loc };
  }
  private app(fn: BuiltinName, ...args: Expr[]): Expr {
    return { kind: 'app', fn, args, loc: this.loc };
  }
  private not(e: Expr): Expr {
    if (e.kind === 'bool_lit') return { ...e, value: !e.value };
    return { kind: 'unary', op: '!', arg: e, loc: this.loc };
  }
  private and(a: Expr, b: Expr): Expr {
    if (a.kind === 'bool_lit') return a.value ? b : a;
    if (b.kind === 'bool_lit') return b.value ? a : b;
    return this.bin('&&', a, b);
  }
  private or(a: Expr, b: Expr): Expr {
    if (a.kind === 'bool_lit') return a.value ? a : b;
    if (b.kind === 'bool_lit') return b.value ? b : a;
    return this.bin('||', a, b);
  }
  private implies(a: Expr, b: Expr): Expr {
    if (b.kind === 'bool_lit' && b.value) return b;
    return this.or(this.not(a), b);
  }
  private ite(c: Expr, a: Expr, b: Expr): Expr {
    if (c.kind === 'bool_lit') return c.value ? a : b;
    return { kind: 'ite', cond: c, then: a, else: b, loc: this.loc };
  }
  private eq(a: Expr, b: Expr): Expr {
    return this.bin('==', a, b);
  }

  private width(k: IntegerKind): BvWidth {
    const w = integerBits(k, this.dm);
    if (w === 128) throw new UnsupportedCandidate('__int128');
    return w as BvWidth;
  }
  private kindOf(t: CType): IntegerKind {
    const u = unqualified(t);
    if (u.kind === 'integer' || u.kind === 'enum') return integerKind(u);
    throw new UnsupportedCandidate(`a value of type ${typeToString(t)}`);
  }
  private resize(e: Expr, from: BvWidth, to: BvWidth, signedSource: boolean): Expr {
    if (from === to) return e;
    if (e.kind === 'bv_lit') return this.bv(signedSource ? BigInt.asIntN(from, e.value) : e.value, to);
    if (to < from) return this.app(`trunc${to}` as BuiltinName, e);
    return this.app(`${signedSource ? 'sext' : 'zext'}${to}` as BuiltinName, e);
  }
  private truthy(v: Val): Expr {
    const e = v.e;
    if (e.kind === 'ite' && e.then.kind === 'bv_lit' && e.then.value === 1n && e.else.kind === 'bv_lit' && e.else.value === 0n) return e.cond;
    return this.not(this.eq(e, this.bv(0n, this.width(v.ik))));
  }
  private boolVal(c: Expr, def: Expr, k: IntegerKind): Val {
    const w = this.width(k);
    return { e: this.ite(c, this.bv(1n, w), this.bv(0n, w)), ik: k, def };
  }

  /** Conversion to an integer kind (C11 6.3.1.2-3; narrowing to a signed type wraps as gcc does). */
  private convert(v: Val, k: IntegerKind): Val {
    if (k === 'bool') return v.ik === 'bool' ? v : this.boolVal(this.truthy(v), v.def, 'bool');
    return { e: this.resize(v.e, this.width(v.ik), this.width(k), isSignedKind(v.ik)), ik: k, def: v.def };
  }

  // ---- conditions and values -------------------------------------------------------
  private cond(e: CExpr): { e: Expr; def: Expr } {
    if (e.kind === 'Binary') {
      if (e.op === '&&' || e.op === '||') {
        const l = this.cond(e.left);
        const r = this.cond(e.right);
        // The right operand is evaluated only when the left does not decide.
        const rightRuns = e.op === '&&' ? l.e : this.not(l.e);
        return { e: e.op === '&&' ? this.and(l.e, r.e) : this.or(l.e, r.e), def: this.and(l.def, this.implies(rightRuns, r.def)) };
      }
      if (['<', '>', '<=', '>=', '==', '!='].includes(e.op)) return this.compare(e.op, e.left, e.right);
    }
    if (e.kind === 'Unary' && e.op === '!') {
      const c = this.cond(e.operand);
      return { e: this.not(c.e), def: c.def };
    }
    if (e.kind === 'ImplicitCast' && e.castKind === 'IntegralToBoolean') return this.cond(e.operand);
    const v = this.value(e);
    return { e: this.truthy(v), def: v.def };
  }

  private compare(op: string, left: CExpr, right: CExpr): { e: Expr; def: Expr } {
    // Operands are already converted to their common type (usual arithmetic conversions).
    const l = this.value(left);
    const r = this.value(right);
    const def = this.and(l.def, r.def);
    const sg = isSignedKind(l.ik);
    switch (op) {
      case '==': return { e: this.eq(l.e, r.e), def };
      case '!=': return { e: this.not(this.eq(l.e, r.e)), def };
      case '<': return { e: this.app(sg ? 'slt' : 'ult', l.e, r.e), def };
      case '>': return { e: this.app(sg ? 'sgt' : 'ugt', l.e, r.e), def };
      case '<=': return { e: this.app(sg ? 'sle' : 'ule', l.e, r.e), def };
      default: return { e: this.app(sg ? 'sge' : 'uge', l.e, r.e), def };
    }
  }

  private value(e: CExpr): Val {
    switch (e.kind) {
      case 'IntegerLiteral': {
        const k = this.kindOf(e.type);
        return { e: this.bv(e.value, this.width(k)), ik: k, def: T(this.loc) };
      }
      case 'Identifier': {
        const d = e.decl;
        if (d.kind === 'EnumConstant') {
          const k = this.kindOf(d.type);
          return { e: this.bv(d.value, this.width(k)), ik: k, def: T(this.loc) };
        }
        if (d.kind !== 'Var') throw new UnsupportedCandidate(`function designator '${e.name}'`);
        const k = this.kindOf(d.type);
        const name = this.resolve(d);
        if (name === undefined) throw new UnsupportedCandidate(`variable '${e.name}' has no lowered counterpart at this loop`);
        return { e: { kind: 'var', name, loc: this.loc }, ik: k, def: T(this.loc) };
      }
      case 'ImplicitCast':
      case 'Cast': {
        if (e.kind === 'ImplicitCast' && e.castKind !== 'IntegralCast' && e.castKind !== 'IntegralToBoolean' && e.castKind !== 'NoOp') {
          throw new UnsupportedCandidate(`conversion ${e.castKind}`);
        }
        const to = this.kindOf(e.type);
        return this.convert(this.value(e.operand), to);
      }
      case 'SizeOf':
      case 'OffsetOf': {
        if (e.value === undefined) throw new UnsupportedCandidate('sizeof of a variable-length array');
        const k = this.kindOf(e.type);
        return { e: this.bv(e.value, this.width(k)), ik: k, def: T(this.loc) };
      }
      case 'Unary':
        return this.unary(e.op, e.operand, e.type);
      case 'Binary': {
        if (['&&', '||', '<', '>', '<=', '>=', '==', '!='].includes(e.op)) {
          const c = this.cond(e);
          return this.boolVal(c.e, c.def, this.kindOf(e.type));
        }
        return this.arith(e.op, e.left, e.right, e.type);
      }
      case 'Conditional': {
        if (!e.then) throw new UnsupportedCandidate("GNU 'a ?: b'");
        const c = this.cond(e.condition);
        const k = this.kindOf(e.type);
        const a = this.convert(this.value(e.then), k);
        const b = this.convert(this.value(e.else), k);
        return { e: this.ite(c.e, a.e, b.e), ik: k, def: this.and(c.def, this.ite(c.e, a.def, b.def)) };
      }
      default:
        throw new UnsupportedCandidate(DESCRIBE[e.kind] ?? e.kind);
    }
  }

  private unary(op: string, operand: CExpr, type: CType): Val {
    if (op === '&' || op === '*') throw new UnsupportedCandidate(op === '&' ? 'address-of' : 'pointer dereference');
    if (op === '!') {
      const c = this.cond(operand);
      return this.boolVal(this.not(c.e), c.def, this.kindOf(type));
    }
    const x = this.value(operand);
    if (op === '+') return x;
    const w = this.width(x.ik);
    if (op === '~') return { e: { kind: 'unary', op: '~', arg: x.e, loc: this.loc }, ik: x.ik, def: x.def };
    const def = isSignedKind(x.ik) ? this.and(x.def, this.not(this.eq(x.e, this.bv(-(1n << BigInt(w - 1)), w)))) : x.def;
    return { e: { kind: 'unary', op: '-', arg: x.e, loc: this.loc }, ik: x.ik, def };
  }

  private arith(op: string, left: CExpr, right: CExpr, type: CType): Val {
    if (unqualified(left.type).kind === 'pointer' || unqualified(right.type).kind === 'pointer') throw new UnsupportedCandidate('pointer arithmetic');
    const k = this.kindOf(type);
    const a = this.value(left);
    const b = this.value(right);
    const w = this.width(k);
    const sg = isSignedKind(k);
    const defs = this.and(a.def, b.def);
    const MIN = this.bv(-(1n << BigInt(w - 1)), w);
    const ZERO = this.bv(0n, w);
    switch (op) {
      case '+':
      case '-':
      case '*':
        return { e: this.bin(op, a.e, b.e), ik: k, def: sg ? this.and(defs, this.noOverflow(op, a.e, b.e, w)) : defs };
      case '/':
      case '%': {
        let def = this.and(defs, this.not(this.eq(b.e, ZERO)));
        if (sg) def = this.and(def, this.not(this.and(this.eq(a.e, MIN), this.eq(b.e, this.bv(-1n, w)))));
        const fn: BuiltinName = op === '/' ? (sg ? 'sdiv' : 'udiv') : sg ? 'srem' : 'urem';
        return { e: this.app(fn, a.e, b.e), ik: k, def };
      }
      case '&':
      case '|':
      case '^':
        return { e: this.bin(op, a.e, b.e), ik: k, def: defs };
      case '<<':
      case '>>': {
        // The amount has its own promoted type; it must be in [0, w).
        const bw = this.width(b.ik);
        const bsg = isSignedKind(b.ik);
        let def = this.and(defs, this.app(bsg ? 'slt' : 'ult', b.e, this.bv(BigInt(w), bw)));
        if (bsg) def = this.and(def, this.app('sge', b.e, this.bv(0n, bw)));
        const amount = this.resize(b.e, bw, w, false);
        if (op === '>>') return { e: this.app(sg ? 'ashr' : 'lshr', a.e, amount), ik: k, def };
        if (sg) {
          // E1 << E2 for signed E1: E1 >= 0 and E1 * 2^E2 representable.
          def = this.and(def, this.and(this.app('sge', a.e, ZERO), this.eq(this.app('lshr', a.e, this.bin('-', this.bv(BigInt(w - 1), w), amount)), ZERO)));
        }
        return { e: this.bin('<<', a.e, amount), ik: k, def };
      }
    }
    throw new UnsupportedCandidate(`operator ${op}`);
  }

  /** The mathematical result of a signed + - * fits in w bits. */
  private noOverflow(op: '+' | '-' | '*', a: Expr, b: Expr, w: BvWidth): Expr {
    if (w <= 32) {
      const W = (w * 2) as BvWidth;
      const r = this.bin(op, this.resize(a, w, W, true), this.resize(b, w, W, true));
      return this.and(this.app('sge', r, this.bv(-(1n << BigInt(w - 1)), W)), this.app('sle', r, this.bv((1n << BigInt(w - 1)) - 1n, W)));
    }
    const ZERO = this.bv(0n, w);
    const neg = (x: Expr) => this.app('slt', x, ZERO);
    const r = this.bin(op, a, b);
    if (op === '+') return this.not(this.and(this.eq(neg(a), neg(b)), this.not(this.eq(neg(r), neg(a)))));
    if (op === '-') return this.not(this.and(this.not(this.eq(neg(a), neg(b))), this.not(this.eq(neg(r), neg(a)))));
    // 64-bit: a == 0, or (a * b) / a == b and not (a == -1 and b == MIN).
    const MIN = this.bv(-(1n << BigInt(w - 1)), w);
    return this.or(
      this.eq(a, ZERO),
      this.and(this.eq(this.app('sdiv', r, a), b), this.not(this.and(this.eq(a, this.bv(-1n, w)), this.eq(b, MIN)))),
    );
  }
}

const DESCRIBE: Partial<Record<CExpr['kind'], string>> = {
  FloatLiteral: 'floating-point constant',
  StringLiteral: 'string literal',
  IncDec: 'increment or decrement (side effect)',
  Assign: 'assignment (side effect)',
  Comma: 'comma operator',
  Call: 'function call',
  Member: 'struct member access',
  Index: 'array subscript',
  CompoundLiteral: 'compound literal',
  StatementExpr: 'statement expression',
  VaArg: 'va_arg',
  BuiltinCall: 'built-in call',
};

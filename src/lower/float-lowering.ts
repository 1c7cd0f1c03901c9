// Floating point in the expression lowering: constants, arithmetic in the
// current rounding mode, comparisons, conversions (out-of-range conversions
// to integers are undefined: a goal under no-overflow, UNKNOWN otherwise),
// the bits of a float for unions, nondet floats, fesetround/fegetround and
// the <math.h> functions (float.ts). Methods of the Lowerer (lower.ts).
import type { Expr as CExpr } from '../c/ast.js';
import type { CType, FloatKind } from '../c/types.js';
import { isSignedKind, typeToString as cTypeToString, unqualified } from '../c/types.js';
import { FLOAT_TYPES, type BuiltinName, type BvWidth, type Expr, type ImpType } from '../ivl/ast.js';

const FLOAT32 = FLOAT_TYPES.fp32;
import { bvType } from '../ivl/ast.js';
import { app, assign, bv, eq, havoc, ite, type L, v } from './imp-build.js';
import { UnsupportedError, type Val, intKindOf, intWidth } from './memory.js';
import * as F from './float.js';
import type { Lowerer } from './lower.js';

/** <fenv.h> on x86 (glibc): the rounding modes' values. */
const FE_MODES: ReadonlyArray<readonly [bigint, 'RNE' | 'RTN' | 'RTP' | 'RTZ']> = [
  [0n, 'RNE'],
  [0x400n, 'RTN'],
  [0x800n, 'RTP'],
  [0xc00n, 'RTZ'],
];

/** The IMP variable holding the rounding mode of a program that changes it. */
export const ROUNDING_VAR = '$rounding';

export function floatKindOf(t: CType): FloatKind | undefined {
  const u = unqualified(t);
  return u.kind === 'float' ? u.name : undefined;
}

export class FloatLowering {
  /** The current rounding mode: round-to-nearest-even unless the program calls fesetround. */
  roundingMode(this: Lowerer, loc: L): Expr {
    return this.changesRounding ? v(ROUNDING_VAR, loc) : F.RNE(loc);
  }

  floatLiteral(this: Lowerer, e: Extract<CExpr, { kind: 'FloatLiteral' }>): Val {
    const fk = floatKindOf(e.type);
    const lit = fk && F.floatLiteral(e.text, fk, e.loc);
    if (!fk || !lit) throw new UnsupportedError(`floating constant '${e.text}'`, e.loc);
    return { k: 'float', e: lit, fk };
  }

  /** A value converted to a floating type, or a float converted to an integer type (undefined: no float involved). */
  floatConvert(this: Lowerer, val: Val, to: CType, loc: L): Val | undefined {
    const t = unqualified(to);
    const fk = floatKindOf(t);
    if (fk !== undefined) {
      if (val.k === 'float') return { k: 'float', e: F.toFloat(val.e, val.fk, fk, this.roundingMode(loc), loc), fk };
      if (val.k === 'int') {
        if (val.ik === 'bool') return { k: 'float', e: ite(eq(val.e, bv(0n, 8, loc), loc), F.floatNumber(0, fk, loc), F.floatNumber(1, fk, loc), loc), fk };
        return { k: 'float', e: F.fromInteger(val.e, isSignedKind(val.ik), fk, this.roundingMode(loc), loc), fk };
      }
      throw new UnsupportedError(`conversion of a ${val.k === 'ptr' ? 'pointer' : val.k === 'agg' ? 'struct' : 'void'} value to ${cTypeToString(t)}`, loc);
    }
    if (val.k !== 'float') return undefined;
    const k = intKindOf(t);
    if (k === undefined) throw new UnsupportedError(`conversion of a floating value to ${cTypeToString(t)}`, loc);
    if (k === 'bool') return { k: 'int', e: this.boolToInt(F.truthy(val.e, val.fk, loc), 'bool', loc), ik: 'bool' };
    const w = intWidth(k, this.dm, loc);
    const x = this.named(F.floatImpType(val.fk), val.e, loc);
    this.conversionDefined(F.toIntegerDefined(x, val.fk, w, isSignedKind(k), loc), loc, `${cTypeToString(t)}`);
    return { k: 'int', e: F.toInteger(x, w, isSignedKind(k), loc), ik: k };
  }

  /**
   * A float converted to an integer type whose range does not hold its value
   * is undefined behaviour (C11 6.3.1.4): an `overflow` goal under
   * no-overflow (gcc's -fsanitize=float-cast-overflow reports it), and
   * elsewhere a place where the model is not exact (never assumed away).
   */
  conversionDefined(this: Lowerer, ok: Expr, loc: L, type: string): void {
    if (ok.kind === 'bool_lit' && ok.value) return;
    const what = `floating value out of the range of ${type}`;
    if (this.checksOverflow()) this.overflowGoal(ok, loc, what);
    else this.uncertain(ok, loc, `${what} (undefined behaviour)`);
  }

  floatTruthy(this: Lowerer, val: Val & { k: 'float' }, loc: L): Expr {
    return F.truthy(val.e, val.fk, loc);
  }

  /** The operands of a binary operation on floats, converted to the operation's type (the usual arithmetic conversions made explicit by sema). */
  floatOperands(this: Lowerer, l: Val, r: Val, type: CType, loc: L): { a: Expr; b: Expr; fk: FloatKind } {
    const fk = floatKindOf(type)!;
    const a = this.convert(l, type, loc);
    const b = this.convert(r, type, loc);
    if (a.k !== 'float' || b.k !== 'float') throw new UnsupportedError('floating operation on a non-arithmetic value', loc);
    return { a: a.e, b: b.e, fk };
  }

  floatArith(this: Lowerer, op: string, l: Val, r: Val, type: CType, loc: L): Val {
    if (op !== '+' && op !== '-' && op !== '*' && op !== '/') throw new UnsupportedError(`operator ${op} on floating values`, loc);
    const { a, b, fk } = this.floatOperands(l, r, type, loc);
    return { k: 'float', e: F.arith(op, a, b, this.roundingMode(loc), loc), fk };
  }

  /** A comparison where an operand is a float: both converted to their common real type (C11 6.5.8, 6.5.9). */
  floatCompare(this: Lowerer, op: string, l: Val, r: Val, loc: L): Expr {
    const rank = (x: Val) => (x.k === 'float' ? { float: 1, double: 2, longdouble: 3 }[x.fk] : 0);
    const common = rank(l) >= rank(r) ? (l as Val & { k: 'float' }).fk : (r as Val & { k: 'float' }).fk;
    const t: CType = { kind: 'float', name: common };
    const { a, b } = this.floatOperands(l, r, t, loc);
    return F.compare(op as '<' | '<=' | '>' | '>=' | '==' | '!=', a, b, loc);
  }

  /** The IEEE bits of a float (fp32, fp64): a fresh bit-vector whose float is the value (any NaN pattern for a NaN). */
  floatBits(this: Lowerer, e: Expr, fk: FloatKind, loc: L): Expr {
    if (fk === 'longdouble') throw new UnsupportedError('the bytes of a long double', loc);
    const t = F.floatImpType(fk);
    const w = (fk === 'float' ? 32 : 64) as BvWidth;
    if (e.kind === 'float_lit') return bv(e.bits, w, loc);
    const bits = this.temp(bvType(w), '$bits');
    this.emit(havoc(bits, loc));
    this.assumeThat(eq(app(`bits_to_${t === FLOAT32 ? 'fp32' : 'fp64'}` as BuiltinName, [v(bits, loc)], loc), e, loc), loc, 'c-value');
    return v(bits, loc);
  }

  /** The float whose IEEE bits these are (fp32, fp64). */
  floatOfBits(this: Lowerer, bits: Expr, fk: FloatKind, loc: L): Expr {
    if (fk === 'longdouble') throw new UnsupportedError('the bytes of a long double', loc);
    return app(`bits_to_${fk === 'float' ? 'fp32' : 'fp64'}` as BuiltinName, [bits], loc);
  }

  /** `__VERIFIER_nondet_float`, `__VERIFIER_nondet_double`: any bit pattern (a NaN included). */
  floatNondet(this: Lowerer, fk: FloatKind, loc: L): { name: string; val: Val } {
    if (fk === 'longdouble') throw new UnsupportedError('a nondet long double', loc);
    const name = this.temp(F.floatImpType(fk), '$nd');
    this.emit(havoc(name, loc));
    return { name, val: { k: 'float', e: v(name, loc), fk } };
  }

  /** `fesetround(mode)` (0 on success; an unknown mode changes nothing and gives non-zero) and `fegetround()`. */
  roundingCall(this: Lowerer, name: 'fesetround' | 'fegetround', args: readonly CExpr[], loc: L): Val | undefined {
    if (!this.changesRounding) return undefined;
    const cur = v(ROUNDING_VAR, loc);
    if (name === 'fegetround') {
      let out: Expr = bv(-1n, 32, loc);
      for (const [value, mode] of FE_MODES) out = ite(eq(cur, { kind: 'rm_lit', mode, loc }, loc), bv(value, 32, loc), out, loc);
      return { k: 'int', e: out, ik: 'int' };
    }
    const arg = this.convert(this.rv(args[0]!), { kind: 'integer', name: 'int' }, loc);
    if (arg.k !== 'int') return undefined;
    const m = this.named(bvType(32), arg.e, loc);
    let next: Expr = cur;
    let known: Expr = { kind: 'bool_lit', value: false, loc };
    for (const [value, mode] of FE_MODES) {
      const is = eq(m, bv(value, 32, loc), loc);
      next = ite(is, { kind: 'rm_lit', mode, loc }, next, loc);
      known = known.kind === 'bool_lit' ? is : { kind: 'binary', op: '||', left: known, right: is, loc };
    }
    this.emit(assign(ROUNDING_VAR, next, loc));
    return { k: 'int', e: ite(known, bv(0n, 32, loc), bv(1n, 32, loc), loc), ik: 'int' };
  }

  /** A call of a <math.h> function the program does not define (undefined: not one). */
  mathCall(this: Lowerer, fnName: string, args: readonly CExpr[], returnType: CType, loc: L): Val | undefined {
    const name = F.mathName(fnName);
    if (!name) return undefined;
    const lowered: F.MathArg[] = args.map((a) => {
      const x = this.rv(a);
      if (x.k === 'float') return { k: 'float', e: this.named(F.floatImpType(x.fk), x.e, a.loc), fk: x.fk };
      if (x.k === 'int') {
        const w = intWidth(x.ik, this.dm, a.loc);
        return { k: 'int', e: this.named(bvType(w), x.e, a.loc), width: w, signed: isSignedKind(x.ik) };
      }
      return { k: 'other' };
    });
    // Pointer arguments (modf, frexp): the lvalue written through them.
    const host: F.FloatHost = {
      rm: (l) => this.roundingMode(l),
      arbitrary: (t: ImpType, l) => {
        const n = this.temp(t, '$arb');
        this.emit(havoc(n, l));
        return v(n, l);
      },
      bitsOf: (e, fk, l) => this.floatBits(this.named(F.floatImpType(fk), e, l), fk, l),
      dataModel: this.dm,
    };
    const r = F.mathCall(name, lowered, host, loc);
    if (!r) throw new UnsupportedError(`call of '${fnName}' with these argument types`, loc);
    if (name.approximated) this.approximations.push(`${loc.file}:${loc.line}:${loc.column}: the result of ${fnName} is an arbitrary value (NaN for a NaN argument)`);
    for (const s of r.stores ?? []) {
      const p = this.rv(args[s.arg]!);
      const pt = unqualified(args[s.arg]!.type);
      if (p.k !== 'ptr' || pt.kind !== 'pointer') throw new UnsupportedError(`call of '${fnName}' without a pointer argument`, loc);
      this.store(this.deref(p, pt.pointee, loc), this.mathVal(s.value, pt.pointee, loc), loc);
    }
    return this.convert(this.mathVal(r.result, returnType, loc), returnType, loc);
  }

  mathVal(this: Lowerer, m: F.MathResult, type: CType, loc: L): Val {
    if (m.k === 'float') return { k: 'float', e: m.e, fk: m.fk };
    if (m.k === 'bool') return { k: 'int', e: F.boolToInt(m.e, 32, loc), ik: 'int' };
    const ik = m.width === 64 ? (this.dm === 'LP64' ? 'long' : 'longlong') : 'int';
    void type;
    return { k: 'int', e: m.e, ik: m.signed ? ik : ik === 'int' ? 'uint' : ik === 'long' ? 'ulong' : 'ulonglong' };
  }

  /** `x++`, `x--` and their prefix forms on a float: x + 1 in x's type. */
  floatStep(this: Lowerer, old: Val & { k: 'float' }, op: '+' | '-', loc: L): Val {
    return { k: 'float', e: F.arith(op, old.e, F.floatNumber(1, old.fk, loc), this.roundingMode(loc), loc), fk: old.fk };
  }

  floatNegate(this: Lowerer, x: Val & { k: 'float' }, loc: L): Val {
    return { k: 'float', e: F.negate(x.e, loc), fk: x.fk };
  }

  floatZero(this: Lowerer, fk: FloatKind, loc: L): Val {
    return { k: 'float', e: F.floatNumber(0, fk, loc), fk };
  }

  floatTemp(this: Lowerer, fk: FloatKind): string {
    return this.temp(F.floatImpType(fk));
  }

  floatType(this: Lowerer, fk: FloatKind): ImpType {
    return F.floatImpType(fk);
  }
}

/**
 * Semantic rules of C expressions: value conversions (array/function decay),
 * integer promotions, usual arithmetic conversions, assignment conversions,
 * the result types of operators, and integer constant evaluation. The parser
 * calls these builders so every expression it returns is typed.
 */
import { TarsierError } from '../common/errors.js';
import type { SourceLocation } from '../common/location.js';
import type { AssignOp, BinaryOp, CastKind, Expr, UnaryOp } from './ast.js';
import { isLvalue } from './ast.js';
import {
  type CType,
  type DataModel,
  type IntegerKind,
  type PointerType,
  floatType,
  intType,
  integerBits,
  integerKind,
  integerRank,
  integerRange,
  isArithmetic,
  isInteger,
  isScalar,
  isSignedKind,
  pointerTo,
  ptrdiffTKind,
  sameType,
  toUnsignedKind,
  typeToString,
  unqualified,
  voidType,
  wrapInteger,
} from './types.js';

export function typeError(message: string, loc: SourceLocation): TarsierError {
  return new TarsierError('c-type', message, loc);
}

const INT = intType('int');

export class Sema {
  constructor(readonly dm: DataModel) {}

  // ---- conversions ---------------------------------------------------------

  cast(e: Expr, to: CType, castKind: CastKind): Expr {
    return { kind: 'ImplicitCast', castKind, operand: e, type: to, loc: e.loc };
  }

  /** Array-to-pointer and function-to-pointer decay (the value of an expression). */
  value(e: Expr): Expr {
    if (e.type.kind === 'array') return this.cast(e, pointerTo(e.type.element), 'ArrayToPointer');
    if (e.type.kind === 'function') return this.cast(e, pointerTo(e.type), 'FunctionToPointer');
    return e;
  }

  /** The promoted integer kind of an integer expression (bit-fields narrower than int promote to int). */
  promotedKind(e: Expr): IntegerKind {
    const t = e.type as Parameters<typeof integerKind>[0];
    const k = integerKind(t);
    if (e.kind === 'Member' && e.field.bitWidth !== undefined) {
      const w = e.field.bitWidth;
      if (w < 32) return 'int';
      if (w === 32) return isSignedKind(k) ? 'int' : 'uint';
    }
    return integerRank(k) < integerRank('int') ? 'int' : k;
  }

  /**
   * gcc computes with a bit-field wider than int at the field's own width
   * (`unsigned long long f:40` wraps at 2^40 in `s.f + 1`), a type C's rules
   * do not have; such operands are reported rather than mistyped.
   */
  rejectWideBitField(e: Expr, loc: SourceLocation): void {
    if (e.kind === 'Member' && e.field.bitWidth !== undefined && e.field.bitWidth > 32) {
      throw new TarsierError(
        'c-unsupported',
        `unsupported construct: arithmetic on the ${e.field.bitWidth}-bit bit-field '${e.name}' (gcc computes it at the field's width; cast it first)`,
        loc,
      );
    }
  }

  /** Integer promotion of a value (no-op for other types). */
  promote(e: Expr): Expr {
    e = this.value(e);
    if (!isInteger(e.type)) return e;
    const k = this.promotedKind(e);
    return this.convert(e, intType(k));
  }

  /** Inserts the implicit conversion of `e` to `to` when the types differ. */
  convert(e: Expr, to: CType): Expr {
    e = this.value(e);
    const from = e.type;
    if (sameType(unqualified(from), unqualified(to)) && !(from.kind === 'enum' || to.kind === 'enum')) return e;
    if (from.kind === 'enum' && to.kind === 'enum' && from.info === to.info) return e;
    return this.cast(e, unqualified(to), this.castKind(e, to));
  }

  castKind(e: Expr, to: CType): CastKind {
    const from = e.type;
    if (to.kind === 'void') return 'ToVoid';
    if (to.kind === 'integer' && to.name === 'bool') {
      if (isInteger(from)) return 'IntegralToBoolean';
      if (from.kind === 'float') return 'FloatingToBoolean';
      if (from.kind === 'pointer') return 'PointerToBoolean';
    } else if (isInteger(to)) {
      if (isInteger(from)) return 'IntegralCast';
      if (from.kind === 'float') return 'FloatingToIntegral';
      if (from.kind === 'pointer') return 'PointerToIntegral';
    } else if (to.kind === 'float') {
      if (isInteger(from)) return 'IntegralToFloating';
      if (from.kind === 'float') return 'FloatingCast';
    } else if (to.kind === 'pointer') {
      if (from.kind === 'pointer') return 'PointerCast';
      if (isInteger(from)) return this.isNullPointerConstant(e) ? 'NullToPointer' : 'IntegralToPointer';
    } else if (to.kind === 'record' && from.kind === 'record' && from.record === to.record) {
      return 'NoOp';
    }
    throw typeError(`cannot convert from '${typeToString(from)}' to '${typeToString(to)}'`, e.loc);
  }

  isNullPointerConstant(e: Expr): boolean {
    let x = e;
    while ((x.kind === 'Cast' || x.kind === 'ImplicitCast') && (isInteger(x.type) || (x.type.kind === 'pointer' && x.type.pointee.kind === 'void'))) {
      x = x.operand;
    }
    return isInteger(x.type) && this.evalInt(x) === 0n;
  }

  /** Conversion as if by assignment (initialisation, arguments, return). */
  assignConvert(e: Expr, to: CType, what: string): Expr {
    e = this.value(e);
    const from = e.type;
    const t = unqualified(to);
    if (isArithmetic(t) && isArithmetic(from)) return this.convert(e, t);
    if (t.kind === 'integer' && t.name === 'bool' && from.kind === 'pointer') return this.convert(e, t);
    if (t.kind === 'pointer' && (from.kind === 'pointer' || isInteger(from))) return this.convert(e, t); // gcc warns for int/pointer mismatches
    if (isInteger(t) && from.kind === 'pointer') return this.convert(e, t); // gcc warns
    if (t.kind === 'record' && from.kind === 'record' && t.record === from.record) return e;
    throw typeError(`incompatible types in ${what}: '${typeToString(from)}' to '${typeToString(to)}'`, e.loc);
  }

  /** The usual arithmetic conversions: the common type of two arithmetic operands. */
  commonType(a: CType, b: CType): CType {
    if (a.kind === 'float' || b.kind === 'float') {
      const rank = (t: CType) => (t.kind === 'float' ? ({ float: 1, double: 2, longdouble: 3 } as const)[t.name] : 0);
      const r = Math.max(rank(a), rank(b));
      return floatType(r === 3 ? 'longdouble' : r === 2 ? 'double' : 'float');
    }
    const ka = integerKind(a as Parameters<typeof integerKind>[0]);
    const kb = integerKind(b as Parameters<typeof integerKind>[0]);
    return intType(this.commonKind(ka, kb));
  }

  private commonKind(a: IntegerKind, b: IntegerKind): IntegerKind {
    if (integerRank(a) < integerRank('int')) a = 'int';
    if (integerRank(b) < integerRank('int')) b = 'int';
    if (a === b) return a;
    const sa = isSignedKind(a);
    const sb = isSignedKind(b);
    if (sa === sb) return integerRank(a) >= integerRank(b) ? a : b;
    const [s, u] = sa ? [a, b] : [b, a];
    if (integerRank(u) >= integerRank(s)) return u;
    if (integerBits(s, this.dm) > integerBits(u, this.dm)) return s;
    return toUnsignedKind(s);
  }

  // ---- operators -----------------------------------------------------------

  unary(op: UnaryOp, operand: Expr, loc: SourceLocation): Expr {
    if (op === '-' || op === '+' || op === '~') this.rejectWideBitField(operand, loc);
    switch (op) {
      case '&': {
        if (!isLvalue(operand) && operand.type.kind !== 'function') throw typeError('lvalue required as unary \'&\' operand', loc);
        if (operand.kind === 'Member' && operand.field.bitWidth !== undefined) throw typeError('cannot take address of bit-field', loc);
        return { kind: 'Unary', op, operand, type: pointerTo(operand.type), loc };
      }
      case '*': {
        const v = this.value(operand);
        if (v.type.kind !== 'pointer') throw typeError(`invalid type argument of unary '*' (have '${typeToString(v.type)}')`, loc);
        if (v.type.pointee.kind === 'void' && false) throw typeError('dereferencing void pointer', loc);
        return { kind: 'Unary', op, operand: v, type: v.type.pointee, loc };
      }
      case '!': {
        const v = this.value(operand);
        if (!isScalar(v.type)) throw typeError(`wrong type argument to unary exclamation mark`, loc);
        return { kind: 'Unary', op, operand: v, type: INT, loc };
      }
      case '~': {
        const v = this.promote(operand);
        if (!isInteger(v.type)) throw typeError(`wrong type argument to bit-complement`, loc);
        return { kind: 'Unary', op, operand: v, type: v.type, loc };
      }
      default: {
        const v = this.promote(operand);
        if (!isArithmetic(v.type)) throw typeError(`wrong type argument to unary ${op === '-' ? 'minus' : 'plus'}`, loc);
        return { kind: 'Unary', op, operand: v, type: v.type, loc };
      }
    }
  }

  incDec(op: '++' | '--', prefix: boolean, operand: Expr, loc: SourceLocation): Expr {
    this.rejectWideBitField(operand, loc);
    if (!isLvalue(operand)) throw typeError(`lvalue required as ${op === '++' ? 'increment' : 'decrement'} operand`, loc);
    if (!isScalar(operand.type)) throw typeError(`wrong type argument to ${op === '++' ? 'increment' : 'decrement'}`, loc);
    return { kind: 'IncDec', op, prefix, operand, type: operand.type, loc };
  }

  binary(op: BinaryOp, left: Expr, right: Expr, loc: SourceLocation): Expr {
    if (op !== '&&' && op !== '||') {
      this.rejectWideBitField(left, loc);
      this.rejectWideBitField(right, loc);
    }
    let l = this.value(left);
    let r = this.value(right);
    const lt = l.type;
    const rt = r.type;
    const bad = (): never => {
      throw typeError(`invalid operands to binary ${op} (have '${typeToString(lt)}' and '${typeToString(rt)}')`, loc);
    };
    switch (op) {
      case '&&':
      case '||':
        if (!isScalar(lt) || !isScalar(rt)) bad();
        return { kind: 'Binary', op, left: l, right: r, type: INT, loc };
      case '<<':
      case '>>':
        if (!isInteger(lt) || !isInteger(rt)) bad();
        l = this.promote(l);
        r = this.promote(r);
        return { kind: 'Binary', op, left: l, right: r, type: l.type, loc };
      case '*': case '/': case '%': case '&': case '|': case '^': {
        const ok = op === '*' || op === '/' ? isArithmetic(lt) && isArithmetic(rt) : isInteger(lt) && isInteger(rt);
        if (!ok) bad();
        l = this.promote(l);
        r = this.promote(r);
        const t = this.commonType(l.type, r.type);
        return { kind: 'Binary', op, left: this.convert(l, t), right: this.convert(r, t), type: t, loc };
      }
      case '+':
      case '-': {
        if (isArithmetic(lt) && isArithmetic(rt)) {
          l = this.promote(l);
          r = this.promote(r);
          const t = this.commonType(l.type, r.type);
          return { kind: 'Binary', op, left: this.convert(l, t), right: this.convert(r, t), type: t, loc };
        }
        if (lt.kind === 'pointer' && isInteger(rt)) return { kind: 'Binary', op, left: l, right: this.promote(r), type: lt, loc };
        if (op === '+' && isInteger(lt) && rt.kind === 'pointer') return { kind: 'Binary', op, left: this.promote(l), right: r, type: rt, loc };
        if (op === '-' && lt.kind === 'pointer' && rt.kind === 'pointer') return { kind: 'Binary', op, left: l, right: r, type: intType(ptrdiffTKind(this.dm)), loc };
        return bad();
      }
      default: {
        // Relational and equality operators.
        if (isArithmetic(lt) && isArithmetic(rt)) {
          l = this.promote(l);
          r = this.promote(r);
          const t = this.commonType(l.type, r.type);
          return { kind: 'Binary', op, left: this.convert(l, t), right: this.convert(r, t), type: INT, loc };
        }
        if (lt.kind === 'pointer' && rt.kind === 'pointer') return { kind: 'Binary', op, left: l, right: r, type: INT, loc };
        if (lt.kind === 'pointer' && isInteger(rt)) return { kind: 'Binary', op, left: l, right: this.convert(r, lt), type: INT, loc };
        if (isInteger(lt) && rt.kind === 'pointer') return { kind: 'Binary', op, left: this.convert(l, rt), right: r, type: INT, loc };
        return bad();
      }
    }
  }

  assign(op: AssignOp, target: Expr, value: Expr, loc: SourceLocation): Expr {
    if (!isLvalue(target) || target.type.kind === 'array' || target.type.kind === 'function') {
      throw typeError('lvalue required as left operand of assignment', loc);
    }
    if (target.type.qualifiers?.const) throw typeError('assignment of read-only location', loc);
    if (op === '=') return { kind: 'Assign', op, target, value: this.assignConvert(value, target.type, 'assignment'), type: unqualified(target.type), loc };
    const binop = op.slice(0, -1) as BinaryOp;
    this.rejectWideBitField(target, loc);
    this.rejectWideBitField(value, loc);
    const v = this.value(value);
    const tt = target.type;
    if ((binop === '+' || binop === '-') && tt.kind === 'pointer' && isInteger(v.type)) {
      return { kind: 'Assign', op, target, value: this.promote(v), computationType: tt, type: unqualified(tt), loc };
    }
    if (binop === '<<' || binop === '>>') {
      if (!isInteger(tt) || !isInteger(v.type)) throw typeError(`invalid operands to ${op}`, loc);
      return { kind: 'Assign', op, target, value: this.promote(v), computationType: intType(this.promotedKind(target)), type: unqualified(tt), loc };
    }
    const intOnly = binop === '%' || binop === '&' || binop === '|' || binop === '^';
    if (intOnly ? !(isInteger(tt) && isInteger(v.type)) : !(isArithmetic(tt) && isArithmetic(v.type))) {
      throw typeError(`invalid operands to ${op} (have '${typeToString(tt)}' and '${typeToString(v.type)}')`, loc);
    }
    const pv = this.promote(v);
    const ct = this.commonType(isInteger(tt) ? intType(this.promotedKind(target)) : tt, pv.type);
    return { kind: 'Assign', op, target, value: this.convert(pv, ct), computationType: ct, type: unqualified(tt), loc };
  }

  conditional(condition: Expr, then: Expr | undefined, els: Expr, loc: SourceLocation, questionLoc: SourceLocation): Expr {
    const c = this.value(condition);
    if (!isScalar(c.type)) throw typeError('used a value where a scalar is required', condition.loc);
    if (then) this.rejectWideBitField(then, loc);
    this.rejectWideBitField(els, loc);
    let a = this.value(then ?? c);
    let b = this.value(els);
    let t: CType;
    if (isArithmetic(a.type) && isArithmetic(b.type)) {
      a = this.promote(a);
      b = this.promote(b);
      t = this.commonType(a.type, b.type);
      a = this.convert(a, t);
      b = this.convert(b, t);
    } else if (a.type.kind === 'void' || b.type.kind === 'void') {
      t = voidType;
    } else if (a.type.kind === 'record' && b.type.kind === 'record' && a.type.record === b.type.record) {
      t = unqualified(a.type);
    } else if (a.type.kind === 'pointer' && b.type.kind === 'pointer') {
      const pa = a.type as PointerType;
      const pb = b.type as PointerType;
      if (this.isNullPointerConstant(b)) t = pa;
      else if (this.isNullPointerConstant(a)) t = pb;
      else if (pa.pointee.kind === 'void') t = pa;
      else if (pb.pointee.kind === 'void') t = pb;
      else t = pa;
      a = this.convert(a, t);
      b = this.convert(b, t);
    } else if (a.type.kind === 'pointer' && isInteger(b.type)) {
      t = a.type;
      b = this.convert(b, t);
    } else if (isInteger(a.type) && b.type.kind === 'pointer') {
      t = b.type;
      a = this.convert(a, t);
    } else {
      throw typeError(`type mismatch in conditional expression ('${typeToString(a.type)}' and '${typeToString(b.type)}')`, loc);
    }
    return { kind: 'Conditional', condition: c, then: then === undefined ? undefined : a, else: b, type: t, loc, questionLoc };
  }

  explicitCast(operand: Expr, to: CType, loc: SourceLocation): Expr {
    const v = this.value(operand);
    const target = unqualified(to);
    if (target.kind !== 'void' && !isScalar(target)) {
      if (!(target.kind === 'record' && v.type.kind === 'record' && v.type.record === target.record)) {
        throw typeError(`conversion to non-scalar type '${typeToString(to)}' requested`, loc);
      }
    }
    if (target.kind !== 'void' && !isScalar(v.type) && !(v.type.kind === 'record' && target.kind === 'record')) {
      throw typeError(`cannot cast '${typeToString(v.type)}' to '${typeToString(to)}'`, loc);
    }
    if (target.kind === 'float' && v.type.kind === 'pointer') throw typeError('pointer value used where a floating-point was expected', loc);
    if (target.kind === 'pointer' && v.type.kind === 'float') throw typeError('cannot convert to a pointer type', loc);
    return { kind: 'Cast', operand: v, type: target, loc };
  }

  // ---- constant evaluation ------------------------------------------------------

  private wrapTo(v: bigint, t: CType): bigint | undefined {
    if (isInteger(t)) return wrapInteger(v, integerKind(t), this.dm);
    if (t.kind === 'pointer') return BigInt.asUintN(this.dm === 'LP64' ? 64 : 32, v);
    return undefined;
  }

  /** The value of an integer constant expression, or undefined when `e` is not one gcc would fold. */
  evalInt(e: Expr): bigint | undefined {
    switch (e.kind) {
      case 'IntegerLiteral':
        return e.value;
      case 'Identifier':
        return e.decl.kind === 'EnumConstant' ? e.decl.value : undefined;
      case 'SizeOf':
      case 'OffsetOf':
        return e.value;
      case 'Cast':
      case 'ImplicitCast': {
        if (e.kind === 'ImplicitCast' && (e.castKind === 'ArrayToPointer' || e.castKind === 'FunctionToPointer')) return undefined;
        const from = e.operand.type;
        if (from.kind === 'float') {
          const f = this.evalFloat(e.operand);
          if (f === undefined || !Number.isFinite(f)) return undefined;
          if (e.type.kind === 'integer' && e.type.name === 'bool') return f !== 0 ? 1n : 0n;
          // Out-of-range conversions are undefined behaviour: not a constant.
          const v = BigInt(Math.trunc(f));
          if (isInteger(e.type)) {
            const r = integerRange(integerKind(e.type), this.dm);
            if (v < r.min || v > r.max) return undefined;
          }
          return this.wrapTo(v, e.type);
        }
        const v = this.evalInt(e.operand);
        if (v === undefined) return undefined;
        if (e.type.kind === 'void') return undefined;
        return this.wrapTo(v, e.type);
      }
      case 'Unary': {
        if (e.op === '&' || e.op === '*') return undefined;
        if (e.operand.type.kind === 'float') {
          if (e.op !== '!') return undefined;
          const f = this.evalFloat(e.operand);
          return f === undefined ? undefined : f === 0 ? 1n : 0n;
        }
        const v = this.evalInt(e.operand);
        if (v === undefined) return undefined;
        if (e.op === '!') return v === 0n ? 1n : 0n;
        const r = e.op === '-' ? -v : e.op === '~' ? ~v : v;
        return this.wrapTo(r, e.type);
      }
      case 'Binary': {
        if (e.op === '&&' || e.op === '||') {
          const l = this.evalTruth(e.left);
          if (l === undefined) return undefined;
          if (e.op === '&&' && !l) return 0n;
          if (e.op === '||' && l) return 1n;
          const r = this.evalTruth(e.right);
          return r === undefined ? undefined : r ? 1n : 0n;
        }
        if (e.left.type.kind === 'float' || e.right.type.kind === 'float') {
          const l = this.evalFloat(e.left);
          const r = this.evalFloat(e.right);
          if (l === undefined || r === undefined) return undefined;
          switch (e.op) {
            case '<': return l < r ? 1n : 0n;
            case '>': return l > r ? 1n : 0n;
            case '<=': return l <= r ? 1n : 0n;
            case '>=': return l >= r ? 1n : 0n;
            case '==': return l === r ? 1n : 0n;
            case '!=': return l !== r ? 1n : 0n;
          }
          return undefined;
        }
        if (e.left.type.kind === 'pointer' || e.right.type.kind === 'pointer') return undefined;
        const l = this.evalInt(e.left);
        const r = this.evalInt(e.right);
        if (l === undefined || r === undefined) return undefined;
        let v: bigint;
        switch (e.op) {
          case '+': v = l + r; break;
          case '-': v = l - r; break;
          case '*': v = l * r; break;
          case '/': if (r === 0n) return undefined; v = l / r; break;
          case '%': if (r === 0n) return undefined; v = l % r; break;
          case '&': v = l & r; break;
          case '|': v = l | r; break;
          case '^': v = l ^ r; break;
          case '<<': {
            if (r < 0n || r >= BigInt(integerBits(integerKind(e.type as Parameters<typeof integerKind>[0]), this.dm))) return undefined;
            v = l << r;
            break;
          }
          case '>>': {
            if (r < 0n || r >= BigInt(integerBits(integerKind(e.type as Parameters<typeof integerKind>[0]), this.dm))) return undefined;
            v = l >> r;
            break;
          }
          case '<': return l < r ? 1n : 0n;
          case '>': return l > r ? 1n : 0n;
          case '<=': return l <= r ? 1n : 0n;
          case '>=': return l >= r ? 1n : 0n;
          case '==': return l === r ? 1n : 0n;
          case '!=': return l !== r ? 1n : 0n;
          default: return undefined;
        }
        return this.wrapTo(v, e.type);
      }
      case 'Conditional': {
        const c = this.evalTruth(e.condition);
        if (c === undefined) return undefined;
        const branch = c ? e.then ?? e.condition : e.else;
        const v = this.evalInt(branch);
        return v === undefined ? undefined : this.wrapTo(v, e.type);
      }
      case 'Comma':
        return this.evalInt(e.right);
      default:
        return undefined;
    }
  }

  private evalTruth(e: Expr): boolean | undefined {
    if (e.type.kind === 'float') {
      const f = this.evalFloat(e);
      return f === undefined ? undefined : f !== 0;
    }
    const v = this.evalInt(e);
    return v === undefined ? undefined : v !== 0n;
  }

  /** Value of a floating constant expression (double precision). */
  evalFloat(e: Expr): number | undefined {
    switch (e.kind) {
      case 'FloatLiteral':
        return e.value;
      case 'Cast':
      case 'ImplicitCast': {
        if (isInteger(e.operand.type)) {
          const v = this.evalInt(e.operand);
          return v === undefined ? undefined : Number(v);
        }
        const f = this.evalFloat(e.operand);
        if (f === undefined) return undefined;
        return e.type.kind === 'float' && e.type.name === 'float' ? Math.fround(f) : f;
      }
      case 'Unary': {
        const f = this.evalFloat(e.operand);
        return f === undefined ? undefined : e.op === '-' ? -f : e.op === '+' ? f : undefined;
      }
      case 'Binary': {
        const l = this.evalFloat(e.left);
        const r = this.evalFloat(e.right);
        if (l === undefined || r === undefined) return undefined;
        switch (e.op) {
          case '+': return l + r;
          case '-': return l - r;
          case '*': return l * r;
          case '/': return l / r;
          default: return undefined;
        }
      }
      default: {
        if (isInteger(e.type)) {
          const v = this.evalInt(e);
          return v === undefined ? undefined : Number(v);
        }
        return undefined;
      }
    }
  }
}

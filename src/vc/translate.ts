// IMP expressions and types to SMT terms, given the terms that stand for the
// variables. Bit-vector operations follow C (sdiv/srem truncate); int `/` and
// `%` are SMT-LIB div/mod (Euclidean).
import { FLOAT_TYPES, type BvWidth, type Expr, type FloatName, type ImpType } from '../ivl/ast.js';
import {
  mkBitsToFp,
  mkBvToFp,
  mkFpAbs,
  mkFpArith,
  mkFpClass,
  mkFpCompare,
  mkFpFma,
  mkFpNeg,
  mkFpRem,
  mkFpRounded1,
  mkFpToBv,
  mkFpToFp,
  type FpClass,
} from '../smt/float-terms.js';
import {
  ArraySort,
  BitVecSort,
  BoolSort,
  FloatSort,
  IntSort,
  RoundingModeSort,
  RealSort,
  mkApp,
  mkBool,
  mkBv,
  mkAnd,
  mkEq,
  mkExtract,
  mkFloatLit,
  mkImplies,
  mkInt,
  mkInt2Bv,
  mkIte,
  mkNot,
  mkOr,
  mkReal,
  mkRoundingMode,
  mkSelect,
  mkSignExtend,
  mkStore,
  mkZeroExtend,
  type Sort,
  type Term,
} from '../smt/terms.js';

export function sortOf(t: ImpType): Sort {
  switch (t.kind) {
    case 'bool':
      return BoolSort;
    case 'int':
      return IntSort;
    case 'real':
      return RealSort;
    case 'bv':
      return BitVecSort(t.width);
    case 'map':
      return ArraySort(sortOf(t.key), sortOf(t.value));
    case 'float':
      return FloatSort(t.eb, t.sb);
    case 'rmode':
      return RoundingModeSort;
  }
}

const FP_CLASS: Readonly<Record<string, FpClass>> = {
  fisnan: 'fp.isNaN',
  fisinf: 'fp.isInfinite',
  fiszero: 'fp.isZero',
  fisnormal: 'fp.isNormal',
  fissubnormal: 'fp.isSubnormal',
  fisneg: 'fp.isNegative',
  fispos: 'fp.isPositive',
};

/** A float built-in applied to translated arguments (undefined: not a float built-in). */
function translateFloatApp(fn: string, a: readonly Term[]): Term | undefined {
  switch (fn) {
    case 'fadd':
      return mkFpArith('fp.add', a[0], a[1], a[2]);
    case 'fsub':
      return mkFpArith('fp.sub', a[0], a[1], a[2]);
    case 'fmul':
      return mkFpArith('fp.mul', a[0], a[1], a[2]);
    case 'fdiv':
      return mkFpArith('fp.div', a[0], a[1], a[2]);
    case 'ffma':
      return mkFpFma(a[0], a[1], a[2], a[3]);
    case 'fsqrt':
      return mkFpRounded1('fp.sqrt', a[0], a[1]);
    case 'fround':
      return mkFpRounded1('fp.roundToIntegral', a[0], a[1]);
    case 'frem':
      return mkFpRem(a[0], a[1]);
    case 'fabs':
      return mkFpAbs(a[0]);
    case 'feq':
      return mkFpCompare('fp.eq', a[0], a[1]);
  }
  if (FP_CLASS[fn]) return mkFpClass(FP_CLASS[fn], a[0]);
  let m = /^to_(fp\d+)$/.exec(fn);
  if (m) return mkFpToFp(a[0], a[1], FLOAT_TYPES[m[1] as FloatName]);
  m = /^([su])bv_to_(fp\d+)$/.exec(fn);
  if (m) return mkBvToFp(a[0], a[1], m[1] === 's', FLOAT_TYPES[m[2] as FloatName]);
  m = /^fp_to_([su])bv(\d+)$/.exec(fn);
  if (m) return mkFpToBv(a[0], a[1], m[1] === 's', Number(m[2]));
  m = /^bits_to_(fp\d+)$/.exec(fn);
  if (m) return mkBitsToFp(a[0], FLOAT_TYPES[m[1] as FloatName]);
  return undefined;
}

export interface TranslateEnv {
  /** The current term of a variable. */
  lookup(name: string): Term;
  /** The term of a variable in the pre-state, for `old(...)`. */
  lookupOld(name: string): Term;
}

function width(t: Term): number {
  return (t.sort as { width: number }).width;
}

export function translateExpr(e: Expr, env: TranslateEnv): Term {
  const tr = (x: Expr) => translateExpr(x, env);
  switch (e.kind) {
    case 'bool_lit':
      return mkBool(e.value);
    case 'int_lit':
      return mkInt(e.value);
    case 'real_lit':
      return mkReal(e.value);
    case 'bv_lit':
      return mkBv(e.value, e.width);
    case 'float_lit':
      return mkFloatLit(e.bits, e.eb, e.sb);
    case 'rm_lit':
      return mkRoundingMode(e.mode);
    case 'var':
      return env.lookup(e.name);
    case 'unary': {
      const a = tr(e.arg);
      if (e.op === '!') return mkNot(a);
      if (e.op === '~') return mkApp('bvnot', a);
      if (a.sort.kind === 'BitVec') return mkApp('bvneg', a);
      if (a.sort.kind === 'FloatingPoint') return mkFpNeg(a);
      if (a.op === 'int') return mkInt(-a.value!);
      return mkApp('-', a);
    }
    case 'binary': {
      const l = tr(e.left);
      const r = tr(e.right);
      const bv = l.sort.kind === 'BitVec';
      switch (e.op) {
        case '<==>':
          return mkEq(l, r);
        case '==>':
          return mkImplies(l, r);
        case '<==':
          return mkImplies(r, l);
        case '||':
          return mkOr(l, r);
        case '&&':
          return mkAnd(l, r);
        case '==':
          return mkEq(l, r);
        case '!=':
          return mkNot(mkEq(l, r));
        case '<':
        case '<=':
        case '>':
        case '>=':
          if (l.sort.kind === 'FloatingPoint') return mkFpCompare(e.op === '<' ? 'fp.lt' : e.op === '<=' ? 'fp.leq' : e.op === '>' ? 'fp.gt' : 'fp.geq', l, r);
          return mkApp(e.op, l, r);
        case '+':
          return mkApp(bv ? 'bvadd' : '+', l, r);
        case '-':
          return mkApp(bv ? 'bvsub' : '-', l, r);
        case '*':
          return mkApp(bv ? 'bvmul' : '*', l, r);
        case '/':
          return mkApp(l.sort.kind === 'Real' ? '/' : 'div', l, r);
        case '%':
          return mkApp('mod', l, r);
        case '|':
          return mkApp('bvor', l, r);
        case '^':
          return mkApp('bvxor', l, r);
        case '&':
          return mkApp('bvand', l, r);
        case '<<':
          return mkApp('bvshl', l, r);
      }
      throw new Error(`unknown operator ${(e as { op: string }).op}`);
    }
    case 'app': {
      if (e.fn === 'old') {
        return translateExpr(e.args[0], { lookup: env.lookupOld, lookupOld: env.lookupOld });
      }
      const a = e.args.map(tr);
      const float = translateFloatApp(e.fn, a);
      if (float) return float;
      const m = /^(zext|sext|trunc|int2bv)(\d+)$/.exec(e.fn);
      if (m) {
        const n = Number(m[2]) as BvWidth;
        switch (m[1]) {
          case 'zext':
            return mkZeroExtend(n - width(a[0]), a[0]);
          case 'sext':
            return mkSignExtend(n - width(a[0]), a[0]);
          case 'trunc':
            return n === width(a[0]) ? a[0] : mkExtract(n - 1, 0, a[0]);
          default:
            return mkInt2Bv(n, a[0]);
        }
      }
      switch (e.fn) {
        case 'sdiv':
          return mkApp('bvsdiv', a[0], a[1]);
        case 'udiv':
          return mkApp('bvudiv', a[0], a[1]);
        case 'srem':
          return mkApp('bvsrem', a[0], a[1]);
        case 'urem':
          return mkApp('bvurem', a[0], a[1]);
        case 'ashr':
          return mkApp('bvashr', a[0], a[1]);
        case 'lshr':
          return mkApp('bvlshr', a[0], a[1]);
        case 'slt':
        case 'sle':
        case 'sgt':
        case 'sge':
        case 'ult':
        case 'ule':
        case 'ugt':
        case 'uge':
          return mkApp(`bv${e.fn}`, a[0], a[1]);
        case 'ubv2int':
          return mkApp('bv2nat', a[0]);
        case 'sbv2int': {
          const w = width(a[0]);
          const nat = mkApp('bv2nat', a[0]);
          return mkIte(mkApp('bvslt', a[0], mkBv(0, w)), mkApp('-', nat, mkInt(1n << BigInt(w))), nat);
        }
        case 'to_real':
          return mkApp('to_real', a[0]);
        case 'to_int':
          return mkApp('to_int', a[0]);
      }
      throw new Error(`unknown built-in ${e.fn}`);
    }
    case 'ite':
      return mkIte(tr(e.cond), tr(e.then), tr(e.else));
    case 'select':
      return mkSelect(tr(e.map), tr(e.index));
    case 'store':
      return mkStore(tr(e.map), tr(e.index), tr(e.value));
  }
}

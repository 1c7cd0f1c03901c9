// The abstract syntax of IMP, Tarsier's intermediate verification language.
// Every node is an immutable plain object with a `kind` discriminator and a
// `loc` (its first token) so that goals and errors point at the source.
import type { SourceLocation } from '../common/location.js';
import type { RoundingMode } from '../common/ieee754.js';

export type BvWidth = 8 | 16 | 32 | 64;
export const BV_WIDTHS: readonly BvWidth[] = [8, 16, 32, 64];

export type ImpType =
  | { readonly kind: 'bool' }
  | { readonly kind: 'int' }
  | { readonly kind: 'real' }
  | { readonly kind: 'bv'; readonly width: BvWidth }
  /** `[K]V`: a total map (SMT array) from K to V. */
  | { readonly kind: 'map'; readonly key: ImpType; readonly value: ImpType }
  | FloatType
  /** An IEEE rounding mode (`RNE`, `RNA`, `RTP`, `RTN`, `RTZ`). */
  | { readonly kind: 'rmode' };

/**
 * IEEE binary floating point with eb exponent and sb significand bits
 * (SMT-LIB's FloatingPoint sort): `fp32` (binary32), `fp64` (binary64),
 * `fp80` (the values of x87 extended precision: eb 15, sb 64).
 */
export interface FloatType {
  readonly kind: 'float';
  readonly eb: number;
  readonly sb: number;
}
export type FloatName = 'fp32' | 'fp64' | 'fp80';
export const FLOAT_TYPES: Readonly<Record<FloatName, FloatType>> = {
  fp32: { kind: 'float', eb: 8, sb: 24 },
  fp64: { kind: 'float', eb: 11, sb: 53 },
  fp80: { kind: 'float', eb: 15, sb: 64 },
};
export const rmodeType: ImpType = { kind: 'rmode' };

/** The name of a float type (`fp32`, `fp64`, `fp80`). */
export function floatName(t: { eb: number; sb: number }): FloatName {
  for (const [name, f] of Object.entries(FLOAT_TYPES)) if (f.eb === t.eb && f.sb === t.sb) return name as FloatName;
  throw new Error(`no IMP float type with eb ${t.eb} and sb ${t.sb}`);
}

export const boolType: ImpType = { kind: 'bool' };
export const intType: ImpType = { kind: 'int' };
export const realType: ImpType = { kind: 'real' };
export function bvType(width: BvWidth): ImpType {
  return { kind: 'bv', width };
}
export function mapType(key: ImpType, value: ImpType): ImpType {
  return { kind: 'map', key, value };
}

export function typeEquals(a: ImpType, b: ImpType): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'bv') return a.width === (b as { width: number }).width;
  if (a.kind === 'float') return a.eb === (b as FloatType).eb && a.sb === (b as FloatType).sb;
  if (a.kind === 'map') {
    const m = b as { key: ImpType; value: ImpType };
    return typeEquals(a.key, m.key) && typeEquals(a.value, m.value);
  }
  return true;
}

export function typeToString(t: ImpType): string {
  switch (t.kind) {
    case 'bv':
      return `bv${t.width}`;
    case 'map':
      return `[${typeToString(t.key)}]${typeToString(t.value)}`;
    case 'float':
      return floatName(t);
    default:
      return t.kind;
  }
}

/** Binary operators written infix. On bit-vectors, `+ - *` wrap around; `<`,
 * `/`, `%`, `>>` do not exist there (use the signed/unsigned built-ins). On
 * floats, `< <= > >=` are IEEE's (false with a NaN), `==` is identity of
 * values (NaN == NaN, +0 != -0: IEEE equality is `feq`), and arithmetic is
 * written with the rounding built-ins (`fadd(RNE, a, b)`). */
export type BinaryOp =
  | '<==>'
  | '==>'
  | '<=='
  | '||'
  | '&&'
  | '=='
  | '!='
  | '<'
  | '<='
  | '>'
  | '>='
  | '|'
  | '^'
  | '&'
  | '<<'
  | '+'
  | '-'
  | '*'
  | '/'
  | '%';

/** `-` negation (int, real, bit-vector two's complement, float sign flip), `!` (bool), `~` (bit-vector complement). */
export type UnaryOp = '-' | '!' | '~';

/**
 * Built-in functions written `name(args)`. Signed/unsigned bit-vector
 * operations are C's (`sdiv`/`srem` truncate toward zero). `zextN`, `sextN`,
 * `truncN` convert a bit-vector to width N; `int2bvN` takes an int modulo 2^N;
 * `ubv2int`/`sbv2int` read a bit-vector as unsigned/signed; `to_real`,
 * `to_int` (floor); `old(e)`: e in the procedure's pre-state (ensures only).
 */
export const BUILTINS = [
  'sdiv',
  'udiv',
  'srem',
  'urem',
  'slt',
  'sle',
  'sgt',
  'sge',
  'ult',
  'ule',
  'ugt',
  'uge',
  'ashr',
  'lshr',
  'zext8',
  'zext16',
  'zext32',
  'zext64',
  'sext8',
  'sext16',
  'sext32',
  'sext64',
  'trunc8',
  'trunc16',
  'trunc32',
  'trunc64',
  'int2bv8',
  'int2bv16',
  'int2bv32',
  'int2bv64',
  'ubv2int',
  'sbv2int',
  'to_real',
  'to_int',
  'old',
  // Floating point (see float-builtins.ts).
  'fadd',
  'fsub',
  'fmul',
  'fdiv',
  'ffma',
  'fsqrt',
  'frem',
  'fround',
  'fabs',
  'feq',
  'fisnan',
  'fisinf',
  'fiszero',
  'fisnormal',
  'fissubnormal',
  'fisneg',
  'fispos',
  'to_fp32',
  'to_fp64',
  'to_fp80',
  'sbv_to_fp32',
  'sbv_to_fp64',
  'sbv_to_fp80',
  'ubv_to_fp32',
  'ubv_to_fp64',
  'ubv_to_fp80',
  'fp_to_sbv8',
  'fp_to_sbv16',
  'fp_to_sbv32',
  'fp_to_sbv64',
  'fp_to_ubv8',
  'fp_to_ubv16',
  'fp_to_ubv32',
  'fp_to_ubv64',
  'bits_to_fp32',
  'bits_to_fp64',
] as const;
export type BuiltinName = (typeof BUILTINS)[number];

export type Expr =
  | BoolLit
  | IntLit
  | RealLit
  | BvLit
  | FloatLit
  | RoundingModeLit
  | VarRef
  | UnaryExpr
  | BinaryExpr
  | AppExpr
  | IteExpr
  | SelectExpr
  | StoreExpr;

export interface BoolLit {
  readonly kind: 'bool_lit';
  readonly value: boolean;
  readonly loc: SourceLocation;
}
export interface IntLit {
  readonly kind: 'int_lit';
  /** Non-negative; negative numbers are `-` applied to a literal. */
  readonly value: bigint;
  readonly loc: SourceLocation;
}
/** A decimal literal such as `1.5`, kept as its canonical text `digits.digits`. */
export interface RealLit {
  readonly kind: 'real_lit';
  readonly value: string;
  readonly loc: SourceLocation;
}
/** `42bv32`: the value is unsigned, 0 <= value < 2^width. */
export interface BvLit {
  readonly kind: 'bv_lit';
  readonly value: bigint;
  readonly width: BvWidth;
  readonly loc: SourceLocation;
}
/** `fp32(0x1.8p+1)`, `fp64(-inf)`, `fp80(nan)`: a value of a float type, by its packed bits (NaN canonical). */
export interface FloatLit {
  readonly kind: 'float_lit';
  readonly bits: bigint;
  readonly eb: number;
  readonly sb: number;
  readonly loc: SourceLocation;
}
/** `RNE`, `RNA`, `RTP`, `RTN`, `RTZ` */
export interface RoundingModeLit {
  readonly kind: 'rm_lit';
  readonly mode: RoundingMode;
  readonly loc: SourceLocation;
}
export interface VarRef {
  readonly kind: 'var';
  readonly name: string;
  readonly loc: SourceLocation;
}
export interface UnaryExpr {
  readonly kind: 'unary';
  readonly op: UnaryOp;
  readonly arg: Expr;
  readonly loc: SourceLocation;
}
export interface BinaryExpr {
  readonly kind: 'binary';
  readonly op: BinaryOp;
  readonly left: Expr;
  readonly right: Expr;
  readonly loc: SourceLocation;
}
export interface AppExpr {
  readonly kind: 'app';
  readonly fn: BuiltinName;
  readonly args: readonly Expr[];
  readonly loc: SourceLocation;
}
/** `if c then a else b` (written in parentheses where it is not the whole expression). */
export interface IteExpr {
  readonly kind: 'ite';
  readonly cond: Expr;
  readonly then: Expr;
  readonly else: Expr;
  readonly loc: SourceLocation;
}
/** `m[i]` */
export interface SelectExpr {
  readonly kind: 'select';
  readonly map: Expr;
  readonly index: Expr;
  readonly loc: SourceLocation;
}
/** `m[i := v]`: m with index i mapped to v. */
export interface StoreExpr {
  readonly kind: 'store';
  readonly map: Expr;
  readonly index: Expr;
  readonly value: Expr;
  readonly loc: SourceLocation;
}

export type Stmt =
  | SkipStmt
  | AssignStmt
  | HavocStmt
  | AssumeStmt
  | AssertStmt
  | IfStmt
  | WhileStmt
  | CallStmt
  | BlockStmt;

export interface SkipStmt {
  readonly kind: 'skip';
  readonly loc: SourceLocation;
}
/** `x := e`. (`m[i] := e` is parsed as `m := m[i := e]`.) */
export interface AssignStmt {
  readonly kind: 'assign';
  readonly target: string;
  readonly value: Expr;
  readonly loc: SourceLocation;
}
/** `x := havoc` */
export interface HavocStmt {
  readonly kind: 'havoc';
  readonly target: string;
  readonly loc: SourceLocation;
}
export interface AssumeStmt {
  readonly kind: 'assume';
  readonly cond: Expr;
  readonly loc: SourceLocation;
}
export interface AssertStmt {
  readonly kind: 'assert';
  readonly cond: Expr;
  /** What the assert checks, when a producer (the lowering, an engine) made it for a goal; written `assert {:goal kind id} e;`. */
  readonly goal?: Goal;
  readonly loc: SourceLocation;
}

/**
 * The goal an assert stands for: its kind (which property or sub-property
 * it checks, e.g. `overflow`, `valid-deref`, `recursion`; IMP gives the
 * names no meaning) and its identity in the producer's list of goals (one
 * goal may be asserted at several places, e.g. in a function inlined twice).
 */
export interface Goal {
  readonly kind: string;
  readonly id: number;
}
export interface IfStmt {
  readonly kind: 'if';
  readonly cond: Expr;
  readonly then: readonly Stmt[];
  /** Empty when there is no `else`. */
  readonly else: readonly Stmt[];
  readonly loc: SourceLocation;
}
export interface WhileStmt {
  readonly kind: 'while';
  readonly cond: Expr;
  /** User invariants (`invariant e;`): checked and used by the verifier. */
  readonly invariants: readonly Expr[];
  /** Candidate invariants (`candidate e;`) for invariant selection; the verifier ignores them. */
  readonly candidates: readonly Expr[];
  readonly body: readonly Stmt[];
  readonly loc: SourceLocation;
}
/** `(x1, ..., xn) := call m(e1, ..., ek)`; `call m(...)` when there are no results. */
export interface CallStmt {
  readonly kind: 'call';
  readonly targets: readonly string[];
  readonly proc: string;
  readonly args: readonly Expr[];
  readonly loc: SourceLocation;
}
/** `{ s1 s2 ... }` */
export interface BlockStmt {
  readonly kind: 'block';
  readonly body: readonly Stmt[];
  readonly loc: SourceLocation;
}

export interface VarDecl {
  readonly kind: 'var_decl';
  readonly name: string;
  readonly type: ImpType;
  readonly loc: SourceLocation;
}

export interface Procedure {
  readonly kind: 'procedure';
  readonly name: string;
  readonly params: readonly VarDecl[];
  readonly returns: readonly VarDecl[];
  readonly requires: readonly Expr[];
  readonly ensures: readonly Expr[];
  readonly locals: readonly VarDecl[];
  /** Undefined for a procedure declared without a body (`...;`): only its contract is known. */
  readonly body: readonly Stmt[] | undefined;
  readonly loc: SourceLocation;
}

export interface ImpProgram {
  readonly kind: 'program';
  readonly file: string;
  readonly globals: readonly VarDecl[];
  readonly procedures: readonly Procedure[];
}

/** `cond ==> fact`, or `fact` when `cond` is `true`: what holds at a loop head where the loop's condition holds. */
export function guarded(cond: Expr, fact: Expr): Expr {
  if (cond.kind === 'bool_lit' && cond.value) return fact;
  return { kind: 'binary', op: '==>', left: cond, right: fact, loc: fact.loc };
}

/** The location a node was given when built by a program rather than parsed. */
export function syntheticLoc(file = '<generated>'): SourceLocation {
  return { file, line: 0, column: 0, offset: -1 };
}

export function findProcedure(p: ImpProgram, name: string): Procedure | undefined {
  return p.procedures.find((q) => q.name === name);
}

/** Number of statements of a program (a size measure). */
export function programSize(p: ImpProgram): number {
  let n = 0;
  const walk = (ss: readonly Stmt[]): void => {
    for (const s of ss) {
      n++;
      if (s.kind === 'if') {
        walk(s.then);
        walk(s.else);
      } else if (s.kind === 'while' || s.kind === 'block') walk(s.body);
    }
  };
  for (const q of p.procedures) walk(q.body ?? []);
  return n;
}

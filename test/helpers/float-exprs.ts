// Random floating-point expressions over every C floating type and integer
// conversions, with inputs drawn from the interesting values (signed zeros,
// subnormals, the largest finite values, infinities, NaN, values next to
// rounding boundaries), evaluated three ways: by gcc (the program printed as
// C, inputs given as bit patterns), by IMP's interpreter and by an SMT
// solver's model. Shared by test/ivl/float-differential.test.ts (a few
// seeded cases) and bench-scripts/float.ts (many).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ieee from '../../src/common/ieee754.js';
import type { DataModel } from '../../src/c/types.js';
import { floatFlags } from '../../src/replay/replay.js';
import { spawnProgram } from './tools.js';
import { I386_MATH_OVERRIDES } from '../../src/replay/harness.js';
import { FLOAT_TYPES, syntheticLoc, type BuiltinName, type Expr, type FloatType, type ImpType } from '../../src/ivl/ast.js';
import { fitsInteger } from '../../src/ivl/float-builtins.js';
import { evalExpr, type ImpValue } from '../../src/ivl/interp.js';
import { createSolver } from '../../src/smt/index.js';
import { mkConst, mkEq, type Term } from '../../src/smt/terms.js';
import { sortOf, translateExpr } from '../../src/vc/translate.js';

export type FType = 'float' | 'double' | 'long double';
export type IType = 'signed char' | 'short' | 'int' | 'unsigned' | 'long' | 'unsigned long' | 'long long' | 'unsigned long long';
export type CType = FType | IType;
const FTYPES: readonly FType[] = ['float', 'double', 'long double'];
const ITYPES: readonly IType[] = ['signed char', 'short', 'int', 'unsigned', 'long', 'unsigned long', 'long long', 'unsigned long long'];

export type Node =
  | { readonly k: 'var'; readonly name: string; readonly type: CType }
  | { readonly k: 'lit'; readonly type: FType; readonly bits: bigint }
  | { readonly k: 'arith'; readonly op: '+' | '-' | '*' | '/'; readonly type: FType; readonly a: Node; readonly b: Node }
  | { readonly k: 'neg'; readonly type: FType; readonly a: Node }
  | { readonly k: 'call'; readonly fn: MathFn; readonly type: FType; readonly args: readonly Node[] }
  | { readonly k: 'cmp'; readonly op: '<' | '<=' | '>' | '>=' | '==' | '!='; readonly type: 'int'; readonly a: Node; readonly b: Node }
  | { readonly k: 'cast'; readonly type: CType; readonly a: Node };

type MathFn = 'sqrt' | 'fabs' | 'fma' | 'trunc' | 'floor' | 'ceil' | 'round' | 'rint' | 'remainder';
const MATH_FNS: readonly MathFn[] = ['sqrt', 'fabs', 'fma', 'trunc', 'floor', 'ceil', 'round', 'rint', 'remainder'];

export interface FloatCase {
  readonly id: number;
  /** The rounding mode the expression is evaluated in (fesetround). */
  readonly rm: ieee.RoundingMode;
  readonly inputs: ReadonlyMap<string, { readonly type: CType; readonly bits: bigint }>;
  readonly expr: Node;
}

const isFloat = (t: CType | 'int'): t is FType => t === 'float' || t === 'double' || t === 'long double';

export function floatFormat(t: FType): FloatType {
  return t === 'float' ? FLOAT_TYPES.fp32 : t === 'double' ? FLOAT_TYPES.fp64 : FLOAT_TYPES.fp80;
}

export function intInfo(t: IType | 'int', dm: DataModel): { width: 8 | 16 | 32 | 64; signed: boolean } {
  switch (t) {
    case 'signed char':
      return { width: 8, signed: true };
    case 'short':
      return { width: 16, signed: true };
    case 'int':
      return { width: 32, signed: true };
    case 'unsigned':
      return { width: 32, signed: false };
    case 'long':
      return { width: dm === 'LP64' ? 64 : 32, signed: true };
    case 'unsigned long':
      return { width: dm === 'LP64' ? 64 : 32, signed: false };
    case 'long long':
      return { width: 64, signed: true };
    case 'unsigned long long':
      return { width: 64, signed: false };
  }
}

// ---- interesting values ----

function interestingFloats(f: FloatType): bigint[] {
  const one = ieee.fromInteger(f, 'RNE', 1n);
  const two = ieee.fromInteger(f, 'RNE', 2n);
  const big = ieee.fromInteger(f, 'RNE', 1n << BigInt(f.sb)); // 2^sb: next integers are not all representable
  const sub = (a: bigint, b: bigint) => ieee.sub(f, 'RNE', a, b);
  const add = (a: bigint, b: bigint) => ieee.add(f, 'RNE', a, b);
  const div = (a: bigint, b: bigint) => ieee.div(f, 'RNE', a, b);
  const minSub = 1n;
  const maxSub = (1n << BigInt(f.sb - 1)) - 1n;
  const minNormal = 1n << BigInt(f.sb - 1);
  const half = div(one, two);
  const three = ieee.fromInteger(f, 'RNE', 3n);
  const ten = ieee.fromInteger(f, 'RNE', 10n);
  const values = [
    ieee.zeroBits(f, false),
    minSub,
    maxSub,
    minNormal,
    one,
    half,
    add(one, half),
    add(two, half),
    div(one, three),
    div(one, ten),
    ieee.nextUp(f, one),
    ieee.nextDown(f, one),
    big,
    add(big, one),
    sub(big, one),
    ieee.maxFiniteBits(f, false),
    ieee.nextDown(f, ieee.maxFiniteBits(f, false)),
    ieee.infBits(f, false),
    ieee.fromInteger(f, 'RNE', 2147483647n),
    ieee.fromInteger(f, 'RTZ', 2147483647n),
    ieee.fromInteger(f, 'RNE', 1n << 63n),
    ieee.fromInteger(f, 'RTZ', (1n << 63n) - 1n),
    ieee.fromInteger(f, 'RNE', 127n),
    ieee.fromInteger(f, 'RNE', 255n),
    ieee.fromInteger(f, 'RNE', 32767n),
  ];
  return [...values, ...values.map((v) => ieee.neg(f, v)), ieee.nanBits(f)];
}

const INTERESTING_INTS = [0n, 1n, -1n, 2n, 127n, -128n, 255n, 32767n, -32768n, 65535n, (1n << 24n) + 1n, (1n << 31n) - 1n, -(1n << 31n), (1n << 32n) - 1n, (1n << 53n) + 1n, (1n << 63n) - 1n, -(1n << 63n), (1n << 64n) - 1n, 16777217n, 9007199254740993n];

function randomBits(r: () => number, n: number): bigint {
  let v = 0n;
  for (let i = 0; i < n; i += 16) v = (v << 16n) | BigInt(Math.floor(r() * 65536));
  return BigInt.asUintN(n, v);
}

function randomFloat(r: () => number, t: FType): bigint {
  const f = floatFormat(t);
  const x = r();
  if (x < 0.6) {
    const vs = interestingFloats(f);
    return vs[Math.floor(r() * vs.length)];
  }
  if (x < 0.85) {
    // Moderate magnitudes, where arithmetic is not all overflow or underflow.
    const e = Math.floor(r() * 80) - 40;
    return ieee.roundToFormat(f, r() < 0.5, randomBits(r, f.sb) | 1n, e - f.sb, 'RNE');
  }
  return ieee.canonical(f, randomBits(r, ieee.totalBits(f)));
}

function randomInt(r: () => number, t: IType, dm: DataModel): bigint {
  const { width, signed } = intInfo(t, dm);
  const raw = r() < 0.6 ? INTERESTING_INTS[Math.floor(r() * INTERESTING_INTS.length)] : randomBits(r, width);
  return signed ? BigInt.asIntN(width, raw) : BigInt.asUintN(width, raw);
}

// ---- generation ----

/** Random cases: each an expression with its inputs, made valid (no undefined conversion) for those inputs. */
export function generateCases(r: () => number, count: number, dm: DataModel, opts: { depth?: number; longDouble?: boolean } = {}): FloatCase[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const ftypes = opts.longDouble === false ? FTYPES.filter((t) => t !== 'long double') : FTYPES;
  const out: FloatCase[] = [];
  for (let id = 0; id < count; id++) {
    const inputs = new Map<string, { type: CType; bits: bigint }>();
    const input = (type: CType): Node => {
      const same = [...inputs.entries()].filter(([, v]) => v.type === type);
      if (same.length > 0 && r() < 0.3) return { k: 'var', name: pick(same)[0], type };
      const name = `v${inputs.size}`;
      inputs.set(name, { type, bits: isFloat(type) ? randomFloat(r, type) : randomInt(r, type, dm) });
      return { k: 'var', name, type };
    };
    const gen = (type: CType, depth: number): Node => {
      if (!isFloat(type)) {
        // An integer: an input, or a float converted (truncated).
        if (depth <= 0 || r() < 0.5) return input(type);
        return { k: 'cast', type, a: gen(pick(ftypes), depth - 1) };
      }
      if (depth <= 0 || r() < 0.15) return r() < 0.8 ? input(type) : { k: 'lit', type, bits: randomFloat(r, type) };
      const x = r();
      if (x < 0.45) {
        // Not two constants: gcc folds those at compile time, and folds an exact x + -x to +0 even under -frounding-math.
        const a = gen(type, depth - 1);
        const b = gen(type, depth - 1);
        return { k: 'arith', op: pick(['+', '-', '*', '/'] as const), type, a, b: a.k === 'lit' && b.k === 'lit' ? input(type) : b };
      }
      if (x < 0.5) return { k: 'neg', type, a: gen(type, depth - 1) };
      if (x < 0.7) {
        const fn = pick(MATH_FNS);
        const n = fn === 'fma' ? 3 : fn === 'remainder' ? 2 : 1;
        return { k: 'call', fn, type, args: Array.from({ length: n }, () => gen(type, depth - 1)) };
      }
      if (x < 0.8) return { k: 'cast', type, a: gen(pick(ITYPES), depth - 1) };
      return { k: 'cast', type, a: gen(pick(ftypes.filter((t) => t !== type)), depth - 1) };
    };
    const depth = opts.depth ?? 3;
    const top: Node = r() < 0.2 ? { k: 'cmp', op: pick(['<', '<=', '>', '>=', '==', '!='] as const), type: 'int', a: gen('double', depth), b: gen('double', depth) } : gen(r() < 0.15 ? pick(ITYPES) : pick(ftypes), depth);
    const rm = r() < 0.6 ? 'RNE' : pick(['RTP', 'RTN', 'RTZ'] as const);
    const c: FloatCase = { id, rm, inputs, expr: top };
    out.push({ ...c, expr: makeDefined(c, dm) });
  }
  return out;
}

/** The expression with every float-to-integer conversion whose value is out of range (undefined in C) replaced by a conversion of 1. */
function makeDefined(c: FloatCase, dm: DataModel): Node {
  const state = inputState(c, dm);
  const fix = (n: Node): Node => {
    switch (n.k) {
      case 'var':
      case 'lit':
        return n;
      case 'arith':
        return { ...n, a: fix(n.a), b: fix(n.b) };
      case 'cmp':
        return { ...n, a: fix(n.a), b: fix(n.b) };
      case 'neg':
        return { ...n, a: fix(n.a) };
      case 'call':
        return { ...n, args: n.args.map(fix) };
      case 'cast': {
        const a = fix(n.a);
        const from = typeOf(a);
        if (isFloat(from) && !isFloat(n.type)) {
          const v = evalExpr(toImp(a, dm, c.rm), state) as { bits: bigint };
          const { width, signed } = intInfo(n.type, dm);
          if (!fitsInteger(floatFormat(from), 'RTZ', v.bits, width, signed)) return { ...n, a: { k: 'lit', type: from, bits: ieee.fromInteger(floatFormat(from), 'RNE', 1n) } };
        }
        return { ...n, a };
      }
    }
  };
  return fix(c.expr);
}

export function typeOf(n: Node): CType | 'int' {
  return n.type;
}

// ---- IMP ----

const loc = syntheticLoc('<float-exprs>');

function app(fn: BuiltinName, ...args: Expr[]): Expr {
  return { kind: 'app', fn, args, loc };
}
function rmLit(mode: ieee.RoundingMode): Expr {
  return { kind: 'rm_lit', mode, loc };
}
function fpName(t: FType): string {
  return t === 'float' ? 'fp32' : t === 'double' ? 'fp64' : 'fp80';
}

export function impType(t: CType | 'int', dm: DataModel): ImpType {
  return isFloat(t) ? floatFormat(t) : { kind: 'bv', width: intInfo(t, dm).width };
}

/** The expression in IMP, evaluated in rounding mode `rm` (conversions to integers truncate, as C's do). */
export function toImp(n: Node, dm: DataModel, rm: ieee.RoundingMode): Expr {
  const sub = (x: Node) => toImp(x, dm, rm);
  switch (n.k) {
    case 'var':
      return { kind: 'var', name: n.name, loc };
    case 'lit': {
      const f = floatFormat(n.type);
      return { kind: 'float_lit', bits: n.bits, eb: f.eb, sb: f.sb, loc };
    }
    case 'arith': {
      const fn = ({ '+': 'fadd', '-': 'fsub', '*': 'fmul', '/': 'fdiv' } as const)[n.op];
      return app(fn, rmLit(rm), sub(n.a), sub(n.b));
    }
    case 'neg':
      return { kind: 'unary', op: '-', arg: sub(n.a), loc };
    case 'call': {
      const a = n.args.map(sub);
      switch (n.fn) {
        case 'sqrt':
          return app('fsqrt', rmLit(rm), a[0]);
        case 'fabs':
          return app('fabs', a[0]);
        case 'fma':
          return app('ffma', rmLit(rm), a[0], a[1], a[2]);
        case 'trunc':
          return app('fround', rmLit('RTZ'), a[0]);
        case 'floor':
          return app('fround', rmLit('RTN'), a[0]);
        case 'ceil':
          return app('fround', rmLit('RTP'), a[0]);
        case 'round':
          return app('fround', rmLit('RNA'), a[0]);
        case 'rint':
          return app('fround', rmLit(rm), a[0]);
        case 'remainder':
          return app('frem', a[0], a[1]);
      }
      break;
    }
    case 'cmp': {
      const a = sub(n.a);
      const b = sub(n.b);
      const cond: Expr =
        n.op === '==' ? app('feq', a, b) : n.op === '!=' ? { kind: 'unary', op: '!', arg: app('feq', a, b), loc } : { kind: 'binary', op: n.op, left: a, right: b, loc };
      return { kind: 'ite', cond, then: { kind: 'bv_lit', value: 1n, width: 32, loc }, else: { kind: 'bv_lit', value: 0n, width: 32, loc }, loc };
    }
    case 'cast': {
      const from = typeOf(n.a);
      const a = sub(n.a);
      if (isFloat(n.type)) {
        if (isFloat(from)) return from === n.type ? a : app(`to_${fpName(n.type)}` as BuiltinName, rmLit(rm), a);
        const { signed } = intInfo(from, dm);
        return app(`${signed ? 's' : 'u'}bv_to_${fpName(n.type)}` as BuiltinName, rmLit(rm), a);
      }
      if (!isFloat(from)) throw new Error('integer-to-integer casts are not generated');
      const { width, signed } = intInfo(n.type, dm);
      return app(`fp_to_${signed ? 's' : 'u'}bv${width}` as BuiltinName, rmLit('RTZ'), a);
    }
  }
  throw new Error('unreachable');
}

export function inputState(c: FloatCase, dm: DataModel): Map<string, ImpValue> {
  const state = new Map<string, ImpValue>();
  for (const [name, { type, bits }] of c.inputs) {
    if (isFloat(type)) state.set(name, { ...floatFormat(type), kind: 'float', bits });
    else {
      const w = intInfo(type, dm).width;
      state.set(name, { kind: 'bv', value: BigInt.asUintN(w, bits), width: w });
    }
  }
  return state;
}

// ---- results, compared as gcc prints them ----

/** A result as text: hex bits of the C object (x87 layout for long double), `nan` for any NaN. */
export function resultText(type: CType | 'int', dm: DataModel, v: ImpValue): string {
  if (isFloat(type)) {
    const f = floatFormat(type);
    const bits = (v as { bits: bigint }).bits;
    if (ieee.isNaN(f, bits)) return 'nan';
    const raw = type === 'long double' ? ieee.packedToX87(bits) : bits;
    return raw.toString(16);
  }
  const { width, signed } = intInfo(type, dm);
  const x = (v as { value: bigint }).value;
  return BigInt.asUintN(64, signed ? BigInt.asIntN(width, x) : x).toString(16);
}

export function interpret(c: FloatCase, dm: DataModel): string {
  return resultText(typeOf(c.expr), dm, evalExpr(toImp(c.expr, dm, c.rm), inputState(c, dm)));
}

/** The results by an SMT solver's model: the inputs are constants fixed by equalities, so the solver (not constant folding) computes. */
export async function solve(cases: readonly FloatCase[], dm: DataModel, solverName: string, timeoutMs = 120_000): Promise<string[]> {
  const solver = createSolver(solverName);
  try {
    const results: Term[] = [];
    for (const c of cases) {
      const consts = new Map<string, Term>();
      const state = inputState(c, dm);
      for (const [name] of c.inputs) {
        const t = mkConst(`c${c.id}.${name}`, sortOf(impType(c.inputs.get(name)!.type, dm)));
        consts.set(name, t);
        const lit = translateExpr(valueExpr(state.get(name)!), { lookup: () => t, lookupOld: () => t });
        await solver.assert(mkEq(t, lit));
      }
      const env = { lookup: (n: string) => consts.get(n)!, lookupOld: (n: string) => consts.get(n)! };
      const r = mkConst(`c${c.id}.result`, sortOf(impType(typeOf(c.expr), dm)));
      await solver.assert(mkEq(r, translateExpr(toImp(c.expr, dm, c.rm), env)));
      results.push(r);
    }
    const sat = await solver.checkSat([], { timeoutMs });
    if (sat.status !== 'sat') throw new Error(`${solverName}: ${sat.status} ${sat.reason ?? ''}`);
    const values = await solver.getValues(results);
    return values.map((v, k) => resultText(typeOf(cases[k].expr), dm, v as ImpValue));
  } finally {
    await solver.dispose();
  }
}

function valueExpr(v: ImpValue): Expr {
  if (v.kind === 'float') return { kind: 'float_lit', bits: v.bits, eb: v.eb, sb: v.sb, loc };
  return { kind: 'bv_lit', value: (v as { value: bigint }).value, width: (v as { width: 8 | 16 | 32 | 64 }).width, loc };
}

// ---- C ----

const SUFFIX: Record<FType, string> = { float: 'f', double: '', 'long double': 'l' };
const BYTES: Record<FType, number> = { float: 4, double: 8, 'long double': 10 };
const FE: Record<ieee.RoundingMode, string> = { RNE: 'FE_TONEAREST', RTP: 'FE_UPWARD', RTN: 'FE_DOWNWARD', RTZ: 'FE_TOWARDZERO', RNA: 'FE_TONEAREST' };

/** A C constant of exactly this value (hexadecimal; NaN and infinities by the builtins). */
export function cFloatConstant(t: FType, bits: bigint): string {
  const f = floatFormat(t);
  const s = ieee.toHexString(f, bits);
  const suffix = { float: 'f', double: '', 'long double': 'l' }[t];
  if (s === 'nan') return `__builtin_nan${suffix}("")`;
  if (s === 'inf' || s === '-inf') return `(${s[0] === '-' ? '-' : ''}__builtin_inf${suffix}())`;
  return `(${s}${t === 'float' ? 'f' : t === 'long double' ? 'L' : ''})`;
}

function toC(n: Node): string {
  switch (n.k) {
    case 'var':
      return n.name;
    case 'lit':
      return cFloatConstant(n.type, n.bits);
    case 'arith':
      return `(${toC(n.a)} ${n.op} ${toC(n.b)})`;
    case 'neg':
      return `(-${toC(n.a)})`;
    case 'call':
      return `${n.fn}${SUFFIX[n.type]}(${n.args.map(toC).join(', ')})`;
    case 'cmp':
      return `(${toC(n.a)} ${n.op} ${toC(n.b)})`;
    case 'cast':
      return `((${n.type})${toC(n.a)})`;
  }
}

function cInput(name: string, type: CType, bits: bigint): string {
  if (isFloat(type)) {
    const raw = type === 'long double' ? ieee.packedToX87(bits) : bits;
    const bytes = Array.from({ length: BYTES[type] }, (_, k) => `0x${((raw >> BigInt(8 * k)) & 0xffn).toString(16)}`);
    return `  volatile ${type} ${name}; { static const unsigned char b[] = {${bytes.join(',')}}; ${type} t = 0; memcpy((void *)&t, b, ${BYTES[type]}); ${name} = t; }`;
  }
  return `  volatile ${type} ${name} = (${type})0x${BigInt.asUintN(64, bits).toString(16)}ULL;`;
}

function cPrint(type: CType | 'int', expr: string): string {
  if (isFloat(type)) {
    const n = BYTES[type];
    return `  { ${type} r = ${expr}; unsigned char b[16] = {0}; memcpy(b, (void *)&r, ${n}); if (r != r) printf("nan\\n"); else { int k = ${n - 1}; while (k > 0 && b[k] == 0) k--; printf("%x", b[k]); for (k--; k >= 0; k--) printf("%02x", b[k]); printf("\\n"); } }`;
  }
  return `  { ${type} r = ${expr}; printf("%llx\\n", (unsigned long long)(long long)r); }`;
}

export function cProgram(cases: readonly FloatCase[]): string {
  const out = ['#include <stdio.h>', '#include <string.h>', '#include <math.h>', '#include <fenv.h>', ...I386_MATH_OVERRIDES, ''];
  for (const c of cases) {
    out.push(`static void case${c.id}(void) {`);
    for (const [name, { type, bits }] of c.inputs) out.push(cInput(name, type, bits));
    out.push(`  fesetround(${FE[c.rm]});`);
    out.push(cPrint(typeOf(c.expr), toC(c.expr)));
    out.push('  fesetround(FE_TONEAREST);');
    out.push('}');
  }
  out.push('int main(void) {');
  for (const c of cases) out.push(`  case${c.id}();`);
  out.push('  return 0;', '}');
  return out.join('\n') + '\n';
}

/** The replay's flags: gcc evaluates as Tarsier's semantics says (IEEE single/double, SSE in -m32, no contraction), calling libm. */
export function gccFloatFlags(dm: DataModel): string[] {
  const mode = dm === 'ILP32' ? '-m32' : '-m64';
  return [mode, ...floatFlags(mode), '-fno-builtin'];
}

/** Compiles and runs the cases; one output line each. */
export function runGcc(cases: readonly FloatCase[], flags: readonly string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-float-'));
  try {
    const src = join(dir, 'p.c');
    writeFileSync(src, cProgram(cases));
    const exe = join(dir, 'p');
    const cc = spawnSync('gcc', ['-std=gnu11', '-O0', '-frounding-math', '-fno-math-errno', ...flags, '-o', exe, src, '-lm'], { encoding: 'utf8', timeout: 120_000 });
    if (cc.status !== 0) throw new Error(`gcc failed: ${cc.stderr}`);
    const run = spawnProgram(exe, [], flags.includes('-m32'), { encoding: 'utf8', timeout: 60_000 });
    if (run.status !== 0) throw new Error(`the program failed: ${run.stderr}`);
    return run.stdout.trim().split('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A readable form of a case, for failure messages. */
export function describeCase(c: FloatCase, dm: DataModel): string {
  const ins = [...c.inputs].map(([n, { type, bits }]) => `${type} ${n} = ${isFloat(type) ? ieee.toHexString(floatFormat(type), bits) : bits}`).join('; ');
  return `[${dm} ${c.rm}] ${ins}; result ${toC(c.expr)}`;
}

const FE_VALUES: Record<ieee.RoundingMode, string> = { RNE: '0', RTN: '0x400', RTP: '0x800', RTZ: '0xc00', RNA: '0' };

/** A C condition that holds exactly when `r` (of type t) is the value gcc printed as `expected` (resultText's form). */
function checkOf(t: CType | 'int', expected: string): string {
  if (!isFloat(t)) return `((unsigned long long)(long long)r == 0x${expected}ULL)`;
  if (expected === 'nan') return '(r != r)';
  const raw = BigInt('0x' + expected);
  const bits = t === 'long double' ? ieee.x87ToPacked(raw) : raw;
  const f = floatFormat(t);
  const lit = cFloatConstant(t, bits);
  if (ieee.classify(f, bits) === 'zero') return `(r == ${lit} && ${ieee.isNegative(f, bits) ? '' : '!'}(1 / r < 0))`;
  return `(r == ${lit})`;
}

/**
 * The cases as one C program for the lowering: inputs as exact constants,
 * each result checked against the value gcc computed (`expected`, one per
 * case); `R[i]` is 1 where case i agrees.
 */
export function checkingProgram(cases: readonly FloatCase[], expected: readonly string[]): string {
  const out = ['int fesetround(int);'];
  const arity: Record<MathFn, number> = { sqrt: 1, fabs: 1, fma: 3, trunc: 1, floor: 1, ceil: 1, round: 1, rint: 1, remainder: 2 };
  for (const fn of MATH_FNS) {
    for (const t of FTYPES) out.push(`${t} ${fn}${SUFFIX[t]}(${Array(arity[fn]).fill(t).join(', ')});`);
  }
  out.push(`int R[${cases.length}];`, 'int main(void) {');
  cases.forEach((c, i) => {
    out.push('  {');
    for (const [name, { type, bits }] of c.inputs) {
      out.push(`    ${type} ${name} = ${isFloat(type) ? cFloatConstant(type, bits) : `(${type})0x${BigInt.asUintN(64, bits).toString(16)}ULL`};`);
    }
    const t = typeOf(c.expr);
    out.push(`    fesetround(${FE_VALUES[c.rm]});`, `    ${t} r = ${toC(c.expr)};`, `    R[${i}] = ${checkOf(t, expected[i]!)};`, '    fesetround(0);', '  }');
  });
  out.push('  return 0;', '}');
  return out.join('\n') + '\n';
}

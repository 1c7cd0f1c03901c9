// Hash-consed SMT terms: structurally equal terms are the same object, so
// terms can be compared with `===` and used as Map keys.

export type Sort =
  | { readonly kind: 'Bool' }
  | { readonly kind: 'Int' }
  | { readonly kind: 'Real' }
  | { readonly kind: 'BitVec'; readonly width: number }
  | { readonly kind: 'Array'; readonly index: Sort; readonly elem: Sort }
  | { readonly kind: 'FloatingPoint'; readonly eb: number; readonly sb: number }
  | { readonly kind: 'RoundingMode' };

export const BoolSort: Sort = { kind: 'Bool' };
export const IntSort: Sort = { kind: 'Int' };
export const RealSort: Sort = { kind: 'Real' };
const bvSorts = new Map<number, Sort>();
export function BitVecSort(width: number): Sort {
  let s = bvSorts.get(width);
  if (!s) bvSorts.set(width, (s = { kind: 'BitVec', width }));
  return s;
}
export const RoundingModeSort: Sort = { kind: 'RoundingMode' };
const floatSorts = new Map<string, Sort>();
export function FloatSort(eb: number, sb: number): Sort {
  const key = `${eb} ${sb}`;
  let s = floatSorts.get(key);
  if (!s) floatSorts.set(key, (s = { kind: 'FloatingPoint', eb, sb }));
  return s;
}
const arraySorts = new Map<string, Sort>();
export function ArraySort(index: Sort, elem: Sort): Sort {
  const key = `${sortToSmt(index)} ${sortToSmt(elem)}`;
  let s = arraySorts.get(key);
  if (!s) arraySorts.set(key, (s = { kind: 'Array', index, elem }));
  return s;
}

export function sortToSmt(s: Sort): string {
  switch (s.kind) {
    case 'BitVec':
      return `(_ BitVec ${s.width})`;
    case 'Array':
      return `(Array ${sortToSmt(s.index)} ${sortToSmt(s.elem)})`;
    case 'FloatingPoint':
      return `(_ FloatingPoint ${s.eb} ${s.sb})`;
    default:
      return s.kind;
  }
}

export function sortEquals(a: Sort, b: Sort): boolean {
  return a === b || sortToSmt(a) === sortToSmt(b);
}

/**
 * `op` is the SMT-LIB function symbol, or one of the leaf kinds `const`
 * (a free constant named `name`), `true`, `false`, `int`, `real`, `bv`,
 * `fplit` (a floating-point value by its packed bits, NaN canonical), `rm` (a
 * rounding mode named `text`).
 * Indexed operators (`extract`, `zero_extend`, `sign_extend`, `int2bv`)
 * carry their indices.
 */
export interface Term {
  readonly id: number;
  readonly op: string;
  readonly args: readonly Term[];
  readonly sort: Sort;
  readonly name?: string;
  readonly value?: bigint;
  readonly text?: string;
  readonly indices?: readonly number[];
}

const table = new Map<string, Term>();
let nextId = 1;
const sortKeys = new WeakMap<Sort, string>();

function sortKey(s: Sort): string {
  let k = sortKeys.get(s);
  if (k === undefined) sortKeys.set(s, (k = sortToSmt(s)));
  return k;
}

function mk(op: string, args: readonly Term[], sort: Sort, extra: { name?: string; value?: bigint; text?: string; indices?: readonly number[] } = {}): Term {
  let key = `${op}|${sortKey(sort)}|`;
  for (const a of args) key += `${a.id},`;
  if (extra.name !== undefined) key += `|n${extra.name}`;
  if (extra.value !== undefined) key += `|v${extra.value}`;
  if (extra.text !== undefined) key += `|t${extra.text}`;
  if (extra.indices !== undefined) key += `|i${extra.indices.join(',')}`;
  let t = table.get(key);
  if (!t) {
    t = { id: nextId++, op, args, sort, ...extra };
    table.set(key, t);
  }
  return t;
}

// ---- leaves ----
export const TRUE = mk('true', [], BoolSort);
export const FALSE = mk('false', [], BoolSort);
export function mkConst(name: string, sort: Sort): Term {
  return mk('const', [], sort, { name });
}
export function mkBool(b: boolean): Term {
  return b ? TRUE : FALSE;
}
export function mkInt(v: bigint | number): Term {
  return mk('int', [], IntSort, { value: BigInt(v) });
}
/** A decimal real literal, e.g. `1.5` or `-0.25`. */
export function mkReal(text: string): Term {
  return mk('real', [], RealSort, { text });
}
/** A floating-point value by its packed IEEE bits (the caller makes a NaN canonical). */
export function mkFloatLit(bits: bigint, eb: number, sb: number): Term {
  return mk('fplit', [], FloatSort(eb, sb), { value: bits });
}
export function mkRoundingMode(mode: string): Term {
  return mk('rm', [], RoundingModeSort, { text: mode });
}
/** An application with an explicit result sort (floating point, whose results are not their first argument's sort). */
export function mkSorted(op: string, args: readonly Term[], sort: Sort, indices?: readonly number[]): Term {
  return mk(op, args, sort, indices ? { indices } : {});
}
export function mkBv(v: bigint | number, width: number): Term {
  const m = 1n << BigInt(width);
  const value = ((BigInt(v) % m) + m) % m;
  return mk('bv', [], BitVecSort(width), { value });
}

function check(cond: boolean, msg: string): void {
  if (!cond) throw new Error(`ill-sorted term: ${msg}`);
}

// ---- Boolean ----
export function mkNot(a: Term): Term {
  if (a === TRUE) return FALSE;
  if (a === FALSE) return TRUE;
  if (a.op === 'not') return a.args[0];
  return mk('not', [a], BoolSort);
}
export function mkAnd(...xs: Term[]): Term {
  const args: Term[] = [];
  for (const x of xs) {
    if (x === FALSE) return FALSE;
    if (x === TRUE) continue;
    if (x.op === 'and') args.push(...x.args);
    else if (!args.includes(x)) args.push(x);
  }
  if (args.length === 0) return TRUE;
  if (args.length === 1) return args[0];
  return mk('and', args, BoolSort);
}
export function mkOr(...xs: Term[]): Term {
  const args: Term[] = [];
  for (const x of xs) {
    if (x === TRUE) return TRUE;
    if (x === FALSE) continue;
    if (x.op === 'or') args.push(...x.args);
    else if (!args.includes(x)) args.push(x);
  }
  if (args.length === 0) return FALSE;
  if (args.length === 1) return args[0];
  return mk('or', args, BoolSort);
}
export function mkImplies(a: Term, b: Term): Term {
  if (a === TRUE) return b;
  if (a === FALSE || b === TRUE) return TRUE;
  return mk('=>', [a, b], BoolSort);
}
/** A literal whose value is its identity (hash-consed): Booleans, integers, bit-vectors. */
function isValueLeaf(t: Term): boolean {
  return t.op === 'bv' || t.op === 'int' || t.op === 'fplit' || t.op === 'rm' || t === TRUE || t === FALSE;
}

export function mkEq(a: Term, b: Term): Term {
  check(sortEquals(a.sort, b.sort), `= on ${sortToSmt(a.sort)} and ${sortToSmt(b.sort)}`);
  if (a === b) return TRUE;
  if (isValueLeaf(a) && isValueLeaf(b)) return FALSE;
  return mk('=', [a, b], BoolSort);
}
export function mkIte(c: Term, a: Term, b: Term): Term {
  check(sortEquals(a.sort, b.sort), 'ite branches');
  if (c === TRUE || a === b) return a;
  if (c === FALSE) return b;
  if (a === TRUE && b === FALSE) return c;
  if (a === FALSE && b === TRUE) return mkNot(c);
  return mk('ite', [c, a, b], a.sort);
}

// ---- generic application (arithmetic, bit-vectors, arrays) ----
const BOOL_RESULT = new Set(['<', '<=', '>', '>=', 'bvult', 'bvule', 'bvugt', 'bvuge', 'bvslt', 'bvsle', 'bvsgt', 'bvsge', 'distinct']);

/** Applies an SMT-LIB function whose result sort is that of its first argument (or Bool for predicates). */
/** Two's complement reading of a bit-vector value. */
function signed(v: bigint, width: number): bigint {
  return BigInt.asIntN(width, v);
}

/**
 * The value of an operation on literals (undefined: not folded). Folding
 * here lets the encodings of loops with constant bounds collapse while
 * they are built, instead of leaving the work to the solver.
 */
function fold(op: string, args: readonly Term[]): Term | undefined {
  if (!args.every((a) => a.op === 'bv' || a.op === 'int')) return args.length === 2 ? identity(op, args[0]!, args[1]!) : undefined;
  const [a, b] = args.map((x) => x.value!);
  if (args[0]!.op === 'int') {
    switch (op) {
      case '+': return mkInt(args.reduce((s, x) => s + x.value!, 0n));
      case '*': return mkInt(args.reduce((s, x) => s * x.value!, 1n));
      case '-': return args.length === 1 ? mkInt(-a!) : mkInt(args.slice(1).reduce((s, x) => s - x.value!, a!));
      case '<': return mkBool(a! < b!);
      case '<=': return mkBool(a! <= b!);
      case '>': return mkBool(a! > b!);
      case '>=': return mkBool(a! >= b!);
      default: return undefined;
    }
  }
  const w = (args[0]!.sort as { width: number }).width;
  if (args.length === 1) {
    if (op === 'bvnot') return mkBv(~a!, w);
    if (op === 'bvneg') return mkBv(-a!, w);
    return undefined;
  }
  if (args.length !== 2) return undefined;
  const sa = signed(a!, w);
  const sb = signed(b!, w);
  switch (op) {
    case 'bvadd': return mkBv(a! + b!, w);
    case 'bvsub': return mkBv(a! - b!, w);
    case 'bvmul': return mkBv(a! * b!, w);
    case 'bvand': return mkBv(a! & b!, w);
    case 'bvor': return mkBv(a! | b!, w);
    case 'bvxor': return mkBv(a! ^ b!, w);
    case 'bvshl': return b! >= BigInt(w) ? mkBv(0, w) : mkBv(a! << b!, w);
    case 'bvlshr': return b! >= BigInt(w) ? mkBv(0, w) : mkBv(a! >> b!, w);
    case 'bvashr': return mkBv(sa >> (b! >= BigInt(w) ? BigInt(w - 1) : b!), w);
    // Division by zero has its own SMT-LIB meaning: left to the solver.
    case 'bvudiv': return b === 0n ? undefined : mkBv(a! / b!, w);
    case 'bvurem': return b === 0n ? undefined : mkBv(a! % b!, w);
    case 'bvsdiv': return sb === 0n ? undefined : mkBv(sa / sb, w);
    case 'bvsrem': return sb === 0n ? undefined : mkBv(sa % sb, w);
    case 'bvult': return mkBool(a! < b!);
    case 'bvule': return mkBool(a! <= b!);
    case 'bvugt': return mkBool(a! > b!);
    case 'bvuge': return mkBool(a! >= b!);
    case 'bvslt': return mkBool(sa < sb);
    case 'bvsle': return mkBool(sa <= sb);
    case 'bvsgt': return mkBool(sa > sb);
    case 'bvsge': return mkBool(sa >= sb);
    default: return undefined;
  }
}

/** `x op c` or `c op x` with a neutral or absorbing bit-vector constant c (e.g. `x * 0`, the first iteration's `i * x`). */
function identity(op: string, a: Term, b: Term): Term | undefined {
  const isConst = (t: Term, v: bigint) => t.op === 'bv' && t.value === v;
  const zero = (t: Term) => mkBv(0, (t.sort as { width: number }).width);
  switch (op) {
    case 'bvadd':
    case 'bvor':
    case 'bvxor':
      return isConst(b, 0n) ? a : isConst(a, 0n) ? b : undefined;
    case 'bvsub':
    case 'bvshl':
    case 'bvlshr':
    case 'bvashr':
      return isConst(b, 0n) ? a : undefined;
    case 'bvmul':
      if (isConst(a, 0n) || isConst(b, 0n)) return zero(a);
      return isConst(b, 1n) ? a : isConst(a, 1n) ? b : undefined;
    case 'bvand':
      return isConst(a, 0n) || isConst(b, 0n) ? zero(a) : undefined;
    case 'bvudiv':
      return isConst(b, 1n) ? a : undefined;
    case 'bvurem':
      return isConst(b, 1n) ? zero(a) : undefined;
    default:
      return undefined;
  }
}

export function mkApp(op: string, ...args: Term[]): Term {
  check(args.length > 0, op);
  const folded = fold(op, args);
  if (folded) return folded;
  if (BOOL_RESULT.has(op)) return mk(op, args, BoolSort);
  if (op === 'to_real') return mk(op, args, RealSort);
  if (op === 'to_int' || op === 'bv2nat') return mk(op, args, IntSort);
  if (op === 'concat') {
    const w = args.reduce((s, a) => s + (a.sort as { width: number }).width, 0);
    return mk(op, args, BitVecSort(w));
  }
  return mk(op, args, args[0].sort);
}

/** Whether a term multiplies two bit-vector terms neither of which is a literal (bit-blasting it costs a multiplier). */
export function isNonlinearProduct(t: Term): boolean {
  return t.op === 'bvmul' && t.args.filter((a) => a.op !== 'bv').length >= 2;
}

/** The same operation over other arguments (of the same sorts), hash-consed like every term; no folding. */
export function withArgs(t: Term, args: readonly Term[]): Term {
  if (args.length === t.args.length && args.every((a, i) => a === t.args[i])) return t;
  const extra: { name?: string; value?: bigint; text?: string; indices?: readonly number[] } = {};
  if (t.name !== undefined) extra.name = t.name;
  if (t.value !== undefined) extra.value = t.value;
  if (t.text !== undefined) extra.text = t.text;
  if (t.indices !== undefined) extra.indices = t.indices;
  return mk(t.op, args, t.sort, extra);
}

export function mkSelect(arr: Term, index: Term): Term {
  check(arr.sort.kind === 'Array', 'select on a non-array');
  return mk('select', [arr, index], (arr.sort as { elem: Sort }).elem);
}
export function mkStore(arr: Term, index: Term, value: Term): Term {
  check(arr.sort.kind === 'Array', 'store on a non-array');
  return mk('store', [arr, index, value], arr.sort);
}
export function mkExtract(hi: number, lo: number, a: Term): Term {
  if (a.op === 'bv') return mkBv(a.value! >> BigInt(lo), hi - lo + 1);
  return mk('extract', [a], BitVecSort(hi - lo + 1), { indices: [hi, lo] });
}
export function mkZeroExtend(by: number, a: Term): Term {
  if (by === 0) return a;
  if (a.op === 'bv') return mkBv(a.value!, (a.sort as { width: number }).width + by);
  return mk('zero_extend', [a], BitVecSort((a.sort as { width: number }).width + by), { indices: [by] });
}
export function mkSignExtend(by: number, a: Term): Term {
  if (by === 0) return a;
  if (a.op === 'bv') return mkBv(signed(a.value!, (a.sort as { width: number }).width), (a.sort as { width: number }).width + by);
  return mk('sign_extend', [a], BitVecSort((a.sort as { width: number }).width + by), { indices: [by] });
}
export function mkInt2Bv(width: number, a: Term): Term {
  return mk('int2bv', [a], BitVecSort(width), { indices: [width] });
}

// ---- SMT-LIB text ----
const RESERVED = new Set(['par', 'NUMERAL', 'DECIMAL', 'STRING', '_', '!', 'as', 'let', 'exists', 'forall', 'match', 'true', 'false', 'not', 'and', 'or', 'ite']);

export function quoteSymbol(name: string): string {
  if (/^[A-Za-z~!@$%^&*_+=<>.?/-][A-Za-z0-9~!@$%^&*_+=<>.?/-]*$/.test(name) && !RESERVED.has(name)) return name;
  return `|${name.replace(/[|\\]/g, '_')}|`;
}

function intToSmt(v: bigint): string {
  return v < 0n ? `(- ${-v})` : v.toString();
}

function realToSmt(text: string): string {
  return text.startsWith('-') ? `(- ${text.slice(1)})` : text;
}

export function termToSmt(t: Term, memo: Map<Term, string> = new Map()): string {
  const hit = memo.get(t);
  if (hit !== undefined) return hit;
  let s: string;
  switch (t.op) {
    case 'const':
      s = quoteSymbol(t.name!);
      break;
    case 'true':
    case 'false':
      s = t.op;
      break;
    case 'int':
      s = intToSmt(t.value!);
      break;
    case 'real':
      s = realToSmt(t.text!);
      break;
    case 'rm':
      s = t.text!;
      break;
    case 'fplit': {
      const { eb, sb } = t.sort as { eb: number; sb: number };
      const bin = t.value!.toString(2).padStart(eb + sb, '0');
      s = `(fp #b${bin[0]} #b${bin.slice(1, 1 + eb)} #b${bin.slice(1 + eb)})`;
      break;
    }
    case 'bv': {
      const w = (t.sort as { width: number }).width;
      s = w % 4 === 0 ? `#x${t.value!.toString(16).padStart(w / 4, '0')}` : `#b${t.value!.toString(2).padStart(w, '0')}`;
      break;
    }
    default: {
      const args = t.args.map((a) => termToSmt(a, memo)).join(' ');
      const head = t.indices ? `(_ ${t.op} ${t.indices.join(' ')})` : t.op;
      s = `(${head} ${args})`;
    }
  }
  memo.set(t, s);
  return s;
}

/** The free constants of a term, in first-occurrence order. */
export function freeConsts(t: Term, out: Map<string, Term> = new Map(), seen: Set<Term> = new Set()): Map<string, Term> {
  const stack = [t];
  while (stack.length > 0) {
    const x = stack.pop()!;
    if (seen.has(x)) continue;
    seen.add(x);
    if (x.op === 'const') {
      if (!out.has(x.name!)) out.set(x.name!, x);
    } else for (let i = x.args.length - 1; i >= 0; i--) stack.push(x.args[i]);
  }
  return out;
}

/**
 * The C library's memory and string functions (`memset`, `memcpy`,
 * `memmove`, `memcmp`, `strlen`, `strcmp`, `strncmp`, `strcpy`, `strcat`,
 * `strncpy`) on the typed memory model, `abs`, `labs`, `llabs`, and `time`.
 *
 * A call is lowered as its loop unrolled element by element through the
 * ordinary lvalue machinery, so every element access is a dereference with
 * its case split and its valid-deref check. A pointer argument is taken at
 * the type it had before its conversion to `void *` (`memset(a, 0,
 * sizeof a)` on an `int` array works on ints); a byte count must then be a
 * whole number of elements. A constant count is unrolled exactly; a run-time
 * count (or a string's length) is unrolled as far as the largest object the
 * pointer may designate, plus one element (that access is outside every
 * object); where that bound is unknown (UNKNOWN_SIZE_LIMIT then) or above
 * UNROLL_LIMIT, running past it makes the answer UNKNOWN (an `uncertain`
 * goal), never wrong.
 */
import type { Expr as CExpr } from '../c/ast.js';
import type { CType, DataModel, IntegerKind } from '../c/types.js';
import { intType, isSignedKind, sameType, sizeOf, typeToString as cTypeToString, unqualified } from '../c/types.js';
import type { BvWidth, Expr, ImpType, Stmt } from '../ivl/ast.js';
import { boolType, bvType } from '../ivl/ast.js';
import { and, app, assign, bin, boolLit, bv, eq, havoc, ifs, ite, type L, or, orAll, resize, un, v } from './imp-build.js';
import { floatConst } from './float.js';
import { type LValue, type Region, UnsupportedError, intKindOf, intWidth, type Val } from './memory.js';

/** Elements a call is unrolled to at most. */
export const UNROLL_LIMIT = 256;
/**
 * Elements a run-time count or a string is unrolled to when an object it may
 * reach has no constant size (a heap block): each conditional element costs
 * the solver, and such counts are small in practice (more: UNKNOWN).
 */
export const UNKNOWN_SIZE_LIMIT = 64;

/** What the library lowering needs of the lowerer. */
export interface LibraryHost {
  readonly dm: DataModel;
  readonly pw: BvWidth;
  rv(e: CExpr): Val;
  snapshot(val: Val, loc: L): Val;
  deref(p: Val, type: CType, loc: L): LValue;
  readLv(lv: LValue, loc: L): Val;
  store(lv: LValue, val: Val, loc: L): void;
  member(lv: LValue, name: string, type: CType): LValue;
  indexArray(arr: LValue, i: Expr, loc: L): LValue;
  emit(...s: Stmt[]): void;
  buffer<T>(f: () => T): [Stmt[], T];
  temp(t: ImpType, prefix?: string): string;
  /** Where the model is not exact: if cond can fail, the answer is UNKNOWN. */
  uncertain(cond: Expr, loc: L, description: string): void;
  /** A signed overflow the no-overflow property checks (nothing when it is not checked): cond says there is none. */
  overflowCheck(cond: Expr, loc: L, description: string): void;
  /** Inside an allocation wrapper (see Lowerer.typedRv): the element type its blocks get. */
  allocationType(): CType | undefined;
  /** The largest element count of the objects a pointer to `elem` may designate, undefined when one is not a constant. */
  regionBound(elem: CType, loc: L): number | undefined;
  /** The objects pointers may point to (ids and element types). */
  regions(): readonly Region[];
  /** The memory-safety check of a write to lv (nothing else). */
  checkWrite(lv: LValue, loc: L): void;
  /** All bytes of a union were written alike: its members agree (LvalueLowering.freshUnion). */
  freshUnion(lv: LValue, loc: L): void;
  /** A `void *` converted to a pointer to `target` (ConversionLowering.fromVoid). */
  fromVoid(p: Ptr, target: CType, loc: L): Ptr;
}

export const LIBRARY_FUNCTIONS = new Set(['memset', 'memcpy', 'memmove', 'memcmp', 'strlen', 'strcmp', 'strncmp', 'strcpy', 'strcat', 'strncpy', 'abs', 'labs', 'llabs', 'time']);

/** The integer kind `abs`, `labs` and `llabs` compute in. */
const ABS_KINDS: Readonly<Record<string, IntegerKind>> = { abs: 'int', labs: 'long', llabs: 'longlong' };

type Ptr = Extract<Val, { k: 'ptr' }>;
/** A byte count of elements of `es` bytes; `constant`: their number when it is known. */
interface Count {
  readonly bytes: Expr;
  readonly es: number;
  readonly constant?: number;
}

export class Library {
  constructor(private readonly h: LibraryHost) {}

  /** Lowers a call of one of LIBRARY_FUNCTIONS (its name without `__builtin_`). */
  call(name: string, args: readonly CExpr[], returnType: CType, loc: L): Val {
    const arity: Record<string, number> = { memset: 3, memcpy: 3, memmove: 3, memcmp: 3, strlen: 1, strcmp: 2, strncmp: 3, strcpy: 2, strcat: 2, strncpy: 3, abs: 1, labs: 1, llabs: 1, time: 1 };
    if (args.length !== arity[name]) throw new UnsupportedError(`${name} with ${args.length} arguments`, loc);
    const ret = unqualified(returnType);
    switch (name) {
      case 'memset':
        return this.memset(args, ret, loc);
      case 'memcpy':
      case 'memmove':
        return this.memcpy(name, args, ret, loc);
      case 'memcmp':
      case 'strcmp':
      case 'strncmp':
        return this.compare(name, args, ret, loc);
      case 'strlen':
        return this.strlen(args[0]!, ret, loc);
      case 'strcpy':
      case 'strcat':
        return this.strcpy(name, args, ret, loc);
      case 'strncpy':
        return this.strncpy(args, ret, loc);
      case 'abs':
      case 'labs':
      case 'llabs':
        return this.abs(name, args[0]!, loc);
      case 'time':
        return this.time(args[0]!, ret, loc);
    }
    throw new UnsupportedError(name, loc);
  }

  /**
   * `abs(x)` (`labs`, `llabs`): x converted to the function's type, then
   * `x < 0 ? -x : x` wrapping as gcc's code does (the most negative value
   * stays itself); that value is a signed overflow for no-overflow.
   */
  private abs(name: string, arg: CExpr, loc: L): Val {
    const x = this.h.snapshot(this.h.rv(arg), loc);
    if (x.k !== 'int') throw new UnsupportedError(`${name} of a value that is not an integer`, loc);
    const k = ABS_KINDS[name];
    const w = intWidth(k, this.h.dm, loc);
    const e = resize(x.e, intWidth(x.ik, this.h.dm, loc), w, isSignedKind(x.ik), loc);
    const min = bv(1n << BigInt(w - 1), w, loc);
    this.h.overflowCheck(un('!', eq(e, min, loc), loc), loc, `signed overflow in ${name}`);
    return { k: 'int', e: ite(app('slt', [e, bv(0n, w, loc)], loc), un('-', e, loc), e, loc), ik: k };
  }

  /**
   * `time(t)`: any value of `time_t` (the clock is outside the program; two
   * calls need not increase, and (time_t)-1 is its error result), also
   * stored through t when t is not NULL, a write checked as any other.
   */
  private time(arg: CExpr, ret: CType, loc: L): Val {
    const k = intKindOf(ret);
    if (k === undefined) throw new UnsupportedError(`time returning ${cTypeToString(ret)}`, loc);
    const p = this.h.snapshot(this.h.rv(arg), loc);
    if (p.k !== 'ptr') throw new UnsupportedError('time of a value that is not a pointer', loc);
    const r = this.h.temp(bvType(intWidth(k, this.h.dm, loc)), '$time');
    this.h.emit(havoc(r, loc));
    const val: Val = { k: 'int', e: v(r, loc), ik: k };
    const isNull = p.base.kind === 'bv_lit' && p.base.value === 0n;
    if (!isNull) {
      const [write] = this.h.buffer(() => this.h.store(this.h.deref(p, p.pointee, arg.loc), val, arg.loc));
      this.h.emit(ifs(un('!', eq(p.base, bv(0n, 32, loc), loc), loc), write, [], loc));
    }
    return val;
  }

  // ---- arguments ---------------------------------------------------------------------

  /** A pointer argument at the type it had before its conversions between pointer types. */
  private typedPointer(name: string, arg: CExpr, loc: L, allowVoid = false): Ptr {
    let x = arg;
    for (;;) {
      const inner = x.kind === 'ImplicitCast' || x.kind === 'Cast' ? x.operand : undefined;
      if (!inner || unqualified(x.type).kind !== 'pointer' || unqualified(inner.type).kind !== 'pointer') break;
      if (x.kind === 'ImplicitCast' && x.castKind !== 'PointerCast' && x.castKind !== 'NoOp') break;
      x = inner;
    }
    const p = this.h.snapshot(this.h.rv(x), loc);
    if (p.k !== 'ptr') throw new UnsupportedError(`${name} of a value that is not a pointer`, loc);
    // A `void *` inside an allocation wrapper: the type the wrapper's result is converted to.
    const elem = unqualified(unqualified(p.pointee).kind === 'void' ? (this.h.allocationType() ?? p.pointee) : p.pointee);
    if ((elem.kind === 'void' && !allowVoid) || elem.kind === 'function' || elem.kind === 'array') {
      throw new UnsupportedError(`${name} through a pointer to ${cTypeToString(elem)}`, loc);
    }
    return { ...p, pointee: elem };
  }

  /** A size or count argument at pointer width. */
  private size(arg: CExpr, loc: L): Expr {
    const n = this.h.snapshot(this.h.rv(arg), loc);
    if (n.k !== 'int') throw new UnsupportedError('a size that is not an integer', loc);
    return resize(n.e, intWidth(n.ik, this.h.dm, loc), this.h.pw, isSignedKind(n.ik), loc);
  }

  /** A byte count as whole elements of `elem` (a partial element: UNKNOWN). */
  private elements(name: string, bytes: Expr, elem: CType, loc: L): Count {
    const es = sizeOf(elem, this.h.dm);
    if (!es) throw new UnsupportedError(`${name} of elements of unknown size`, loc);
    const w = this.h.pw;
    if (bytes.kind === 'bv_lit') {
      if (bytes.value % BigInt(es) !== 0n) throw new UnsupportedError(`${name} of part of a ${cTypeToString(elem)}`, loc);
      const n = bytes.value / BigInt(es);
      if (n > BigInt(UNROLL_LIMIT)) throw new UnsupportedError(`${name} of more than ${UNROLL_LIMIT} elements`, loc);
      return { bytes, es, constant: Number(n) };
    }
    if (es > 1) {
      // Bit-vector division is costly for the solver: a power of two is tested by a mask.
      const rest = (es & (es - 1)) === 0 ? bin('&', bytes, bv(BigInt(es - 1), w, loc), loc) : app('urem', [bytes, bv(BigInt(es), w, loc)], loc);
      this.h.uncertain(eq(rest, bv(0n, w, loc), loc), loc, `${name} of part of a ${cTypeToString(elem)}`);
    }
    return { bytes, es };
  }

  /** Element j is among the count's elements (j·size < bytes: no division). */
  private below(j: number, c: Count, loc: L): Expr {
    return app('ult', [bv(BigInt(j * c.es), this.h.pw, loc), c.bytes], loc);
  }

  private charKind(name: string, p: Ptr, loc: L): IntegerKind {
    const k = intKindOf(p.pointee);
    if (k !== 'char' && k !== 'schar' && k !== 'uchar') throw new UnsupportedError(`${name} on ${cTypeToString(p.pointee)} elements`, loc);
    return k;
  }

  private at(p: Ptr, j: number, loc: L): LValue {
    const off = j === 0 ? p.off : bin('+', p.off, bv(BigInt(j), this.h.pw, loc), loc);
    return this.h.deref({ ...p, off }, p.pointee, loc);
  }

  /** How far a run-time count over the objects of these pointers is unrolled. */
  private bound(loc: L, ...ps: Ptr[]): number {
    let n = 0;
    for (const p of ps) {
      const b = this.h.regionBound(p.pointee, loc);
      if (b === undefined) return UNKNOWN_SIZE_LIMIT;
      n = Math.max(n, b + 1);
    }
    return Math.min(n, UNROLL_LIMIT);
  }

  /**
   * Runs step(j) for j = 0 .. count-1 (downward when `backward`):
   * unguarded for a constant count, else each guarded by j < count up to
   * the bound (a count beyond it: UNKNOWN).
   */
  private repeat(name: string, c: Count, bound: number, loc: L, step: (j: number) => void, backward = false): void {
    const order = (n: number) => (backward ? [...Array(n).keys()].reverse() : [...Array(n).keys()]);
    if (c.constant !== undefined) {
      for (const j of order(c.constant)) step(j);
      return;
    }
    this.h.uncertain(app('ule', [c.bytes, bv(BigInt(bound * c.es), this.h.pw, loc)], loc), loc, `${name} of more elements than the model unrolls (${bound})`);
    for (const j of order(bound)) {
      const [body] = this.h.buffer(() => step(j));
      this.h.emit(ifs(this.below(j, c, loc), body, [], loc));
    }
  }

  /** Runs step(j) while `running` holds, for j up to the bound (still running after it: UNKNOWN). */
  private scan(name: string, running: string, bound: number, loc: L, step: (j: number) => void): void {
    for (let j = 0; j < bound; j++) {
      const [body] = this.h.buffer(() => step(j));
      this.h.emit(ifs(v(running, loc), body, [], loc));
    }
    this.h.uncertain(un('!', v(running, loc), loc), loc, `${name} of a string longer than the model unrolls (${bound})`);
  }

  private result(p: Ptr, ret: CType): Val {
    return { k: 'ptr', base: p.base, off: p.off, pointee: ret.kind === 'pointer' ? ret.pointee : p.pointee };
  }

  private intResult(e: Expr, from: IntegerKind, ret: CType, loc: L): Val {
    const k = intKindOf(ret);
    if (k === undefined) throw new UnsupportedError(`result of type ${cTypeToString(ret)}`, loc);
    return { k: 'int', e: resize(e, intWidth(from, this.h.dm, loc), intWidth(k, this.h.dm, loc), isSignedKind(from), loc), ik: k };
  }

  // ---- the functions ---------------------------------------------------------------

  /**
   * `memset(p, c, n)`: every byte of the n bytes at p becomes (unsigned
   * char)c. Through a `void *`: a case split over the element types of the
   * objects p may point to (an object of none of them: UNKNOWN).
   */
  private memset(args: readonly CExpr[], ret: CType, loc: L): Val {
    const p = this.typedPointer('memset', args[0]!, loc, true);
    const c = this.h.snapshot(this.h.rv(args[1]!), loc);
    if (c.k !== 'int') throw new UnsupportedError('memset with a non-integer value', loc);
    const byte = resize(c.e, intWidth(c.ik, this.h.dm, loc), 8, false, loc);
    const bytes = this.size(args[2]!, loc);
    if (p.pointee.kind !== 'void') {
      this.memsetAs(p, byte, bytes, args[0]!.loc, loc);
      return this.result(p, ret);
    }
    const types: CType[] = [];
    for (const r of this.h.regions()) {
      const t = unqualified(r.elem);
      if (t.kind !== 'void' && t.kind !== 'function' && t.kind !== 'array' && !types.some((u) => sameType(u, t))) types.push(t);
    }
    let [rest] = this.h.buffer(() => this.h.uncertain(boolLit(false, loc), loc, 'memset through a void pointer to no object the model knows'));
    for (const t of types.reverse()) {
      const ids = this.h.regions().filter((r) => sameType(unqualified(r.elem), t));
      const [body] = this.h.buffer(() => this.memsetAs({ ...p, pointee: t }, byte, bytes, args[0]!.loc, loc));
      rest = [ifs(orAll(ids.map((r) => eq(p.base, bv(BigInt(r.id), 32, loc), loc)), loc), body, rest, loc)];
    }
    this.h.emit(...rest);
    return this.result(p, ret);
  }

  /**
   * memset of `bytes` bytes over elements of p's type, the writes' goals at
   * `to` (the destination argument). A constant count ending inside an
   * element writes the whole ones, then checks the partial one's access
   * (beyond the object: a violation) and is UNKNOWN.
   */
  private memsetAs(p: Ptr, byte: Expr, bytes: Expr, to: L, loc: L): void {
    const es = sizeOf(p.pointee, this.h.dm);
    if (bytes.kind === 'bv_lit' && es && bytes.value % BigInt(es) !== 0n) {
      const whole = Number(bytes.value / BigInt(es));
      if (whole >= UNROLL_LIMIT) throw new UnsupportedError(`memset of more than ${UNROLL_LIMIT} elements`, loc);
      for (let j = 0; j < whole; j++) this.fill(this.at(p, j, to), byte, to);
      this.h.checkWrite(this.at(p, whole, to), to);
      this.h.uncertain(boolLit(false, loc), loc, `memset of part of a ${cTypeToString(p.pointee)}`);
      return;
    }
    const count = this.elements('memset', bytes, p.pointee, loc);
    this.repeat('memset', count, this.bound(loc, p), loc, (j) => this.fill(this.at(p, j, to), byte, to));
  }

  /** Stores the byte in every byte of an lvalue: integers get it replicated, pointers only a zero (NULL). */
  private fill(lv: LValue, byte: Expr, loc: L): void {
    const t = unqualified(lv.type);
    if (t.kind === 'record') {
      // A union: every member gets the byte everywhere, which covers all its bytes but padding.
      for (const f of t.record.fields ?? []) {
        if (!f.name || f.bitWidth !== undefined) throw new UnsupportedError('memset of a struct with an unnamed member or a bit-field', loc);
        this.fill(this.h.member(lv, f.name, f.type), byte, loc);
      }
      if (t.record.union) this.h.freshUnion(lv, loc);
      return;
    }
    if (t.kind === 'array') {
      const n = t.length;
      if (n === undefined || t.vla || n > UNROLL_LIMIT) throw new UnsupportedError('memset of a struct with a large array member', loc);
      for (let i = 0; i < n; i++) this.fill(this.h.indexArray(lv, bv(BigInt(i), this.h.pw, loc), loc), byte, loc);
      return;
    }
    const zero = eq(byte, bv(0n, 8, loc), loc);
    if (t.kind === 'pointer') {
      this.h.uncertain(zero, loc, 'memset of a pointer with a nonzero byte');
      this.h.store(lv, { k: 'ptr', base: bv(0n, 32, loc), off: bv(0n, this.h.pw, loc), pointee: t.pointee }, loc);
      return;
    }
    if (t.kind === 'float') {
      // All bytes zero are +0.0 in every IEEE format; other bytes are not modelled.
      this.h.uncertain(zero, loc, `memset of a ${t.name} with a nonzero byte`);
      this.h.store(lv, { k: 'float', e: floatConst(0n, t.name, loc), fk: t.name }, loc);
      return;
    }
    const k = intKindOf(t);
    if (k === undefined) throw new UnsupportedError(`memset of ${cTypeToString(t)}`, loc);
    const w = intWidth(k, this.h.dm, loc);
    if (k === 'bool') this.h.uncertain(app('ule', [byte, bv(1n, 8, loc)], loc), loc, 'memset of a _Bool with a byte other than 0 or 1');
    // The byte in every byte of the integer: zext(byte) * 0x0101...01.
    let ones = 0n;
    for (let i = 0; i < w / 8; i++) ones = (ones << 8n) | 1n;
    const value = w === 8 ? byte : byte.kind === 'bv_lit' ? bv(byte.value * ones, w, loc) : bin('*', resize(byte, 8, w, false, loc), bv(ones, w, loc), loc);
    this.h.store(lv, { k: 'int', e: value, ik: k }, loc);
  }

  /** `memcpy(d, s, n)` / `memmove(d, s, n)` between objects of one element type. */
  private memcpy(name: 'memcpy' | 'memmove', args: readonly CExpr[], ret: CType, loc: L): Val {
    let d = this.typedPointer(name, args[0]!, loc, true);
    let s = this.typedPointer(name, args[1]!, loc, true);
    // A `void *` side is taken at the other side's type; both: bytes, as C copies them.
    const as = d.pointee.kind !== 'void' ? d.pointee : s.pointee.kind !== 'void' ? s.pointee : intType('uchar');
    if (d.pointee.kind === 'void') d = { ...this.h.fromVoid(d, as, loc), pointee: as };
    if (s.pointee.kind === 'void') s = { ...this.h.fromVoid(s, as, loc), pointee: as };
    if (!sameType(d.pointee, s.pointee)) throw new UnsupportedError(`${name} from ${cTypeToString(s.pointee)} to ${cTypeToString(d.pointee)} elements`, loc);
    const count = this.elements(name, this.size(args[2]!, loc), d.pointee, loc);
    const bound = this.bound(loc, d, s);
    const to = args[0]!.loc;
    const copy = (j: number) => this.h.store(this.at(d, j, to), this.h.readLv(this.at(s, j, loc), loc), to);
    const sameObject = eq(d.base, s.base, loc);
    if (name === 'memcpy') {
      const n = count.constant !== undefined ? bv(BigInt(count.constant), this.h.pw, loc) : app('udiv', [count.bytes, bv(BigInt(count.es), this.h.pw, loc)], loc);
      const overlap = and(sameObject, and(app('ult', [d.off, bin('+', s.off, n, loc)], loc), app('ult', [s.off, bin('+', d.off, n, loc)], loc), loc), loc);
      this.h.uncertain(un('!', overlap, loc), loc, 'memcpy between overlapping ranges');
      this.repeat(name, count, bound, loc, copy);
      return this.result(d, ret);
    }
    // memmove: forward unless the destination starts after the source in one object (then backward).
    const backward = and(sameObject, app('ult', [s.off, d.off], loc), loc);
    const [fwd] = this.h.buffer(() => this.repeat(name, count, bound, loc, copy));
    const [bwd] = this.h.buffer(() => this.repeat(name, count, bound, loc, copy, true));
    this.h.emit(ifs(backward, bwd, fwd, loc));
    return this.result(d, ret);
  }

  /** `strlen(s)`: the number of characters before the first 0. */
  private strlen(arg: CExpr, ret: CType, loc: L): Val {
    const s = this.typedPointer('strlen', arg, loc);
    return this.intResult(this.length('strlen', s, loc), 'ulong', ret, loc);
  }

  /** The length of the string at s (pointer width). */
  private length(name: string, s: Ptr, loc: L): Expr {
    const ck = this.charKind(name, s, loc);
    const running = this.flag(true, loc);
    const len = this.h.temp(bvType(this.h.pw), '$len');
    this.h.emit(assign(len, bv(0n, this.h.pw, loc), loc));
    this.scan(name, running, this.bound(loc, s), loc, (j) => {
      const c = this.h.readLv(this.at(s, j, loc), loc);
      if (c.k !== 'int') throw new UnsupportedError(name, loc);
      this.h.emit(ifs(eq(c.e, bv(0n, intWidth(ck, this.h.dm, loc), loc), loc), [assign(running, boolLit(false, loc), loc)], [assign(len, bv(BigInt(j + 1), this.h.pw, loc), loc)], loc));
    });
    return v(len, loc);
  }

  /**
   * `strcmp(a, b)`, `strncmp(a, b, n)`, `memcmp(a, b, n)`: the sign of the
   * first difference (as unsigned char); any value of that sign is possible
   * (the C standard fixes only the sign).
   */
  private compare(name: string, args: readonly CExpr[], ret: CType, loc: L): Val {
    const a = this.typedPointer(name, args[0]!, loc);
    const b = this.typedPointer(name, args[1]!, loc);
    const bytes = name !== 'strcmp';
    if (name === 'memcmp') {
      if (!sameType(a.pointee, b.pointee) || intKindOf(a.pointee) === undefined) {
        throw new UnsupportedError(`memcmp of ${cTypeToString(a.pointee)} and ${cTypeToString(b.pointee)} elements`, loc);
      }
      if (sizeOf(a.pointee, this.h.dm) !== 1) throw new UnsupportedError(`memcmp of ${cTypeToString(a.pointee)} elements (their bytes)`, loc);
    } else {
      this.charKind(name, a, loc);
      this.charKind(name, b, loc);
    }
    const n = bytes ? this.size(args[2]!, loc) : undefined;
    const running = this.flag(true, loc);
    const lt = this.flag(false, loc);
    const gt = this.flag(false, loc);
    const bound = n?.kind === 'bv_lit' && n.value < BigInt(UNROLL_LIMIT) ? Number(n.value) : this.bound(loc, a, b);
    const step = (j: number) => {
      const x = this.h.readLv(this.at(a, j, loc), loc);
      const y = this.h.readLv(this.at(b, j, loc), loc);
      if (x.k !== 'int' || y.k !== 'int') throw new UnsupportedError(name, loc);
      const stop = assign(running, boolLit(false, loc), loc);
      const differ = [assign(lt, app('ult', [x.e, y.e], loc), loc), assign(gt, app('ugt', [x.e, y.e], loc), loc), stop];
      const atEnd = name === 'memcmp' ? [] : [ifs(eq(x.e, bv(0n, 8, loc), loc), [stop], [], loc)];
      this.h.emit(ifs(un('!', eq(x.e, y.e, loc), loc), differ, atEnd, loc));
    };
    for (let j = 0; j < bound; j++) {
      const more = n === undefined ? v(running, loc) : and(v(running, loc), app('ult', [bv(BigInt(j), this.h.pw, loc), n], loc), loc);
      const [body] = this.h.buffer(() => step(j));
      this.h.emit(ifs(more, body, [], loc));
    }
    const finished = n === undefined ? un('!', v(running, loc), loc) : or(un('!', v(running, loc), loc), app('ule', [n, bv(BigInt(bound), this.h.pw, loc)], loc), loc);
    this.h.uncertain(finished, loc, `${name} of strings longer than the model unrolls (${bound})`);
    const k = intKindOf(ret);
    if (k === undefined) throw new UnsupportedError(`${name} returning ${cTypeToString(ret)}`, loc);
    const w = intWidth(k, this.h.dm, loc);
    // Any value of the sign, from one arbitrary h: h with the sign bit set, or h without it (1 for 0).
    const h = this.h.temp(bvType(w), '$cmp');
    const sign = 1n << BigInt(w - 1);
    const low = bin('&', v(h, loc), bv(sign - 1n, w, loc), loc);
    const positive = ite(eq(low, bv(0n, w, loc), loc), bv(1n, w, loc), low, loc);
    const r = this.h.temp(bvType(w), '$cmp');
    this.h.emit(havoc(h, loc), assign(r, ite(v(lt, loc), bin('|', v(h, loc), bv(sign, w, loc), loc), ite(v(gt, loc), positive, bv(0n, w, loc), loc), loc), loc));
    return { k: 'int', e: v(r, loc), ik: k };
  }

  /** `strcpy(d, s)`: the characters of s and its 0 are copied to d; `strcat(d, s)`: to the end of d's string. */
  private strcpy(name: 'strcpy' | 'strcat', args: readonly CExpr[], ret: CType, loc: L): Val {
    const d = this.typedPointer(name, args[0]!, loc);
    const s = this.typedPointer(name, args[1]!, loc);
    this.charKind(name, d, loc);
    const ck = this.charKind(name, s, loc);
    this.h.uncertain(un('!', eq(d.base, s.base, loc), loc), loc, `${name} within one object`);
    const to: Ptr = name === 'strcat' ? { ...d, off: bin('+', d.off, this.length(name, d, loc), loc) } : d;
    const running = this.flag(true, loc);
    this.scan(name, running, this.bound(loc, d, s), loc, (j) => {
      const c = this.h.snapshot(this.h.readLv(this.at(s, j, loc), loc), loc);
      if (c.k !== 'int') throw new UnsupportedError(name, loc);
      this.h.store(this.at(to, j, args[0]!.loc), c, args[0]!.loc);
      this.h.emit(ifs(eq(c.e, bv(0n, intWidth(ck, this.h.dm, loc), loc), loc), [assign(running, boolLit(false, loc), loc)], [], loc));
    });
    return this.result(d, ret);
  }

  /** `strncpy(d, s, n)`: n characters to d, those of s up to its 0, then zeros. */
  private strncpy(args: readonly CExpr[], ret: CType, loc: L): Val {
    const d = this.typedPointer('strncpy', args[0]!, loc);
    const s = this.typedPointer('strncpy', args[1]!, loc);
    const dk = this.charKind('strncpy', d, loc);
    this.charKind('strncpy', s, loc);
    this.h.uncertain(un('!', eq(d.base, s.base, loc), loc), loc, 'strncpy within one object');
    const count = this.elements('strncpy', this.size(args[2]!, loc), d.pointee, loc);
    const running = this.flag(true, loc);
    const w = intWidth(dk, this.h.dm, loc);
    const c = this.h.temp(bvType(w), '$chr');
    this.repeat('strncpy', count, this.bound(loc, d, s), loc, (j) => {
      // s is read only up to its 0.
      const [read] = this.h.buffer(() => {
        const x = this.h.readLv(this.at(s, j, loc), loc);
        if (x.k !== 'int') throw new UnsupportedError('strncpy', loc);
        this.h.emit(assign(c, resize(x.e, intWidth(x.ik, this.h.dm, loc), w, false, loc), loc), ifs(eq(v(c, loc), bv(0n, w, loc), loc), [assign(running, boolLit(false, loc), loc)], [], loc));
      });
      this.h.emit(ifs(v(running, loc), read, [assign(c, bv(0n, w, loc), loc)], loc));
      this.h.store(this.at(d, j, args[0]!.loc), { k: 'int', e: v(c, loc), ik: dk }, args[0]!.loc);
    });
    return this.result(d, ret);
  }

  private flag(init: boolean, loc: L): string {
    const f = this.h.temp(boolType, '$run');
    this.h.emit(assign(f, boolLit(init, loc), loc));
    return f;
  }
}

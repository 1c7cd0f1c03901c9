// Conversions between C types: integers, pointers (views of integer regions, the first
// member of a struct), truth values. Methods of the Lowerer (lower.ts).
import type { Expr as CExpr } from '../c/ast.js';
import type { CType, DataModel, IntegerKind } from '../c/types.js';
import { isSignedKind, sameType, sizeOf as sizeOfElem, typeToString as cTypeToString, unqualified } from '../c/types.js';
import type { Expr } from '../ivl/ast.js';
import { bvType } from '../ivl/ast.js';
import { and, app, bin, boolLit, bv, eq, ite, type L, or, orAll, resize, un } from './imp-build.js';
import {
  type Region,
  UnsupportedError,
  type Val,
  intKindOf,
  intWidth,
  stripArrays,
  typeAtPath,
  unionPlace,
  unionCrossings,
  firstMembers,
  type View,
} from './memory.js';
import { VOID, NOWHERE, INTEGER_ADDRESS_ID, stripCasts } from './common.js';
import type { Lowerer } from './lower.js';

/**
 * `&((T *)0)->m` (members of members with `.`): the address of a member of
 * a struct at address 0, the offsetof idiom. Converted to an integer it is
 * offsetof(T, m) in the data model, as gcc computes it. Undefined for any
 * other expression.
 */
export function nullMemberOffset(e: CExpr): number | undefined {
  let x = e;
  while ((x.kind === 'ImplicitCast' && (x.castKind === 'NoOp' || x.castKind === 'PointerCast')) || (x.kind === 'Cast' && unqualified(x.type).kind === 'pointer')) x = x.operand;
  if (x.kind !== 'Unary' || x.op !== '&') return undefined;
  let offset = 0;
  for (let m = x.operand; ; ) {
    if (m.kind !== 'Member' || m.field.bitWidth !== undefined) return undefined;
    offset += (m.path.length ? m.path : [m.field]).reduce((s, f) => s + f.offset, 0);
    if (!m.arrow) {
      m = m.object;
      continue;
    }
    const base = stripCasts(m.object);
    return base?.kind === 'IntegerLiteral' && base.value === 0n ? offset : undefined;
  }
}

/** Whether the program converts an integer other than a constant 0 to a pointer anywhere. */
export function convertsIntegersToPointers(node: unknown): boolean {
  const seen = new Set<object>();
  const walk = (x: unknown): boolean => {
    if (!x || typeof x !== 'object' || seen.has(x)) return false;
    seen.add(x);
    const o = x as Record<string, unknown>;
    if ((o.kind === 'ImplicitCast' || o.kind === 'Cast') && o.type && unqualified(o.type as CType).kind === 'pointer') {
      const operand = o.operand as CExpr;
      const lit = stripCasts(operand);
      if (intKindOf(operand.type) !== undefined && !(lit?.kind === 'IntegerLiteral' && lit.value === 0n) && nullMemberOffset(operand) === undefined) return true;
    }
    for (const [k, val] of Object.entries(o)) {
      if (k === 'type' || k === 'decl' || k === 'loc' || k === 'function' || k === 'field' || k === 'path') continue;
      if (Array.isArray(val) ? val.some(walk) : walk(val)) return true;
    }
    return false;
  };
  return walk(node);
}

/** The value of an integer expression made of literals, `offsetof`, `sizeof` and the offsetof idiom (conversions around them), or undefined. */
function constantOffset(e: CExpr): bigint | undefined {
  const x = e.kind === 'ImplicitCast' || e.kind === 'Cast' ? e.operand : e;
  if (x !== e) {
    if (intKindOf(e.type) === undefined) return undefined;
    if (unqualified(x.type).kind === 'pointer') {
      const k = nullMemberOffset(x);
      return k === undefined ? undefined : BigInt(k);
    }
    return constantOffset(x);
  }
  if (x.kind === 'IntegerLiteral') return x.value;
  if ((x.kind === 'OffsetOf' || x.kind === 'SizeOf') && x.value !== undefined) return x.value;
  return undefined;
}

/**
 * The members of struct type T at byte offset k whose type is M or an array
 * of M (the struct's members, their members, ...; not below arrays or
 * unions): their paths and, for an array, its number of elements.
 */
function membersAt(t: CType, k: number, m: CType, dm: DataModel): Array<{ path: readonly string[]; count: number }> {
  const out: Array<{ path: readonly string[]; count: number }> = [];
  const walk = (u: CType, at: number, path: string[]): void => {
    const r = unqualified(u);
    if (r.kind !== 'record' || r.record.union || !r.record.fields) return;
    for (const f of r.record.fields) {
      if (f.name === undefined || f.bitWidth !== undefined || at + f.offset > k) continue;
      const ft = unqualified(f.type);
      const p = [...path, f.name];
      if (at + f.offset === k && sameType(ft, m)) out.push({ path: p, count: 1 });
      else if (at + f.offset === k && ft.kind === 'array' && sameType(stripArrays(ft), m)) {
        const n = (sizeOfElem(ft, dm) ?? 0) / (sizeOfElem(m, dm) ?? 1);
        if (n >= 1 && Number.isInteger(n)) out.push({ path: p, count: n });
      }
      if (ft.kind === 'record') walk(ft, at + f.offset, p);
    }
  };
  walk(t, 0, []);
  return out;
}

export class ConversionLowering {
  /**
   * A pointer converted between integer types (`(unsigned char *)&x`,
   * `(char *)ints`, and back): it moves to a view of the stored elements
   * (see memory.ts, View), its index scaled to the new element size. A
   * pointer back to a larger type must be aligned to it; a pointer into a
   * union, a block of a site inside a loop or an object of another type is
   * UNKNOWN. Undefined when the types are not integers.
   */
  viewConversion(this: Lowerer, val: Val & { k: 'ptr' }, from: CType, target: CType, loc: L): (Val & { k: 'ptr' }) | undefined {
    const fk = intKindOf(from);
    const tk = intKindOf(target);
    if (fk === undefined || tk === undefined || fk === 'bool' || tk === 'bool') return undefined;
    const base = this.named(bvType(32), val.base, loc);
    const off = this.named(bvType(this.pw), val.off, loc);
    const regions = [...(this.knownRegions?.values() ?? [])].filter((r) => sameType(unqualified(r.elem), unqualified(from)));
    const moves = this.viewMoves(regions, target, base, off, loc);
    const what = `pointer conversion from ${cTypeToString(from)} * to ${cTypeToString(target)} *`;
    this.uncertain(or(eq(base, bv(0n, 32, loc), loc), orAll(moves.map((m) => m.ok), loc), loc), loc, `${what} of a pointer to another object or not aligned`);
    return { ...val, ...this.applyMoves(moves, base, off, loc) };
  }

  /**
   * How pointers into these integer regions move to views of their stored
   * elements as elements of the integer type `target` (see viewConversion):
   * per region its view, the offset there, and when the move is exact (the
   * pointer is into the region and aligned to the target). Regions a view
   * cannot see (unions, blocks of sites inside loops, `_Bool`, elements
   * smaller than the target) have none.
   */
  viewMoves(this: Lowerer, regions: readonly Region[], target: CType, base: Expr, off: Expr, loc: L): Array<{ from: Region; to: Region; off: Expr; ok: Expr; aligned?: Expr }> {
    const ts = sizeOfElem(target, this.dm)!;
    const moves: Array<{ from: Region; to: Region; off: Expr; ok: Expr; aligned?: Expr }> = [];
    const c = (n: number) => bv(BigInt(n), this.pw, loc);
    for (const r of regions) {
      if (r.root.blocks || r.root.name === NOWHERE) continue;
      if (unionPlace(r.root.type, r.path, this.dm, loc) || unionCrossings(r.root.type, r.path, loc).length) continue;
      const stored = stripArrays(typeAtPath(r.root.type, r.path, loc).type);
      const ss = sizeOfElem(stored, this.dm);
      // A _Bool holds 0 or 1 only: its bytes are not free to write.
      if (!ss || ss % ts !== 0 || intKindOf(stored) === undefined || intKindOf(stored) === 'bool') continue;
      const k0 = r.view?.k ?? 1;
      const k = ss / ts;
      const view: View | undefined = k === 1 && sameType(unqualified(stored), unqualified(target)) ? undefined : { k, elem: unqualified(target) };
      const to = this.regionFor({ root: r.root, path: r.path, ...(view ? { view } : {}) }, loc);
      const at = eq(base, bv(BigInt(r.id), 32, loc), loc);
      if (k >= k0) moves.push({ from: r, to, off: k === k0 ? off : bin('*', off, c(k / k0), loc), ok: at });
      else {
        const aligned = eq(app('urem', [off, c(k0 / k)], loc), c(0), loc);
        moves.push({ from: r, to, off: app('udiv', [off, c(k0 / k)], loc), ok: and(at, aligned, loc), aligned });
      }
    }
    return moves;
  }

  /** The pointer (base, off) after the moves (unchanged where none applies). */
  applyMoves(this: Lowerer, moves: ReadonlyArray<{ from: Region; to: Region; off: Expr }>, base: Expr, off: Expr, loc: L): { base: Expr; off: Expr } {
    let b: Expr = base;
    let o: Expr = off;
    for (const m of moves) {
      if (m.to.id === m.from.id && m.off === off) continue;
      const at = eq(base, bv(BigInt(m.from.id), 32, loc), loc);
      b = ite(at, bv(BigInt(m.to.id), 32, loc), b, loc);
      o = ite(at, m.off, o, loc);
    }
    return { base: b, off: o };
  }

  /** The known regions of r's first members (the same addresses as r's elements, see firstMembers). */
  firstMemberRegions(this: Lowerer, r: Region): Region[] {
    const paths = new Set(firstMembers(r.elem).map((m) => [...r.path, ...m.path].join('.')));
    if (paths.size === 0) return [];
    return [...(this.knownRegions?.values() ?? [])].filter((x) => !x.view && x.root.name === r.root.name && paths.has(x.path.join('.')));
  }

  /**
   * A pointer converted between a struct and its first member (at offset 0,
   * through nested first members): `(struct list_head *)item` designates the
   * member, `(struct item *)head` the struct around it. Pointers are typed
   * (region, index), so the region changes and the index stays. A pointer
   * to a `from` object that is not such a member (a lone `struct list_head`)
   * is UNKNOWN; undefined when the types are not related so.
   */
  firstMemberConversion(this: Lowerer, val: Val & { k: 'ptr' }, from: CType, target: CType, loc: L): (Val & { k: 'ptr' }) | undefined {
    const down = firstMembers(from).find((m) => sameType(unqualified(m.type), target));
    const up = down ? undefined : firstMembers(target).find((m) => sameType(unqualified(m.type), from));
    if (!down && !up) return undefined;
    const regions = [...(this.knownRegions?.values() ?? [])].filter((r) => !r.view && sameType(unqualified(r.elem), from));
    const moves: Array<{ from: Region; to: Region }> = [];
    for (const r of regions) {
      if (down) {
        moves.push({ from: r, to: this.regionFor({ root: r.root, path: [...r.path, ...down.path] }, loc) });
        continue;
      }
      const n = up!.path.length;
      const prefix = r.path.slice(0, r.path.length - n);
      if (r.path.length < n || r.path.slice(r.path.length - n).join('.') !== up!.path.join('.')) continue;
      if (!sameType(stripArrays(typeAtPath(r.root.type, prefix, loc).type), target)) continue;
      moves.push({ from: r, to: this.regionFor({ root: r.root, path: prefix }, loc) });
    }
    const base = this.named(bvType(32), val.base, loc);
    const at = (r: Region) => eq(base, bv(BigInt(r.id), 32, loc), loc);
    this.uncertain(or(eq(base, bv(0n, 32, loc), loc), orAll(moves.map((m) => at(m.from)), loc), loc), loc, `pointer conversion from ${cTypeToString(from)} * to ${cTypeToString(target)} * of a pointer to another object`);
    let out: Expr = base;
    for (const m of moves) out = ite(at(m.from), bv(BigInt(m.to.id), 32, loc), out, loc);
    return { ...val, base: out };
  }

  /**
   * A `void *` converted to `T *`. For an integer T, a pointer into an
   * integer object of another type moves to a view of it (as by
   * viewConversion; not aligned to T: UNKNOWN). A pointer into an untyped
   * block (memory.ts, Root.untyped) is to its bytes: as a character type
   * exact, as any other type the bytes would have to become objects of T,
   * which the model does not do (a block gets its type where it is
   * allocated): UNKNOWN there. Other pointers keep their target.
   */
  fromVoid(this: Lowerer, val: Val & { k: 'ptr' }, target: CType, loc: L): Val & { k: 'ptr' } {
    const known = [...(this.knownRegions?.values() ?? [])];
    const tk = intKindOf(target);
    const viewable = tk === undefined || tk === 'bool' ? [] : known.filter((r) => intKindOf(r.elem) !== undefined && !sameType(unqualified(r.elem), unqualified(target)));
    const untyped = known.filter((r) => r.root.untyped);
    if (viewable.length === 0 && untyped.length === 0) return val;
    const base = this.named(bvType(32), val.base, loc);
    const off = this.named(bvType(this.pw), val.off, loc);
    const moves = this.viewMoves(viewable, target, base, off, loc);
    // A move that needs alignment, and the bytes of an untyped block that no move makes T: not modelled.
    const inexact = moves.filter((m) => m.aligned).map((m) => and(eq(base, bv(BigInt(m.from.id), 32, loc), loc), un('!', m.aligned!, loc), loc));
    const unmoved = untyped.filter((r) => !sameType(unqualified(r.elem), unqualified(target)) && !moves.some((m) => m.from === r));
    inexact.push(...unmoved.map((r) => eq(base, bv(BigInt(r.id), 32, loc), loc)));
    this.uncertain(un('!', orAll(inexact, loc), loc), loc, `a pointer to bytes or to an integer object of another size converted to ${cTypeToString(target)} * (a block allocated as void * gets no type later; an integer view must be aligned)`);
    return { ...val, ...this.applyMoves(moves, base, off, loc) };
  }

  /** `(size_t)&((T *)0)->m` converted to an integer type: offsetof(T, m) (see nullMemberOffset). */
  offsetofIdiom(this: Lowerer, operand: CExpr, to: CType, loc: L): Val | undefined {
    const k = intKindOf(to);
    const offset = k === undefined || k === 'bool' ? undefined : nullMemberOffset(operand);
    if (offset === undefined) return undefined;
    return { k: 'int', e: resize(bv(BigInt(offset), this.pw, loc), this.pw, intWidth(k!, this.dm, loc), false, loc), ik: k! };
  }

  /**
   * `(T *)((char *)p - k)`, k offsetof(T, m) (the container_of idiom of
   * Linux and others): where p points to member m of an object of type T
   * (its start, for an array member), the pointer to that object. Pointers
   * are typed (region, index): the region moves from the member to the
   * struct around it, as for a first member (firstMemberConversion). Where p
   * points to anything else (a lone object of m's type, NULL with k > 0, an
   * element past an array member's start) the model is not exact (UNKNOWN).
   * Undefined when the expression is not of this form.
   */
  containerOf(this: Lowerer, operand: CExpr, to: CType, loc: L): Val | undefined {
    const t = unqualified(to);
    const x = operand.kind === 'ImplicitCast' && operand.castKind === 'NoOp' ? operand.operand : operand;
    if (t.kind !== 'pointer' || unqualified(t.pointee).kind !== 'record' || x.kind !== 'Binary' || x.op !== '-') return undefined;
    const bytes = x.left.kind === 'Cast' || x.left.kind === 'ImplicitCast' ? x.left : undefined;
    const bk = bytes && unqualified(bytes.type).kind === 'pointer' ? intKindOf((unqualified(bytes.type) as { pointee: CType }).pointee) : undefined;
    if (!bytes || (bk !== 'char' && bk !== 'uchar' && bk !== 'schar')) return undefined;
    const from = unqualified(bytes.operand.type);
    if (from.kind !== 'pointer' || unqualified(from.pointee).kind === 'void') return undefined;
    const k = constantOffset(x.right);
    if (k === undefined) return undefined;
    const target = unqualified(t.pointee);
    const member = unqualified(from.pointee);
    const candidates = membersAt(target, Number(k), member, this.dm);
    if (k === 0n && sameType(member, target)) candidates.push({ path: [], count: 1 });
    const p = this.snapshot(this.rv(bytes.operand), loc);
    if (p.k !== 'ptr') throw new UnsupportedError('container_of of a value that is not a pointer', loc);
    const moves: Array<{ from: Region; to: Region; off: Expr; ok: Expr; aligned?: Expr }> = [];
    const c = (n: number) => bv(BigInt(n), this.pw, loc);
    for (const r of this.knownRegions?.values() ?? []) {
      if (r.view || !sameType(unqualified(r.elem), member) || r.root.name === NOWHERE) continue;
      for (const m of candidates) {
        const n = m.path.length;
        const prefix = r.path.slice(0, r.path.length - n);
        if (r.path.length < n || r.path.slice(r.path.length - n).join('.') !== m.path.join('.')) continue;
        if (!sameType(stripArrays(typeAtPath(r.root.type, prefix, loc).type), target)) continue;
        const at = eq(p.base, bv(BigInt(r.id), 32, loc), loc);
        const to = this.regionFor({ root: r.root, path: prefix }, loc);
        if (m.count === 1) moves.push({ from: r, to, off: p.off, ok: at });
        else {
          const aligned = eq(app('urem', [p.off, c(m.count)], loc), c(0), loc);
          moves.push({ from: r, to, off: app('udiv', [p.off, c(m.count)], loc), ok: and(at, aligned, loc), aligned });
        }
        break;
      }
    }
    const nullOk = k === 0n ? [eq(p.base, bv(0n, 32, loc), loc)] : [];
    this.uncertain(orAll([...nullOk, ...moves.map((m) => m.ok)], loc), loc, `container_of: (${cTypeToString(to)})((char *)p - ${k}) of a p that is not a pointer to that member of a ${cTypeToString(target)}`);
    return { k: 'ptr', ...this.applyMoves(moves, p.base, p.off, loc), pointee: t.pointee };
  }

  /** The pointer with this base was made from an integer (see INTEGER_ADDRESS_ID). */
  integerAddress(this: Lowerer, base: Expr, loc: L): Expr {
    return eq(base, bv(BigInt(INTEGER_ADDRESS_ID), 32, loc), loc);
  }

  /**
   * Where the program makes pointers from integers: a pointer made so
   * compared with one to an object (equal only if the integer is that
   * object's address, which the model does not know), or one of them moved
   * by arithmetic (the offset would count elements, not bytes), is UNKNOWN.
   */
  integerAddressUse(this: Lowerer, ps: ReadonlyArray<Val & { k: 'ptr' }>, what: string, loc: L): void {
    if (!this.integerPointers) return;
    const bases = ps.map((p) => this.named(bvType(32), p.base, loc));
    const made = bases.map((b) => this.integerAddress(b, loc));
    const object = (b: Expr, i: number) => and(un('!', eq(b, bv(0n, 32, loc), loc), loc), un('!', made[i]!, loc), loc);
    const bad = bases.length === 1 ? made[0]! : or(and(made[0]!, object(bases[1]!, 1), loc), and(made[1]!, object(bases[0]!, 0), loc), loc);
    this.uncertain(un('!', bad, loc), loc, what);
  }

  convert(this: Lowerer, val: Val, to: CType, loc: L): Val {
    const t = unqualified(to);
    if (t.kind === 'void') return VOID;
    if (t.kind === 'record') {
      if (val.k !== 'agg') throw new UnsupportedError('conversion to a struct', loc);
      return val;
    }
    if (t.kind === 'pointer') {
      if (val.k === 'ptr') {
        const from = unqualified(val.pointee);
        const target = unqualified(t.pointee);
        if (from.kind === 'void' && target.kind !== 'void' && target.kind !== 'function') return { ...this.fromVoid(val, target, loc), pointee: t.pointee };
        if (!(from.kind === 'void' || target.kind === 'void' || sameType(from, target) || sameType(stripArrays(from), stripArrays(target)))) {
          const moved = this.viewConversion(val, from, target, loc) ?? this.firstMemberConversion(val, from, target, loc);
          if (!moved) throw new UnsupportedError(`pointer conversion from ${cTypeToString(val.pointee)} * to ${cTypeToString(t.pointee)} *`, loc);
          return { ...moved, pointee: t.pointee };
        }
        return { ...val, pointee: t.pointee };
      }
      if (val.k === 'int' && val.e.kind === 'bv_lit' && val.e.value === 0n) {
        return { k: 'ptr', base: bv(0n, 32, loc), off: bv(0n, this.pw, loc), pointee: t.pointee };
      }
      if (val.k === 'int') {
        // An address no object of the model has (0: NULL); the integer is kept to convert back.
        const x = this.named(bvType(this.pw), resize(val.e, intWidth(val.ik, this.dm, loc), this.pw, isSignedKind(val.ik), loc), loc);
        const base = ite(eq(x, bv(0n, this.pw, loc), loc), bv(0n, 32, loc), bv(BigInt(INTEGER_ADDRESS_ID), 32, loc), loc);
        return { k: 'ptr', base, off: x, pointee: t.pointee };
      }
      throw new UnsupportedError('conversion of a non-integer to a pointer', loc);
    }
    const floating = this.floatConvert(val, t, loc);
    if (floating) return floating;
    const k = intKindOf(t);
    if (k === undefined) throw new UnsupportedError(`conversion to ${cTypeToString(t)}`, loc);
    const w = intWidth(k, this.dm, loc);
    if (val.k === 'ptr') {
      if (k === 'bool') return { k: 'int', e: ite(un('!', eq(val.base, bv(0n, 32, loc), loc), loc), bv(1n, 8, loc), bv(0n, 8, loc), loc), ik: k };
      // NULL is 0 and a pointer made from an integer is that integer; an object's address is not modelled.
      const base = this.named(bvType(32), val.base, loc);
      this.uncertain(or(eq(base, bv(0n, 32, loc), loc), this.integerAddress(base, loc), loc), loc, 'conversion of a pointer to an object to an integer (addresses are not modelled)');
      // NULL moved by arithmetic counts elements of its type.
      const size = BigInt(sizeOfElem(unqualified(val.pointee), this.dm) ?? 1);
      const nullOff = size === 1n ? val.off : bin('*', val.off, bv(size, this.pw, loc), loc);
      return { k: 'int', e: resize(ite(this.integerAddress(base, loc), val.off, nullOff, loc), this.pw, w, false, loc), ik: k };
    }
    if (val.k !== 'int') throw new UnsupportedError(`conversion of a ${val.k === 'agg' ? 'struct' : 'void'} value to ${cTypeToString(t)}`, loc);
    if (k === 'bool') {
      if (val.ik === 'bool') return val;
      return { k: 'int', e: this.boolToInt(this.truthy(val, loc), 'bool', loc), ik: 'bool' };
    }
    const fw = intWidth(val.ik, this.dm, loc);
    return { k: 'int', e: resize(val.e, fw, w, isSignedKind(val.ik), loc), ik: k };
  }

  boolToInt(this: Lowerer, c: Expr, k: IntegerKind, loc: L): Expr {
    const w = intWidth(k, this.dm, loc);
    // `x != 0` read back as an int is just `ite(...)`.
    return ite(c, bv(1n, w, loc), bv(0n, w, loc), loc);
  }

  truthy(this: Lowerer, val: Val, loc: L): Expr {
    if (val.k === 'int') {
      const e = val.e;
      // ite(c, 1, 0) != 0  ==>  c
      if (e.kind === 'ite' && e.then.kind === 'bv_lit' && e.then.value === 1n && e.else.kind === 'bv_lit' && e.else.value === 0n) return e.cond;
      if (e.kind === 'bv_lit') return boolLit(e.value !== 0n, loc);
      return un('!', eq(e, bv(0n, intWidth(val.ik, this.dm, loc), loc), loc), loc);
    }
    if (val.k === 'ptr') return un('!', eq(val.base, bv(0n, 32, loc), loc), loc);
    if (val.k === 'float') return this.floatTruthy(val, loc);
    throw new UnsupportedError('condition of non-scalar type', loc);
  }
}

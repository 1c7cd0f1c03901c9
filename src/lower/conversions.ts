// Conversions between C types: integers, pointers (views of integer regions, the first
// member of a struct), truth values. Methods of the Lowerer (lower.ts).
import type { CType, IntegerKind } from '../c/types.js';
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
  firstMembers,
  type View,
} from './memory.js';
import { VOID, NOWHERE } from './common.js';
import type { Lowerer } from './lower.js';

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
    const ts = sizeOfElem(target, this.dm)!;
    const moves: Array<{ from: Region; to: Region; off: Expr; ok: Expr }> = [];
    const base = this.named(bvType(32), val.base, loc);
    const off = this.named(bvType(this.pw), val.off, loc);
    const c = (n: number) => bv(BigInt(n), this.pw, loc);
    for (const r of this.knownRegions?.values() ?? []) {
      if (!sameType(unqualified(r.elem), unqualified(from)) || r.root.blocks || r.root.name === NOWHERE) continue;
      if (unionPlace(r.root.type, r.path, this.dm, loc)) continue;
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
      else moves.push({ from: r, to, off: app('udiv', [off, c(k0 / k)], loc), ok: and(at, eq(app('urem', [off, c(k0 / k)], loc), c(0), loc), loc) });
    }
    const what = `pointer conversion from ${cTypeToString(from)} * to ${cTypeToString(target)} *`;
    this.uncertain(or(eq(base, bv(0n, 32, loc), loc), orAll(moves.map((m) => m.ok), loc), loc), loc, `${what} of a pointer to another object or not aligned`);
    let b: Expr = base;
    let o: Expr = off;
    for (const m of moves) {
      const at = eq(base, bv(BigInt(m.from.id), 32, loc), loc);
      b = ite(at, bv(BigInt(m.to.id), 32, loc), b, loc);
      o = ite(at, m.off, o, loc);
    }
    return { ...val, base: b, off: o };
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
      throw new UnsupportedError('conversion of an integer to a pointer', loc);
    }
    const floating = this.floatConvert(val, t, loc);
    if (floating) return floating;
    const k = intKindOf(t);
    if (k === undefined) throw new UnsupportedError(`conversion to ${cTypeToString(t)}`, loc);
    const w = intWidth(k, this.dm, loc);
    if (val.k === 'ptr') {
      if (k === 'bool') return { k: 'int', e: ite(un('!', eq(val.base, bv(0n, 32, loc), loc), loc), bv(1n, 8, loc), bv(0n, 8, loc), loc), ik: k };
      throw new UnsupportedError('conversion of a pointer to an integer', loc);
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

// The memory model's accesses: C lvalues as places in regions (memory.ts), reading and
// writing them (scalars, union bytes, views, aggregates), addresses and dereferences.
// Methods of the Lowerer (lower.ts).
import type { Expr as CExpr, VarDecl as CVarDecl } from '../c/ast.js';
import type { CType } from '../c/types.js';
import { isSignedKind, sameType, sizeOf as sizeOfElem, typeToString as cTypeToString, unqualified } from '../c/types.js';
import type { Expr, Stmt } from '../ivl/ast.js';
import { bvType } from '../ivl/ast.js';
import { 
  andAll,
  app,
  assign,
  bin,
  boolLit,
  bv,
  eq,
  havoc,
  ifs,
  ite,
  type L,
  or,
  orAll,
  resize,
  select,
  store,
  un,
  v,
} from './imp-build.js';
import {
  type Alt,
  type LValue,
  type Region,
  type Root,
  UnsupportedError,
  type Val,
  intKindOf,
  intWidth,
  leafName,
  leavesOf,
  regionKey,
  scalarParts,
  stripArrays,
  typeAtPath,
  unionPlace,
  type View,
  type UnionCrossing,
  unionCrossings,
  TAG_FRESH,
  TAG_MIXED,
  taggedUnion,
  UNION_TAG,
} from './memory.js';
import { NOWHERE, ZERO_FILL_LIMIT, LIBRARY_OBJECT_ID, stripPointer } from './common.js';
import { floatKindOf } from './float-lowering.js';
import type { Lowerer } from './lower.js';

export class LvalueLowering {
  /** Elements of the region (root, path): the product of the array lengths on the way (a block's count for a heap object). */
  elementCount(this: Lowerer, root: Root, path: readonly string[], loc: L, outerCount?: Expr): Expr {
    let n: Expr = bv(1n, this.pw, loc);
    const mul = (x: Expr) => {
      n = n.kind === 'bv_lit' && x.kind === 'bv_lit' ? bv(n.value * x.value, this.pw, loc) : n.kind === 'bv_lit' && n.value === 1n ? x : bin('*', n, x, loc);
    };
    let t = unqualified(root.type);
    let outer = true;
    const arrays = () => {
      while (t.kind === 'array') {
        const len = this.arrayLength(t, loc) ?? (outer ? (outerCount ?? (root.countVar ? v(root.countVar, loc) : undefined)) : undefined);
        if (!len) throw new UnsupportedError('array of unknown length', loc);
        mul(len);
        outer = false;
        t = unqualified(t.element);
      }
      outer = false;
    };
    arrays();
    for (const f of path) {
      if (t.kind !== 'record') throw new UnsupportedError('member access on a non-struct', loc);
      const field = t.record.fields?.find((x) => x.name === f);
      if (!field) throw new UnsupportedError(`member '${f}' not found`, loc);
      t = unqualified(field.type);
      arrays();
    }
    return n;
  }

  /** The largest element count of the regions of elements of type `elem` (undefined: one is not a constant). */
  regionBound(this: Lowerer, elem: CType, loc: L): number | undefined {
    let n = 0;
    for (const r of this.knownRegions?.values() ?? []) {
      if (!sameType(unqualified(r.elem), unqualified(elem))) continue;
      if (r.root.blocks) return undefined;
      let c: Expr;
      try {
        c = this.elementCount(r.root, r.path, loc);
      } catch (err) {
        // A block whose size is not tracked (outside memory safety).
        if (err instanceof UnsupportedError) return undefined;
        throw err;
      }
      if (c.kind !== 'bv_lit') return undefined;
      n = Math.max(n, Number(c.value) * (r.view?.k ?? 1));
    }
    return n;
  }

  rootOf(this: Lowerer, d: CVarDecl, loc: L): Root {
    const r = (this.frames.length ? this.frame.env.get(d.id) : undefined) ?? this.statics.get(d.id) ?? this.globals.get(d.id);
    if (!r) throw new UnsupportedError(`variable '${d.name}' not in scope`, loc);
    return r;
  }

  lvalue(this: Lowerer, e: CExpr): LValue {
    switch (e.kind) {
      case 'Identifier':
        if (e.decl.kind !== 'Var') throw new UnsupportedError(`'${e.name}' used as an object`, e.loc);
        return { type: e.decl.type, alts: [{ root: this.rootOf(e.decl, e.loc), path: [] }] };
      case 'Unary':
        if (e.op !== '*') break;
        return this.deref(this.rv(e.operand), e.type, e.loc);
      case 'Index': {
        const base = e.base;
        if (base.kind === 'ImplicitCast' && base.castKind === 'ArrayToPointer') {
          const arr = this.lvalue(base.operand);
          const i = this.index(this.rv(e.index), e.index.loc);
          return this.indexArray(arr, i, e.loc);
        }
        const p = this.rv(base);
        const i = this.index(this.rv(e.index), e.index.loc);
        if (p.k !== 'ptr') throw new UnsupportedError('indexing a non-pointer', e.loc);
        return this.deref({ ...p, off: this.step(p, '+', i, e.loc) }, e.type, e.loc);
      }
      case 'Member': {
        const obj = e.arrow ? this.deref(this.rv(e.object), stripPointer(e.object.type), e.loc) : this.lvalueOrTemp(e.object);
        if (e.path.length > 1) throw new UnsupportedError('member of an anonymous struct or union', e.loc);
        return this.member(obj, e.name, e.type);
      }
      case 'ImplicitCast':
        if (e.castKind === 'NoOp') return this.lvalue(e.operand);
        break;
      case 'StatementExpr':
      case 'Call':
      case 'Assign':
      case 'Conditional':
      case 'Comma':
        return this.lvalueOrTemp(e);
      case 'StringLiteral':
        return { type: e.type, alts: [{ root: this.literal(e), path: [] }] };
      case 'CompoundLiteral':
        return { type: e.type, alts: [{ root: this.compoundLiteral(e), path: [] }] };
      default:
        break;
    }
    throw new UnsupportedError(`lvalue of kind ${e.kind}`, e.loc);
  }

  /**
   * The unnamed object of a compound literal, initialised where it is
   * evaluated (again at each evaluation, as C says): automatic inside a
   * function, its lifetime the enclosing block; static at file scope.
   */
  compoundLiteral(this: Lowerer, e: Extract<CExpr, { kind: 'CompoundLiteral' }>): Root {
    const automatic = this.frames.length > 0;
    const t = unqualified(e.type);
    if (t.kind === 'array' && (t.length === undefined || t.vla)) throw new UnsupportedError('compound literal of an array of unknown size', e.loc);
    const root = this.makeRoot(`$literal@${automatic ? this.frame.label : 'file'}`, e.type, e.loc, automatic ? {} : { storage: 'static' });
    if (automatic && this.born(root, e.loc)) this.scopes[this.scopes.length - 1]?.push(root);
    this.initObject(root, e.type, e.init, e.loc, !automatic);
    return root;
  }

  /** The object of a string literal: its characters and a 0, set before main runs. */
  literal(this: Lowerer, e: Extract<CExpr, { kind: 'StringLiteral' }>): Root {
    let root = this.literals.get(e);
    if (root) return root;
    const t = unqualified(e.type);
    const k = t.kind === 'array' ? intKindOf(t.element) : undefined;
    if (e.wide || k === undefined || t.kind !== 'array') throw new UnsupportedError('wide string literal', e.loc);
    root = this.makeRoot('$str', e.type, e.loc, { storage: 'literal' });
    this.literals.set(e, root);
    const w = intWidth(k, this.dm, e.loc);
    const name = leafName(root, []);
    let m: Expr = v(name, e.loc);
    [...e.units, 0].forEach((u, i) => (m = store(m, bv(BigInt(i), this.pw, e.loc), bv(BigInt(u), w, e.loc), e.loc)));
    const h = havoc(name, e.loc);
    this.filledHavocs.add(h);
    this.prologue.push(h, assign(name, m, e.loc));
    return root;
  }

  /** An lvalue, or for a struct rvalue (call result, assignment) the temporary object holding it. */
  lvalueOrTemp(this: Lowerer, e: CExpr): LValue {
    if (e.kind === 'Identifier' || e.kind === 'Index' || e.kind === 'Member' || (e.kind === 'Unary' && e.op === '*')) return this.lvalue(e);
    const val = this.rv(e);
    if (val.k !== 'agg') throw new UnsupportedError('member access on a non-struct value', e.loc);
    return val.lv;
  }

  member(this: Lowerer, lv: LValue, name: string, type: CType): LValue {
    return { type, alts: lv.alts.map((a) => ({ ...a, path: [...a.path, name] })) };
  }

  /** Element i of an array lvalue: the linear index grows by the array's length at each dimension. */
  indexArray(this: Lowerer, arr: LValue, i: Expr, loc: L): LValue {
    const t = unqualified(arr.type);
    if (t.kind !== 'array') throw new UnsupportedError('indexing a non-array', loc);
    return {
      type: t.element,
      alts: arr.alts.map((a) => {
        if (a.index === undefined) return { ...a, index: i };
        const n = this.arrayLength(arr.type, loc) ?? this.arrayLength(t, loc);
        if (n === undefined) throw new UnsupportedError('array of unknown length inside an array', loc);
        return { ...a, index: bin('+', bin('*', a.index, n, loc), i, loc) };
      }),
    };
  }

  /** An integer index converted to pointer width (sign-extended when signed). */
  index(this: Lowerer, val: Val, loc: L): Expr {
    if (val.k !== 'int') throw new UnsupportedError('non-integer array index', loc);
    const w = intWidth(val.ik, this.dm, loc);
    return resize(val.e, w, this.pw, isSignedKind(val.ik), loc);
  }

  regionFor(this: Lowerer, a: Alt, loc: L): Region {
    const key = regionKey(a.root, a.path, a.view);
    const { type } = typeAtPath(a.root.type, a.path, loc);
    // A pointer into nothing (an earlier pass did not know the target yet): NULL.
    if (a.root.name === NOWHERE) return { id: 0, root: a.root, path: a.path, elem: stripArrays(type) };
    let r = this.regions.get(key);
    if (!r) {
      const known = this.knownRegions?.get(key);
      const elem = a.view ? a.view.elem : stripArrays(type);
      r = { id: known?.id ?? this.maxKnownId + ++this.newRegions, root: a.root, path: a.path, elem, ...(a.view ? { view: a.view } : {}) };
      this.regions.set(key, r);
    }
    return r;
  }

  /** `&lv` (or the decay of an array lvalue, with `arrayLength` its length). */
  addressOf(this: Lowerer, lv: LValue, pointee: CType, loc: L, arrayLength?: Expr): Val {
    let base: Expr | undefined;
    let off: Expr | undefined;
    for (const a of [...lv.alts].reverse()) {
      const r = this.regionFor(a, loc);
      let o = a.index ?? bv(0n, this.pw, loc);
      if (arrayLength !== undefined && a.index !== undefined) o = bin('*', o, arrayLength, loc);
      const b = bv(BigInt(r.id), 32, loc);
      base = base === undefined || !a.guard ? b : ite(a.guard, b, base, loc);
      off = off === undefined || !a.guard ? o : ite(a.guard, o, off, loc);
    }
    if (!base || !off) throw new UnsupportedError('address of nothing', loc);
    return { k: 'ptr', base, off, pointee };
  }

  /** `*p`: a case split over the regions whose elements have the pointee type. */
  deref(this: Lowerer, p: Val, type: CType, loc: L): LValue {
    if (p.k !== 'ptr') throw new UnsupportedError('dereference of a non-pointer', loc);
    const target = unqualified(type);
    if (target.kind === 'void' || target.kind === 'function') throw new UnsupportedError(`dereference of ${cTypeToString(target)} *`, loc);
    if (target.kind === 'array') throw new UnsupportedError('pointer to an array', loc);
    const all = [...(this.knownRegions?.values() ?? [])];
    const cands = all.filter((r) => sameType(unqualified(r.elem), target));
    const nowhere: LValue = { type, alts: [{ root: { name: NOWHERE, type }, path: [] }] };
    if (cands.length === 0 && this.mem) {
      // No object of this type is ever pointed to: any access through it is invalid.
      this.memGoal('valid-deref', boolLit(false, loc), loc, `dereference of a pointer to no object of type ${cTypeToString(target)}`);
      return nowhere;
    }
    const guards = cands.map((r) => eq(p.base, bv(BigInt(r.id), 32, loc), loc));
    if (!this.mem) {
      // An object of another type read through this pointer is not modelled.
      const others = all.filter((r) => !cands.includes(r)).map((r) => eq(p.base, bv(BigInt(r.id), 32, loc), loc));
      if (this.libraryObjects) others.push(eq(p.base, bv(BigInt(LIBRARY_OBJECT_ID), 32, loc), loc));
      this.uncertain(un('!', orAll(others, loc), loc), loc, `access to an object of another type through a ${cTypeToString(target)} pointer`);
      // The property is not memory safety: a pointer to no object of this
      // type (the pass's regions are final once they settle, see
      // lowerProgram) is an invalid dereference, which C leaves undefined.
      this.undefinedUnless(orAll(guards, loc), loc, `a dereference of a ${cTypeToString(target)} pointer to no object`);
      if (cands.length === 0) return nowhere;
    }
    return {
      type,
      alts: cands.map((r, i) => ({
        guard: cands.length > 1 ? guards[i] : undefined,
        root: r.root,
        path: r.path,
        index: p.off,
        fromPointer: true,
        ...(this.mem ? { via: guards[i] } : {}),
        ...(r.view ? { view: r.view } : {}),
      })),
    };
  }

  leafAccess(this: Lowerer, a: Alt, path: readonly string[], suffix: string, loc: L): { name: string; mapped: boolean; read: Expr; index: Expr } {
    const full = [...a.path, ...path];
    const name = leafName(a.root, full) + suffix;
    const { mapped } = typeAtPath(a.root.type, full, loc);
    const index = a.index ?? bv(0n, this.pw, loc);
    return { name, mapped, index, read: mapped ? select(v(name, loc), index, loc) : v(name, loc) };
  }

  readLv(this: Lowerer, lv: LValue, loc: L): Val {
    const t = unqualified(lv.type);
    if (t.kind === 'record') return { k: 'agg', lv };
    if (t.kind === 'array') throw new UnsupportedError('array used as a value', loc);
    if (lv.alts[0]?.root.name === NOWHERE) return this.dummyVal(t, loc);
    // In a program with threads, a shared object is read here, into temporaries.
    const visible = this.visibleAccess(lv, loc, false);
    this.checkAccess(lv, loc, false);
    this.checkUnionRead(lv, loc);
    const pick = (suffix: string): Expr => {
      let acc: Expr | undefined;
      for (const a of [...lv.alts].reverse()) {
        const u = this.unionBytes(a, loc);
        const r = u ? u.read : this.leafAccess(a, [], suffix, loc).read;
        acc = acc === undefined || !a.guard ? r : ite(a.guard, r, acc, loc);
      }
      return acc!;
    };
    const read = (): Val => {
      if (t.kind === 'pointer') return { k: 'ptr', base: pick('.base'), off: pick('.off'), pointee: t.pointee };
      if (t.kind === 'float') return { k: 'float', e: pick(''), fk: t.name };
      const k = intKindOf(t);
      if (k === undefined) throw new UnsupportedError(`value of type ${cTypeToString(t)}`, loc);
      intWidth(k, this.dm, loc);
      return { k: 'int', e: pick(''), ik: k };
    };
    return visible ? this.snapshot(read(), loc) : read();
  }

  dummyVal(this: Lowerer, t: CType, loc: L): Val {
    if (t.kind === 'pointer') return { k: 'ptr', base: bv(0n, 32, loc), off: bv(0n, this.pw, loc), pointee: t.pointee };
    if (t.kind === 'float') return this.floatZero(t.name, loc);
    const k = intKindOf(t);
    if (k === undefined) throw new UnsupportedError(`value of type ${cTypeToString(t)}`, loc);
    return { k: 'int', e: bv(0n, intWidth(k, this.dm, loc), loc), ik: k };
  }

  /**
   * A scalar below a union (see memory.ts, unionPlace): its bytes in the
   * union's byte map, read and written little-endian.
   */
  unionBytes(this: Lowerer, a: Alt, loc: L): { read: Expr; write: (value: Expr) => Stmt } | undefined {
    if (a.view) return this.viewBytes(a, a.view, loc);
    const place = unionPlace(a.root.type, a.path, this.dm, loc);
    if (!place) return undefined;
    const member = typeAtPath(a.root.type, a.path, loc).type;
    const fk = floatKindOf(member);
    const k = intKindOf(member);
    if (k === undefined && fk === undefined) throw new UnsupportedError('a union member that is not an integer or a float', loc);
    if (fk === 'longdouble') throw new UnsupportedError('a long double in a union', loc);
    // A float member: its IEEE bits in the bytes.
    const w = fk === 'float' ? 32 : fk === 'double' ? 64 : intWidth(k!, this.dm, loc);
    const pw = this.pw;
    const c = (n: number | bigint) => bv(BigInt(n), pw, loc);
    // The linear index splits into the union's index and the index inside it (mixed radix, last array fastest).
    const idx = a.index ?? c(0);
    const outer = place.innerCount === 1 ? idx : app('udiv', [idx, c(place.innerCount)], loc);
    let inner = place.innerCount === 1 ? c(0) : app('urem', [idx, c(place.innerCount)], loc);
    let addr: Expr = bin('+', bin('*', outer, c(place.size), loc), c(place.offset), loc);
    for (const { length, stride } of [...place.strides].reverse()) {
      const i = length === 1 ? c(0) : app('urem', [inner, c(length)], loc);
      addr = bin('+', addr, bin('*', i, c(stride), loc), loc);
      inner = app('udiv', [inner, c(length)], loc);
    }
    const name = leafName(a.root, place.unionPath) + '.bytes';
    const at = (j: number) => (j === 0 ? addr : bin('+', addr, c(j), loc));
    let read: Expr = select(v(name, loc), at(0), loc);
    if (w > 8) read = resize(read, 8, w, false, loc);
    for (let j = 1; j < w / 8; j++) {
      read = bin('|', read, bin('<<', resize(select(v(name, loc), at(j), loc), 8, w, false, loc), bv(BigInt(8 * j), w, loc), loc), loc);
    }
    if (fk !== undefined) read = this.floatOfBits(read, fk, loc);
    const write = (written: Expr): Stmt => {
      const value = fk !== undefined ? this.floatBits(written, fk, loc) : written;
      let m: Expr = v(name, loc);
      for (let j = 0; j < w / 8; j++) {
        const byte = w === 8 ? value : app('trunc8', [j === 0 ? value : app('lshr', [value, bv(BigInt(8 * j), w, loc)], loc)], loc);
        m = store(m, at(j), byte, loc);
      }
      return assign(name, m, loc);
    };
    return { read, write };
  }

  /**
   * An element of a view (see memory.ts, View): view element j of the stored
   * element j / k, at bits (j mod k)·w of it (little-endian).
   */
  viewBytes(this: Lowerer, a: Alt, view: View, loc: L): { read: Expr; write: (value: Expr) => Stmt } {
    const vk = intKindOf(view.elem)!;
    const sk = intKindOf(typeAtPath(a.root.type, a.path, loc).type)!;
    const w = intWidth(vk, this.dm, loc);
    const sw = intWidth(sk, this.dm, loc);
    const acc = this.leafAccess({ ...a, view: undefined }, [], '', loc);
    const idx = a.index ?? bv(0n, this.pw, loc);
    if (view.k === 1) {
      return { read: acc.read, write: (value) => assign(acc.name, acc.mapped ? store(v(acc.name, loc), idx, value, loc) : value, loc) };
    }
    const kk = bv(BigInt(view.k), this.pw, loc);
    const at = app('udiv', [idx, kk], loc);
    const shift = bin('*', resize(app('urem', [idx, kk], loc), this.pw, sw, false, loc), bv(BigInt(w), sw, loc), loc);
    const whole = acc.mapped ? select(v(acc.name, loc), at, loc) : acc.read;
    const read = resize(app('lshr', [whole, shift], loc), sw, w, false, loc);
    const write = (value: Expr): Stmt => {
      const mask = bin('<<', bv((1n << BigInt(w)) - 1n, sw, loc), shift, loc);
      const merged = bin('|', bin('&', whole, un('~', mask, loc), loc), bin('<<', resize(value, w, sw, false, loc), shift, loc), loc);
      return assign(acc.name, acc.mapped ? store(v(acc.name, loc), at, merged, loc) : merged, loc);
    };
    return { read, write };
  }

  writePart(this: Lowerer, a: Alt, path: readonly string[], suffix: string, value: Expr, loc: L): void {
    const u = this.unionBytes({ ...a, path: [...a.path, ...path] }, loc);
    if (u) {
      this.emit(a.guard ? ifs(a.guard, [u.write(value)], [], loc) : u.write(value));
      return;
    }
    const acc = this.leafAccess(a, path, suffix, loc);
    const val = a.guard ? ite(a.guard, value, acc.read, loc) : value;
    this.emit(assign(acc.name, acc.mapped ? store(v(acc.name, loc), acc.index, val, loc) : val, loc));
  }

  /** Stores a value (already of the lvalue's type, or converted here) into an lvalue. */
  store(this: Lowerer, lv: LValue, val: Val, loc: L): void {
    if (lv.alts[0]?.root.name === NOWHERE) return;
    const t = unqualified(lv.type);
    if (t.kind === 'record') {
      if (val.k !== 'agg') throw new UnsupportedError('struct assigned from a non-struct', loc);
      this.copyAggregate(lv, val.lv, loc);
      return;
    }
    if (t.kind === 'array') throw new UnsupportedError('array assignment', loc);
    const c = this.convert(val, t, loc);
    this.visibleAccess(lv, loc, true);
    this.checkAccess(lv, loc, true);
    // Evaluate the value once even when several places may be written.
    if (c.k === 'ptr') {
      const s = lv.alts.length > 1 ? this.snapshot(c, loc) : c;
      if (s.k !== 'ptr') return;
      for (const a of lv.alts) {
        this.writePart(a, [], '.base', s.base, loc);
        this.writePart(a, [], '.off', s.off, loc);
      }
    } else if (c.k === 'int' || c.k === 'float') {
      const s = lv.alts.length > 1 ? this.snapshot(c, loc) : c;
      if (s.k !== 'int' && s.k !== 'float') return;
      for (const a of lv.alts) this.writePart(a, [], '', s.e, loc);
    }
    this.updateUnionTags(lv, loc);
  }

  /** The tag of a tagged union an alternative's path crosses (memory.ts, unionCrossings): reading and writing it. */
  unionTag(this: Lowerer, a: Alt, c: UnionCrossing, loc: L): { read: Expr; write: (value: Expr) => Stmt } {
    const name = leafName(a.root, c.tagPath);
    if (!typeAtPath(a.root.type, c.tagPath, loc).mapped) return { read: v(name, loc), write: (x) => assign(name, x, loc) };
    const idx = a.index ?? bv(0n, this.pw, loc);
    const at = c.inner === 1 ? idx : app('udiv', [idx, bv(BigInt(c.inner), this.pw, loc)], loc);
    return { read: select(v(name, loc), at, loc), write: (x) => assign(name, store(v(name, loc), at, x, loc), loc) };
  }

  /** Every byte of the tagged union lv was just written alike (memset): every member reads them, as in a fresh union. */
  freshUnion(this: Lowerer, lv: LValue, loc: L): void {
    if (!taggedUnion(lv.type)) return;
    for (const a of lv.alts) this.writePart(a, [UNION_TAG], '', bv(BigInt(TAG_FRESH), 8, loc), loc);
  }

  /** A read inside a tagged union: of the member written last, or of a union none was written in. */
  checkUnionRead(this: Lowerer, lv: LValue, loc: L): void {
    const ok: Expr[] = [];
    for (const a of lv.alts) {
      for (const c of unionCrossings(a.root.type, a.path, loc)) {
        const tag = this.unionTag(a, c, loc).read;
        ok.push(this.guarded(a, or(eq(tag, bv(BigInt(TAG_FRESH), 8, loc), loc), eq(tag, bv(BigInt(c.member), 8, loc), loc), loc), loc));
      }
    }
    if (ok.length) this.uncertain(andAll(ok, loc), loc, "a read of a union member other than the one written last (another member's bytes reinterpreted: not modelled)");
  }

  /** A write inside a tagged union: its member becomes the tag (a part of it while another member is the tag: mixed). */
  updateUnionTags(this: Lowerer, lv: LValue, loc: L): void {
    for (const a of lv.alts) {
      for (const c of unionCrossings(a.root.type, a.path, loc)) {
        const t = this.unionTag(a, c, loc);
        const m = bv(BigInt(c.member), 8, loc);
        const kept = or(eq(t.read, bv(BigInt(TAG_FRESH), 8, loc), loc), eq(t.read, m, loc), loc);
        const value = c.whole ? m : ite(kept, m, bv(BigInt(TAG_MIXED), 8, loc), loc);
        this.emit(t.write(a.guard ? ite(a.guard, value, t.read, loc) : value));
      }
    }
  }

  copyAggregate(this: Lowerer, dst: LValue, src: LValue, loc: L): void {
    if (src.alts[0]?.root.name === NOWHERE) return;
    if (this.threads?.live && [...src.alts, ...dst.alts].some((a) => this.isShared(a.root))) {
      throw new UnsupportedError('a copy of a struct other threads can reach', loc);
    }
    this.checkAccess(src, loc, false);
    this.checkAccess(dst, loc, true);
    this.checkUnionRead(src, loc);
    const leaves = leavesOf(dst.type, loc);
    // Read every source leaf first (the objects may overlap).
    const reads: Array<{ path: readonly string[]; suffix: string; value: Expr; whole: boolean; element?: number; count?: number; byteAt?: (a: Alt) => Expr }> = [];
    for (const leaf of leaves) {
      for (const [suffix, it] of scalarParts(leaf.type, this.dm, loc)) {
        const wholeMap = leaf.mapped;
        if (wholeMap) {
          // An array member: copy the whole map when neither side is itself inside an array.
          const ok = src.alts.length === 1 && dst.alts.length === 1 && !src.alts[0].guard && !dst.alts[0].guard
            && src.alts[0].index === undefined && dst.alts[0].index === undefined;
          if (ok) {
            reads.push({ path: leaf.path, suffix, value: v(leafName(src.alts[0].root, [...src.alts[0].path, ...leaf.path]) + suffix, loc), whole: true });
            continue;
          }
          // Inside an array or through a pointer: element by element (element j of
          // the struct at linear index I is at I * count + j).
          if (leaf.bytes) {
            // A union: its bytes, one by one (union j of the struct at linear index I is at bytes (I * count + j) * size).
            const n = leaf.count;
            const size = sizeOfElem(leaf.type, this.dm);
            if (n === undefined || !size || n * size > ZERO_FILL_LIMIT) throw new UnsupportedError('copy of a large union inside an array or through a pointer', loc);
            for (let j = 0; j < n; j++) {
              for (let b = 0; b < size; b++) {
                const byteAt = (a: Alt) => bin('+', bin('*', this.elementOf(a, j, n, loc).index!, bv(BigInt(size), this.pw, loc), loc), bv(BigInt(b), this.pw, loc), loc);
                let acc: Expr | undefined;
                for (const a of [...src.alts].reverse()) {
                  const r = select(v(leafName(a.root, [...a.path, ...leaf.path]) + suffix, loc), byteAt(a), loc);
                  acc = acc === undefined || !a.guard ? r : ite(a.guard, r, acc, loc);
                }
                reads.push({ path: leaf.path, suffix, value: this.tempOf(it, acc!, loc), whole: false, byteAt });
              }
            }
            continue;
          }
          const n = leaf.count;
          if (n === undefined || n > ZERO_FILL_LIMIT) throw new UnsupportedError('copy of a struct with a large array member inside an array or through a pointer', loc);
          for (let j = 0; j < n; j++) {
            let acc: Expr | undefined;
            for (const a of [...src.alts].reverse()) {
              const r = this.leafAccess(this.elementOf(a, j, n, loc), leaf.path, suffix, loc).read;
              acc = acc === undefined || !a.guard ? r : ite(a.guard, r, acc, loc);
            }
            reads.push({ path: leaf.path, suffix, value: this.tempOf(it, acc!, loc), whole: false, element: j, count: n });
          }
          continue;
        }
        let acc: Expr | undefined;
        for (const a of [...src.alts].reverse()) {
          const r = this.leafAccess(a, leaf.path, suffix, loc).read;
          acc = acc === undefined || !a.guard ? r : ite(a.guard, r, acc, loc);
        }
        const tmp = this.tempOf(it, acc!, loc);
        reads.push({ path: leaf.path, suffix, value: tmp, whole: false });
      }
    }
    for (const r of reads) {
      if (r.whole) {
        this.emit(assign(leafName(dst.alts[0].root, [...dst.alts[0].path, ...r.path]) + r.suffix, r.value, loc));
        continue;
      }
      if (r.byteAt) {
        for (const a of dst.alts) {
          const name = leafName(a.root, [...a.path, ...r.path]) + r.suffix;
          const at = r.byteAt(a);
          const value = a.guard ? ite(a.guard, r.value, select(v(name, loc), at, loc), loc) : r.value;
          this.emit(assign(name, store(v(name, loc), at, value, loc), loc));
        }
        continue;
      }
      for (const a of dst.alts) this.writePart(r.element === undefined ? a : this.elementOf(a, r.element, r.count!, loc), r.path, r.suffix, r.value, loc);
    }
    this.updateUnionTags(dst, loc);
  }

  /** Element j of an array member (n elements per struct) of the struct an alt designates. */
  elementOf(this: Lowerer, a: Alt, j: number, n: number, loc: L): Alt {
    const jj = bv(BigInt(j), this.pw, loc);
    return { ...a, index: a.index === undefined ? jj : bin('+', bin('*', a.index, bv(BigInt(n), this.pw, loc), loc), jj, loc) };
  }

  /**
   * Relational comparison and subtraction of pointers are defined only
   * within one object (C11 6.5.6p9, 6.5.8p5); across objects the result
   * depends on the layout, which is not modelled: UNKNOWN there. Returns the
   * offsets, named.
   */
  sameObject(this: Lowerer, l: Val & { k: 'ptr' }, r: Val & { k: 'ptr' }, what: string, loc: L): { lo: Expr; ro: Expr } {
    const lb = this.named(bvType(32), l.base, loc);
    const rb = this.named(bvType(32), r.base, loc);
    const lo = this.named(bvType(this.pw), l.off, loc);
    const ro = this.named(bvType(this.pw), r.off, loc);
    const sameBlock = [...(this.knownRegions?.values() ?? [])]
      .filter((x) => x.root.blocks)
      .map((x) => {
        const sh = bv(BigInt(x.root.blocks!.shift), this.pw, loc);
        return or(un('!', eq(lb, bv(BigInt(x.id), 32, loc), loc), loc), eq(app('lshr', [lo, sh], loc), app('lshr', [ro, sh], loc), loc), loc);
      });
    this.uncertain(andAll([eq(lb, rb, loc), ...sameBlock], loc), loc, what);
    return { lo, ro };
  }
}

// Objects coming to life: initialisation of declared objects (zero-fill, initializer
// lists), heap allocation (malloc, calloc, realloc, allocation sites inside loops).
// Methods of the Lowerer (lower.ts).
import type { Expr as CExpr, Initializer, VarDecl as CVarDecl } from '../c/ast.js';
import type { CType } from '../c/types.js';
import { intType, isSignedKind, sameType, sizeOf as sizeOfElem, typeToString as cTypeToString, unqualified } from '../c/types.js';
import type { BvWidth, Expr, Stmt } from '../ivl/ast.js';
import { bvType, boolType } from '../ivl/ast.js';
import { and, app, assign, bin, boolLit, bv, eq, havoc, ite, type L, or, orAll, resize, store, un, v } from './imp-build.js';
import {
  type LValue,
  type Root,
  UnsupportedError,
  type Val,
  intKindOf,
  intWidth,
  leafImpType,
  leafName,
  leavesOf,
  scalarParts,
  stripArrays,
  syncKindOf,
  zeroOf,
  type Leaf,
  taggedUnion,
  UNION_TAG,
  TAG_FRESH,
} from './memory.js';
import { zeroInitializer } from './threads.js';
import { ZERO_FILL_LIMIT, ALLOCATORS } from './common.js';
import type { Lowerer } from './lower.js';

/** True when an identifier in the AST below `node` refers to `decl`. */
/** The pointer types a variable's value is converted to (casts whose operand is the variable) in a subtree. */
function conversionsOf(node: unknown, decl: object): CType[] {
  const out: CType[] = [];
  const seen = new Set<object>();
  const skip = new Set(['type', 'decl', 'loc', 'function', 'field', 'path', 'keywordLoc', 'rparenLoc', 'questionLoc', 'whileLoc', 'end', 'cases']);
  const walk = (x: unknown): void => {
    if (!x || typeof x !== 'object' || seen.has(x)) return;
    seen.add(x);
    const o = x as Record<string, unknown>;
    if (o.kind === 'ImplicitCast' || o.kind === 'Cast') {
      let operand = o.operand as CExpr;
      while (operand.kind === 'ImplicitCast' && operand.castKind === 'NoOp') operand = operand.operand;
      const to = unqualified(o.type as CType);
      if (operand.kind === 'Identifier' && operand.decl === decl && to.kind === 'pointer' && unqualified(to.pointee).kind !== 'void') out.push(to);
    }
    for (const [k, val] of Object.entries(o)) {
      if (skip.has(k)) continue;
      if (Array.isArray(val)) val.forEach(walk);
      else walk(val);
    }
  };
  walk(node);
  return out;
}

function formatLoc(loc: L): string {
  return `${loc.file}:${loc.line}:${loc.column}`;
}

export class ObjectLowering {
  /** Havocs every leaf of the object (recorded in `record`: C memory not yet written); its unions' tags start fresh. */
  havocObject(this: Lowerer, root: Root, loc: L, record?: Set<Stmt>): void {
    for (const leaf of leavesOf(root.type, loc)) {
      if (this.freshTag(root, leaf, loc)) continue;
      for (const [suffix] of scalarParts(leaf.type, this.dm, loc)) {
        const h = havoc(leafName(root, leaf.path) + suffix, loc);
        record?.add(h);
        this.emit(h);
      }
    }
  }

  /**
   * For the tag leaf of a tagged union (memory.ts, unionCrossings): sets it
   * to TAG_FRESH (nothing written yet) and returns true; false for other
   * leaves. Tags of more unions than ZERO_FILL_LIMIT in one array (or a
   * block of run-time size) start arbitrary: a read may then be UNKNOWN.
   */
  freshTag(this: Lowerer, root: Root, leaf: Leaf, loc: L): boolean {
    if (leaf.path[leaf.path.length - 1] !== UNION_TAG) return false;
    const name = leafName(root, leaf.path);
    const fresh = bv(BigInt(TAG_FRESH), 8, loc);
    if (!leaf.mapped) {
      this.emit(assign(name, fresh, loc));
      return true;
    }
    const h = havoc(name, loc);
    this.emit(h);
    if (leaf.count === undefined || leaf.count > ZERO_FILL_LIMIT) return true;
    this.filledHavocs.add(h);
    let m: Expr = v(name, loc);
    for (let i = 0; i < leaf.count; i++) m = store(m, bv(BigInt(i), this.pw, loc), fresh, loc);
    this.emit(assign(name, m, loc));
    return true;
  }

  /** Zero (static storage) or havoc (automatic) every leaf, then apply the initializer. */
  initObject(this: Lowerer, root: Root, type: CType, init: Initializer | undefined, loc: L, isStatic: boolean): void {
    if (init && init.kind !== 'InitList' && unqualified(type).kind !== 'array') {
      // A scalar or a struct copied from an expression.
      const val = this.rv(init);
      this.store({ type, alts: [{ root, path: [] }] }, val, init.loc);
      return;
    }
    const leaves = leavesOf(type, loc);
    for (const leaf of leaves) {
      if (this.freshTag(root, leaf, loc)) continue;
      for (const [suffix, t] of scalarParts(leaf.type, this.dm, loc)) {
        const name = leafName(root, leaf.path) + suffix;
        const zero = zeroOf(t, loc);
        if (!leaf.mapped) {
          this.emit(isStatic || init ? assign(name, zero, loc) : havoc(name, loc));
          continue;
        }
        const h = havoc(name, loc);
        this.emit(h);
        // An automatic array without initialiser, or a large static one (zero in C, arbitrary here): C memory.
        this.memoryHavocs.add(h);
        if (isStatic || init) {
          // A union's map holds its bytes.
          const count = leaf.count !== undefined && leaf.bytes ? leaf.count * (sizeOfElem(leaf.type, this.dm) ?? Infinity) : leaf.count;
          if (count !== undefined && count <= ZERO_FILL_LIMIT) {
            this.filledHavocs.add(h);
            let m: Expr = v(name, loc);
            for (let i = 0; i < count; i++) m = store(m, bv(BigInt(i), this.pw, loc), zero, loc);
            this.emit(assign(name, m, loc));
          } else {
            this.approximations.push(`${formatLoc(loc)}: the ${leaf.count ?? 'unknown'} zero-initialised elements of '${name}' start arbitrary`);
          }
        }
      }
    }
    if (init) this.applyInit({ type, alts: [{ root, path: [] }] }, init);
  }

  applyInit(this: Lowerer, lv: LValue, init: Initializer): void {
    if (syncKindOf(lv.type)) {
      // A pthread object's initialiser (PTHREAD_MUTEX_INITIALIZER): its state starts 0, as zero-filled.
      if (!zeroInitializer(init)) throw new UnsupportedError('a pthread object initialised to another state than the default one', init.loc);
      return;
    }
    if (init.kind !== 'InitList') {
      const t = unqualified(lv.type);
      if (t.kind === 'array' && init.kind === 'StringLiteral') {
        // char s[N] = "...": the characters, then zeros (already there: an initializer zero-fills).
        const k = intKindOf(t.element);
        if (k === undefined || init.wide) throw new UnsupportedError('string literal initializer', init.loc);
        const n = Math.min(init.units.length, t.length ?? init.units.length);
        for (let i = 0; i < n; i++) {
          const elem = this.indexArray(lv, bv(BigInt(i), this.pw, init.loc), init.loc);
          this.store(elem, { k: 'int', e: bv(BigInt(init.units[i]), intWidth(k, this.dm, init.loc), init.loc), ik: k }, init.loc);
        }
        return;
      }
      this.store(lv, this.rv(init), init.loc);
      return;
    }
    const t = unqualified(lv.type);
    for (const item of init.items) {
      let sub: LValue;
      if (t.kind === 'array') {
        sub = this.indexArray(lv, bv(BigInt(item.target), this.pw, init.loc), init.loc);
      } else if (t.kind === 'record') {
        const f = t.record.fields?.[item.target];
        if (!f?.name) throw new UnsupportedError('initializer of an unnamed member', init.loc);
        sub = this.member(lv, f.name, f.type);
      } else {
        // Braces around a scalar initializer.
        sub = lv;
      }
      this.applyInit(sub, item.value);
    }
  }

  /**
   * A `void *` operand converted to `T *` (`int *a = xmalloc(n)`): an
   * allocation whose result is not converted itself (`void *p = malloc(n)`
   * inside the wrapper) while it is lowered makes a block of T elements. An
   * access to such a block at another type is, as for any object, not
   * modelled (UNKNOWN).
   */
  typedRv(this: Lowerer, operand: CExpr, to: CType): Val {
    const t = unqualified(to);
    const from = unqualified(operand.type);
    if (t.kind !== 'pointer' || from.kind !== 'pointer' || unqualified(from.pointee).kind !== 'void') return this.rv(operand);
    const elem = unqualified(t.pointee);
    if (elem.kind === 'void' || elem.kind === 'function' || elem.kind === 'array') return this.rv(operand);
    this.allocTypes.push(t);
    try {
      return this.rv(operand);
    } finally {
      this.allocTypes.pop();
    }
  }

  /**
   * For a `void *` variable of the current function that the function
   * converts to one pointer type T only (`void *p = malloc(n); int *a =
   * p;`): f runs with T as the type of untyped allocations (see typedRv).
   */
  withVoidTarget<T>(this: Lowerer, decl: CVarDecl, f: () => T): T {
    const t = unqualified(decl.type);
    if (t.kind !== 'pointer' || unqualified(t.pointee).kind !== 'void' || !this.frames.length) return f();
    const targets = conversionsOf(this.frame.fn.body, decl);
    const first = targets[0];
    if (!first || !targets.every((x) => sameType(unqualified(x), unqualified(first)))) return f();
    const elem = unqualified(first.kind === 'pointer' ? first.pointee : first);
    if (elem.kind === 'void' || elem.kind === 'function' || elem.kind === 'array') return f();
    this.allocTypes.push(first);
    try {
      return f();
    } finally {
      this.allocTypes.pop();
    }
  }

  /**
   * `(T *)malloc(n)` / `calloc(k, n)` / `alloca(n)`: a fresh object of
   * elements of T (never NULL, as the rules say). Only outside loops: one
   * object per call site must stand for one allocation. T void (the result
   * is kept as `void *`): an untyped block, n bytes (see Root.untyped).
   */
  allocation(this: Lowerer, operand: CExpr, to: CType): Val | undefined {
    let e = operand;
    while ((e.kind === 'ImplicitCast' && e.castKind === 'NoOp') || (e.kind === 'Cast' && unqualified(e.type).kind === 'pointer')) e = e.operand;
    const t = unqualified(to);
    // <alloca.h> defines alloca as __builtin_alloca.
    const name = e.kind === 'Call' && e.function && !e.function.body ? e.function.name : e.kind === 'BuiltinCall' ? e.name.replace(/^__builtin_alloca$/, 'alloca') : undefined;
    if ((e.kind !== 'Call' && e.kind !== 'BuiltinCall') || t.kind !== 'pointer' || name === undefined || !ALLOCATORS.has(name)) return undefined;
    const loc = e.loc;
    const looped = this.loopNesting > 0;
    if (looped && name !== 'malloc' && name !== 'calloc') throw new UnsupportedError(`${name} inside a loop`, loc);
    const untyped = unqualified(t.pointee).kind === 'void';
    const elem = untyped ? intType('uchar') : unqualified(t.pointee);
    if (elem.kind === 'function' || elem.kind === 'array') throw new UnsupportedError(`${name} of ${cTypeToString(t)}`, loc);
    const all = e.args.map((a) => this.rv(a));
    // realloc(p, n): the size is the second argument; p's block is copied and ends.
    const old = name === 'realloc' && all.length === 2 ? this.snapshot(all[0]!, loc) : undefined;
    if (name === 'realloc' && !old) throw new UnsupportedError(`realloc with ${all.length} arguments`, loc);
    const args = old ? all.slice(1).map((a) => this.snapshot(a, loc)) : all;
    const heap = name === 'malloc' || name === 'calloc' || name === 'realloc';
    const site = `$heap@${loc.line}:${loc.column}`;
    if (looped) {
      const p = this.allocationInLoop(site, name, elem, args, loc, untyped);
      return untyped ? { ...p, pointee: t.pointee } as Val : p;
    }
    let root = this.makeRoot(site, { kind: 'array', element: elem }, loc, untyped ? { untyped } : {});
    this.havocObject(root, loc, this.memoryHavocs);
    if (this.mem) {
      // The block's element count: its size in bytes over the element size (a partial element is outside).
      const bytes = args.map((a) => {
        if (a.k !== 'int') throw new UnsupportedError(`${name} with a non-integer size`, loc);
        return resize(a.e, intWidth(a.ik, this.dm, loc), this.pw, isSignedKind(a.ik), loc);
      });
      const esize = sizeOfElem(elem, this.dm);
      if (!esize) throw new UnsupportedError(`${name} of elements of unknown size`, loc);
      const total = bytes.length === 2 ? bin('*', bytes[0], bytes[1], loc) : bytes[0];
      if (!total || bytes.length > 2) throw new UnsupportedError(`${name} with ${args.length} arguments`, loc);
      const countVar = `${root.name}$count`;
      this.used.add(countVar);
      this.declare(countVar, bvType(this.pw));
      root = { ...root, storage: heap ? 'heap' : 'alloca', countVar };
      if (heap) this.allocates = true;
      this.emit(assign(countVar, app('udiv', [total, bv(BigInt(esize), this.pw, loc)], loc), loc));
      this.setLive(root, boolLit(true, loc), loc);
      if (!heap) this.frame.dying.push(root);
    }
    if (old) this.reallocFrom(old, root, args[0]!, loc);
    if (name === 'calloc') {
      // Zero-filled: exact for a small constant size, else the elements start arbitrary (over-approximation).
      const size = args.length === 2 && args.every((a) => a.k === 'int' && a.e.kind === 'bv_lit')
        ? (args as Array<{ e: { value: bigint } }>).reduce((p, a) => p * a.e.value, 1n)
        : undefined;
      const esize = BigInt(sizeOfElem(elem, this.dm) ?? 0);
      const count = size !== undefined && esize > 0n ? Number(size / esize) : undefined;
      const lv: LValue = { type: { kind: 'array', element: elem, ...(count !== undefined ? { length: count } : {}) }, alts: [{ root, path: [] }] };
      if (count !== undefined && count <= ZERO_FILL_LIMIT) {
        for (let i = 0; i < count; i++) this.zeroInit(this.indexArray(lv, bv(BigInt(i), this.pw, loc), loc), loc);
      } else {
        this.approximations.push(`${formatLoc(loc)}: the elements of the calloc'ed object start arbitrary`);
      }
    }
    return this.addressOf({ type: { kind: 'array', element: elem }, alts: [{ root, path: [] }] }, untyped ? t.pointee : elem, loc);
  }

  /**
   * The new block of `realloc(p, n)` takes the elements of p's block (all of
   * its leaf maps: past the old end they are as arbitrary as a fresh
   * block's), then p's block ends as by `free(p)`. p NULL: a plain malloc.
   * A size of 0 (implementation-defined) and a block of an allocation site
   * inside a loop (its blocks share maps at other offsets) are UNKNOWN.
   */
  reallocFrom(this: Lowerer, old: Val, to: Root, size: Val, loc: L): void {
    if (old.k !== 'ptr' || size.k !== 'int') throw new UnsupportedError('realloc of a non-pointer', loc);
    this.uncertain(un('!', eq(size.e, bv(0n, intWidth(size.ik, this.dm, loc), loc), loc), loc), loc, 'realloc to size 0');
    const elem = stripArrays(to.type);
    const at = (id: number) => eq(old.base, bv(BigInt(id), 32, loc), loc);
    const blocks = [...(this.knownRegions?.values() ?? [])].filter(
      (r) => r.path.length === 0 && !r.view && unqualified(r.root.type).kind === 'array' && sameType(unqualified(r.elem), elem),
    );
    // The bytes of a block of another element type would be reinterpreted: not modelled.
    this.uncertain(or(eq(old.base, bv(0n, 32, loc), loc), orAll(blocks.map((r) => at(r.id)), loc), loc), loc, `realloc of a block of another element type than ${cTypeToString(elem)}`);
    for (const r of blocks) {
      if (r.root.blocks) {
        this.uncertain(un('!', at(r.id), loc), loc, 'realloc of a block allocated inside a loop');
        continue;
      }
      for (const leaf of leavesOf(to.type, loc)) {
        for (const [suffix] of scalarParts(leaf.type, this.dm, loc)) {
          const dst = leafName(to, leaf.path) + suffix;
          this.emit(assign(dst, ite(at(r.id), v(leafName(r.root, leaf.path) + suffix, loc), v(dst, loc), loc), loc));
        }
      }
    }
    if (this.mem) this.release(old, 'realloc', loc);
    else this.uncertain(or(eq(old.base, bv(0n, 32, loc), loc), eq(old.off, bv(0n, this.pw, loc), loc), loc), loc, 'realloc of a pointer inside a block');
  }

  /**
   * `(T *)malloc(n)` inside a loop: the next block of the site's root. Its
   * elements were never written (each block has fresh offsets), so they hold
   * the arbitrary values the root's maps started with.
   */
  allocationInLoop(this: Lowerer, name: string, fn: string, elem: CType, args: Val[], loc: L, untyped = false): Val {
    // One root per site and element type, shared by all inlined copies: the
    // block number tells blocks apart (a wrapper inlined for two types has two).
    const key = `${name}|${cTypeToString(elem)}${untyped ? '|untyped' : ''}`;
    const site = this.siteRoots.get(key) ?? this.makeLoopSite(key, name, elem, loc, untyped);
    const bl = site.blocks!;
    if (args.length !== (fn === 'calloc' ? 2 : 1)) throw new UnsupportedError(`${fn} with ${args.length} arguments`, loc);
    const sizes = args.map((a) => {
      if (a.k !== 'int') throw new UnsupportedError(`${fn} with a non-integer size`, loc);
      return resize(a.e, intWidth(a.ik, this.dm, loc), this.pw, isSignedKind(a.ik), loc);
    });
    const esize = sizeOfElem(elem, this.dm);
    if (!esize) throw new UnsupportedError(`${fn} of elements of unknown size`, loc);
    const total = sizes.length === 2 ? (sizes.every((x) => x.kind === 'bv_lit') ? bv((sizes[0] as { value: bigint }).value * (sizes[1] as { value: bigint }).value, this.pw, loc) : bin('*', sizes[0]!, sizes[1]!, loc)) : sizes[0]!;
    const count = total.kind === 'bv_lit' ? bv(total.value / BigInt(esize), this.pw, loc) : app('udiv', [total, bv(BigInt(esize), this.pw, loc)], loc);
    // calloc: a block's elements start zero; written one by one, so the count must be a small constant.
    if (fn === 'calloc' && (count.kind !== 'bv_lit' || count.value > BigInt(ZERO_FILL_LIMIT))) {
      throw new UnsupportedError(`calloc inside a loop whose count is not a constant of at most ${ZERO_FILL_LIMIT} elements`, loc);
    }
    const limit = bv(1n << BigInt(bl.shift), this.pw, loc);
    this.uncertain(and(app('ult', [v(bl.made, loc), limit], loc), app('ule', [count, limit], loc), loc), loc, 'more or larger blocks at one allocation site than the model holds');
    const block = this.tempOf(bvType(this.pw), v(bl.made, loc), loc);
    const one = bv(1n, this.pw, loc);
    this.emit(
      assign(bl.made, bin('+', v(bl.made, loc), one, loc), loc),
      assign(bl.counts, store(v(bl.counts, loc), block, count, loc), loc),
      assign(bl.lives, store(v(bl.lives, loc), block, boolLit(true, loc), loc), loc),
      assign(bl.alive, bin('+', v(bl.alive, loc), one, loc), loc),
    );
    this.allocates = true;
    const p = this.addressOf({ type: { kind: 'array', element: elem }, alts: [{ root: site, path: [] }] }, elem, loc);
    if (p.k !== 'ptr') throw new UnsupportedError('allocation', loc);
    const start = this.tempOf(bvType(this.pw), bin('<<', block, bv(BigInt(bl.shift), this.pw, loc), loc), loc);
    if (fn === 'calloc' && count.kind === 'bv_lit') {
      for (let j = 0n; j < count.value; j++) {
        this.zeroInit({ type: elem, alts: [{ root: site, path: [], index: bin('+', start, bv(j, this.pw, loc), loc) }] }, loc);
      }
    }
    return { ...p, off: start };
  }

  /** The root of an allocation site inside a loop (its maps start arbitrary, no block made). */
  makeLoopSite(this: Lowerer, key: string, name: string, elem: CType, loc: L, untyped = false): Root {
    const base = this.fresh(name);
    const names = { made: `${base}$made`, counts: `${base}$counts`, lives: `${base}$lives`, alive: `${base}$alive` };
    for (const n of Object.values(names)) this.used.add(n);
    const pwt = bvType(this.pw);
    this.declare(names.made, pwt);
    this.declare(names.alive, pwt);
    this.declare(names.counts, leafImpType(pwt, true, this.dm));
    this.declare(names.lives, leafImpType(boolType, true, this.dm));
    const root: Root = { name: base, type: { kind: 'array', element: elem }, storage: 'heap', blocks: { ...names, shift: this.pw / 2 }, ...(untyped ? { untyped } : {}) };
    // A union's byte addresses (element index times size) could wrap at a block's high offset.
    if (leavesOf(root.type, loc).some((l) => l.bytes)) throw new UnsupportedError('a union in a block allocated inside a loop', loc);
    for (const leaf of leavesOf(root.type, loc)) {
      for (const [suffix, t] of scalarParts(leaf.type, this.dm, loc)) {
        const n = leafName(root, leaf.path) + suffix;
        this.declare(n, leafImpType(t, leaf.mapped, this.dm));
        const h = havoc(n, loc);
        this.memoryHavocs.add(h);
        this.liveInit.push(h);
      }
    }
    const zero = bv(0n, this.pw, loc);
    this.liveInit.push(havoc(names.counts, loc), havoc(names.lives, loc), assign(names.made, zero, loc), assign(names.alive, zero, loc));
    this.siteRoots.set(key, root);
    return root;
  }

  /** Stores zero into every scalar of an lvalue (no arrays inside). */
  zeroInit(this: Lowerer, lv: LValue, loc: L): void {
    const t = unqualified(lv.type);
    if (taggedUnion(t)) {
      // All of its bytes zero: every member reads zero, as in a fresh static union.
      for (const leaf of leavesOf(t, loc)) {
        if (leaf.mapped) throw new UnsupportedError('calloc of unions with array members', loc);
        const last = leaf.path[leaf.path.length - 1];
        for (const [suffix, it] of scalarParts(leaf.type, this.dm, loc)) {
          for (const a of lv.alts) this.writePart(a, leaf.path, suffix, last === UNION_TAG ? bv(BigInt(TAG_FRESH), 8, loc) : zeroOf(it, loc), loc);
        }
      }
      this.updateUnionTags(lv, loc);
      return;
    }
    if (t.kind === 'record') {
      for (const f of t.record.fields ?? []) {
        if (!f.name) throw new UnsupportedError('anonymous struct member', loc);
        this.zeroInit(this.member(lv, f.name, f.type), loc);
      }
      return;
    }
    if (t.kind === 'array') throw new UnsupportedError('calloc of structs with array members', loc);
    this.store(lv, this.dummyVal(t, loc), loc);
  }
}

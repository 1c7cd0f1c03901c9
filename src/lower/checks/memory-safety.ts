// The memory-safety instrumentation (passes `memory-safety` and `memory-cleanup`): object lifetimes,
// the valid-deref check of every access, valid-free, and the leak goals at the end of main
// (valid-memtrack, valid-memcleanup). Methods of the Lowerer (lower.ts).
import type { Call } from '../../c/ast.js';
import { sizeOf as sizeOfElem, unqualified } from '../../c/types.js';
import type { Expr } from '../../ivl/ast.js';
import { bvType, boolType } from '../../ivl/ast.js';
import { and, andAll, app, assign, bin, boolLit, bv, eq, ifs, type L, or, orAll, select, store, un, v } from '../imp-build.js';
import {
  type Alt,
  type LValue,
  type Region,
  type Root,
  UnsupportedError,
  type Val,
  leafName,
  leavesOf,
  stripArrays,
  regionLayout,
  unionCrossings,
  TAG_FRESH,
} from '../memory.js';
import { type GoalKind } from '../source-map.js';
import { VOID, NOWHERE } from '../common.js';
import type { Lowerer } from '../lower.js';

export class MemorySafetyChecks {
  /** The liveness flag of an object (declared on first use; static objects start live). */
  liveOf(this: Lowerer, root: Root, loc: L): Expr {
    let name = this.liveVars.get(root.name);
    if (!name) {
      name = `${root.name}$live`;
      this.used.add(name);
      this.declare(name, boolType);
      this.liveVars.set(root.name, name);
      const always = root.storage === 'static' || root.storage === 'literal';
      this.liveInit.push(assign(name, boolLit(always, loc), loc));
    }
    return v(name, loc);
  }

  setLive(this: Lowerer, root: Root, value: Expr, loc: L): void {
    this.liveOf(root, loc);
    this.emit(assign(this.liveVars.get(root.name)!, value, loc));
  }

  /** An automatic object begins: tracked (true) when a pointer may point to it. */
  born(this: Lowerer, root: Root, loc: L): boolean {
    if (!this.mem || !this.targets.has(root.name)) return false;
    this.setLive(root, boolLit(true, loc), loc);
    return true;
  }

  endLifetimes(this: Lowerer, roots: readonly Root[], loc: L): void {
    for (const r of roots) this.setLive(r, boolLit(false, loc), loc);
  }

  /** Runs f in a new scope: the tracked objects declared in it end afterwards. */
  inScope<T>(this: Lowerer, f: () => T): T {
    if (!this.mem) return f();
    this.scopes.push([]);
    let dying: Root[] = [];
    let r: T;
    try {
      r = f();
    } finally {
      dying = this.scopes.pop()!;
    }
    this.endLifetimes(dying, this.stmtLoc);
    return r;
  }

  /** The heap blocks of the program (one per allocation site and inlined copy). */
  heapBlocks(this: Lowerer): Array<{ root: Root; id: number }> {
    return [...(this.knownRegions?.values() ?? [])]
      .filter((r) => r.root.storage === 'heap' && r.path.length === 0 && !r.view)
      .map((r) => ({ root: r.root, id: r.id }));
  }

  noLiveBlock(this: Lowerer, loc: L): Expr {
    return andAll(
      this.heapBlocks().map((b) => {
        const bl = b.root.blocks;
        return bl ? eq(v(bl.alive, loc), bv(0n, this.pw, loc), loc) : un('!', this.liveOf(b.root, loc), loc);
      }),
      loc,
    );
  }

  /**
   * For a site inside a loop, where the element at linear index `idx` of the
   * region (root, path) lies: its block and its struct's index in the block.
   */
  blockOf(this: Lowerer, root: Root, path: readonly string[], idx: Expr, loc: L): { block: Expr; inBlock: Expr; live: Expr } {
    const bl = root.blocks!;
    const perStruct = this.elementCount(root, path, loc, bv(1n, this.pw, loc));
    const struct = perStruct.kind === 'bv_lit' && perStruct.value === 1n ? idx : app('udiv', [idx, perStruct], loc);
    const block = app('lshr', [struct, bv(BigInt(bl.shift), this.pw, loc)], loc);
    const inBlock = bin('&', struct, bv((1n << BigInt(bl.shift)) - 1n, this.pw, loc), loc);
    const live = and(app('ult', [block, v(bl.made, loc)], loc), select(v(bl.lives, loc), block, loc), loc);
    return { block, inBlock, live };
  }

  /** A goal of a memory-safety sub-property; later code runs only where it held. */
  memGoal(this: Lowerer, kind: GoalKind, cond: Expr, loc: L, description: string, targetLoc = this.stmtLoc): void {
    if (cond.kind === 'bool_lit' && cond.value) return;
    this.goal(kind, cond, loc, description, targetLoc);
    this.assumeThat(cond, loc, 'checked');
  }

  /** The run ends here (abort, exit): blocks still allocated are not judged. */
  endOfRun(this: Lowerer, loc: L): void {
    if (this.mem) this.uncertain(this.noLiveBlock(loc), loc, 'a heap block is still allocated when the program aborts or exits');
  }

  /**
   * At the end of main: every block freed (valid-memcleanup). For
   * valid-memtrack a block still allocated is lost when no global variable
   * can hold a pointer (main's locals end with main); otherwise not judged.
   */
  leakGoal(this: Lowerer, target: L, where = 'at the end of main'): void {
    const cond = this.noLiveBlock(target);
    if (this.passes.has('memory-cleanup')) {
      this.memGoal('valid-memcleanup', cond, target, `a heap block is still allocated ${where}`, target);
      return;
    }
    const staticRoots = [...this.globals.values(), ...this.statics.values()];
    const pointers = staticRoots.flatMap((r) => leavesOf(r.type, target).filter((l) => unqualified(l.type).kind === 'pointer').map((l) => ({ root: r, leaf: l })));
    if (pointers.length === 0) {
      this.memGoal('valid-memtrack', cond, target, `a heap block is lost ${where}`, target);
      return;
    }
    // Global pointers may still track blocks. Judged exactly only for the
    // blocks of sites outside loops and for pointers held in scalar global
    // variables: a block no such pointer points into is lost when no other
    // pointer can be stored anywhere that survives main (no global array of
    // pointers, no block holding pointers). A block counts as tracked only
    // when a global points to its start; an interior pointer is UNKNOWN.
    const scalars = pointers
      .filter((x) => !x.leaf.mapped)
      .map((x) => ({ base: v(leafName(x.root, x.leaf.path) + '.base', target), off: v(leafName(x.root, x.leaf.path) + '.off', target), held: this.heldInUnions(x.root, x.leaf.path, undefined, target) }));
    const regions = [...(this.knownRegions?.values() ?? [])];
    const heap = this.heapBlocks();
    const otherHolders =
      pointers.some((x) => x.leaf.mapped) ||
      heap.some((b) => leavesOf(b.root.type, target).some((l) => unqualified(l.type).kind === 'pointer'));
    const ZERO = bv(0n, this.pw, target);
    if (otherHolders) {
      const closure = this.trackedByChains(pointers, heap, regions, target);
      if (closure) {
        this.memGoal('valid-memtrack', un('!', orAll(closure.lost, target), target), target, `a heap block is lost ${where}`, target);
        this.uncertain(andAll([...closure.exact, un('!', orAll(closure.untracked, target), target)], target), target, 'a heap block is still allocated at the end of main (a pointer may still track it)');
        return;
      }
    }
    const lost: Expr[] = [];
    const untracked: Expr[] = [];
    for (const b of heap) {
      if (b.root.blocks) {
        untracked.push(un('!', eq(v(b.root.blocks.alive, target), ZERO, target), target));
        continue;
      }
      const live = this.liveOf(b.root, target);
      const ids = regions.filter((r) => r.root === b.root || r.root.name === b.root.name).map((r) => bv(BigInt(r.id), 32, target));
      const into = orAll(scalars.flatMap((g) => ids.map((id) => and(g.held, eq(g.base, id, target), target))), target);
      const atStart = orAll(scalars.map((g) => andAll([g.held, eq(g.base, bv(BigInt(b.id), 32, target), target), eq(g.off, ZERO, target)], target)), target);
      lost.push(and(live, un('!', into, target), target));
      untracked.push(and(live, un('!', atStart, target), target));
    }
    if (!otherHolders) this.memGoal('valid-memtrack', un('!', orAll(lost, target), target), target, `a heap block is lost ${where}`, target);
    this.uncertain(un('!', orAll(untracked, target), target), target, 'a heap block is still allocated at the end of main (a global pointer may still track it)');
  }

  /**
   * Whether a pointer leaf (at element `index` of its maps) holds a value of
   * the program: below a tagged union (memory.ts, unionCrossings) only while
   * its member is the one written last or none was; otherwise the leaf is a
   * stale value of a member another one overwrote, which tracks nothing.
   */
  heldInUnions(this: Lowerer, root: Root, path: readonly string[], index: Expr | undefined, loc: L): Expr {
    const alt: Alt = { root, path, ...(index ? { index } : {}) };
    return andAll(
      unionCrossings(root.type, path, loc).map((c) => {
        const tag = this.unionTag(alt, c, loc).read;
        return or(eq(tag, bv(BigInt(TAG_FRESH), 8, loc), loc), eq(tag, bv(BigInt(c.member), 8, loc), loc), loc);
      }),
      loc,
    );
  }

  /**
   * valid-memtrack at the end of main when blocks may hold pointers: a block
   * is tracked when a global pointer points into it, or a tracked block
   * holds one that does; the closure takes one round per block. Exact only
   * for blocks of sites outside loops (each its own root) holding at most
   * `CHAIN_SLOTS` elements, and for global pointers in scalars or small
   * arrays; otherwise undefined. `lost`: blocks no chain reaches (a
   * violation); `untracked`: blocks no chain of pointers to block starts
   * reaches (an interior pointer is not judged, as above); `exact`: the
   * conditions under which every pointer was looked at.
   */
  trackedByChains(
    this: Lowerer,
    pointers: ReadonlyArray<{ root: Root; leaf: ReturnType<typeof leavesOf>[number] }>,
    heap: ReadonlyArray<{ root: Root; id: number }>,
    regions: readonly Region[],
    loc: L,
  ): { lost: Expr[]; untracked: Expr[]; exact: Expr[] } | undefined {
    const CHAIN_SLOTS = 4;
    if (heap.length === 0 || heap.length > 16 || heap.some((b) => b.root.blocks)) return undefined;
    const c = (n: number) => bv(BigInt(n), this.pw, loc);
    interface Slot { readonly base: Expr; readonly off: Expr; readonly held: Expr; readonly holder?: number; readonly when?: Expr }
    const slots: Slot[] = [];
    const at = (root: Root, path: readonly string[], mapped: boolean, k: number) => {
      const name = leafName(root, path);
      return {
        base: mapped ? select(v(name + '.base', loc), c(k), loc) : v(name + '.base', loc),
        off: mapped ? select(v(name + '.off', loc), c(k), loc) : v(name + '.off', loc),
        held: this.heldInUnions(root, path, mapped ? c(k) : undefined, loc),
      };
    };
    for (const x of pointers) {
      if (!x.leaf.mapped) slots.push(at(x.root, x.leaf.path, false, 0));
      else if (x.leaf.count !== undefined && x.leaf.count <= 16 && !x.leaf.bytes) for (let k = 0; k < x.leaf.count; k++) slots.push(at(x.root, x.leaf.path, true, k));
      else return undefined;
    }
    const exact: Expr[] = [];
    const live = heap.map((b) => this.liveOf(b.root, loc));
    for (const [i, b] of heap.entries()) {
      const held = leavesOf(stripArrays(b.root.type), loc).filter((l) => l.bytes || unqualified(l.type).kind === 'pointer');
      if (held.length === 0) continue;
      if (held.some((l) => l.bytes || (l.mapped && l.count === undefined))) return undefined;
      const count = this.elementCount(b.root, [], loc);
      exact.push(or(un('!', live[i]!, loc), app('ule', [count, c(CHAIN_SLOTS)], loc), loc));
      for (const l of held) {
        const inner = l.mapped ? l.count! : 1;
        if (inner * CHAIN_SLOTS > 64) return undefined;
        for (let e = 0; e < CHAIN_SLOTS; e++) {
          for (let j = 0; j < inner; j++) slots.push({ ...at(b.root, l.path, true, e * inner + j), holder: i, when: app('ult', [c(e), count], loc) });
        }
      }
    }
    const ids = heap.map((b) => regions.filter((r) => r.root === b.root || r.root.name === b.root.name).map((r) => r.id));
    const closure = (atStart: boolean): Expr[] => {
      const points = (s: Slot, i: number) =>
        and(s.held, atStart ? and(eq(s.base, bv(BigInt(heap[i]!.id), 32, loc), loc), eq(s.off, c(0), loc), loc) : orAll(ids[i]!.map((id) => eq(s.base, bv(BigInt(id), 32, loc), loc)), loc), loc);
      let tracked: Expr[] | undefined;
      for (let round = 0; round <= heap.length; round++) {
        const prev = tracked;
        tracked = heap.map((_, i) => {
          const from = slots.filter((s) => s.holder === undefined || prev).map((s) => (s.holder === undefined ? points(s, i) : andAll([prev![s.holder]!, s.when!, points(s, i)], loc)));
          return this.named(boolType, and(live[i]!, orAll(from, loc), loc), loc);
        });
      }
      return heap.map((_, i) => and(live[i]!, un('!', tracked![i]!, loc), loc));
    };
    return { lost: closure(false), untracked: closure(true), exact };
  }

  /** valid-deref at an access: the pointer designates a live object and the element is inside it. */
  checkAccess(this: Lowerer, lv: LValue, loc: L, write: boolean): void {
    if (lv.alts[0]?.root.name === NOWHERE) return;
    if (!this.mem) {
      // Outside memory safety a view's index is not checked by a goal; one
      // beyond the viewed object (the bytes of a neighbouring member) would
      // read the wrong element: not modelled. A view of one element per
      // stored element counts as the object's own elements (below).
      const views = lv.alts.filter((a) => a.view && a.view.k > 1 && a.index !== undefined);
      const inside = views.map((a) => {
        let ok: Expr;
        try {
          ok = app('ult', [a.index!, bin('*', this.elementCount(a.root, a.path, loc), bv(BigInt(a.view!.k), this.pw, loc), loc)], loc);
        } catch (err) {
          // A block whose size is not tracked (outside memory safety): its bounds are unknown.
          if (!(err instanceof UnsupportedError)) throw err;
          ok = boolLit(false, loc);
        }
        return a.guard ? or(un('!', a.guard, loc), ok, loc) : ok;
      });
      if (inside.length) this.uncertain(andAll(inside, loc), loc, 'byte access outside the object the pointer was converted from');
      // An index through a pointer past the part of a struct it points into
      // (`p = &s.a; p[1]`) would reach the neighbouring member: not modelled.
      const pastMember = lv.alts.flatMap((a) => {
        const part = a.fromPointer && (!a.view || a.view.k === 1) && a.index !== undefined ? regionLayout(a.root.type, a.path, this.dm).member : undefined;
        return part ? [{ a, part }] : [];
      });
      if (pastMember.length) {
        const ok = pastMember.map(({ a, part }) => this.guarded(a, app('ult', [a.index!, bv(BigInt(part.count), this.pw, loc)], loc), loc));
        this.uncertain(andAll(ok, loc), loc, this.pastMemberText(pastMember.map((x) => x.part.name)));
      }
      return;
    }
    let trivial = true;
    const pastMember: Array<{ a: Alt; ok: Expr; name: string }> = [];
    const ok = lv.alts.map((a) => {
      const parts: Expr[] = [];
      if (a.root.blocks) {
        // A block of a site inside a loop: made, live, and the element inside it.
        const b = this.blockOf(a.root, a.path, a.index ?? bv(0n, this.pw, loc), loc);
        trivial = false;
        return andAll([a.via ?? boolLit(true, loc), b.live, app('ult', [b.inBlock, select(v(a.root.blocks.counts, loc), b.block, loc)], loc)], loc);
      }
      if (a.via) parts.push(a.via, this.liveOf(a.root, loc));
      if (write && a.root.storage === 'literal') parts.push(boolLit(false, loc));
      const part = a.index !== undefined && !a.root.blocks ? regionLayout(a.root.type, a.path, this.dm).member : undefined;
      if (a.index !== undefined && part) {
        // A part of a struct (`s.a`, `s.buf`): the access is valid while it
        // stays in the object's bytes; past the part but inside the object
        // it reaches a neighbouring member, which is not modelled.
        const k = a.view?.k ?? 1;
        const size = a.view ? (sizeOfElem(a.view.elem, this.dm) ?? 1) : part.elemSize;
        const c = (n: number) => bv(BigInt.asUintN(this.pw, BigInt(n)), this.pw, loc);
        const inObject = and(app('sle', [c(-Math.floor(part.offset / size)), a.index], loc), app('slt', [a.index, c(Math.floor((part.objectSize - part.offset) / size))], loc), loc);
        parts.push(inObject);
        pastMember.push({ a, ok: or(un('!', inObject, loc), app('ult', [a.index, c(part.count * k)], loc), loc), name: part.name });
      } else if (a.index !== undefined) {
        const n = this.elementCount(a.root, a.path, loc);
        parts.push(app('ult', [a.index, a.view && a.view.k > 1 ? bin('*', n, bv(BigInt(a.view.k), this.pw, loc), loc) : n], loc));
      }
      if (parts.length) trivial = false;
      return andAll(parts, loc);
    });
    if (!trivial) this.memGoal('valid-deref', orAll(ok, loc), loc, write ? 'invalid memory write' : 'invalid memory read');
    if (pastMember.length) this.uncertain(andAll(pastMember.map((x) => this.guarded(x.a, x.ok, loc)), loc), loc, this.pastMemberText(pastMember.map((x) => x.name)));
  }

  /** `cond` where the access is to this alternative (always when it is the only one). */
  guarded(this: Lowerer, a: Alt, cond: Expr, loc: L): Expr {
    const when = a.via ?? a.guard;
    return when ? or(un('!', when, loc), cond, loc) : cond;
  }

  pastMemberText(this: Lowerer, names: readonly string[]): string {
    return `access through a pointer or index past the struct member ${[...new Set(names)].map((n) => `'${n}'`).join(', ')} (the neighbouring members' bytes are not modelled)`;
  }

  /** `free(p)`: p is NULL or the start of a live heap block, which ends. */
  free(this: Lowerer, e: Call): Val {
    const loc = e.loc;
    if (e.args.length !== 1) throw new UnsupportedError(`free with ${e.args.length} arguments`, loc);
    const p = this.snapshot(this.rv(e.args[0]), loc);
    this.release(p, 'free', loc);
    return VOID;
  }

  /** `free(p)` and the old block of `realloc(p, n)`: p must be NULL or the start of a live heap block, which ends. */
  release(this: Lowerer, p: Val, name: string, loc: L): void {
    if (p.k !== 'ptr') throw new UnsupportedError(`${name} of a non-pointer`, loc);
    const blocks = this.heapBlocks();
    const base = this.named(bvType(32), p.base, loc);
    // The block's start, also through a pointer to its first member or a view of its bytes.
    const at = (id: number) => {
      const r = [...(this.knownRegions?.values() ?? [])].find((x) => x.id === id);
      const views = [...(this.knownRegions?.values() ?? [])].filter((x) => r && x.view && x.root.name === r.root.name && x.path.length === 0);
      return orAll([id, ...(r ? this.firstMemberRegions(r).map((m) => m.id) : []), ...views.map((x) => x.id)].map((i) => eq(base, bv(BigInt(i), 32, loc), loc)), loc);
    };
    const ZERO = bv(0n, this.pw, loc);
    const startOf = blocks.map((b) => {
      if (!b.root.blocks) return andAll([at(b.id), eq(p.off, ZERO, loc), this.liveOf(b.root, loc)], loc);
      const k = this.blockOf(b.root, [], p.off, loc);
      return andAll([at(b.id), eq(k.inBlock, ZERO, loc), k.live], loc);
    });
    this.memGoal('valid-free', or(eq(base, bv(0n, 32, loc), loc), orAll(startOf, loc), loc), loc, 'invalid free');
    blocks.forEach((b, i) => {
      const bl = b.root.blocks;
      if (!bl) return this.setLive(b.root, and(this.liveOf(b.root, loc), un('!', at(b.id), loc), loc), loc);
      // After the check above, a pointer to this site is the start of a live block.
      const k = this.blockOf(b.root, [], p.off, loc);
      this.emit(
        ifs(at(b.id), [assign(bl.lives, store(v(bl.lives, loc), k.block, boolLit(false, loc), loc), loc), assign(bl.alive, bin('-', v(bl.alive, loc), bv(1n, this.pw, loc), loc), loc)], [], loc),
      );
      void i;
    });
  }
}

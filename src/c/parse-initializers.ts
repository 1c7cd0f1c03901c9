/**
 * Initialisers: brace lists with designators (also GNU ranges and the
 * obsolete `field:` form), brace elision, and the semantic form of an
 * initialiser for its type (`initialize`), as gcc fills objects.
 */
import { TarsierError } from '../common/errors.js';
import type { SourceLocation } from '../common/location.js';
import type { Expr, Initializer, InitList } from './ast.js';
import { type CType, type RecordInfo, isInteger, isScalar, typeToString } from './types.js';
import { type InitCursor, type RawDesignator, type RawItem, type RawList } from './parse-base.js';
import { ExpressionParser } from './parse-expressions.js';

export abstract class InitializerParser extends ExpressionParser {
  // ---- initializers ------------------------------------------------------------------

  protected parseInitializer(): Expr | RawList {
    if (!this.is('{')) return this.parseAssignment();
    const open = this.next();
    const items: RawItem[] = [];
    while (!this.is('}')) {
      const designators: RawDesignator[] = [];
      for (;;) {
        if (this.is('.')) {
          const dot = this.next();
          const nameTok = this.next();
          if (nameTok.kind !== 'ident') throw this.error('expected a field name after \'.\'', nameTok);
          designators.push({ kind: 'field', name: nameTok.text, loc: this.locTok(dot) });
          continue;
        }
        if (this.is('[')) {
          const open2 = this.next();
          const v = this.sema.evalInt(this.parseConditional());
          if (v === undefined) throw this.error('array index in initializer is not an integer constant', open2);
          let last: bigint | undefined;
          if (this.accept('...')) {
            last = this.sema.evalInt(this.parseConditional());
            if (last === undefined) throw this.error('array index range in initializer is not constant', open2);
          }
          this.expect(']');
          designators.push(last === undefined ? { kind: 'index', index: v, loc: this.locTok(open2) } : { kind: 'index', index: v, last, loc: this.locTok(open2) });
          continue;
        }
        break;
      }
      if (designators.length) this.expect('=', 'after designator');
      else if (this.peek().kind === 'ident' && this.is(':', 1)) {
        // Obsolete GNU `field: value` syntax.
        const nameTok = this.next();
        this.next();
        designators.push({ kind: 'field', name: nameTok.text, loc: this.locTok(nameTok) });
      }
      items.push({ designators, value: this.parseInitializer() });
      if (!this.accept(',')) break;
    }
    this.expect('}', 'at end of initializer');
    return { kind: 'RawList', loc: this.loc(open), items };
  }

  /** Gives a raw initializer its semantic form for type `t`. */
  initialize(t: CType, raw: Expr | RawList): Initializer {
    if (raw.kind === 'RawList') {
      if (isScalar(t)) {
        if (raw.items.length === 0) return { kind: 'InitList', loc: raw.loc, type: t, items: [] };
        const first = raw.items[0];
        if (first.designators.length) throw this.error('designator in initializer for scalar type', first.designators[0].loc);
        return this.initialize(t, first.value);
      }
      if (t.kind !== 'array' && t.kind !== 'record') throw this.error(`invalid initializer for type '${typeToString(t)}'`, raw.loc);
      // `char s[] = { "abc" }`: a braced string literal initialises the whole array.
      const only = raw.items.length === 1 ? raw.items[0] : undefined;
      if (t.kind === 'array' && isInteger(t.element) && only && only.designators.length === 0 && only.value.kind === 'StringLiteral') {
        return this.initialize(t, only.value);
      }
      if (t.kind === 'record' && !t.record.fields) throw this.error(`variable has incomplete type '${typeToString(t)}'`, raw.loc);
      return this.fillObject(t, raw.items, { i: 0 }, true, raw.loc);
    }
    if (t.kind === 'array') {
      if (raw.kind === 'StringLiteral' && isInteger(t.element)) {
        if (t.length !== undefined && raw.units.length > t.length) {
          // gcc warns and truncates ("initializer-string for array is too long"); keep the prefix.
          return { ...raw, units: raw.units.slice(0, t.length), type: t };
        }
        return raw;
      }
      throw this.error(`invalid initializer for array of type '${typeToString(t)}'`, raw.loc);
    }
    if (t.kind === 'record') {
      const v = this.sema.value(raw);
      if (v.type.kind === 'record' && v.type.record === t.record) return v;
      throw this.error(`invalid initializer: '${typeToString(v.type)}' for '${typeToString(t)}'`, raw.loc);
    }
    return this.sema.assignConvert(raw, t, 'initialization');
  }

  /** Members of a record that take part in initialisation (not unnamed bit-fields). */
  protected initFields(info: RecordInfo): number[] {
    const out: number[] = [];
    info.fields!.forEach((f, i) => {
      if (f.name !== undefined || f.bitWidth === undefined) out.push(i);
    });
    return out;
  }

  protected subobjectType(t: CType, index: number): CType {
    if (t.kind === 'array') return t.element;
    if (t.kind === 'record') return t.record.fields![index].type;
    return t;
  }

  /** `.x` naming a member of an anonymous struct/union member: the designator goes through the unnamed members. */
  private throughAnonymous(t: CType, designators: RawDesignator[]): RawDesignator[] {
    const d0 = designators[0];
    if (!d0 || d0.kind !== 'field' || t.kind !== 'record' || !t.record.fields || t.record.fields.some((f) => f.name === d0.name)) return designators;
    const path = this.findField(t.record, d0.name);
    if (!path || path.length < 2) return designators;
    const chain: RawDesignator[] = [];
    let info = t.record;
    for (const f of path.slice(0, -1)) {
      chain.push({ kind: 'member', index: info.fields!.indexOf(f), loc: d0.loc });
      info = (f.type as { record: RecordInfo }).record;
    }
    return [...chain, d0, ...designators.slice(1)];
  }

  protected resolveDesignator(t: CType, d: RawDesignator): number {
    if (d.kind === 'member') return d.index;
    if (d.kind === 'index') {
      if (t.kind !== 'array') throw this.error(`array index in non-array initializer`, d.loc);
      if (d.index < 0n || (t.length !== undefined && d.index >= BigInt(t.length))) throw this.error('array index in initializer exceeds array bounds', d.loc);
      if (d.last !== undefined) throw this.unsupportedAt('designator ranges [a ... b] in initializers', d.loc);
      return Number(d.index);
    }
    if (t.kind !== 'record') throw this.error(`field name not in record or union initializer`, d.loc);
    const i = t.record.fields!.findIndex((f) => f.name === d.name);
    if (i < 0) throw this.error(`unknown field '${d.name}' specified in initializer`, d.loc);
    return i;
  }

  protected unsupportedAt(what: string, loc: SourceLocation): TarsierError {
    return new TarsierError('c-unsupported', `unsupported construct: ${what}`, loc);
  }

  protected isAggregate(t: CType): boolean {
    return t.kind === 'array' || t.kind === 'record';
  }

  /**
   * Fills the subobjects of `t` from items[cursor.i...]. A braced level owns
   * its designators; an elided level (brace elision) stops at a designator.
   */
  protected fillObject(t: CType, items: RawItem[], cursor: InitCursor, braced: boolean, loc: SourceLocation): InitList {
    const entries = new Map<number, Initializer>();
    const isRecord = t.kind === 'record';
    const order = isRecord ? this.initFields((t as { record: RecordInfo }).record) : [];
    const limit = t.kind === 'array' ? t.length ?? Infinity : order.length;
    const isUnion = isRecord && (t as { record: RecordInfo }).record.union;
    const set = (index: number, init: Initializer, merge: boolean) => {
      const existing = entries.get(index);
      entries.delete(index);
      entries.set(index, merge && existing && existing.kind === 'InitList' && init.kind === 'InitList' ? this.mergeInit(existing, init) : init);
    };
    let pos = 0; // position in `order` (records) or array index
    let count = 0;
    while (cursor.i < items.length) {
      const item = items[cursor.i];
      // Designators still to apply for this item: the rest of a chain begun at an outer level, or its own.
      const pending = cursor.pending;
      const designators = this.throughAnonymous(t, pending ?? item.designators);
      if (designators.length) {
        // An item's own designators belong to the innermost braced level.
        if (!braced && pending === undefined) break;
        const d0 = designators[0];
        if (d0.kind === 'index' && d0.last !== undefined) {
          // GNU `[first ... last] = value`: the value initialises every element of the range.
          if (t.kind !== 'array') throw this.error('array index in non-array initializer', d0.loc);
          if (d0.last < d0.index || d0.index < 0n) throw this.error('empty index range in initializer', d0.loc);
          if (t.length !== undefined && d0.last >= BigInt(t.length)) throw this.error('array index range in initializer exceeds array bounds', d0.loc);
          if (d0.last - d0.index > 1_000_000n) throw this.unsupportedAt('an initializer range of more than a million elements', d0.loc);
          const sub = t.element;
          const value = item.value;
          for (let k = Number(d0.index); k <= Number(d0.last); k++) {
            const init: Initializer =
              designators.length > 1
                ? this.fillObject(sub, [{ designators: designators.slice(1), value }], { i: 0 }, true, designators[1].loc)
                : value.kind === 'RawList' || !this.isAggregate(sub) || this.initializesWhole(sub, value)
                  ? this.initialize(sub, value)
                  : this.fillObject(sub, [{ designators: [], value }], { i: 0 }, false, value.loc);
            set(k, init, designators.length > 1);
          }
          cursor.i++;
          cursor.pending = undefined;
          pos = Number(d0.last) + 1;
          count++;
          if (!braced && isUnion) break;
          continue;
        }
        const index = this.resolveDesignator(t, d0);
        pos = isRecord ? order.indexOf(index) : index;
        if (pos < 0) throw this.error('cannot initialize an unnamed bit-field', d0.loc);
        if (designators.length > 1) {
          // `.a.b = v, w`: the rest of the chain applies inside `.a`, and the items after it
          // continue there (as with brace elision) until `.a` is full or a designator comes.
          cursor.pending = designators.slice(1);
          const nested = this.fillObject(this.subobjectType(t, index), items, cursor, false, designators[1].loc);
          cursor.pending = undefined;
          set(index, nested, true);
          pos++;
          count++;
          if (!braced && isUnion) break;
          continue;
        }
        cursor.pending = [];
      } else if (pos >= limit || (isUnion && count > 0)) {
        if (!braced) break;
        // gcc: "excess elements in initializer" (a warning); the values are dropped.
        cursor.i++;
        cursor.pending = undefined;
        continue;
      }
      if (pos >= limit) throw this.error('array index in initializer exceeds array bounds', this.initLoc(item.value));
      const index = isRecord ? order[pos] : pos;
      const sub = this.subobjectType(t, index);
      const value = item.value;
      let init: Initializer;
      // Brace elision adds to what earlier designators put into the subobject (as gcc does);
      // a braced list or an expression replaces the whole subobject.
      const elided = value.kind !== 'RawList' && this.isAggregate(sub) && !this.initializesWhole(sub, value);
      if (elided) {
        init = this.fillObject(sub, items, cursor, false, this.initLoc(value));
      } else {
        init = this.initialize(sub, value);
        cursor.i++;
      }
      cursor.pending = undefined;
      set(index, init, elided);
      pos++;
      count++;
      if (!braced && isUnion) break;
    }
    const items2 = [...entries.entries()].sort((a, b) => a[0] - b[0]).map(([target, value]) => ({ target, value }));
    return { kind: 'InitList', loc, type: t, items: items2 };
  }

  protected initLoc(v: Expr | RawList): SourceLocation {
    return v.loc;
  }

  /** An expression that initialises an aggregate subobject as a whole (no brace elision). */
  protected initializesWhole(t: CType, e: Expr): boolean {
    if (t.kind === 'array') return e.kind === 'StringLiteral' && isInteger(t.element);
    if (t.kind === 'record') return e.type.kind === 'record' && e.type.record === t.record;
    return true;
  }

  protected mergeInit(a: InitList, b: InitList): InitList {
    const m = new Map<number, Initializer>(a.items.map((i) => [i.target, i.value]));
    for (const it of b.items) {
      const prev = m.get(it.target);
      m.set(it.target, prev && prev.kind === 'InitList' && it.value.kind === 'InitList' ? this.mergeInit(prev, it.value) : it.value);
    }
    return { ...a, items: [...m.entries()].sort((x, y) => x[0] - y[0]).map(([target, value]) => ({ target, value })) };
  }
}

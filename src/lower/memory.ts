/**
 * The memory model of the lowering.
 *
 * Every C object (a variable, a static local, a temporary for a struct
 * value) is a *root*. Its scalars are flattened into IMP variables ("leaves"):
 * `root.field.sub` for struct members; a leaf below an array becomes an IMP
 * map from a linear element index (bit-vector of pointer width) to the
 * scalar. A pointer leaf is two IMP variables: `leaf.base` (bv32, the id of a
 * *region*; 0 is NULL) and `leaf.off` (the element index in the region).
 *
 * A region is (root, field path): the sequence of scalars or structs of one
 * type stored there (all elements of the arrays on the path, flattened). A
 * pointer to a region's element k has base = region id, off = k; `*p`
 * becomes a case split over the regions whose element type is the pointee
 * type. Regions exist only for objects whose address is taken or which are
 * arrays that decay.
 *
 * A union of integers, floats and doubles is the exception to typed leaves:
 * it is one leaf `root.path.bytes`, a map from byte address to byte (see
 * unionPlace), so that its members see each other's bytes (a float member's
 * bytes are its IEEE bits, any NaN pattern for a NaN). A union with other
 * members (pointers) is a *tagged union*: each member's leaves, and a tag
 * leaf saying which member was written last (see unionCrossings).
 */
import type { CType, DataModel, FloatKind, IntegerKind, RecordInfo } from '../c/types.js';
import { intType, integerBits, integerKind, sizeOf, typeToString, unqualified } from '../c/types.js';
import type { BvWidth, Expr, ImpType } from '../ivl/ast.js';
import { bvType, mapType } from '../ivl/ast.js';
import { bv, type L } from './imp-build.js';
import { floatImpType } from './float.js';

export class UnsupportedError extends Error {
  constructor(
    readonly construct: string,
    readonly loc: L,
  ) {
    super(construct);
  }
}

export interface Root {
  /** IMP name prefix of the object's leaves. */
  readonly name: string;
  readonly type: CType;
  /**
   * How the object lives (memory-safety properties): `static` objects live
   * for the whole run (globals, static locals, string literals), `heap`
   * blocks from malloc until free, `alloca` blocks until their function
   * returns; absent: an automatic variable (its block or call).
   */
  readonly storage?: 'static' | 'literal' | 'heap' | 'alloca';
  /** For an allocated block (type: array of unknown length): the IMP variable holding its element count. */
  readonly countVar?: string;
  /**
   * An allocation site inside a loop: one root for all its blocks. Block b
   * occupies the elements [b·2^shift, (b+1)·2^shift) of the leaf maps (the
   * pointer's offset says which block); per block an element count and a
   * liveness flag (maps), the number of blocks made and of blocks live.
   */
  readonly blocks?: { readonly made: string; readonly counts: string; readonly lives: string; readonly alive: string; readonly shift: number };
  /**
   * A block allocated without a type (`void *p = malloc(n)`, the result
   * never converted to a typed pointer where it is made): an object of
   * `unsigned char` elements, its bytes (see ConversionLowering.fromVoid).
   */
  readonly untyped?: boolean;
}

/** One possible place an lvalue designates; `guard` says when it is this one (absent: always). */
export interface Alt {
  readonly guard?: Expr;
  readonly root: Root;
  readonly path: readonly string[];
  /** Linear index of the element within the leaf maps (undefined: 0 / not below an array). */
  readonly index?: Expr;
  /** Reached through a pointer (memory-safety properties): when the pointer designates this object. */
  readonly via?: Expr;
  /** Reached through a view (see Region.view): the index counts the view's elements. */
  readonly view?: View;
  /** Reached through a pointer (its index may have left the part of the object it was taken from). */
  readonly fromPointer?: boolean;
}

/**
 * An integer region seen through a pointer to a smaller or differently
 * signed integer type (`(unsigned char *)&x`): `k` view elements per stored
 * element, the view element j of stored element i at bits [8·size·(j), ...)
 * of i, little-endian.
 */
export interface View {
  readonly k: number;
  readonly elem: CType;
}

/** A C rvalue in IMP. */
export type Val =
  | { readonly k: 'int'; readonly e: Expr; readonly ik: IntegerKind }
  | { readonly k: 'float'; readonly e: Expr; readonly fk: FloatKind }
  | { readonly k: 'ptr'; readonly base: Expr; readonly off: Expr; readonly pointee: CType }
  | { readonly k: 'agg'; readonly lv: LValue }
  | { readonly k: 'void' };

export interface LValue {
  readonly type: CType;
  readonly alts: readonly Alt[];
}

export interface Region {
  readonly id: number;
  readonly root: Root;
  readonly path: readonly string[];
  /** The type of the region's elements (arrays on the path stripped; a view's element type). */
  readonly elem: CType;
  /** The stored elements' bytes seen as elements of another integer type. */
  readonly view?: View;
}

export function regionKey(root: Root, path: readonly string[], view?: View): string {
  return `${root.name}|${path.join('.')}${view ? `#${view.k}:${typeToString(view.elem)}` : ''}`;
}

export function stripArrays(t: CType): CType {
  let u = unqualified(t);
  while (u.kind === 'array') u = unqualified(u.element);
  return u;
}

export function ptrWidth(dm: DataModel): BvWidth {
  return dm === 'LP64' ? 64 : 32;
}

export function intWidth(k: IntegerKind, dm: DataModel, loc: L): BvWidth {
  const w = integerBits(k, dm);
  if (w === 128) throw new UnsupportedError('__int128 arithmetic', loc);
  return w as BvWidth;
}

export function intKindOf(t: CType): IntegerKind | undefined {
  const u = unqualified(t);
  if (u.kind === 'integer' || u.kind === 'enum') return integerKind(u);
  return undefined;
}

/** The type at a field path below a root type (arrays are looked through), and whether an array was crossed. */
export function typeAtPath(rootType: CType, path: readonly string[], loc: L): { type: CType; mapped: boolean } {
  let t = unqualified(rootType);
  let mapped = false;
  for (const f of path) {
    while (t.kind === 'array') {
      mapped = true;
      t = unqualified(t.element);
    }
    if (t.kind !== 'record') throw new UnsupportedError(`member access on a non-struct`, loc);
    if (f === UNION_TAG && t.record.union) {
      t = UNION_TAG_TYPE;
      continue;
    }
    const field = t.record.fields?.find((x) => x.name === f);
    if (!field) throw new UnsupportedError(`member '${f}' not found`, loc);
    t = unqualified(field.type);
  }
  while (t.kind === 'array') {
    mapped = true;
    t = unqualified(t.element);
  }
  return { type: t, mapped };
}

/**
 * Where a region's elements lie in memory, for pointer arithmetic and
 * indexes, which the model counts in the region's elements:
 * - `run`: set when a struct member is selected below an array (the member
 *   of every element of an array of structs) and the member does not fill
 *   its struct: only runs of `run` consecutive elements (the member's own
 *   array) are adjacent in memory; moving further reaches other members'
 *   bytes, which the model would not;
 * - `member`: set for a part of a struct that no array encloses (`s.a`,
 *   `s.buf`): its byte offset in the object, the object's size, the size of
 *   one element and the number of elements; an index past the part reaches
 *   the neighbouring members' bytes (or leaves the object).
 */
export interface RegionLayout {
  readonly run?: number;
  readonly member?: { readonly name: string; readonly offset: number; readonly objectSize: number; readonly elemSize: number; readonly count: number };
}

export function regionLayout(rootType: CType, path: readonly string[], dm: DataModel): RegionLayout {
  let t = unqualified(rootType);
  let belowArray = false;
  let broken = false;
  let offset = 0;
  for (const f of path) {
    while (t.kind === 'array') {
      belowArray = true;
      t = unqualified(t.element);
    }
    if (t.kind !== 'record') return {};
    const field = t.record.fields?.find((x) => x.name === f);
    if (!field) return {};
    if (belowArray && sizeOf(field.type, dm) !== sizeOf(t, dm)) broken = true;
    offset += field.offset;
    t = unqualified(field.type);
  }
  let count: number | undefined = 1;
  while (t.kind === 'array') {
    count = t.length === undefined || count === undefined ? undefined : count * Number(t.length);
    t = unqualified(t.element);
  }
  if (broken) return { run: count ?? 1 };
  const objectSize = sizeOf(rootType, dm);
  const elemSize = sizeOf(t, dm);
  if (path.length === 0 || belowArray || count === undefined || objectSize === undefined || !elemSize) return {};
  return { member: { name: path[path.length - 1]!, offset, objectSize, elemSize, count } };
}

/** A scalar leaf of an object: its IMP variable name(s) and types. */
export interface Leaf {
  /** Field path from the root. */
  readonly path: readonly string[];
  /** The scalar's C type (integer, enum or pointer). */
  readonly type: CType;
  readonly mapped: boolean;
  /** Number of elements of the leaf map (product of the array lengths), undefined when unknown. */
  readonly count?: number;
  /** A union: one byte map (see unionPlace); `count` is the number of unions, `mapped` is always true. */
  readonly bytes?: boolean;
}

// ---- pthread objects ---------------------------------------------------------

/**
 * What a pthread object is to the model: a `mutex` (its leaf holds the
 * owning thread, 0 when free), a `cond`ition variable, or an `opaque` object
 * (attributes) whose contents no modelled operation reads.
 */
export type SyncKind = 'mutex' | 'cond' | 'opaque';

// glibc declares these types as unions of structs with pointers (layouts the
// model cannot hold); their contents are private to the library, so each
// object is one integer leaf, its state, whatever the declared layout.
const SYNC_RECORDS = new WeakMap<RecordInfo, SyncKind>();

/** The C type of a pthread object's leaf. */
export const SYNC_STATE_TYPE: CType = intType('uint');

/** Makes every object of the struct or union `record` one leaf of kind `kind` (see SyncKind). */
export function markSyncRecord(record: RecordInfo, kind: SyncKind): void {
  SYNC_RECORDS.set(record, kind);
}

/** The pthread object kind of a type, if it is one. */
export function syncKindOf(t: CType): SyncKind | undefined {
  const u = unqualified(t);
  return u.kind === 'record' ? SYNC_RECORDS.get(u.record) : undefined;
}

/** All scalar leaves of a C type (struct members flattened, arrays turned into maps). */
export function leavesOf(t: CType, loc: L, path: readonly string[] = [], mapped = false, count = 1): Leaf[] {
  const u = unqualified(t);
  switch (u.kind) {
    case 'integer':
    case 'enum':
    case 'pointer':
    case 'float':
      return [{ path, type: u, mapped, count: mapped ? count : undefined }];
    case 'array': {
      const n = u.length;
      return leavesOf(u.element, loc, path, true, n === undefined || u.vla ? NaN : count * n).map((l) =>
        Number.isNaN(l.count) ? { ...l, count: undefined } : l,
      );
    }
    case 'record': {
      if (SYNC_RECORDS.has(u.record)) return [{ path, type: SYNC_STATE_TYPE, mapped, count: mapped ? count : undefined }];
      if (u.record.union && byteable(u)) return [{ path, type: u, mapped: true, count: mapped ? count : 1, bytes: true }];
      if (!u.record.fields) throw new UnsupportedError('incomplete struct type', loc);
      const out: Leaf[] = [];
      // A tagged union: its members' leaves and the tag.
      if (u.record.union) out.push({ path: [...path, UNION_TAG], type: UNION_TAG_TYPE, mapped, count: mapped ? count : undefined });
      for (const f of u.record.fields) {
        if (f.name === undefined) throw new UnsupportedError('anonymous struct member', loc);
        if (f.bitWidth !== undefined) throw new UnsupportedError('bit-field', loc);
        out.push(...leavesOf(f.type, loc, [...path, f.name], mapped, count));
      }
      return out;
    }
    case 'void':
      throw new UnsupportedError('object of type void', loc);
    case 'function':
      throw new UnsupportedError('function object', loc);
  }
}

export function leafName(root: Root, path: readonly string[]): string {
  return root.name + path.map((p) => '.' + p).join('');
}

/** The zero of a scalar part's IMP type (0, +0.0). */
export function zeroOf(t: ImpType, loc: L): Expr {
  if (t.kind === 'float') return { kind: 'float_lit', bits: 0n, eb: t.eb, sb: t.sb, loc };
  return bv(0n, (t as { width: BvWidth }).width, loc);
}

/** IMP types of the scalar parts of a leaf: [suffix, type] ('' for integers and floats, '.base'/'.off' for pointers, '.bytes' for a union). */
export function scalarParts(t: CType, dm: DataModel, loc: L): Array<[string, ImpType]> {
  const u = unqualified(t);
  if (u.kind === 'record' && u.record.union) return [['.bytes', bvType(8)]];
  if (u.kind === 'pointer') {
    return [
      ['.base', bvType(32)],
      ['.off', bvType(ptrWidth(dm))],
    ];
  }
  if (u.kind === 'float') return [['', floatImpType(u.name)]];
  const k = intKindOf(u);
  if (k === undefined) throw new UnsupportedError(`scalar of type ${u.kind}`, loc);
  return [['', bvType(intWidth(k, dm, loc))]];
}

export function leafImpType(part: ImpType, mapped: boolean, dm: DataModel): ImpType {
  return mapped ? mapType(bvType(ptrWidth(dm)), part) : part;
}

// ---- unions: byte maps and tagged unions ------------------------------------

/** The tag leaf's name below a tagged union: not a C identifier. */
export const UNION_TAG = '$member';
const UNION_TAG_TYPE: CType = intType('uchar');
/** Tag values: nothing written since the union began (or was copied whole from such a one), and members written in parts of different members. */
export const TAG_FRESH = 0;
export const TAG_MIXED = 255;

/** A union kept as its members (not a byte map): one with a pointer member, a long double or anything else not byteable. */
export function taggedUnion(t: CType): boolean {
  const u = unqualified(t);
  return u.kind === 'record' && !!u.record.union && !SYNC_RECORDS.has(u.record) && !byteable(u);
}

/**
 * The tagged unions an access path crosses, outermost first: where the tag
 * is (its path; mapped when arrays enclose the union), the member taken (its
 * number, from 1), whether the access covers that whole member (it ends
 * there, not inside an array), and the number of elements of the arrays
 * below the union on the path (an access's linear index over them divided by
 * this is the union's).
 *
 * The tag says which member holds the union's value: TAG_FRESH (none was
 * written: every member reads as what it holds, the zeros of a static union
 * or arbitrary values), member m (m was written last; writes inside m keep
 * it m), TAG_MIXED (parts of different members were written). Reading a
 * member other than the tag's would reinterpret another member's bytes,
 * which the model does not do: UNKNOWN there, never a wrong value.
 */
export function unionCrossings(rootType: CType, path: readonly string[], loc: L): UnionCrossing[] {
  const out: Array<{ tagPath: readonly string[]; member: number; whole: boolean; inner: number }> = [];
  let t = stripArrays(rootType);
  for (let i = 0; i < path.length; i++) {
    if (t.kind !== 'record') break;
    const fields = t.record.fields ?? [];
    const m = fields.findIndex((x) => x.name === path[i]);
    if (m < 0) break;
    let ft = unqualified(fields[m]!.type);
    if (taggedUnion(t)) out.push({ tagPath: [...path.slice(0, i), UNION_TAG], member: m + 1, whole: i === path.length - 1 && ft.kind !== 'array', inner: 1 });
    let n = 1;
    while (ft.kind === 'array') {
      if (ft.length === undefined || ft.vla) throw new UnsupportedError('an array of unknown length in a union with pointer members', loc);
      n *= ft.length;
      ft = unqualified(ft.element);
    }
    for (const c of out) c.inner *= n;
    t = ft;
  }
  return out;
}

export interface UnionCrossing {
  readonly tagPath: readonly string[];
  readonly member: number;
  readonly whole: boolean;
  readonly inner: number;
}

/** Whether a type is made of integers, floats and doubles only (arrays and structs of them), so its bytes say everything. */
function byteable(t: CType): boolean {
  const u = unqualified(t);
  if (u.kind === 'integer' || u.kind === 'enum' || (u.kind === 'float' && u.name !== 'longdouble')) return true;
  if (u.kind === 'array') return u.length !== undefined && !u.vla && byteable(u.element);
  if (u.kind === 'record') return !!u.record.fields && u.record.fields.every((f) => f.name !== undefined && f.bitWidth === undefined && byteable(f.type));
  return false;
}

/**
 * Where a scalar below a union lies in the union's byte map. A union object
 * is one leaf `<path to the union>.bytes`: a map from byte address to byte,
 * the union at linear index k (over the arrays around it) at bytes
 * [k·size, (k+1)·size). A member scalar is read and written little-endian
 * at its byte offset, so every member sees the bytes the others wrote.
 * `path` is the full path of the access; the linear element index of its
 * region splits into the union's index (outer) and the index over the arrays
 * inside the union (inner, row-major). Undefined when no union is crossed.
 */
export function unionPlace(
  rootType: CType,
  path: readonly string[],
  dm: DataModel,
  loc: L,
): { unionPath: readonly string[]; size: number; innerCount: number; offset: number; strides: Array<{ length: number; stride: number }> } | undefined {
  let t = stripArrays(rootType);
  for (let i = 0; i < path.length; i++) {
    if (t.kind !== 'record') return undefined;
    if (t.record.union && byteable(t)) {
      const size = t.record.size;
      if (size === undefined) throw new UnsupportedError('union of unknown size', loc);
      let cur: CType = t;
      let offset = 0;
      const strides: Array<{ length: number; stride: number }> = [];
      for (const f of path.slice(i)) {
        const c = unqualified(cur);
        const field = c.kind === 'record' ? c.record.fields?.find((x) => x.name === f) : undefined;
        if (!field) throw new UnsupportedError(`member '${f}' not found`, loc);
        offset += field.offset;
        let ft = unqualified(field.type);
        while (ft.kind === 'array') {
          strides.push({ length: ft.length!, stride: sizeOf(ft.element, dm)! });
          ft = unqualified(ft.element);
        }
        cur = ft;
      }
      return { unionPath: path.slice(0, i), size, innerCount: strides.reduce((p, x) => p * x.length, 1), offset, strides };
    }
    const field = t.record.fields?.find((x) => x.name === path[i]);
    if (!field) return undefined;
    t = stripArrays(field.type);
  }
  return undefined;
}

/**
 * The members at offset 0 reached from a struct type through first members
 * (`struct item { struct list_head link; ... }`: `link`, then link's first
 * member, ...): a pointer to the struct and one to such a member are the
 * same address. Arrays and unions end the chain (their elements are not
 * stored at the struct's index).
 */
export function firstMembers(t: CType): Array<{ path: readonly string[]; type: CType }> {
  const out: Array<{ path: readonly string[]; type: CType }> = [];
  let u = unqualified(t);
  const path: string[] = [];
  while (u.kind === 'record' && !u.record.union && u.record.fields?.length) {
    const f = u.record.fields[0]!;
    if (f.name === undefined || f.bitWidth !== undefined || f.offset !== 0) break;
    const ft = unqualified(f.type);
    if (ft.kind === 'array' || (ft.kind === 'record' && ft.record.union)) break;
    path.push(f.name);
    out.push({ path: [...path], type: ft });
    u = ft;
  }
  return out;
}

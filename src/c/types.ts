/**
 * C types as the front end computes them, with sizes and alignments per data
 * model exactly as gcc on x86 (`-m32` for ILP32, `-m64` for LP64).
 *
 * Types are plain immutable values, except the record and enum descriptors,
 * which are shared (nominal) and completed when their definition is seen.
 */
import type { SourceLocation } from '../common/location.js';

import type { DataModel } from '../common/data-model.js';

export type { DataModel };

export interface TypeQualifiers {
  readonly const?: boolean;
  readonly volatile?: boolean;
  readonly restrict?: boolean;
  readonly atomic?: boolean;
}

/** Integer kinds in rank order (`char` is its own kind; it is signed on x86). */
export type IntegerKind =
  | 'bool'
  | 'char'
  | 'schar'
  | 'uchar'
  | 'short'
  | 'ushort'
  | 'int'
  | 'uint'
  | 'long'
  | 'ulong'
  | 'longlong'
  | 'ulonglong'
  | 'int128'
  | 'uint128';

export type FloatKind = 'float' | 'double' | 'longdouble';

interface TypeBase {
  readonly qualifiers?: TypeQualifiers;
  /** The typedef name this type was written as, for display only. */
  readonly typedefName?: string;
  /** An alignment raised by `__attribute__((aligned(N)))` on a typedef. */
  readonly alignment?: number;
}

export interface VoidType extends TypeBase {
  readonly kind: 'void';
}

export interface IntegerType extends TypeBase {
  readonly kind: 'integer';
  readonly name: IntegerKind;
}

export interface FloatType extends TypeBase {
  readonly kind: 'float';
  readonly name: FloatKind;
}

export interface PointerType extends TypeBase {
  readonly kind: 'pointer';
  readonly pointee: CType;
}

export interface ArrayType extends TypeBase {
  readonly kind: 'array';
  readonly element: CType;
  /** Number of elements when constant; undefined for `[]` and for VLAs. */
  readonly length?: number;
  /** True for a variable-length array (the size expression is in the declarator's AST). */
  readonly vla?: boolean;
}

export interface FunctionParam {
  readonly name?: string;
  readonly type: CType;
}

export interface FunctionType extends TypeBase {
  readonly kind: 'function';
  readonly returnType: CType;
  readonly params: readonly FunctionParam[];
  readonly variadic: boolean;
  /** False for old-style `int f()` declarations whose parameters are unknown. */
  readonly prototyped: boolean;
}

export interface RecordField {
  /** Undefined for an anonymous struct/union member or an unnamed bit-field. */
  readonly name?: string;
  readonly type: CType;
  /** Byte offset of the storage unit (for bit-fields: of the byte that holds bit 0 of the field's unit). */
  readonly offset: number;
  /** For bit-fields: the width in bits and the bit offset from `offset * 8`. */
  readonly bitWidth?: number;
  readonly bitOffset?: number;
  readonly loc?: SourceLocation;
}

/** Shared descriptor of a struct or union; `fields` is set when complete. */
export interface RecordInfo {
  readonly id: number;
  readonly union: boolean;
  readonly tag?: string;
  fields?: readonly RecordField[];
  size?: number;
  align?: number;
  /** `__attribute__((packed))` */
  packed?: boolean;
  loc?: SourceLocation;
}

export interface RecordType extends TypeBase {
  readonly kind: 'record';
  readonly record: RecordInfo;
}

export interface EnumInfo {
  readonly id: number;
  readonly tag?: string;
  constants?: ReadonlyArray<{ readonly name: string; readonly value: bigint }>;
  /** The compatible integer type gcc picks (`uint` when no value is negative, else `int`, wider when needed). */
  underlying: IntegerKind;
  loc?: SourceLocation;
}

export interface EnumType extends TypeBase {
  readonly kind: 'enum';
  readonly info: EnumInfo;
}

export type CType =
  | VoidType
  | IntegerType
  | FloatType
  | PointerType
  | ArrayType
  | FunctionType
  | RecordType
  | EnumType;

// ---- constructors -------------------------------------------------------

export const voidType: VoidType = { kind: 'void' };
export function intType(name: IntegerKind): IntegerType {
  return INTS[name];
}
export function floatType(name: FloatKind): FloatType {
  return { kind: 'float', name };
}
export function pointerTo(pointee: CType): PointerType {
  return { kind: 'pointer', pointee };
}
export function arrayOf(element: CType, length?: number, vla = false): ArrayType {
  return vla ? { kind: 'array', element, vla } : length === undefined ? { kind: 'array', element } : { kind: 'array', element, length };
}

const INTS = Object.fromEntries(
  (
    ['bool', 'char', 'schar', 'uchar', 'short', 'ushort', 'int', 'uint', 'long', 'ulong', 'longlong', 'ulonglong', 'int128', 'uint128'] as const
  ).map((n) => [n, { kind: 'integer', name: n } as IntegerType]),
) as Record<IntegerKind, IntegerType>;

/** The type without qualifiers and typedef name. */
export function unqualified(t: CType): CType {
  if (!t.qualifiers && !t.typedefName) return t;
  const { qualifiers: _q, typedefName: _n, ...rest } = t;
  return rest as CType;
}

export function withQualifiers(t: CType, q: TypeQualifiers | undefined): CType {
  if (!q || !(q.const || q.volatile || q.restrict || q.atomic)) return t;
  const merged: TypeQualifiers = { ...t.qualifiers, ...q };
  if (t.kind === 'array') {
    // Qualifiers on an array type apply to its elements (C11 6.7.3p9).
    return { ...t, element: withQualifiers(t.element, q) };
  }
  return { ...t, qualifiers: merged } as CType;
}

// ---- classification -----------------------------------------------------

export function isInteger(t: CType): t is IntegerType | EnumType {
  return t.kind === 'integer' || t.kind === 'enum';
}
export function isArithmetic(t: CType): boolean {
  return t.kind === 'integer' || t.kind === 'enum' || t.kind === 'float';
}
export function isScalar(t: CType): boolean {
  return isArithmetic(t) || t.kind === 'pointer';
}
export function isVoid(t: CType): boolean {
  return t.kind === 'void';
}

/** The integer kind of an integer or enum type. */
export function integerKind(t: IntegerType | EnumType): IntegerKind {
  return t.kind === 'enum' ? t.info.underlying : t.name;
}

const RANK: Record<IntegerKind, number> = {
  bool: 0, char: 1, schar: 1, uchar: 1, short: 2, ushort: 2, int: 3, uint: 3,
  long: 4, ulong: 4, longlong: 5, ulonglong: 5, int128: 6, uint128: 6,
};
export function integerRank(k: IntegerKind): number {
  return RANK[k];
}

export function isSignedKind(k: IntegerKind): boolean {
  return k === 'char' || k === 'schar' || k === 'short' || k === 'int' || k === 'long' || k === 'longlong' || k === 'int128';
}

export function toUnsignedKind(k: IntegerKind): IntegerKind {
  switch (k) {
    case 'char': case 'schar': return 'uchar';
    case 'short': return 'ushort';
    case 'int': return 'uint';
    case 'long': return 'ulong';
    case 'longlong': return 'ulonglong';
    case 'int128': return 'uint128';
    default: return k;
  }
}

/** Width in bits of an integer kind under a data model (`bool` is 8 bits of storage, 1 of value). */
export function integerBits(k: IntegerKind, dm: DataModel): number {
  switch (k) {
    case 'bool': case 'char': case 'schar': case 'uchar': return 8;
    case 'short': case 'ushort': return 16;
    case 'int': case 'uint': return 32;
    case 'long': case 'ulong': return dm === 'LP64' ? 64 : 32;
    case 'longlong': case 'ulonglong': return 64;
    case 'int128': case 'uint128': return 128;
  }
}

/** Inclusive value range of an integer kind. */
export function integerRange(k: IntegerKind, dm: DataModel): { min: bigint; max: bigint } {
  if (k === 'bool') return { min: 0n, max: 1n };
  const bits = BigInt(integerBits(k, dm));
  return isSignedKind(k)
    ? { min: -(1n << (bits - 1n)), max: (1n << (bits - 1n)) - 1n }
    : { min: 0n, max: (1n << bits) - 1n };
}

/** Wraps a value into the range of an integer kind (two's complement, as gcc does). */
export function wrapInteger(v: bigint, k: IntegerKind, dm: DataModel): bigint {
  if (k === 'bool') return v !== 0n ? 1n : 0n;
  const bits = integerBits(k, dm);
  return isSignedKind(k) ? BigInt.asIntN(bits, v) : BigInt.asUintN(bits, v);
}

/** `size_t` and `ptrdiff_t` of a data model. */
export function sizeTKind(dm: DataModel): IntegerKind {
  return dm === 'LP64' ? 'ulong' : 'uint';
}
export function ptrdiffTKind(dm: DataModel): IntegerKind {
  return dm === 'LP64' ? 'long' : 'int';
}

// ---- sizes and alignments ----------------------------------------------

/** `sizeof` in bytes; undefined for incomplete types, functions and VLAs (gcc gives 1 for void and functions). */
export function sizeOf(t: CType, dm: DataModel): number | undefined {
  switch (t.kind) {
    case 'void': return 1; // GNU extension
    case 'function': return 1; // GNU extension
    case 'integer': return integerBits(t.name, dm) / 8;
    case 'enum': return t.info.constants ? integerBits(t.info.underlying, dm) / 8 : undefined;
    case 'float': return t.name === 'float' ? 4 : t.name === 'double' ? 8 : dm === 'LP64' ? 16 : 12;
    case 'pointer': return dm === 'LP64' ? 8 : 4;
    case 'array': {
      if (t.vla || t.length === undefined) return undefined;
      const e = sizeOf(t.element, dm);
      return e === undefined ? undefined : e * t.length;
    }
    case 'record': return t.record.size;
  }
}

/** `_Alignof` in bytes as gcc reports it (`__alignof__(double)` is 8 on i386, but 4 inside structs). */
export function alignOf(t: CType, dm: DataModel): number {
  if (t.alignment !== undefined) return Math.max(t.alignment, naturalAlignOf(t, dm));
  return naturalAlignOf(t, dm);
}

function naturalAlignOf(t: CType, dm: DataModel): number {
  switch (t.kind) {
    case 'void': case 'function': return 1;
    case 'integer': {
      const b = integerBits(t.name, dm) / 8;
      return b;
    }
    case 'enum': return integerBits(t.info.underlying, dm) / 8;
    case 'float': return t.name === 'float' ? 4 : t.name === 'double' ? 8 : dm === 'LP64' ? 16 : 4;
    case 'pointer': return dm === 'LP64' ? 8 : 4;
    case 'array': return alignOf(t.element, dm);
    case 'record': return t.record.align ?? 1;
  }
}

/**
 * Alignment of a type when it is a struct member: the i386 System V ABI
 * aligns `double`, `long long` and `long double` members to 4 bytes.
 */
export function fieldAlignOf(t: CType, dm: DataModel): number {
  if (t.alignment !== undefined) return Math.max(t.alignment, fieldAlignOf({ ...t, alignment: undefined } as CType, dm));
  if (dm === 'ILP32') {
    if (t.kind === 'float' && t.name !== 'float') return 4;
    if (t.kind === 'integer' && (t.name === 'longlong' || t.name === 'ulonglong')) return 4;
    if (t.kind === 'array') return fieldAlignOf(t.element, dm);
  }
  return alignOf(t, dm);
}

export interface FieldDeclaration {
  readonly name?: string;
  readonly type: CType;
  readonly bitWidth?: number;
  /** `__attribute__((aligned(N)))` on the member. */
  readonly alignAttr?: number;
  /** `__attribute__((packed))` on the member. */
  readonly packed?: boolean;
  readonly loc?: SourceLocation;
}

/**
 * Lays out a struct or union the way gcc does on x86 (System V ABI):
 * bit-fields are packed into units of their declared type and never straddle
 * a unit boundary; zero-width bit-fields align to their type; unnamed
 * bit-fields do not affect the record's alignment.
 */
export function layoutRecord(
  union: boolean,
  members: readonly FieldDeclaration[],
  dm: DataModel,
  opts: { packed?: boolean; alignAttr?: number; /** `#pragma pack(N)` in effect */ maxAlign?: number } = {},
): { fields: RecordField[]; size: number; align: number } {
  const fields: RecordField[] = [];
  let bit = 0; // current position in bits (struct)
  let maxBits = 0; // union size in bits
  let align = 1;
  for (const m of members) {
    const size = sizeOf(m.type, dm) ?? 0; // flexible array members have size 0
    let a = opts.packed || m.packed ? 1 : fieldAlignOf(m.type, dm);
    if (opts.maxAlign !== undefined) a = Math.min(a, opts.maxAlign);
    if (m.alignAttr) a = Math.max(a, m.alignAttr);
    if (m.bitWidth !== undefined) {
      const unitBits = size * 8;
      const w = m.bitWidth;
      if (w === 0) {
        if (!union) bit = Math.ceil(bit / (a * 8)) * (a * 8);
        continue;
      }
      let start = union ? 0 : bit;
      // Under `packed` or any `#pragma pack`, gcc packs bit-fields without the unit rule.
      if (!opts.packed && !m.packed && opts.maxAlign === undefined) {
        // gcc: the field must fit in a unit of its type's size that starts at a
        // multiple of the type's (field) alignment; else it moves to the next one.
        if ((start % (a * 8)) + w > unitBits) start = Math.ceil(start / (a * 8)) * (a * 8);
      }
      if (m.name !== undefined) align = Math.max(align, a);
      const byte = Math.floor(start / 8);
      fields.push({ name: m.name, type: m.type, offset: byte, bitWidth: w, bitOffset: start - byte * 8, loc: m.loc });
      if (union) maxBits = Math.max(maxBits, w);
      else bit = start + w;
      continue;
    }
    align = Math.max(align, a);
    if (union) {
      fields.push({ name: m.name, type: m.type, offset: 0, loc: m.loc });
      maxBits = Math.max(maxBits, size * 8);
    } else {
      const off = Math.ceil(Math.ceil(bit / 8) / a) * a;
      fields.push({ name: m.name, type: m.type, offset: off, loc: m.loc });
      bit = (off + size) * 8;
    }
  }
  if (opts.alignAttr) align = Math.max(align, opts.alignAttr);
  const bytes = Math.ceil((union ? maxBits : bit) / 8);
  return { fields, size: Math.ceil(bytes / align) * align, align };
}

// ---- comparison and printing -------------------------------------------

/** Type compatibility ignoring top-level qualifiers (C11 6.2.7, simplified for checking). */
export function sameType(a: CType, b: CType): boolean {
  if (a === b) return true;
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'void': return true;
    case 'integer': return a.name === (b as IntegerType).name;
    case 'float': return a.name === (b as FloatType).name;
    case 'pointer': {
      const pb = (b as PointerType).pointee;
      return sameType(a.pointee, pb) && !!a.pointee.qualifiers?.const === !!pb.qualifiers?.const;
    }
    case 'array': {
      const bb = b as ArrayType;
      return sameType(a.element, bb.element) && (a.length === undefined || bb.length === undefined || a.length === bb.length);
    }
    case 'function': {
      const fb = b as FunctionType;
      if (!sameType(a.returnType, fb.returnType)) return false;
      if (!a.prototyped || !fb.prototyped) return true;
      return a.variadic === fb.variadic && a.params.length === fb.params.length && a.params.every((p, i) => sameType(p.type, fb.params[i].type));
    }
    case 'record': return a.record === (b as RecordType).record;
    case 'enum': return a.info === (b as EnumType).info;
  }
}

const INT_NAMES: Record<IntegerKind, string> = {
  bool: '_Bool', char: 'char', schar: 'signed char', uchar: 'unsigned char', short: 'short', ushort: 'unsigned short',
  int: 'int', uint: 'unsigned int', long: 'long', ulong: 'unsigned long', longlong: 'long long',
  ulonglong: 'unsigned long long', int128: '__int128', uint128: 'unsigned __int128',
};

export function integerKindName(k: IntegerKind): string {
  return INT_NAMES[k];
}

/** C spelling of a type, e.g. `int (*)[4]`, `struct s *`, `unsigned long`. */
export function typeToString(t: CType, inner = ''): string {
  const q = t.qualifiers;
  const quals = q ? [q.const && 'const', q.volatile && 'volatile', q.restrict && 'restrict', q.atomic && '_Atomic'].filter(Boolean).join(' ') : '';
  const pre = (base: string) => (quals ? `${quals} ${base}` : base) + (inner ? ` ${inner}` : '');
  switch (t.kind) {
    case 'void': return pre('void');
    case 'integer': return pre(INT_NAMES[t.name]);
    case 'float': return pre(t.name === 'longdouble' ? 'long double' : t.name);
    case 'record': return pre(`${t.record.union ? 'union' : 'struct'} ${t.record.tag ?? `<anonymous#${t.record.id}>`}`);
    case 'enum': return pre(`enum ${t.info.tag ?? `<anonymous#${t.info.id}>`}`);
    case 'pointer': {
      const star = '*' + (quals ? ` ${quals}` : '') + (inner ? (quals ? ' ' : '') + inner : '');
      const needParens = t.pointee.kind === 'array' || t.pointee.kind === 'function';
      return typeToString(t.pointee, needParens ? `(${star})` : star);
    }
    case 'array': return typeToString(t.element, `${inner}[${t.vla ? '*' : t.length ?? ''}]`);
    case 'function': {
      const ps = t.params.map((p) => typeToString(p.type));
      if (t.variadic) ps.push('...');
      const list = ps.length ? ps.join(', ') : t.prototyped ? 'void' : '';
      return typeToString(t.returnType, `${inner}(${list})`);
    }
  }
}

/**
 * The C parser: tokens to the typed AST, typedef-aware, with scopes. It
 * parses GNU C11 as gcc accepts it for the competition's programs and calls
 * the semantic rules (sema.ts) as it goes, so that every expression it
 * returns is typed and every identifier resolved.
 */
import { TarsierError } from '../common/errors.js';
import type { SourceLocation } from '../common/location.js';
import type {
  BlockItem,
  CaseStmt,
  CompoundStmt,
  Declaration,
  Declarator,
  DefaultStmt,
  Designator,
  EnumConstantDecl,
  Expr,
  ExternalDeclaration,
  FunctionDecl,
  Initializer,
  InitList,
  Stmt,
  StorageClass,
  TypedefDecl,
  VarDecl,
  VerifierBuiltin,
} from './ast.js';
import { isLvalue } from './ast.js';
import { decodeEscapes, type PackChange, type SourceMap, type Token } from './lexer.js';
import { Sema, typeError } from './sema.js';
import { Scope, keyOf, endKeyOf, type ScopedName, type OrdinaryEntry } from './scope.js';
import {
  type CType,
  type DataModel,
  type EnumInfo,
  type FieldDeclaration,
  type FunctionParam,
  type FunctionType,
  type IntegerKind,
  type RecordField,
  type RecordInfo,
  type TypeQualifiers,
  alignOf,
  arrayOf,
  fieldAlignOf,
  floatType,
  intType,
  integerKind,
  isArithmetic,
  isInteger,
  isScalar,
  layoutRecord,
  pointerTo,
  sameType,
  sizeOf,
  sizeTKind,
  typeToString,
  unqualified,
  voidType,
  withQualifiers,
} from './types.js';

// ---- raw initializers (before they meet their type) -------------------------

interface RawList {
  readonly kind: 'RawList';
  readonly loc: SourceLocation;
  readonly items: RawItem[];
}
type RawDesignator = { kind: 'field'; name: string; loc: SourceLocation } | { kind: 'index'; index: bigint; last?: bigint; loc: SourceLocation };
/** Position in a brace list while filling an object: the item, and designators of it still to apply. */
interface InitCursor {
  i: number;
  pending?: RawDesignator[];
}

interface RawItem {
  designators: RawDesignator[];
  readonly value: Expr | RawList;
}

interface DeclSpecs {
  type: CType;
  storage: StorageClass;
  inline: boolean;
  noreturn: boolean;
  start: number;
  /** True when a struct/union/enum was declared or defined by the specifiers. */
  declaresTag: boolean;
  /** No type specifier at all (implicit int). */
  implicitInt: boolean;
  attrs: Attribute[];
  /** GNU `__auto_type`: the declared type is the initializer's. */
  autoType?: boolean;
}

interface Attribute {
  readonly name: string;
  readonly value?: bigint;
  /** `mode(QI|HI|SI|DI|TI|word|pointer)` */
  readonly mode?: string;
}

interface DeclaratorInfo {
  name?: string;
  nameTok?: Token;
  derive: (base: CType) => CType;
  /** Parameters of the function declarator applied directly to the name. */
  params?: VarDecl[];
  /** Set when those parameters came from an old-style identifier list. */
  krNames?: boolean;
  vlaSizes: Expr[];
}

const TYPE_KEYWORDS = new Set([
  'void', 'char', 'short', 'int', 'long', 'float', 'double', 'signed', 'unsigned', '_Bool', '_Complex',
  'struct', 'union', 'enum', '__int128', 'typeof', '_Float128', '__float128', '_Float64x', '_Float32', '_Float64', '_Float32x',
  'const', 'volatile', 'restrict', '_Atomic', '_Alignas',
  'typedef', 'extern', 'static', 'auto', 'register', 'inline', '_Noreturn', '_Thread_local', '__thread',
  '__auto_type',
]);

/** GNU alternate spellings of keywords. */
const CANONICAL_SPELLINGS: Record<string, string> = {
  __const: 'const', __const__: 'const', __volatile: 'volatile', __volatile__: 'volatile',
  __restrict: 'restrict', __restrict__: 'restrict', __inline: 'inline', __inline__: 'inline',
  __signed: 'signed', __signed__: 'signed', __typeof: 'typeof', __typeof__: 'typeof',
  __alignof: '__alignof__', asm: '__asm__', __asm: '__asm__',
  __attribute: '__attribute__', _Noreturn: '_Noreturn', __complex__: '_Complex', __unsigned__: 'unsigned',
};
/** A Map, so that identifiers such as `constructor` never hit Object.prototype. */
const CANONICAL = new Map(Object.entries(CANONICAL_SPELLINGS));

const KEYWORDS = new Set([
  ...TYPE_KEYWORDS, 'if', 'else', 'while', 'do', 'for', 'switch', 'case', 'default', 'break', 'continue', 'return',
  'goto', 'sizeof', '_Alignof', '__alignof__', '__asm__', '__attribute__', '__extension__', '_Static_assert', '_Generic',
  '__builtin_va_arg', '__builtin_offsetof', '__builtin_types_compatible_p', '__builtin_choose_expr', '__label__', '__real__', '__imag__',
]);

const BINARY_PRECEDENCE: Record<string, number> = {
  '||': 1, '&&': 2, '|': 3, '^': 4, '&': 5, '==': 6, '!=': 6, '<': 7, '>': 7, '<=': 7, '>=': 7,
  '<<': 8, '>>': 8, '+': 9, '-': 9, '*': 10, '/': 10, '%': 10,
};

const ASSIGN_OPS = new Set(['=', '*=', '/=', '%=', '+=', '-=', '<<=', '>>=', '&=', '^=', '|=']);

/** Return types of the gcc `__builtin_*` functions the front end knows. */
function builtinReturnType(name: string, dm: DataModel): CType | undefined {
  const sizeT = intType(sizeTKind(dm));
  const voidPtr = pointerTo(voidType);
  switch (name) {
    case '__builtin_expect': case '__builtin_expect_with_probability': return intType('long');
    case '__builtin_abort': case '__builtin_trap': case '__builtin_unreachable': case '__builtin_va_start':
    case '__builtin_va_end': case '__builtin_va_copy': case '__builtin_prefetch': case '__builtin_exit':
      return voidType;
    case '__builtin_memcpy': case '__builtin_memset': case '__builtin_memmove': case '__builtin_alloca':
    case '__builtin_malloc': case '__builtin_calloc': case '__builtin_return_address': case '__builtin_frame_address':
    case '__builtin___memcpy_chk': case '__builtin___memset_chk': case '__builtin___memmove_chk': case '__builtin_assume_aligned':
      return voidPtr;
    case '__builtin_strlen': case '__builtin_object_size': return sizeT;
    case '__builtin_strcmp': case '__builtin_memcmp': case '__builtin_strncmp':
    case '__builtin_constant_p': case '__builtin_clz': case '__builtin_ctz': case '__builtin_popcount':
    case '__builtin_clzl': case '__builtin_ctzl': case '__builtin_popcountl': case '__builtin_clzll':
    case '__builtin_ctzll': case '__builtin_popcountll': case '__builtin_ffs': case '__builtin_ffsl': case '__builtin_ffsll':
    case '__builtin_parity': case '__builtin_parityl': case '__builtin_parityll': case '__builtin_isnan':
    case '__builtin_isinf': case '__builtin_isinf_sign': case '__builtin_isfinite': case '__builtin_isnormal':
    case '__builtin_signbit': case '__builtin_signbitf': case '__builtin_signbitl': case '__builtin_fpclassify':
    case '__builtin_isgreater': case '__builtin_isgreaterequal': case '__builtin_isless': case '__builtin_islessequal':
    case '__builtin_islessgreater': case '__builtin_isunordered': case '__builtin_abs': case '__builtin_printf':
    case '__builtin_puts': case '__builtin_putchar':
      return intType('int');
    case '__builtin_labs': return intType('long');
    case '__builtin_llabs': return intType('longlong');
    case '__builtin_bswap16': return intType('ushort');
    case '__builtin_bswap32': return intType('uint');
    case '__builtin_bswap64': return intType('ulonglong');
    case '__builtin_inf': case '__builtin_huge_val': case '__builtin_nan': case '__builtin_fabs': case '__builtin_sqrt':
    case '__builtin_copysign': case '__builtin_fmax': case '__builtin_fmin':
      return floatType('double');
    case '__builtin_inff': case '__builtin_huge_valf': case '__builtin_nanf': case '__builtin_fabsf': case '__builtin_sqrtf':
    case '__builtin_copysignf':
      return floatType('float');
    case '__builtin_infl': case '__builtin_huge_vall': case '__builtin_nanl': case '__builtin_fabsl': case '__builtin_sqrtl':
    case '__builtin_copysignl':
      return floatType('longdouble');
    default:
      return undefined;
  }
}

/** The C type of `__VERIFIER_nondet_X` by the rules' table. */
export function nondetType(suffix: string, dm: DataModel): CType | undefined {
  const table: Record<string, CType> = {
    bool: intType('bool'), char: intType('char'), int: intType('int'), int128: intType('int128'),
    float: floatType('float'), double: floatType('double'), loff_t: intType('longlong'), long: intType('long'),
    longlong: intType('longlong'), pchar: pointerTo(intType('char')), pthread_t: intType('ulong'),
    pointer: pointerTo(voidType), sector_t: intType('ulonglong'), short: intType('short'),
    size_t: intType(sizeTKind(dm)), u32: intType('uint'), uchar: intType('uchar'), uint: intType('uint'),
    uint128: intType('uint128'), ulong: intType('ulong'), ulonglong: intType('ulonglong'),
    unsigned: intType('uint'), ushort: intType('ushort'), schar: intType('schar'),
  };
  return Object.hasOwn(table, suffix) ? table[suffix] : undefined;
}

function verifierBuiltin(name: string, type: FunctionType, dm: DataModel): VerifierBuiltin | undefined {
  if (name === 'reach_error') return { kind: 'reach_error' };
  if (!name.startsWith('__VERIFIER_')) return undefined;
  const rest = name.slice('__VERIFIER_'.length);
  switch (rest) {
    case 'error': return { kind: 'error' };
    case 'assume': return { kind: 'assume' };
    case 'assert': return { kind: 'assert' };
    case 'nondet_memory': return { kind: 'nondet_memory' };
    case 'atomic_begin': return { kind: 'atomic_begin' };
    case 'atomic_end': return { kind: 'atomic_end' };
  }
  if (rest.startsWith('atomic_')) return { kind: 'atomic_function' };
  if (rest.startsWith('nondet_')) {
    const suffix = rest.slice('nondet_'.length);
    const t = type.returnType.kind !== 'void' ? type.returnType : nondetType(suffix, dm);
    if (t) return { kind: 'nondet', suffix, type: t };
  }
  return undefined;
}

export interface ParseResult {
  readonly declarations: ExternalDeclaration[];
  readonly functions: FunctionDecl[];
  readonly globals: VarDecl[];
  readonly typedefs: Map<string, TypedefDecl>;
  readonly fileScope: Scope;
  readonly scopedNames: ScopedName[];
  readonly functionRanges: Array<{ name: string; from: number; to: number }>;
  readonly records: RecordInfo[];
  readonly enums: EnumInfo[];
}

export class Parser {
  private p = 0;
  private scope: Scope;
  readonly sema: Sema;
  private nextId: { value: number };
  private currentFunction?: FunctionDecl;
  private labels = new Set<string>();
  private gotos: Array<{ label: string; loc: SourceLocation }> = [];
  private switches: Array<{ cases: Array<CaseStmt | DefaultStmt>; type: CType }> = [];
  private loopDepth = 0;
  private breakDepth = 0;
  private blockStack: Array<{ from: number; to: number; forLoop: boolean }> = [];
  private readonly functions: FunctionDecl[] = [];
  private readonly globals: VarDecl[] = [];
  private readonly typedefs = new Map<string, TypedefDecl>();
  private readonly scopedNames: ScopedName[] = [];
  private readonly functionRanges: Array<{ name: string; from: number; to: number }> = [];
  private recordIds = 0;
  private readonly packs: readonly PackChange[];
  /** Parsing a witness expression: never declare anything in the program's scopes. */
  private readonly expressionOnly: boolean;
  private readonly records: RecordInfo[] = [];
  private readonly enums: EnumInfo[] = [];

  constructor(
    private readonly tokens: Token[],
    private readonly map: SourceMap,
    readonly dm: DataModel,
    options: { scope?: Scope; nextId?: { value: number }; expressionOnly?: boolean; packs?: readonly PackChange[] } = {},
  ) {
    this.packs = options.packs ?? [];
    this.expressionOnly = options.expressionOnly ?? false;
    this.sema = new Sema(dm);
    this.scope = options.scope ?? new Scope(undefined, 'file');
    this.nextId = options.nextId ?? { value: 1 };
    if (!options.scope) this.declareBuiltinTypedefs();
  }

  /** The location of the token the parser is at (for errors raised outside it). */
  currentLocation(): SourceLocation {
    return this.map.location(this.peek().start);
  }

  // ---- token helpers ----------------------------------------------------------

  private peek(k = 0): Token {
    return this.tokens[Math.min(this.p + k, this.tokens.length - 1)];
  }
  private text(k = 0): string {
    const t = this.peek(k);
    if (t.kind !== 'ident') return t.kind === 'punct' ? t.text : t.kind === 'eof' ? '<eof>' : '';
    return CANONICAL.get(t.text) ?? t.text;
  }
  private next(): Token {
    return this.tokens[this.p++];
  }
  private is(s: string, k = 0): boolean {
    const t = this.peek(k);
    return (t.kind === 'punct' || t.kind === 'ident') && this.text(k) === s;
  }
  private accept(s: string): Token | undefined {
    return this.is(s) ? this.next() : undefined;
  }
  private expect(s: string, what?: string): Token {
    if (this.is(s)) return this.next();
    const t = this.peek();
    const found = t.kind === 'eof' ? 'end of input' : `'${t.text}'`;
    throw this.error(`expected '${s}'${what ? ` ${what}` : ''} before ${found}`, t);
  }
  error(message: string, t: Token | SourceLocation = this.peek()): TarsierError {
    const loc = 'kind' in t ? this.map.location(t.start) : t;
    return new TarsierError('c-syntax', message, loc);
  }
  private unsupported(what: string, t: Token = this.peek()): TarsierError {
    return new TarsierError('c-unsupported', `unsupported construct: ${what}`, this.map.location(t.start));
  }
  private loc(startTok: Token | number, endTok?: Token): SourceLocation {
    const start = typeof startTok === 'number' ? startTok : startTok.start;
    const end = endTok ?? this.tokens[Math.max(this.p - 1, 0)];
    return this.map.location(start, Math.max(end.end, start));
  }
  private locTok(t: Token): SourceLocation {
    return this.map.location(t.start, t.end);
  }
  private id(): number {
    return this.nextId.value++;
  }

  private declareBuiltinTypedefs(): void {
    const add = (name: string, type: CType) => {
      const decl: TypedefDecl = { kind: 'Typedef', id: this.id(), name, type: { ...type, typedefName: name } as CType, loc: this.map.location(0) };
      this.scope.names.set(name, decl);
    };
    // gcc's va_list is a pointer (i386) or an array of one struct (x86-64); it is opaque to us either way.
    const vaRecord: RecordInfo = { id: this.recordIds++, union: false, tag: '__va_list_tag', fields: [], size: 24, align: 8 };
    add('__builtin_va_list', this.dm === 'LP64' ? arrayOf({ kind: 'record', record: vaRecord }, 1) : pointerTo(intType('char')));
    if (this.dm === 'LP64') {
      add('__int128_t', intType('int128'));
      add('__uint128_t', intType('uint128'));
    }
  }

  // ---- translation unit ----------------------------------------------------------

  parseTranslationUnit(): ParseResult {
    const declarations: ExternalDeclaration[] = [];
    while (this.peek().kind !== 'eof') {
      if (this.accept(';')) continue;
      if (this.is('__asm__')) {
        const start = this.peek();
        const text = this.parseAsmBody();
        this.accept(';');
        declarations.push({ kind: 'AsmDeclaration', loc: this.loc(start), text });
        continue;
      }
      const d = this.parseExternalDeclaration();
      if (d) declarations.push(d);
    }
    // A tentative definition of an array of unknown size becomes an array of one element (C11 6.9.2p5).
    for (const g of this.globals) {
      if (g.defined && !g.init && g.type.kind === 'array' && g.type.length === undefined && !g.type.vla) g.type = arrayOf(g.type.element, 1);
    }
    return {
      declarations,
      functions: this.functions,
      globals: this.globals,
      typedefs: this.typedefs,
      fileScope: this.scope,
      scopedNames: this.scopedNames,
      functionRanges: this.functionRanges,
      records: this.records,
      enums: this.enums,
    };
  }

  private parseExternalDeclaration(): ExternalDeclaration | undefined {
    const startTok = this.peek();
    if (this.is('_Static_assert')) {
      this.parseStaticAssert();
      return undefined;
    }
    while (this.accept('__extension__'));
    // C89 implicit int (`main() { ... }`), which gcc still accepts with a warning.
    const implicit = this.peek().kind === 'ident' && !this.isDeclarationStart() && !KEYWORDS.has(this.text()) && this.is('(', 1);
    const specs: DeclSpecs = implicit
      ? { type: intType('int'), storage: 'none', inline: false, noreturn: false, start: startTok.start, declaresTag: false, implicitInt: true, attrs: [] }
      : this.parseDeclSpecs(true);
    if (this.accept(';')) {
      return { kind: 'Declaration', loc: this.loc(startTok), declarators: [] };
    }
    const declarators: Declarator[] = [];
    for (;;) {
      const dstart = this.peek();
      const d = this.parseDeclarator(false);
      this.parseDeclaratorTail(specs);
      const type = d.derive(this.applyMode(specs, dstart));
      if (type.kind === 'function' && this.is('{') && declarators.length === 0) {
        if (specs.storage === 'typedef') throw this.error('function definition declared \'typedef\'', dstart);
        return this.parseFunctionDefinition(startTok, specs, d, type);
      }
      if (type.kind === 'function' && declarators.length === 0 && d.krNames && this.isDeclarationStart()) {
        this.parseKrDeclarations(d);
        if (!this.is('{')) throw this.error("expected '{' after old-style parameter declarations");
        return this.parseFunctionDefinition(startTok, specs, d, type);
      }
      declarators.push(this.finishDeclarator(specs, d, type, dstart, 'file'));
      if (this.accept(',')) continue;
      this.expect(';', 'after declaration');
      break;
    }
    return { kind: 'Declaration', loc: this.loc(startTok), declarators };
  }

  /** Attributes and asm labels after a declarator. */
  private parseDeclaratorTail(specs: DeclSpecs): void {
    for (;;) {
      if (this.is('__asm__')) {
        this.parseAsmBody();
        continue;
      }
      if (this.is('__attribute__')) {
        specs.attrs.push(...this.parseAttributes());
        continue;
      }
      break;
    }
  }

  private float128?: RecordInfo;
  private float128Record(): RecordInfo {
    this.float128 ??= { id: this.recordIds++, union: false, tag: '__float128 (unsupported)', fields: [], size: 16, align: 16 };
    return this.float128;
  }

  /** The declarations between an old-style parameter list and the body: they give the parameters their types. */
  private parseKrDeclarations(d: DeclaratorInfo): void {
    const params = d.params ?? [];
    const saved = this.scope;
    this.scope = new Scope(this.scope, 'prototype');
    try {
      while (this.isDeclarationStart()) {
        const specs = this.parseDeclSpecs(true);
        for (;;) {
          const pd = this.parseDeclarator(false);
          let type = pd.derive(specs.type);
          if (type.kind === 'array') type = withQualifiers(pointerTo(type.element), type.qualifiers);
          else if (type.kind === 'function') type = pointerTo(type);
          const p = params.find((x) => x.name === pd.name);
          if (!p) throw this.error(`declaration for parameter '${pd.name}' but no such parameter`, pd.nameTok);
          p.type = type;
          if (!this.accept(',')) break;
        }
        this.expect(';', 'after parameter declaration');
      }
    } finally {
      this.scope = saved;
    }
  }

  /** `wchar_t` of gcc on Linux: `long` with -m32, `int` with -m64 (32 bits either way). */
  private wcharType(): CType {
    return intType(this.dm === 'LP64' ? 'int' : 'long');
  }

  /** gcc's `__attribute__((mode(M)))` picks the integer type of that width (same signedness). */
  private applyMode(specs: DeclSpecs, at: Token): CType {
    const mode = specs.attrs.find((a) => a.name === 'mode')?.mode;
    if (!mode) return specs.type;
    const t = specs.type;
    if (!isInteger(t)) throw this.unsupported(`__attribute__((mode(${mode}))) on a non-integer type`, at);
    const signed = !['bool', 'uchar', 'ushort', 'uint', 'ulong', 'ulonglong', 'uint128'].includes(integerKind(t));
    const bits: Record<string, number> = { QI: 8, HI: 16, SI: 32, DI: 64, TI: 128, word: this.dm === 'LP64' ? 64 : 32, pointer: this.dm === 'LP64' ? 64 : 32 };
    const b = Object.hasOwn(bits, mode) ? bits[mode] : undefined;
    if (!b) throw this.unsupported(`__attribute__((mode(${mode})))`, at);
    const kinds: Record<number, [IntegerKind, IntegerKind]> = {
      8: ['schar', 'uchar'], 16: ['short', 'ushort'], 32: ['int', 'uint'],
      64: this.dm === 'LP64' ? ['long', 'ulong'] : ['longlong', 'ulonglong'], 128: ['int128', 'uint128'],
    };
    return withQualifiers(intType(kinds[b][signed ? 0 : 1]), t.qualifiers);
  }

  private parseStaticAssert(): void {
    const t = this.next();
    this.expect('(');
    const e = this.parseAssignment();
    let message = '';
    if (this.accept(',')) message = this.parseStringLiteral().units.map((u) => String.fromCharCode(u)).join('');
    this.expect(')');
    this.expect(';');
    const v = this.sema.evalInt(e);
    if (v === undefined) throw this.error('expression in static assertion is not constant', t);
    if (v === 0n) throw this.error(`static assertion failed${message ? `: "${message}"` : ''}`, t);
  }

  // ---- declarations ---------------------------------------------------------------

  /** True when the current token starts a declaration (typedef-aware). */
  isDeclarationStart(k = 0): boolean {
    const t = this.peek(k);
    if (t.kind !== 'ident') return false;
    const s = this.text(k);
    if (TYPE_KEYWORDS.has(s) || s === '__attribute__' || s === '_Static_assert') return true;
    if (s === '__extension__') return this.isDeclarationStart(k + 1);
    if (KEYWORDS.has(s)) return false;
    return this.scope.lookup(t.text)?.kind === 'Typedef';
  }

  private isTypeNameStart(k = 0): boolean {
    const t = this.peek(k);
    if (t.kind !== 'ident') return false;
    const s = this.text(k);
    if (s === '__extension__') return this.isTypeNameStart(k + 1);
    if (TYPE_KEYWORDS.has(s) || s === '__attribute__') {
      return !['typedef', 'extern', 'static', 'auto', 'register', '_Thread_local', '__thread'].includes(s);
    }
    if (KEYWORDS.has(s)) return false;
    return this.scope.lookup(t.text)?.kind === 'Typedef';
  }

  private parseAttributes(): Attribute[] {
    const attrs: Attribute[] = [];
    while (this.accept('__attribute__')) {
      this.expect('(');
      this.expect('(');
      while (!this.is(')')) {
        if (this.accept(',')) continue;
        const nameTok = this.next();
        if (nameTok.kind !== 'ident') throw this.error('expected attribute name', nameTok);
        const name = nameTok.text.replace(/^__(.*)__$/, '$1');
        let value: bigint | undefined;
        if (this.is('(')) {
          if (name === 'aligned') {
            this.next();
            if (!this.is(')')) {
              const e = this.parseAssignment();
              value = this.sema.evalInt(e);
              if (value === undefined) throw this.error('requested alignment is not an integer constant', nameTok);
            } else value = 16n;
            this.expect(')');
          } else {
            if (name === 'mode') {
              this.next();
              const m = this.next();
              this.expect(')');
              attrs.push({ name, mode: m.text.replace(/^__(.*)__$/, '$1') });
              continue;
            }
            if (name === 'vector_size') throw this.unsupported(`__attribute__((${name}))`, nameTok);
            this.skipBalanced();
          }
        } else if (name === 'aligned') {
          value = 16n;
        }
        attrs.push({ name, value });
      }
      this.expect(')');
      this.expect(')');
    }
    return attrs;
  }

  private skipBalanced(): string {
    const open = this.expect('(');
    let depth = 1;
    const parts: string[] = [];
    while (depth > 0) {
      const t = this.next();
      if (t.kind === 'eof') throw this.error("expected ')'", open);
      if (t.kind === 'punct' && t.text === '(') depth++;
      if (t.kind === 'punct' && t.text === ')') depth--;
      if (depth > 0) parts.push(t.text);
    }
    return parts.join(' ');
  }

  private parseAsmBody(): string {
    this.expect('__asm__');
    while (this.is('volatile') || this.is('inline') || this.is('goto')) this.next();
    return this.skipBalanced();
  }

  private parseDeclSpecs(allowStorage: boolean): DeclSpecs {
    const start = this.peek();
    let storage: StorageClass = 'none';
    let inline = false;
    let noreturn = false;
    const quals: { const?: boolean; volatile?: boolean; restrict?: boolean; atomic?: boolean } = {};
    let base: CType | undefined;
    let declaresTag = false;
    const counts: Record<string, number> = {};
    let sawSpecifier = false;
    const attrs: Attribute[] = [];
    let alignAs: number | undefined;
    let autoType = false;
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'ident') break;
      const s = this.text();
      switch (s) {
        case 'typedef': case 'extern': case 'static': case 'auto': case 'register': {
          if (!allowStorage) throw this.error(`storage class '${s}' not allowed here`, t);
          if (storage !== 'none' && storage !== s) throw this.error('multiple storage classes in declaration specifiers', t);
          storage = s;
          this.next();
          continue;
        }
        case '_Thread_local': case '__thread':
          this.next();
          continue;
        case 'inline': inline = true; this.next(); continue;
        case '_Noreturn': noreturn = true; this.next(); continue;
        case 'const': quals.const = true; this.next(); continue;
        case 'volatile': quals.volatile = true; this.next(); continue;
        case 'restrict': quals.restrict = true; this.next(); continue;
        case '__extension__': this.next(); continue;
        case '__attribute__': attrs.push(...this.parseAttributes()); continue;
        case '_Alignas': {
          this.next();
          this.expect('(');
          if (this.isTypeNameStart()) alignAs = alignOf(this.parseTypeName(), this.dm);
          else {
            const v = this.sema.evalInt(this.parseAssignment());
            if (v === undefined) throw this.error('_Alignas argument is not constant', t);
            alignAs = Number(v);
          }
          this.expect(')');
          continue;
        }
        case '_Atomic': {
          this.next();
          quals.atomic = true;
          if (this.is('(')) {
            // _Atomic(T): the type T, atomic (engines treat atomicity like volatile here).
            if (base || sawSpecifier) throw this.error('two or more data types in declaration specifiers', t);
            this.next();
            base = this.parseTypeName();
            this.expect(')');
          }
          continue;
        }
        case 'void': case 'char': case 'short': case 'int': case 'long': case 'float': case 'double':
        case 'signed': case 'unsigned': case '_Bool': case '__int128': {
          if (base) throw this.error(`two or more data types in declaration specifiers`, t);
          if (s === '__int128' && this.dm === 'ILP32') throw this.error("'__int128' is not supported on this target (ILP32)", t);
          counts[s] = (counts[s] ?? 0) + 1;
          sawSpecifier = true;
          this.next();
          continue;
        }
        case '__int128_t': case '__uint128_t': {
          // Builtin typedef names in LP64 only (declared in declareBuiltinTypedefs).
          break;
        }
        case '_Complex': throw this.unsupported('_Complex types', t);
        case '_Float128': case '__float128': case '_Float64x': case '_Float32': case '_Float64': case '_Float32x': {
          if (base || sawSpecifier) throw this.error('two or more data types in declaration specifiers', t);
          this.next();
          // _FloatN are float/double/long double on x86; binary128 has no arithmetic here:
          // an opaque 16-byte object, so that a use is a type error rather than a wrong value.
          if (s === '_Float32') base = floatType('float');
          else if (s === '_Float64' || s === '_Float32x') base = floatType('double');
          else if (s === '_Float64x') base = floatType('longdouble');
          else base = { kind: 'record', record: this.float128Record() };
          continue;
        }
        case '__auto_type': {
          // The type comes from the initializer (finishDeclarator); a placeholder until then.
          if (base || sawSpecifier) throw this.error('two or more data types in declaration specifiers', t);
          this.next();
          autoType = true;
          base = intType('int');
          continue;
        }
        case 'struct': case 'union': {
          if (base || sawSpecifier) throw this.error('two or more data types in declaration specifiers', t);
          const r = this.parseRecordSpecifier();
          base = r.type;
          declaresTag = r.declares;
          continue;
        }
        case 'enum': {
          if (base || sawSpecifier) throw this.error('two or more data types in declaration specifiers', t);
          const r = this.parseEnumSpecifier();
          base = r.type;
          declaresTag = r.declares;
          continue;
        }
        case 'typeof': {
          if (base || sawSpecifier) throw this.error('two or more data types in declaration specifiers', t);
          this.next();
          this.expect('(');
          if (this.isTypeNameStart()) base = this.parseTypeName();
          else base = this.parseExpression().type;
          this.expect(')');
          continue;
        }
        default:
          break;
      }
      // A typedef name, when no other type specifier has been seen.
      if (!base && !sawSpecifier && !KEYWORDS.has(s)) {
        const e = this.scope.lookup(t.text);
        if (e?.kind === 'Typedef') {
          base = e.type;
          this.next();
          continue;
        }
      }
      break;
    }
    let implicitInt = false;
    if (!base) {
      if (!sawSpecifier) {
        if (storage === 'none' && !inline && !quals.const && !quals.volatile && attrs.length === 0 && !noreturn) {
          const t = this.peek();
          if (t.kind === 'ident' && !KEYWORDS.has(this.text()) && !this.scope.lookup(t.text)) throw this.error(`unknown type name '${t.text}'`, t);
          throw this.error(`expected declaration specifiers before '${t.text || 'end of input'}'`, t);
        }
        implicitInt = true;
      }
      base = this.specifierType(counts, start);
    }
    base = withQualifiers(base, quals);
    if (alignAs !== undefined) attrs.push({ name: 'aligned', value: BigInt(alignAs) });
    return { type: base, storage, inline, noreturn, start: start.start, declaresTag, implicitInt, attrs, ...(autoType ? { autoType } : {}) };
  }

  private specifierType(c: Record<string, number>, at: Token): CType {
    const n = (k: string) => c[k] ?? 0;
    const longs = n('long');
    const unsigned = n('unsigned') > 0;
    const signed = n('signed') > 0;
    if ((unsigned && signed) || n('unsigned') > 1 || n('signed') > 1 || longs > 2 || n('short') > 1) {
      throw this.error('invalid combination of type specifiers', at);
    }
    if (n('void')) return voidType;
    if (n('_Bool')) return intType('bool');
    if (n('float')) return floatType('float');
    if (n('double')) return floatType(longs ? 'longdouble' : 'double');
    if (n('char')) return intType(unsigned ? 'uchar' : signed ? 'schar' : 'char');
    if (n('__int128')) return intType(unsigned ? 'uint128' : 'int128');
    if (n('short')) return intType(unsigned ? 'ushort' : 'short');
    if (longs === 2) return intType(unsigned ? 'ulonglong' : 'longlong');
    if (longs === 1) return intType(unsigned ? 'ulong' : 'long');
    return intType(unsigned ? 'uint' : 'int');
  }

  private parseRecordSpecifier(): { type: CType; declares: boolean } {
    const kw = this.next();
    const union = kw.text === 'union';
    let attrs = this.parseAttributes();
    let tag: string | undefined;
    if (this.peek().kind === 'ident' && !KEYWORDS.has(this.text())) tag = this.next().text;
    const isDef = this.is('{');
    if (!tag && !isDef) throw this.error(`expected '{' or a tag after '${kw.text}'`);
    let info: RecordInfo | undefined;
    if (tag) {
      const local = this.scope.tags.get(tag);
      const visible = this.scope.lookupTag(tag);
      const forwardOnly = !isDef && this.is(';');
      if (isDef || forwardOnly) {
        // A definition, or `struct s;`, declares the tag in the current scope.
        if (local && local.kind === 'record') info = local.info;
      } else if (visible && visible.kind === 'record') info = visible.info;
      if (info && info.union !== union) throw this.error(`'${tag}' defined as wrong kind of tag`, kw);
      if (!info) {
        info = { id: this.recordIds++, union, tag, loc: this.locTok(kw) };
        this.records.push(info);
        this.scope.tags.set(tag, { kind: 'record', info });
      }
    } else {
      info = { id: this.recordIds++, union, loc: this.locTok(kw) };
      this.records.push(info);
    }
    if (isDef) {
      if (info.fields) throw this.error(`redefinition of '${union ? 'union' : 'struct'} ${tag}'`, kw);
      this.next();
      const members: FieldDeclaration[] = [];
      while (!this.accept('}')) {
        if (this.accept(';')) continue;
        if (this.is('_Static_assert')) {
          this.parseStaticAssert();
          continue;
        }
        const specs = this.parseDeclSpecs(false);
        if (this.is(';')) {
          // Anonymous struct/union member (C11), or a useless declaration.
          if (specs.type.kind === 'record' && !specs.type.record.tag) {
            members.push({ type: specs.type, loc: this.locTok(this.peek()) });
          } else if (specs.type.kind === 'record' && specs.type.record.tag && !specs.declaresTag) {
            throw this.unsupported('unnamed member of a tagged struct type (-fms-extensions)');
          }
          this.next();
          continue;
        }
        for (;;) {
          const dstart = this.peek();
          let d: DeclaratorInfo = { derive: (t) => t, vlaSizes: [] };
          if (!this.is(':')) d = this.parseDeclarator(false);
          let bitWidth: number | undefined;
          if (this.accept(':')) {
            const e = this.parseConditional();
            const v = this.sema.evalInt(e);
            if (v === undefined) throw this.error(`bit-field '${d.name ?? '<anonymous>'}' width not an integer constant`, dstart);
            if (v < 0n) throw this.error(`negative width in bit-field '${d.name ?? '<anonymous>'}'`, dstart);
            bitWidth = Number(v);
          }
          const memberAttrs = this.parseAttributes();
          const type = d.derive(specs.type);
          if (bitWidth !== undefined) {
            if (!isInteger(type)) throw this.error(`bit-field '${d.name ?? '<anonymous>'}' has invalid type`, dstart);
            const bits = (sizeOf(type, this.dm) ?? 0) * 8;
            if (bitWidth > bits) throw this.error(`width of '${d.name ?? '<anonymous>'}' exceeds its type`, dstart);
            if (bitWidth === 0 && d.name) throw this.error(`zero width for bit-field '${d.name}'`, dstart);
          }
          if (type.kind === 'function') throw this.error(`field '${d.name}' declared as a function`, dstart);
          if (bitWidth === undefined && sizeOf(type, this.dm) === undefined && !(type.kind === 'array' && type.length === undefined && !type.vla)) {
            throw this.error(`field '${d.name ?? ''}' has incomplete type`, dstart);
          }
          const align = [...specs.attrs, ...memberAttrs].find((a) => a.name === 'aligned')?.value;
          const memberPacked = [...specs.attrs, ...memberAttrs].some((a) => a.name === 'packed');
          members.push({
            name: d.name,
            type,
            bitWidth,
            ...(memberPacked ? { packed: true } : {}),
            alignAttr: align === undefined ? undefined : Number(align),
            loc: d.nameTok ? this.locTok(d.nameTok) : this.locTok(dstart),
          });
          if (this.accept(',')) continue;
          break;
        }
        this.expect(';', 'at end of member declaration');
      }
      const closeOffset = this.tokens[this.p - 1].start;
      attrs = [...attrs, ...this.parseAttributes()];
      const packed = attrs.some((a) => a.name === 'packed');
      const alignAttr = attrs.find((a) => a.name === 'aligned')?.value;
      let maxAlign: number | undefined;
      for (const change of this.packs) if (change.offset < closeOffset) maxAlign = change.value;
      const names = new Set<string>();
      for (const m of members) {
        if (m.name) {
          if (names.has(m.name)) throw this.error(`duplicate member '${m.name}'`, m.loc ?? kw);
          names.add(m.name);
        }
      }
      const layout = layoutRecord(union, members, this.dm, { packed, alignAttr: alignAttr === undefined ? undefined : Number(alignAttr), maxAlign });
      info.fields = layout.fields;
      info.size = layout.size;
      info.align = layout.align;
      info.packed = packed || undefined;
    }
    return { type: { kind: 'record', record: info }, declares: isDef || !!tag };
  }

  private parseEnumSpecifier(): { type: CType; declares: boolean } {
    const kw = this.next();
    this.parseAttributes();
    let tag: string | undefined;
    if (this.peek().kind === 'ident' && !KEYWORDS.has(this.text())) tag = this.next().text;
    const isDef = this.is('{');
    if (!tag && !isDef) throw this.error("expected '{' or a tag after 'enum'");
    let info: EnumInfo | undefined;
    if (tag) {
      const local = this.scope.tags.get(tag);
      const visible = isDef ? local : this.scope.lookupTag(tag);
      if (visible && visible.kind !== 'enum') throw this.error(`'${tag}' defined as wrong kind of tag`, kw);
      if (visible) info = visible.info as EnumInfo;
      if (!info) {
        info = { id: this.recordIds++, tag, underlying: 'uint', loc: this.locTok(kw) };
        this.enums.push(info);
        this.scope.tags.set(tag, { kind: 'enum', info });
      }
    } else {
      info = { id: this.recordIds++, underlying: 'uint', loc: this.locTok(kw) };
      this.enums.push(info);
    }
    if (isDef) {
      if (info.constants) throw this.error(`redefinition of 'enum ${tag}'`, kw);
      this.next();
      const constants: Array<{ name: string; value: bigint }> = [];
      const decls: EnumConstantDecl[] = [];
      let value = 0n;
      while (!this.accept('}')) {
        const nameTok = this.next();
        if (nameTok.kind !== 'ident' || KEYWORDS.has(nameTok.text)) throw this.error('expected identifier in enumerator list', nameTok);
        this.parseAttributes();
        if (this.accept('=')) {
          const e = this.parseConditional();
          const v = this.sema.evalInt(e);
          if (v === undefined) throw this.error(`enumerator value for '${nameTok.text}' is not an integer constant`, nameTok);
          value = v;
        }
        const fitsInt = value >= -(1n << 31n) && value < 1n << 31n;
        const fitsUint = value >= 0n && value < 1n << 32n;
        const ctype = intType(fitsInt ? 'int' : fitsUint ? 'uint' : value < 0n ? 'longlong' : value < 1n << 63n ? 'longlong' : 'ulonglong');
        const decl: EnumConstantDecl = { kind: 'EnumConstant', id: this.id(), name: nameTok.text, value, type: ctype, loc: this.locTok(nameTok) };
        this.declareOrdinary(decl, nameTok);
        decls.push(decl);
        constants.push({ name: nameTok.text, value });
        value++;
        if (!this.accept(',')) {
          this.expect('}', 'at end of enumerator list');
          break;
        }
      }
      const min = constants.reduce((m, c) => (c.value < m ? c.value : m), 0n);
      const max = constants.reduce((m, c) => (c.value > m ? c.value : m), 0n);
      let underlying: IntegerKind;
      if (min >= 0n) underlying = max < 1n << 32n ? 'uint' : 'ulonglong';
      else underlying = min >= -(1n << 31n) && max < 1n << 31n ? 'int' : 'longlong';
      info.underlying = underlying;
      info.constants = constants;
      this.parseAttributes();
    }
    return { type: { kind: 'enum', info }, declares: true };
  }

  private declareOrdinary(entry: OrdinaryEntry, at: Token): void {
    const prev = this.scope.names.get(entry.name);
    if (prev && prev !== entry) {
      if (prev.kind === 'Typedef' && entry.kind === 'Typedef' && sameType(prev.type, entry.type)) {
        // C11 allows repeating a typedef with the same type.
      } else if (prev.kind !== entry.kind || prev.kind === 'EnumConstant' || this.scope.kind !== 'file') {
        if (!(prev.kind === 'Var' && entry.kind === 'Var' && (prev.storage === 'extern' || entry.storage === 'extern'))) {
          throw this.error(`redefinition of '${entry.name}'`, at);
        }
      }
    }
    this.scope.names.set(entry.name, entry);
    if (this.scope.kind === 'block' && this.currentFunction) this.recordScoped(entry, at);
  }

  private recordScoped(entry: OrdinaryEntry, at: Token | number): void {
    const block = this.blockStack[this.blockStack.length - 1];
    if (!block || !this.currentFunction) return;
    const startOffset = typeof at === 'number' ? at : at.start;
    const loc = this.map.location(startOffset);
    if (loc.file !== this.map.file && !this.map.identity) {
      // Positions in other files (headers) are not addressable by witnesses of this file.
    }
    const from = block.forLoop ? block.from - 1 : keyOf(loc);
    this.scopedNames.push({ name: entry.name, entry, from, blockFrom: block.from, blockTo: block.to, functionName: this.currentFunction.name });
  }

  /** Declarator: pointers, a name or a parenthesised declarator, then array and function suffixes. */
  private parseDeclarator(abstract: boolean): DeclaratorInfo {
    const ptrs: TypeQualifiers[] = [];
    for (;;) {
      if (this.accept('*')) {
        const q: { const?: boolean; volatile?: boolean; restrict?: boolean; atomic?: boolean } = {};
        for (;;) {
          if (this.accept('const')) q.const = true;
          else if (this.accept('volatile')) q.volatile = true;
          else if (this.accept('restrict')) q.restrict = true;
          else if (this.accept('_Atomic')) q.atomic = true;
          else if (this.is('__attribute__')) this.parseAttributes();
          else break;
        }
        ptrs.push(q);
        continue;
      }
      if (this.is('__attribute__')) {
        this.parseAttributes();
        continue;
      }
      break;
    }
    let inner: DeclaratorInfo | undefined;
    let name: string | undefined;
    let nameTok: Token | undefined;
    const t = this.peek();
    if (t.kind === 'ident' && !KEYWORDS.has(this.text()) && !(abstract && this.scope.lookup(t.text)?.kind === 'Typedef')) {
      nameTok = this.next();
      name = nameTok.text;
    } else if (this.is('(') && this.isNestedDeclarator()) {
      this.next();
      inner = this.parseDeclarator(abstract);
      this.expect(')');
    } else if (!abstract) {
      throw this.error(`expected identifier or '(' before '${t.text || 'end of input'}'`, t);
    }
    const suffixes: Array<(base: CType) => CType> = [];
    let params: VarDecl[] | undefined = inner?.params;
    let krNames = inner?.krNames;
    const vlaSizes: Expr[] = [...(inner?.vlaSizes ?? [])];
    for (;;) {
      if (this.is('[')) {
        const open = this.next();
        const quals: { const?: boolean; volatile?: boolean; restrict?: boolean } = {};
        for (;;) {
          if (this.accept('static')) continue;
          if (this.accept('const')) quals.const = true;
          else if (this.accept('volatile')) quals.volatile = true;
          else if (this.accept('restrict')) quals.restrict = true;
          else break;
        }
        if (this.accept(']')) {
          suffixes.push((base) => arrayOf(base));
          continue;
        }
        if (this.is('*') && this.is(']', 1)) {
          this.next();
          this.next();
          suffixes.push((base) => arrayOf(base, undefined, true));
          continue;
        }
        const sizeExpr = this.parseAssignment();
        this.expect(']');
        if (!isInteger(sizeExpr.type)) throw this.error('size of array has non-integer type', open);
        const n = this.sema.evalInt(sizeExpr);
        if (n === undefined) {
          vlaSizes.push(sizeExpr);
          suffixes.push((base) => arrayOf(base, undefined, true));
        } else {
          if (n < 0n) throw this.error('size of array is negative', open);
          if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw this.error('size of array is too large', open);
          suffixes.push((base) => {
            if (base.kind === 'function') throw this.error('declaration of an array of functions', open);
            return arrayOf(base, Number(n));
          });
        }
        continue;
      }
      if (this.is('(')) {
        const open = this.next();
        const fn = this.parseParameterList(open);
        if (!params && (nameTok || inner)) {
          params = fn.decls;
          if (fn.kr) krNames = true;
        }
        suffixes.push((base) => {
          if (base.kind === 'function' || base.kind === 'array') throw this.error(`function returning ${base.kind === 'array' ? 'an array' : 'a function'}`, open);
          return { kind: 'function', returnType: base, params: fn.params, variadic: fn.variadic, prototyped: fn.prototyped };
        });
        continue;
      }
      break;
    }
    const derive = (base: CType): CType => {
      let ty = base;
      for (const q of ptrs) ty = withQualifiers(pointerTo(ty), q);
      for (let i = suffixes.length - 1; i >= 0; i--) ty = suffixes[i](ty);
      return inner ? inner.derive(ty) : ty;
    };
    return { name: name ?? inner?.name, nameTok: nameTok ?? inner?.nameTok, derive, params, vlaSizes, ...(krNames ? { krNames } : {}) };
  }

  /** After a '(' in a declarator: a nested declarator, or a parameter list? */
  private isNestedDeclarator(): boolean {
    const t = this.peek(1);
    if (t.kind === 'punct') return t.text === '*' || t.text === '(' || t.text === '[';
    if (t.kind !== 'ident') return false;
    const s = CANONICAL.get(t.text) ?? t.text;
    if (s === '__attribute__') return true;
    if (TYPE_KEYWORDS.has(s) || KEYWORDS.has(s)) return false;
    return this.scope.lookup(t.text)?.kind !== 'Typedef';
  }

  private parseParameterList(open: Token): { params: FunctionParam[]; decls: VarDecl[]; variadic: boolean; prototyped: boolean; kr?: boolean } {
    const protoScope = new Scope(this.scope, 'prototype');
    const saved = this.scope;
    this.scope = protoScope;
    try {
      if (this.accept(')')) return { params: [], decls: [], variadic: false, prototyped: false };
      if (this.is('void') && this.is(')', 1)) {
        this.next();
        this.next();
        return { params: [], decls: [], variadic: false, prototyped: true };
      }
      if (this.peek().kind === 'ident' && !this.isDeclarationStart() && (this.is(',', 1) || this.is(')', 1))) {
        // Old-style identifier list `f(a, b)`: the types come from declarations before the body (default int).
        const decls: VarDecl[] = [];
        for (;;) {
          const nameTok = this.next();
          if (nameTok.kind !== 'ident' || KEYWORDS.has(nameTok.text)) throw this.error('expected identifier in parameter list', nameTok);
          if (decls.some((x) => x.name === nameTok.text)) throw this.error(`redefinition of parameter '${nameTok.text}'`, nameTok);
          decls.push({ kind: 'Var', id: this.id(), name: nameTok.text, type: intType('int'), storage: 'none', scope: 'param', loc: this.locTok(nameTok) });
          if (!this.accept(',')) break;
        }
        this.expect(')', 'to close the parameter list');
        return { params: [], decls, variadic: false, prototyped: false, kr: true };
      }
      const params: FunctionParam[] = [];
      const decls: VarDecl[] = [];
      let variadic = false;
      for (;;) {
        if (this.accept('...')) {
          variadic = true;
          break;
        }
        const pstart = this.peek();
        const specs = this.parseDeclSpecs(true);
        const d = this.parseDeclarator(true);
        this.parseAttributes();
        let type = d.derive(specs.type);
        // Parameter adjustments (C11 6.7.6.3p7-8).
        if (type.kind === 'array') type = withQualifiers(pointerTo(type.element), type.qualifiers);
        else if (type.kind === 'function') type = pointerTo(type);
        if (type.kind === 'void') throw this.error("'void' must be the only parameter", pstart);
        params.push(d.name ? { name: d.name, type } : { type });
        const decl: VarDecl = {
          kind: 'Var', id: this.id(), name: d.name ?? '', type, storage: specs.storage === 'register' ? 'register' : 'none',
          scope: 'param', loc: this.locTok(d.nameTok ?? pstart),
        };
        if (d.name) this.scope.names.set(d.name, decl);
        decls.push(decl);
        if (this.accept(',')) continue;
        break;
      }
      this.expect(')', 'to close the parameter list');
      void open;
      return { params, decls, variadic, prototyped: true };
    } finally {
      this.scope = saved;
    }
  }

  /** A type name (in casts, sizeof, typeof, va_arg, compound literals). */
  parseTypeName(): CType {
    const specs = this.parseDeclSpecs(false);
    const d = this.parseDeclarator(true);
    if (d.name) throw this.error(`unexpected identifier '${d.name}' in type name`, d.nameTok);
    return d.derive(specs.type);
  }

  private finishDeclarator(specs: DeclSpecs, d: DeclaratorInfo, type: CType, dstart: Token, level: 'file' | 'block'): Declarator {
    const nameTok = d.nameTok;
    if (!d.name || !nameTok) throw this.error('declaration does not declare anything', dstart);
    if (specs.autoType) return this.finishAutoType(specs, d, nameTok, dstart, level);
    const name = d.name;
    const nameLoc = this.locTok(nameTok);
    if (specs.storage === 'typedef') {
      if (this.is('=')) throw this.error(`typedef '${name}' is initialized`, this.peek());
      const aligned = specs.attrs.find((a) => a.name === 'aligned')?.value;
      const alignment = aligned !== undefined ? { alignment: Number(aligned) } : {};
      const decl: TypedefDecl = { kind: 'Typedef', id: this.id(), name, type: { ...type, typedefName: name, ...alignment } as CType, loc: nameLoc };
      this.declareOrdinary(decl, nameTok);
      if (level === 'file') this.typedefs.set(name, decl);
      return { kind: 'Declarator', loc: this.loc(dstart), decl };
    }
    if (type.kind === 'function') {
      if (this.is('=')) throw this.error(`function '${name}' is initialized like a variable`, this.peek());
      const f = this.declareFunction(name, type, specs, d, nameTok, level);
      return { kind: 'Declarator', loc: this.loc(dstart), decl: f };
    }
    const attrsAlign = specs.attrs.find((a) => a.name === 'aligned');
    void attrsAlign;
    let decl: VarDecl;
    const prev = this.scope.names.get(name);
    const isFile = level === 'file' || specs.storage === 'extern';
    if (isFile && level === 'block' && specs.storage === 'extern') {
      // Block-scope extern: refer to the file-scope entity when there is one.
      const global = this.globals.find((g) => g.name === name);
      decl = global ?? this.newGlobal(name, type, 'extern', nameLoc);
      this.declareOrdinary(decl, nameTok);
    } else if (level === 'file') {
      if (prev && prev.kind === 'Var') {
        decl = prev;
        if (!sameType(unqualified(prev.type), unqualified(type))) {
          throw this.error(`conflicting types for '${name}'; have '${typeToString(type)}', previously '${typeToString(prev.type)}'`, nameTok);
        }
        if (prev.type.kind === 'array' && prev.type.length === undefined && type.kind === 'array' && type.length !== undefined) prev.type = type;
      } else {
        if (prev) throw this.error(`'${name}' redeclared as different kind of symbol`, nameTok);
        // A block-scope `extern` may have declared the entity already.
        const earlier = this.globals.find((g) => g.name === name);
        decl = earlier ?? this.newGlobal(name, type, specs.storage, nameLoc);
        if (earlier && earlier.type.kind === 'array' && earlier.type.length === undefined) earlier.type = type;
        this.declareOrdinary(decl, nameTok);
      }
      if (specs.storage !== 'extern') decl.defined = true;
    } else {
      if (d.vlaSizes.length && specs.storage === 'static') throw this.error(`storage size of '${name}' isn't constant`, nameTok);
      decl = {
        kind: 'Var', id: this.id(), name, type, storage: specs.storage, scope: 'block', loc: nameLoc,
        functionName: this.currentFunction?.name, defined: true,
      };
      if (d.vlaSizes.length) decl.vlaSizes = d.vlaSizes.map((e) => this.sema.promote(e));
      this.declareOrdinary(decl, nameTok);
    }
    let init: Initializer | undefined;
    if (this.accept('=')) {
      if (specs.storage === 'extern' && level === 'block') throw this.error(`'${name}' has both 'extern' and initializer`, nameTok);
      if (decl.type.kind === 'array' && decl.type.vla) throw this.error('variable-sized object may not be initialized', nameTok);
      const raw = this.parseInitializer();
      init = this.initialize(decl.type, raw);
      if (decl.type.kind === 'array' && decl.type.length === undefined) {
        const len = init.kind === 'InitList' ? init.items.reduce((m, it) => Math.max(m, it.target + 1), 0) : init.type.kind === 'array' ? init.type.length : undefined;
        if (len !== undefined) {
          decl.type = arrayOf(decl.type.element, len);
          if (init.kind === 'InitList') init = { ...init, type: decl.type };
        }
      }
      decl.init = init;
      decl.defined = true;
    }
    if (level === 'block' && decl.storage !== 'extern' && decl.type.kind !== 'array' && sizeOf(decl.type, this.dm) === undefined && decl.type.kind === 'record') {
      throw this.error(`storage size of '${name}' isn't known`, nameTok);
    }
    if (decl.type.kind === 'void') throw this.error(`variable or field '${name}' declared void`, nameTok);
    return init ? { kind: 'Declarator', loc: this.loc(dstart), decl, init } : { kind: 'Declarator', loc: this.loc(dstart), decl };
  }

  /** `__auto_type x = e;`: x has the type of e after value conversions. */
  private finishAutoType(specs: DeclSpecs, d: DeclaratorInfo, nameTok: Token, dstart: Token, level: 'file' | 'block'): Declarator {
    if (d.derive(voidType) !== voidType || !this.is('=')) throw this.error("'__auto_type' needs a plain name and an initializer", nameTok);
    this.next();
    const raw = this.parseAssignment();
    const init = this.sema.value(raw);
    const type = withQualifiers(unqualified(init.type), specs.type.qualifiers);
    const decl: VarDecl =
      level === 'file'
        ? this.newGlobal(d.name!, type, specs.storage, this.locTok(nameTok))
        : { kind: 'Var', id: this.id(), name: d.name!, type, storage: specs.storage, scope: 'block', loc: this.locTok(nameTok), functionName: this.currentFunction?.name, defined: true };
    decl.init = this.sema.assignConvert(init, type, 'initialization');
    decl.defined = true;
    this.declareOrdinary(decl, nameTok);
    return { kind: 'Declarator', loc: this.loc(dstart), decl, init: decl.init };
  }

  private newGlobal(name: string, type: CType, storage: StorageClass, loc: SourceLocation): VarDecl {
    const decl: VarDecl = { kind: 'Var', id: this.id(), name, type, storage, scope: 'file', loc };
    this.globals.push(decl);
    return decl;
  }

  private declareFunction(name: string, type: FunctionType, specs: DeclSpecs, d: DeclaratorInfo, nameTok: Token, level: 'file' | 'block'): FunctionDecl {
    const fileScope = this.fileScope();
    const prev = fileScope.names.get(name) ?? this.scope.lookup(name);
    if (prev && prev.kind === 'Function') {
      if (!sameType(prev.type, type)) {
        const compatibleOldStyle = (!prev.type.prototyped || !type.prototyped) && sameType(prev.type.returnType, type.returnType);
        if (!compatibleOldStyle && !prev.implicit) {
          throw this.error(`conflicting types for '${name}'; have '${typeToString(type)}', previously '${typeToString(prev.type)}'`, nameTok);
        }
      }
      if (type.prototyped || !prev.type.prototyped) prev.type = type;
      if (d.params && d.params.length && (type.prototyped || !prev.params.length)) prev.params = d.params;
      if (specs.inline) prev.inline = true;
      if (level === 'block') this.scope.names.set(name, prev);
      return prev;
    }
    if (prev && level === 'file') throw this.error(`'${name}' redeclared as different kind of symbol`, nameTok);
    const builtin = verifierBuiltin(name, type, this.dm);
    const f: FunctionDecl = {
      kind: 'Function', id: this.id(), name, type, storage: specs.storage, params: d.params ?? [], loc: this.locTok(nameTok),
      ...(specs.inline ? { inline: true } : {}),
      ...(builtin ? { builtin } : {}),
    };
    this.functions.push(f);
    fileScope.names.set(name, f);
    if (level === 'block') this.scope.names.set(name, f);
    return f;
  }

  private fileScope(): Scope {
    let s = this.scope;
    while (s.parent) s = s.parent;
    return s;
  }

  private parseFunctionDefinition(startTok: Token, specs: DeclSpecs, d: DeclaratorInfo, type: FunctionType): ExternalDeclaration {
    const nameTok = d.nameTok!;
    const f = this.declareFunction(d.name!, type, specs, d, nameTok, 'file');
    if (f.body) throw this.error(`redefinition of '${f.name}'`, nameTok);
    if (d.params) f.params = d.params;
    f.definitionLoc = this.map.location(startTok.start);
    if (f.params.some((p) => p.name === '')) throw this.error('parameter name omitted', nameTok);
    const fnScope = new Scope(this.scope, 'block');
    const saved = this.scope;
    const savedFn = this.currentFunction;
    this.scope = fnScope;
    this.currentFunction = f;
    this.labels = new Set();
    this.gotos = [];
    const bodyOpen = this.peek();
    const closeIdx = this.matchingBrace(this.p);
    const from = keyOf(this.map.location(startTok.start));
    const to = endKeyOf(this.map.location(bodyOpen.start, this.tokens[closeIdx].end));
    this.blockStack.push({ from, to, forLoop: false });
    for (const p of f.params) {
      fnScope.names.set(p.name, p);
      this.scopedNames.push({ name: p.name, entry: p, from: from - 1, blockFrom: from, blockTo: to, functionName: f.name });
    }
    // __func__ and friends are implicitly declared in every function body.
    try {
      const body = this.parseCompound(false);
      for (const g of this.gotos) {
        if (!this.labels.has(g.label)) throw new TarsierError('c-type', `label '${g.label}' used but not defined`, g.loc);
      }
      f.body = body;
      this.functionRanges.push({ name: f.name, from, to });
      return { kind: 'FunctionDefinition', loc: this.loc(startTok), decl: f, body };
    } finally {
      this.blockStack.pop();
      this.scope = saved;
      this.currentFunction = savedFn;
    }
  }

  /** Index of the `}` matching the `{` at token index i (for block ranges). */
  private matchingBrace(i: number): number {
    let depth = 0;
    for (let k = i; k < this.tokens.length; k++) {
      const t = this.tokens[k];
      if (t.kind !== 'punct') {
        if (t.kind === 'eof') return k;
        continue;
      }
      if (t.text === '{') depth++;
      else if (t.text === '}' && --depth === 0) return k;
    }
    return this.tokens.length - 1;
  }

  // ---- initializers ------------------------------------------------------------------

  private parseInitializer(): Expr | RawList {
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
  private initFields(info: RecordInfo): number[] {
    const out: number[] = [];
    info.fields!.forEach((f, i) => {
      if (f.name !== undefined || f.bitWidth === undefined) out.push(i);
    });
    return out;
  }

  private subobjectType(t: CType, index: number): CType {
    if (t.kind === 'array') return t.element;
    if (t.kind === 'record') return t.record.fields![index].type;
    return t;
  }

  private resolveDesignator(t: CType, d: RawDesignator): number {
    if (d.kind === 'index') {
      if (t.kind !== 'array') throw this.error(`array index in non-array initializer`, d.loc);
      if (d.index < 0n || (t.length !== undefined && d.index >= BigInt(t.length))) throw this.error('array index in initializer exceeds array bounds', d.loc);
      if (d.last !== undefined) throw this.unsupportedAt('designator ranges [a ... b] in initializers', d.loc);
      return Number(d.index);
    }
    if (t.kind !== 'record') throw this.error(`field name not in record or union initializer`, d.loc);
    const i = t.record.fields!.findIndex((f) => f.name === d.name);
    if (i < 0) {
      if (t.record.fields!.some((f) => f.name === undefined && f.type.kind === 'record')) {
        throw this.unsupportedAt(`designator .${d.name} naming a member of an anonymous struct/union`, d.loc);
      }
      throw this.error(`unknown field '${d.name}' specified in initializer`, d.loc);
    }
    return i;
  }

  private unsupportedAt(what: string, loc: SourceLocation): TarsierError {
    return new TarsierError('c-unsupported', `unsupported construct: ${what}`, loc);
  }

  private isAggregate(t: CType): boolean {
    return t.kind === 'array' || t.kind === 'record';
  }

  /**
   * Fills the subobjects of `t` from items[cursor.i...]. A braced level owns
   * its designators; an elided level (brace elision) stops at a designator.
   */
  private fillObject(t: CType, items: RawItem[], cursor: InitCursor, braced: boolean, loc: SourceLocation): InitList {
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
      const designators = pending ?? item.designators;
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

  private initLoc(v: Expr | RawList): SourceLocation {
    return v.loc;
  }

  /** An expression that initialises an aggregate subobject as a whole (no brace elision). */
  private initializesWhole(t: CType, e: Expr): boolean {
    if (t.kind === 'array') return e.kind === 'StringLiteral' && isInteger(t.element);
    if (t.kind === 'record') return e.type.kind === 'record' && e.type.record === t.record;
    return true;
  }

  private mergeInit(a: InitList, b: InitList): InitList {
    const m = new Map<number, Initializer>(a.items.map((i) => [i.target, i.value]));
    for (const it of b.items) {
      const prev = m.get(it.target);
      m.set(it.target, prev && prev.kind === 'InitList' && it.value.kind === 'InitList' ? this.mergeInit(prev, it.value) : it.value);
    }
    return { ...a, items: [...m.entries()].sort((x, y) => x[0] - y[0]).map(([target, value]) => ({ target, value })) };
  }

  // ---- statements -----------------------------------------------------------------------

  private parseCompound(newScope = true): CompoundStmt {
    const open = this.expect('{');
    const saved = this.scope;
    if (newScope) {
      this.scope = new Scope(this.scope, 'block');
      const closeIdx = this.matchingBrace(this.p - 1);
      this.blockStack.push({
        from: keyOf(this.map.location(open.start)),
        to: endKeyOf(this.map.location(open.start, this.tokens[closeIdx].end)),
        forLoop: false,
      });
    }
    try {
      const items: BlockItem[] = [];
      while (!this.is('}')) {
        if (this.peek().kind === 'eof') throw this.error("expected '}' at end of input", this.peek());
        if (this.is('__label__')) {
          this.next();
          while (!this.accept(';')) this.next();
          continue;
        }
        const item = this.parseBlockItem();
        if (item) items.push(item);
      }
      this.next();
      return { kind: 'Compound', loc: this.loc(open), items };
    } finally {
      if (newScope) this.blockStack.pop();
      this.scope = saved;
    }
  }

  private parseBlockItem(): BlockItem | undefined {
    if (this.is('_Static_assert')) {
      this.parseStaticAssert();
      return undefined;
    }
    if (this.is('__attribute__')) {
      // An attribute statement (`__attribute__((fallthrough));`) is a null statement.
      const save = this.p;
      const start = this.peek();
      this.parseAttributes();
      if (this.is(';')) {
        this.next();
        return { kind: 'Null', loc: this.loc(start) };
      }
      this.p = save;
    }
    const t0 = this.peek();
    if (t0.kind === 'ident' && this.peek(1).kind === 'ident' && !KEYWORDS.has(this.text()) && !this.scope.lookup(t0.text) && !KEYWORDS.has(this.text(1))) {
      throw this.error(`unknown type name '${t0.text}'`, t0);
    }
    if (this.isDeclarationStart() && !(this.peek().kind === 'ident' && this.is(':', 1))) {
      const decl = this.parseLocalDeclaration();
      return { kind: 'DeclStmt', loc: decl.loc, declaration: decl };
    }
    return this.parseStatement();
  }

  private parseLocalDeclaration(): Declaration {
    const startTok = this.peek();
    while (this.accept('__extension__'));
    const specs = this.parseDeclSpecs(true);
    const declarators: Declarator[] = [];
    if (!this.accept(';')) {
      for (;;) {
        const dstart = this.peek();
        const d = this.parseDeclarator(false);
        this.parseDeclaratorTail(specs);
        const type = d.derive(this.applyMode(specs, dstart));
        if (type.kind === 'function' && this.is('{')) throw this.unsupported('nested function definitions', dstart);
        // The declaration's own start is the visibility point for witnesses.
        declarators.push(this.finishDeclaratorAt(specs, d, type, dstart, startTok));
        if (this.accept(',')) continue;
        this.expect(';', 'after declaration');
        break;
      }
    }
    return { kind: 'Declaration', loc: this.loc(startTok), declarators };
  }

  private finishDeclaratorAt(specs: DeclSpecs, d: DeclaratorInfo, type: CType, dstart: Token, declStart: Token): Declarator {
    // Record block-scope names at the declaration's first token, not at the declarator.
    const saveLen = this.scopedNames.length;
    const result = this.finishDeclarator(specs, d, type, dstart, 'block');
    for (let i = saveLen; i < this.scopedNames.length; i++) {
      const n = this.scopedNames[i];
      const block = this.blockStack[this.blockStack.length - 1];
      this.scopedNames[i] = { ...n, from: block?.forLoop ? n.from : keyOf(this.map.location(declStart.start)) };
    }
    return result;
  }

  private parseStatement(): Stmt {
    const t = this.peek();
    const s = this.text();
    if (t.kind === 'ident' && this.is(':', 1) && !KEYWORDS.has(s)) {
      this.next();
      this.next();
      this.parseAttributes();
      if (this.labels.has(t.text)) throw this.error(`duplicate label '${t.text}'`, t);
      this.labels.add(t.text);
      const body = this.is('}') ? ({ kind: 'Null', loc: this.locTok(this.peek()) } as Stmt) : this.parseStatementOrDecl();
      return { kind: 'Label', loc: this.loc(t), name: t.text, body };
    }
    if (t.kind === 'punct' && t.text === '{') return this.parseCompound();
    if (t.kind === 'punct' && t.text === ';') {
      this.next();
      return { kind: 'Null', loc: this.locTok(t) };
    }
    if (t.kind === 'ident') {
      switch (s) {
        case 'if': {
          this.next();
          this.expect('(');
          const c = this.parseCondition();
          this.expect(')');
          const then = this.parseStatement();
          const els = this.accept('else') ? this.parseStatement() : undefined;
          return els ? { kind: 'If', loc: this.loc(t), condition: c, then, else: els } : { kind: 'If', loc: this.loc(t), condition: c, then };
        }
        case 'while': {
          this.next();
          this.expect('(');
          const c = this.parseCondition();
          this.expect(')');
          const body = this.loopBody();
          return { kind: 'While', loc: this.loc(t), keywordLoc: this.locTok(t), condition: c, body };
        }
        case 'do': {
          this.next();
          const body = this.loopBody();
          const w = this.expect('while', "in 'do' statement");
          this.expect('(');
          const c = this.parseCondition();
          this.expect(')');
          this.expect(';', "after 'do' statement");
          return { kind: 'DoWhile', loc: this.loc(t), keywordLoc: this.locTok(t), whileLoc: this.locTok(w), body, condition: c };
        }
        case 'for': return this.parseFor();
        case 'switch': {
          this.next();
          this.expect('(');
          const c0 = this.parseExpression();
          this.expect(')');
          if (!isInteger(this.sema.value(c0).type)) throw this.error('switch quantity not an integer', t);
          const c = this.sema.promote(c0);
          const cases: Array<CaseStmt | DefaultStmt> = [];
          this.switches.push({ cases, type: c.type });
          this.breakDepth++;
          try {
            const body = this.parseStatement();
            return { kind: 'Switch', loc: this.loc(t), condition: c, body, cases };
          } finally {
            this.switches.pop();
            this.breakDepth--;
          }
        }
        case 'case': {
          this.next();
          const sw = this.switches[this.switches.length - 1];
          if (!sw) throw this.error("case label not within a switch statement", t);
          const e = this.parseConditional();
          let v = this.sema.evalInt(e);
          if (v === undefined) throw this.error('case label does not reduce to an integer constant', t);
          let last: bigint | undefined;
          if (this.accept('...')) {
            last = this.sema.evalInt(this.parseConditional());
            if (last === undefined) throw this.error('case label does not reduce to an integer constant', t);
          }
          this.expect(':', 'after case label');
          const k = integerKind(sw.type as Parameters<typeof integerKind>[0]);
          v = BigInt.asIntN(1024, v);
          const wrap = (x: bigint) => this.wrapKind(x, k);
          const value = wrap(v);
          const lastV = last === undefined ? undefined : wrap(last);
          for (const other of sw.cases) {
            if (other.kind === 'Case' && other.value === value) throw this.error('duplicate case value', t);
          }
          const body = this.is('}') ? ({ kind: 'Null', loc: this.locTok(this.peek()) } as Stmt) : this.parseStatement();
          const stmt: CaseStmt = lastV === undefined ? { kind: 'Case', loc: this.loc(t), value, body } : { kind: 'Case', loc: this.loc(t), value, last: lastV, body };
          sw.cases.push(stmt);
          return stmt;
        }
        case 'default': {
          this.next();
          const sw = this.switches[this.switches.length - 1];
          if (!sw) throw this.error("'default' label not within a switch statement", t);
          this.expect(':', "after 'default'");
          if (sw.cases.some((c) => c.kind === 'Default')) throw this.error("multiple default labels in one switch", t);
          const body = this.is('}') ? ({ kind: 'Null', loc: this.locTok(this.peek()) } as Stmt) : this.parseStatement();
          const stmt: DefaultStmt = { kind: 'Default', loc: this.loc(t), body };
          sw.cases.push(stmt);
          return stmt;
        }
        case 'break': {
          this.next();
          if (this.breakDepth === 0) throw this.error('break statement not within loop or switch', t);
          this.expect(';', "after 'break'");
          return { kind: 'Break', loc: this.loc(t) };
        }
        case 'continue': {
          this.next();
          if (this.loopDepth === 0) throw this.error('continue statement not within a loop', t);
          this.expect(';', "after 'continue'");
          return { kind: 'Continue', loc: this.loc(t) };
        }
        case 'return': {
          this.next();
          const fn = this.currentFunction!;
          const rt = fn.type.returnType;
          if (this.accept(';')) return { kind: 'Return', loc: this.loc(t) };
          const e = this.parseExpression();
          this.expect(';', "after 'return'");
          let value: Expr;
          if (rt.kind === 'void') {
            value = e; // gcc warns about 'return' with a value in a void function
          } else value = this.sema.assignConvert(e, rt, 'return');
          return { kind: 'Return', loc: this.loc(t), value };
        }
        case 'goto': {
          this.next();
          if (this.is('*')) throw this.unsupported('computed goto', t);
          const l = this.next();
          if (l.kind !== 'ident') throw this.error('expected a label after goto', l);
          this.expect(';', "after 'goto'");
          this.gotos.push({ label: l.text, loc: this.locTok(l) });
          return { kind: 'Goto', loc: this.loc(t), label: l.text };
        }
        case '__asm__': {
          const text = this.parseAsmBody();
          this.expect(';', 'after asm statement');
          return { kind: 'Asm', loc: this.loc(t), text };
        }
      }
    }
    const e = this.parseExpression();
    this.expect(';', 'after expression');
    return { kind: 'ExprStmt', loc: this.loc(t), expr: e };
  }

  /** A label's statement may be a declaration in C23/gcc; wrap it in a compound-less DeclStmt is not allowed, so parse a statement. */
  private parseStatementOrDecl(): Stmt {
    if (this.isDeclarationStart()) throw this.error('a label can only be part of a statement and a declaration is not a statement');
    return this.parseStatement();
  }

  private wrapKind(v: bigint, k: IntegerKind): bigint {
    const bits = k === 'bool' ? 1 : (sizeOf(intType(k), this.dm) ?? 4) * 8;
    const signed = ['char', 'schar', 'short', 'int', 'long', 'longlong', 'int128'].includes(k);
    return signed ? BigInt.asIntN(bits, v) : BigInt.asUintN(bits, v);
  }

  private loopBody(): Stmt {
    this.loopDepth++;
    this.breakDepth++;
    try {
      return this.parseStatement();
    } finally {
      this.loopDepth--;
      this.breakDepth--;
    }
  }

  private parseCondition(): Expr {
    const e = this.sema.value(this.parseExpression());
    if (!isScalar(e.type)) throw typeError(`used '${typeToString(e.type)}' where a scalar is required`, e.loc);
    return e;
  }

  private parseFor(): Stmt {
    const t = this.next();
    this.expect('(');
    const saved = this.scope;
    this.scope = new Scope(this.scope, 'block');
    const open = this.p - 1;
    // The for statement's range is from its keyword to the end of its body.
    let depth = 0;
    let k = open;
    for (; k < this.tokens.length; k++) {
      const tk = this.tokens[k];
      if (tk.kind === 'punct' && tk.text === '(') depth++;
      if (tk.kind === 'punct' && tk.text === ')' && --depth === 0) break;
    }
    const bodyEnd = this.statementEnd(k + 1);
    this.blockStack.push({
      from: keyOf(this.map.location(t.start)),
      to: endKeyOf(this.map.location(t.start, this.tokens[bodyEnd].end)),
      forLoop: true,
    });
    const firstScoped = this.scopedNames.length;
    const forFrom = keyOf(this.map.location(t.start));
    try {
      let init: Declaration | Expr | undefined;
      if (this.isDeclarationStart()) init = this.parseLocalDeclaration();
      else {
        if (!this.is(';')) init = this.parseExpression();
        this.expect(';', "in 'for' statement");
      }
      const condition = this.is(';') ? undefined : this.parseCondition();
      this.expect(';', "in 'for' statement");
      const step = this.is(')') ? undefined : this.parseExpression();
      this.expect(')');
      const body = this.loopBody();
      // The names declared in the for clause are in scope to the end of the body.
      const to = endKeyOf(this.loc(t));
      for (let i = firstScoped; i < this.scopedNames.length; i++) {
        const n = this.scopedNames[i];
        if (n.blockFrom === forFrom && n.blockTo !== to) this.scopedNames[i] = { ...n, blockTo: to };
      }
      const base = { kind: 'For' as const, loc: this.loc(t), keywordLoc: this.locTok(t), body };
      return { ...base, ...(init ? { init } : {}), ...(condition ? { condition } : {}), ...(step ? { step } : {}) };
    } finally {
      this.blockStack.pop();
      this.scope = saved;
    }
  }

  /** Token index of the last token of the statement starting at token index i (for scope ranges). */
  private statementEnd(i: number): number {
    let depthParen = 0;
    let depthBrace = 0;
    for (let k = i; k < this.tokens.length; k++) {
      const t = this.tokens[k];
      if (t.kind === 'eof') return k;
      if (t.kind !== 'punct') {
        if (t.text === 'else' && depthParen === 0 && depthBrace === 0) continue;
        continue;
      }
      if (t.text === '(') depthParen++;
      else if (t.text === ')') depthParen--;
      else if (t.text === '{') depthBrace++;
      else if (t.text === '}') {
        depthBrace--;
        if (depthBrace === 0 && depthParen === 0 && !this.continuesStatement(k + 1)) return k;
      } else if (t.text === ';' && depthParen === 0 && depthBrace === 0 && !this.continuesStatement(k + 1)) return k;
    }
    return this.tokens.length - 1;
  }

  private continuesStatement(k: number): boolean {
    // An `else` or the `while` of a do-statement continues the enclosing statement; being
    // conservative here only widens the scope range, which is harmless for name lookup.
    const t = this.tokens[k];
    return t?.kind === 'ident' && t.text === 'else';
  }

  // ---- expressions --------------------------------------------------------------------------

  /** Fails unless every token has been consumed. */
  expectEnd(): void {
    const t = this.peek();
    if (t.kind !== 'eof') throw this.error(`unexpected '${t.text}' after expression`, t);
  }

  parseExpression(): Expr {
    let e = this.parseAssignment();
    while (this.is(',')) {
      this.next();
      const r = this.parseAssignment();
      const rv = this.sema.value(r);
      e = { kind: 'Comma', left: e, right: rv, type: unqualified(rv.type), loc: this.spanLoc(e.loc, r.loc) };
    }
    return e;
  }

  private spanLoc(a: SourceLocation, b: SourceLocation): SourceLocation {
    const end = b.end ?? { line: b.line, column: b.column, offset: b.offset };
    return { file: a.file, line: a.line, column: a.column, offset: a.offset, end };
  }

  parseAssignment(): Expr {
    const start = this.peek();
    const lhs = this.parseConditional();
    const op = this.text();
    if (this.peek().kind === 'punct' && ASSIGN_OPS.has(op)) {
      const opTok = this.next();
      const rhs = this.parseAssignment();
      try {
        return this.sema.assign(op as '=', lhs, rhs, this.loc(start));
      } catch (e) {
        if (e instanceof TarsierError && e.code === 'c-type' && /lvalue|read-only/.test(e.message)) {
          throw new TarsierError('c-type', e.message, this.locTok(opTok));
        }
        throw e;
      }
    }
    return lhs;
  }

  parseConditional(): Expr {
    const start = this.peek();
    const c = this.parseBinary(1);
    if (!this.is('?')) return c;
    const q = this.next();
    const then = this.is(':') ? undefined : this.parseExpression();
    this.expect(':', 'in conditional expression');
    const els = this.parseConditional();
    return this.sema.conditional(c, then, els, this.loc(start), this.locTok(q));
  }

  private parseBinary(minPrec: number): Expr {
    const start = this.peek();
    let left = this.parseCast();
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'punct') break;
      const prec = BINARY_PRECEDENCE[t.text];
      if (prec === undefined || prec < minPrec) break;
      this.next();
      const right = this.parseBinary(prec + 1);
      left = this.sema.binary(t.text as '+', left, right, this.loc(start));
    }
    return left;
  }

  private parseCast(): Expr {
    const start = this.peek();
    if (this.is('(') && this.isTypeNameStart(1)) {
      this.next();
      const type = this.parseTypeName();
      this.expect(')');
      if (this.is('{')) return this.parsePostfixOps(this.compoundLiteral(start, type), start);
      const operand = this.parseCast();
      return this.sema.explicitCast(operand, type, this.loc(start));
    }
    return this.parseUnary();
  }

  private compoundLiteral(start: Token, type: CType): Expr {
    const raw = this.parseInitializer() as RawList;
    let init = this.initialize(type, raw);
    let t = type;
    if (t.kind === 'array' && t.length === undefined && init.kind === 'InitList') {
      t = arrayOf(t.element, init.items.reduce((m, it) => Math.max(m, it.target + 1), 0));
      init = { ...init, type: t };
    }
    return { kind: 'CompoundLiteral', init, type: t, loc: this.loc(start) };
  }

  private parseUnary(): Expr {
    const t = this.peek();
    const s = this.text();
    if (t.kind === 'punct') {
      switch (s) {
        case '++': case '--': {
          this.next();
          const operand = this.parseUnary();
          return this.sema.incDec(s, true, operand, this.loc(t));
        }
        case '&': case '*': case '+': case '-': case '~': case '!': {
          this.next();
          const operand = this.parseCast();
          return this.sema.unary(s, operand, this.loc(t));
        }
        case '&&': throw this.unsupported('address of a label (&&label)', t);
      }
    } else if (t.kind === 'ident') {
      switch (s) {
        case 'sizeof': case '_Alignof': case '__alignof__': {
          this.next();
          const operator = s === 'sizeof' ? 'sizeof' : 'alignof';
          let argType: CType;
          let argument: Expr | { kind: 'TypeName'; type: CType };
          if (this.is('(') && this.isTypeNameStart(1)) {
            this.next();
            argType = this.parseTypeName();
            this.expect(')');
            if (this.is('{')) {
              const e = this.parsePostfixOps(this.compoundLiteral(t, argType), t);
              argType = e.type;
              argument = e;
            } else argument = { kind: 'TypeName', type: argType };
          } else {
            const e = this.parseUnary();
            argType = e.type;
            argument = e;
            if (e.kind === 'Member' && e.field.bitWidth !== undefined) throw this.error(`'${s}' applied to a bit-field`, t);
          }
          let value: bigint | undefined;
          if (operator === 'sizeof') {
            const n = sizeOf(argType, this.dm);
            if (n === undefined && !(argType.kind === 'array' && argType.vla)) throw this.error(`invalid application of 'sizeof' to incomplete type '${typeToString(argType)}'`, t);
            value = n === undefined ? undefined : BigInt(n);
          } else {
            // C11 _Alignof gives the ABI alignment (4 for double on i386); GNU __alignof__ the preferred one (8).
            value = BigInt(s === '_Alignof' ? fieldAlignOf(argType, this.dm) : alignOf(argType, this.dm));
          }
          return { kind: 'SizeOf', operator, argument, value, type: intType(sizeTKind(this.dm)), loc: this.loc(t) };
        }
        case '__extension__': {
          this.next();
          return this.parseCast();
        }
        case '__real__': case '__imag__': throw this.unsupported(s, t);
      }
    }
    return this.parsePostfixOps(this.parsePrimary(), t);
  }

  private parsePostfixOps(e: Expr, start: Token): Expr {
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'punct') return e;
      switch (t.text) {
        case '[': {
          this.next();
          const idx = this.parseExpression();
          const close = this.expect(']');
          const a = this.sema.value(e);
          const b = this.sema.value(idx);
          let base: Expr;
          let index: Expr;
          if (a.type.kind === 'pointer' && isInteger(b.type)) [base, index] = [a, b];
          else if (b.type.kind === 'pointer' && isInteger(a.type)) [base, index] = [b, a];
          else throw typeError('subscripted value is neither array nor pointer', t.kind ? this.locTok(t) : e.loc);
          const pt = base.type as { pointee: CType };
          e = { kind: 'Index', base, index: this.sema.promote(index), type: pt.pointee, loc: this.map.location(start.start, close.end) };
          continue;
        }
        case '(': {
          this.next();
          e = this.parseCall(e, start);
          continue;
        }
        case '.': case '->': {
          this.next();
          const nameTok = this.next();
          if (nameTok.kind !== 'ident') throw this.error(`expected identifier after '${t.text}'`, nameTok);
          const arrow = t.text === '->';
          const obj = arrow ? this.sema.value(e) : e;
          let rt: CType = obj.type;
          if (arrow) {
            if (rt.kind !== 'pointer') throw typeError(`invalid type argument of '->' (have '${typeToString(rt)}')`, this.locTok(t));
            rt = rt.pointee;
          }
          if (rt.kind !== 'record') throw typeError(`request for member '${nameTok.text}' in something not a structure or union`, this.locTok(t));
          if (!rt.record.fields) throw typeError(`dereferencing pointer to incomplete type '${typeToString(rt)}'`, this.locTok(t));
          const path = this.findField(rt.record, nameTok.text);
          if (!path) throw typeError(`'${typeToString(rt)}' has no member named '${nameTok.text}'`, this.locTok(nameTok));
          const field = path[path.length - 1];
          // Qualifiers of the record apply to its members.
          const type = withQualifiers(field.type, rt.qualifiers);
          e = { kind: 'Member', object: obj, arrow, name: nameTok.text, field, path, type, loc: this.map.location(start.start, nameTok.end) };
          continue;
        }
        case '++': case '--': {
          this.next();
          e = this.sema.incDec(t.text, false, e, this.map.location(start.start, t.end));
          continue;
        }
        default:
          return e;
      }
    }
  }

  private findField(info: RecordInfo, name: string): RecordField[] | undefined {
    for (const f of info.fields ?? []) {
      if (f.name === name) return [f];
      if (f.name === undefined && f.type.kind === 'record') {
        const inner = this.findField(f.type.record, name);
        if (inner) return [f, ...inner];
      }
    }
    return undefined;
  }

  private parseCall(calleeRaw: Expr, start: Token): Expr {
    const args: Expr[] = [];
    if (!this.is(')')) {
      for (;;) {
        args.push(this.parseAssignment());
        if (!this.accept(',')) break;
      }
    }
    const close = this.expect(')', 'to close the argument list');
    const loc = this.map.location(start.start, close.end);
    const rparenLoc = this.locTok(close);
    const callee = this.sema.value(calleeRaw);
    const ft = callee.type.kind === 'pointer' ? callee.type.pointee : callee.type;
    if (ft.kind !== 'function') throw typeError(`called object is not a function or function pointer`, calleeRaw.loc);
    const n = ft.params.length;
    if (ft.prototyped && (args.length < n || (args.length > n && !ft.variadic))) {
      const name = calleeRaw.kind === 'Identifier' ? ` '${calleeRaw.name}'` : '';
      throw typeError(`too ${args.length < n ? 'few' : 'many'} arguments to function${name}`, loc);
    }
    const converted = args.map((a, i) => {
      if (i < n && ft.prototyped) return this.sema.assignConvert(a, ft.params[i].type, `argument ${i + 1}`);
      // Default argument promotions.
      const v = this.sema.promote(a);
      if (v.type.kind === 'float' && v.type.name === 'float') return this.sema.convert(v, floatType('double'));
      return v;
    });
    const fn = calleeRaw.kind === 'Identifier' && calleeRaw.decl.kind === 'Function' ? calleeRaw.decl : undefined;
    const call: Expr = { kind: 'Call', callee, args: converted, ...(fn ? { function: fn } : {}), rparenLoc, type: unqualified(ft.returnType), loc };
    return call;
  }

  private parsePrimary(): Expr {
    const t = this.peek();
    switch (t.kind) {
      case 'number':
        this.next();
        return this.numberLiteral(t);
      case 'char':
        this.next();
        return this.charLiteral(t);
      case 'string':
        return this.parseStringLiteral();
      case 'punct': {
        if (t.text === '(') {
          this.next();
          if (this.is('{')) {
            const body = this.parseCompound();
            this.expect(')');
            const last = body.items[body.items.length - 1];
            const type = last && last.kind === 'ExprStmt' ? unqualified(this.sema.value(last.expr).type) : voidType;
            return { kind: 'StatementExpr', body, type, loc: this.loc(t) };
          }
          const e = this.parseExpression();
          this.expect(')');
          // Keep the inner node, but widen its location to the parentheses.
          const widened = { ...e, loc: this.loc(t) } as Expr;
          return widened;
        }
        throw this.error(`expected expression before '${t.text}'`, t);
      }
      case 'ident': {
        const s = this.text();
        if (s === '__builtin_va_arg') {
          this.next();
          this.expect('(');
          const ap = this.parseAssignment();
          this.expect(',');
          const type = this.parseTypeName();
          this.expect(')');
          return { kind: 'VaArg', operand: ap, type, loc: this.loc(t) };
        }
        if (s === '__builtin_offsetof') return this.parseOffsetof();
        if (s === '__builtin_choose_expr') {
          this.next();
          this.expect('(');
          const c = this.parseAssignment();
          this.expect(',');
          const a = this.parseAssignment();
          this.expect(',');
          const b = this.parseAssignment();
          this.expect(')');
          const v = this.sema.evalInt(c);
          if (v === undefined) throw this.error('first argument to __builtin_choose_expr not a constant', t);
          return v !== 0n ? a : b;
        }
        if (s === '__builtin_types_compatible_p') {
          this.next();
          this.expect('(');
          const a = this.parseTypeName();
          this.expect(',');
          const b = this.parseTypeName();
          this.expect(')');
          const v = sameType(unqualified(a), unqualified(b)) ? 1n : 0n;
          return { kind: 'IntegerLiteral', value: v, text: String(v), type: intType('int'), loc: this.loc(t) };
        }
        if (s === '_Generic') return this.parseGeneric();
        if (s === '__func__' || s === '__FUNCTION__' || s === '__PRETTY_FUNCTION__') {
          this.next();
          const name = this.currentFunction?.name ?? '';
          const units = [...Buffer.from(name, 'utf8')];
          const type = arrayOf(withQualifiers(intType('char'), { const: true }), units.length + 1);
          return { kind: 'StringLiteral', units, wide: false, type, loc: this.locTok(t) };
        }
        if (KEYWORDS.has(s)) throw this.error(`expected expression before '${t.text}'`, t);
        this.next();
        let decl = this.scope.lookup(t.text);
        if (!decl) {
          if (!this.is('(') || this.expressionOnly) throw new TarsierError('c-undeclared', `'${t.text}' undeclared`, this.locTok(t));
          decl = this.implicitFunction(t);
          if (!decl) {
            // A gcc built-in without declaration.
            return this.parseBuiltinCall(t);
          }
        }
        if (decl.kind === 'Typedef') throw this.error(`expected expression before '${t.text}'`, t);
        const type = decl.kind === 'EnumConstant' ? decl.type : decl.type;
        return { kind: 'Identifier', name: t.text, decl, type, loc: this.locTok(t) };
      }
      default:
        throw this.error('expected expression before end of input', t);
    }
  }

  /** C11 `_Generic(e, T: e1, ..., default: e0)`: the selected association (the others are type-checked too). */
  private parseGeneric(): Expr {
    const t = this.next();
    this.expect('(');
    const control = this.sema.value(this.parseAssignment());
    const ct = unqualified(control.type);
    let chosen: Expr | undefined;
    let fallback: Expr | undefined;
    while (this.accept(',')) {
      if (this.accept('default')) {
        this.expect(':');
        fallback = this.parseAssignment();
        continue;
      }
      const at = this.peek();
      const type = this.parseTypeName();
      this.expect(':');
      const e = this.parseAssignment();
      if (sameType(unqualified(type), ct) && !(type.kind === 'enum') === !(ct.kind === 'enum')) {
        if (chosen) throw this.error('_Generic selector matches multiple associations', at);
        chosen = e;
      }
    }
    this.expect(')');
    const result = chosen ?? fallback;
    if (!result) throw this.error(`_Generic selector of type '${typeToString(control.type)}' is not compatible with any association`, t);
    return result;
  }

  /** An undeclared function called as `f(...)`: gcc declares `int f()` implicitly (C89 rule, a warning). */
  private implicitFunction(t: Token): FunctionDecl | undefined {
    const name = t.text;
    if (name.startsWith('__builtin_')) return undefined;
    let returnType: CType = intType('int');
    if (name.startsWith('__VERIFIER_nondet_')) returnType = nondetType(name.slice('__VERIFIER_nondet_'.length), this.dm) ?? returnType;
    else if (name === '__VERIFIER_error' || name === 'reach_error' || name === '__VERIFIER_assume' || name.startsWith('__VERIFIER_atomic')) returnType = voidType;
    const library = LIBRARY_FUNCTIONS(this.dm);
    const known = Object.hasOwn(library, name) ? library[name] : undefined;
    const type: FunctionType = known ?? { kind: 'function', returnType, params: [], variadic: false, prototyped: false };
    const builtin = verifierBuiltin(name, type, this.dm);
    const f: FunctionDecl = { kind: 'Function', id: this.id(), name, type, storage: 'extern', params: [], loc: this.locTok(t), implicit: true, ...(builtin ? { builtin } : {}) };
    this.functions.push(f);
    this.fileScope().names.set(name, f);
    return f;
  }

  private parseBuiltinCall(t: Token): Expr {
    const name = t.text;
    const rt = builtinReturnType(name, this.dm);
    if (!rt) throw this.unsupported(`built-in function '${name}'`, t);
    this.expect('(');
    const args: Expr[] = [];
    if (!this.is(')')) {
      for (;;) {
        args.push(this.sema.promote(this.parseAssignment()));
        if (!this.accept(',')) break;
      }
    }
    const close = this.expect(')');
    return { kind: 'BuiltinCall', name, args, rparenLoc: this.locTok(close), type: rt, loc: this.map.location(t.start, close.end) };
  }

  private parseOffsetof(): Expr {
    const t = this.next();
    this.expect('(');
    const type = this.parseTypeName();
    this.expect(',');
    let cur: CType = type;
    let offset = 0n;
    let first = true;
    for (;;) {
      if (first || this.accept('.')) {
        first = false;
        const nameTok = this.next();
        if (cur.kind !== 'record' || !cur.record.fields) throw this.error('offsetof of a non-record type', nameTok);
        const path = this.findField(cur.record, nameTok.text);
        if (!path) throw typeError(`'${typeToString(cur)}' has no member named '${nameTok.text}'`, this.locTok(nameTok));
        for (const f of path) offset += BigInt(f.offset);
        if (path[path.length - 1].bitWidth !== undefined) throw this.error('attempt to take address of bit-field', nameTok);
        cur = path[path.length - 1].type;
        continue;
      }
      if (this.is('[')) {
        const open = this.next();
        const v = this.sema.evalInt(this.parseExpression());
        this.expect(']');
        if (v === undefined || cur.kind !== 'array') throw this.error('non-constant or invalid array index in offsetof', open);
        offset += v * BigInt(sizeOf(cur.element, this.dm) ?? 0);
        cur = cur.element;
        continue;
      }
      break;
    }
    this.expect(')');
    return { kind: 'OffsetOf', value: offset, type: intType(sizeTKind(this.dm)), loc: this.loc(t) };
  }

  private numberLiteral(t: Token): Expr {
    const text = t.text;
    const loc = this.locTok(t);
    const isHex = /^0[xX]/.test(text);
    const isFloat = isHex ? /[.pP]/.test(text) : /[.eE]/.test(text) && !/^0[bB]/.test(text);
    if (isFloat) {
      const m = /^(.*?)([fFlL]?)$/.exec(text)!;
      let body = m[1];
      const suffix = m[2].toLowerCase();
      if (/[fFlL]$/.test(body)) throw this.error(`invalid suffix on floating constant '${text}'`, t);
      let value: number;
      if (isHex) {
        const hm = /^0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?\d+)$/.exec(body);
        if (!hm) throw this.error(`invalid floating constant '${text}'`, t);
        const mant = Number.parseInt((hm[1] || '0') + (hm[2] ?? ''), 16);
        value = mant * Math.pow(2, Number(hm[3]) - 4 * (hm[2]?.length ?? 0));
      } else {
        if (!/^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(body)) throw this.error(`invalid floating constant '${text}'`, t);
        value = Number(body);
      }
      body = body;
      const type = floatType(suffix === 'f' ? 'float' : suffix === 'l' ? 'longdouble' : 'double');
      return { kind: 'FloatLiteral', value: suffix === 'f' ? Math.fround(value) : value, text, type, loc };
    }
    const m = /^(0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)([uUlL]*)$/.exec(text);
    if (!m) throw this.error(`invalid integer constant '${text}'`, t);
    const digits = m[1];
    const suffix = m[2].toLowerCase();
    if (!['', 'u', 'l', 'ul', 'lu', 'll', 'ull', 'llu'].includes(suffix) || /lL|Ll/.test(m[2])) {
      throw this.error(`invalid suffix "${m[2]}" on integer constant`, t);
    }
    let value: bigint;
    const decimal = !/^0[xXbB]/.test(digits) && !(digits.length > 1 && digits[0] === '0');
    if (/^0[bB]/.test(digits)) value = BigInt('0b' + digits.slice(2));
    else if (/^0[xX]/.test(digits)) value = BigInt(digits);
    else if (!decimal) {
      if (/[89]/.test(digits)) throw this.error(`invalid digit in octal constant '${text}'`, t);
      value = BigInt('0o' + digits.slice(1));
    } else value = BigInt(digits);
    const unsigned = suffix.includes('u');
    const longs = (suffix.match(/l/g) ?? []).length;
    const candidates: IntegerKind[] = [];
    const add = (...ks: IntegerKind[]) => candidates.push(...ks);
    if (longs === 0) {
      if (unsigned) add('uint', 'ulong', 'ulonglong');
      else if (decimal) add('int', 'long', 'longlong');
      else add('int', 'uint', 'long', 'ulong', 'longlong', 'ulonglong');
    } else if (longs === 1) {
      if (unsigned) add('ulong', 'ulonglong');
      else if (decimal) add('long', 'longlong');
      else add('long', 'ulong', 'longlong', 'ulonglong');
    } else {
      if (unsigned) add('ulonglong');
      else if (decimal) add('longlong');
      else add('longlong', 'ulonglong');
    }
    let kind = candidates.find((k) => {
      const bits = BigInt((sizeOf(intType(k), this.dm) ?? 4) * 8);
      const signed = !k.startsWith('u');
      return value <= (signed ? (1n << (bits - 1n)) - 1n : (1n << bits) - 1n);
    });
    if (!kind) {
      // gcc: "integer constant is so large that it is unsigned" / too large.
      // gcc: "integer constant is so large that it is unsigned": __int128 where it exists, else unsigned long long.
      if (this.dm === 'LP64' && value < 1n << 127n) kind = 'int128';
      else if (value <= (1n << 64n) - 1n) kind = 'ulonglong';
      else throw this.error(`integer constant is too large for its type`, t);
    }
    return { kind: 'IntegerLiteral', value, text, type: intType(kind), loc };
  }

  private charLiteral(t: Token): Expr {
    const text = t.text;
    const prefix = text.slice(0, text.indexOf("'"));
    const body = text.slice(prefix.length + 1, -1);
    if (body.length === 0) throw this.error('empty character constant', t);
    const units = decodeEscapes(body, (m) => {
      throw this.error(m, t);
    });
    let value: bigint;
    let type: CType;
    if (prefix === '') {
      // Narrow: `char` is signed on x86; multi-character constants pack bytes big-endian.
      if (units.length === 1) value = BigInt.asIntN(8, BigInt(units[0]));
      else value = BigInt.asIntN(32, units.reduce((acc, u) => (acc << 8n) | BigInt(u & 0xff), 0n));
      type = intType('int');
    } else {
      const str = Buffer.from(units).toString('utf8');
      const cp = BigInt(str.codePointAt(0) ?? 0);
      if (prefix === 'L') {
        value = BigInt.asIntN(32, cp);
        type = this.wcharType();
      } else if (prefix === 'u') {
        value = BigInt.asUintN(16, cp);
        type = intType('ushort');
      } else {
        value = BigInt.asUintN(32, cp);
        type = intType('uint');
      }
    }
    return { kind: 'IntegerLiteral', value, text, type, loc: this.locTok(t) };
  }

  private parseStringLiteral(): Extract<Expr, { kind: 'StringLiteral' }> {
    const first = this.peek();
    if (first.kind !== 'string') throw this.error('expected string literal', first);
    let units: number[] = [];
    let prefix = '';
    let last = first;
    while (this.peek().kind === 'string') {
      const t = this.next();
      last = t;
      const p = t.text.slice(0, t.text.indexOf('"'));
      if (p && p !== 'u8') {
        if (prefix && prefix !== p) throw this.error('unsupported non-standard concatenation of string literals', t);
        prefix = p;
      }
      const bytes = decodeEscapes(t.text.slice(p.length + 1, -1), (m) => {
        throw this.error(m, t);
      });
      units = units.concat(bytes);
    }
    let elem: CType = intType('char');
    let wide = false;
    if (prefix === 'L' || prefix === 'u' || prefix === 'U') {
      wide = true;
      elem = prefix === 'L' ? this.wcharType() : prefix === 'u' ? intType('ushort') : intType('uint');
      units = [...Buffer.from(units).toString('utf8')].map((c) => c.codePointAt(0)!);
    }
    return { kind: 'StringLiteral', units, wide, type: arrayOf(elem, units.length + 1), loc: this.map.location(first.start, last.end) };
  }
}

/** Prototypes gcc knows for library functions a program may call without declaring them. */
function LIBRARY_FUNCTIONS(dm: DataModel): Record<string, FunctionType> {
  const sizeT = intType(sizeTKind(dm));
  const voidPtr = pointerTo(voidType);
  const fn = (returnType: CType, params: CType[], variadic = false): FunctionType => ({
    kind: 'function', returnType, params: params.map((type) => ({ type })), variadic, prototyped: true,
  });
  const charPtr = pointerTo(intType('char'));
  const constCharPtr = pointerTo(withQualifiers(intType('char'), { const: true }));
  return {
    abort: fn(voidType, []),
    exit: fn(voidType, [intType('int')]),
    malloc: fn(voidPtr, [sizeT]),
    calloc: fn(voidPtr, [sizeT, sizeT]),
    realloc: fn(voidPtr, [voidPtr, sizeT]),
    alloca: fn(voidPtr, [sizeT]),
    free: fn(voidType, [voidPtr]),
    memset: fn(voidPtr, [voidPtr, intType('int'), sizeT]),
    memcpy: fn(voidPtr, [voidPtr, pointerTo(withQualifiers(voidType, { const: true })), sizeT]),
    strlen: fn(sizeT, [constCharPtr]),
    printf: fn(intType('int'), [constCharPtr], true),
    strcpy: fn(charPtr, [charPtr, constCharPtr]),
  };
}

export { isArithmetic };

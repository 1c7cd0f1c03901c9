/**
 * The parser's state and the helpers every part of it shares: tokens,
 * scopes, locations, errors, keywords. The parser is a chain of classes,
 * one per concern (parse-gnu, parse-expressions, parse-initializers,
 * parse-declarations, parse-statements, parser); a part calls a later
 * part's entry points through the abstract methods declared here.
 */
import { TarsierError } from '../common/errors.js';
import type { SourceLocation } from '../common/location.js';
import type { CompoundStmt, Expr, FunctionDecl, Initializer, CaseStmt, DefaultStmt, StorageClass, TypedefDecl, VarDecl } from './ast.js';
import type { PackChange, SourceMap, Token } from './lexer.js';
import { Sema } from './sema.js';
import { Scope, type ScopedName } from './scope.js';
import { type CType, type DataModel, type EnumInfo, type RecordField, type RecordInfo, arrayOf, intType, pointerTo } from './types.js';


// ---- raw initializers (before they meet their type) -------------------------

export interface RawList {
  readonly kind: 'RawList';
  readonly loc: SourceLocation;
  readonly items: RawItem[];
}
export type RawDesignator =
  | { kind: 'field'; name: string; loc: SourceLocation }
  | { kind: 'index'; index: bigint; last?: bigint; loc: SourceLocation }
  /** The unnamed member at this index (a designator `.x` naming a member of an anonymous struct/union goes through it). */
  | { kind: 'member'; index: number; loc: SourceLocation };
/** Position in a brace list while filling an object: the item, and designators of it still to apply. */
export interface InitCursor {
  i: number;
  pending?: RawDesignator[];
}

export interface RawItem {
  designators: RawDesignator[];
  readonly value: Expr | RawList;
}

export interface DeclSpecs {
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

export interface Attribute {
  readonly name: string;
  readonly value?: bigint;
  /** `mode(QI|HI|SI|DI|TI|word|pointer)` */
  readonly mode?: string;
}

export interface DeclaratorInfo {
  name?: string;
  nameTok?: Token;
  derive: (base: CType) => CType;
  /** Parameters of the function declarator applied directly to the name. */
  params?: VarDecl[];
  /** Set when those parameters came from an old-style identifier list. */
  krNames?: boolean;
  vlaSizes: Expr[];
}

export const TYPE_KEYWORDS = new Set([
  'void', 'char', 'short', 'int', 'long', 'float', 'double', 'signed', 'unsigned', '_Bool', '_Complex',
  'struct', 'union', 'enum', '__int128', 'typeof', '_Float128', '__float128', '_Float64x', '_Float32', '_Float64', '_Float32x',
  'const', 'volatile', 'restrict', '_Atomic', '_Alignas',
  'typedef', 'extern', 'static', 'auto', 'register', 'inline', '_Noreturn', '_Thread_local', '__thread',
  '__auto_type',
]);

/** GNU alternate spellings of keywords. */
export const CANONICAL_SPELLINGS: Record<string, string> = {
  __const: 'const', __const__: 'const', __volatile: 'volatile', __volatile__: 'volatile',
  __restrict: 'restrict', __restrict__: 'restrict', __inline: 'inline', __inline__: 'inline',
  __signed: 'signed', __signed__: 'signed', __typeof: 'typeof', __typeof__: 'typeof',
  __alignof: '__alignof__', asm: '__asm__', __asm: '__asm__',
  __attribute: '__attribute__', _Noreturn: '_Noreturn', __complex__: '_Complex', __unsigned__: 'unsigned',
};
/** A Map, so that identifiers such as `constructor` never hit Object.prototype. */
export const CANONICAL = new Map(Object.entries(CANONICAL_SPELLINGS));

export const KEYWORDS = new Set([
  ...TYPE_KEYWORDS, 'if', 'else', 'while', 'do', 'for', 'switch', 'case', 'default', 'break', 'continue', 'return',
  'goto', 'sizeof', '_Alignof', '__alignof__', '__asm__', '__attribute__', '__extension__', '_Static_assert', '_Generic',
  '__builtin_va_arg', '__builtin_offsetof', '__builtin_types_compatible_p', '__builtin_choose_expr', '__label__', '__real__', '__imag__',
]);

export interface ParseOptions {
  scope?: Scope;
  nextId?: { value: number };
  expressionOnly?: boolean;
  packs?: readonly PackChange[];
}

export abstract class ParserBase {
  protected p = 0;
  protected scope: Scope;
  readonly sema: Sema;
  protected nextId: { value: number };
  protected currentFunction?: FunctionDecl;
  protected labels = new Set<string>();
  protected gotos: Array<{ label: string; loc: SourceLocation }> = [];
  protected switches: Array<{ cases: Array<CaseStmt | DefaultStmt>; type: CType }> = [];
  protected loopDepth = 0;
  protected breakDepth = 0;
  protected blockStack: Array<{ from: number; to: number; forLoop: boolean }> = [];
  protected readonly functions: FunctionDecl[] = [];
  protected readonly globals: VarDecl[] = [];
  protected readonly typedefs = new Map<string, TypedefDecl>();
  protected readonly scopedNames: ScopedName[] = [];
  protected readonly functionRanges: Array<{ name: string; from: number; to: number }> = [];
  protected recordIds = 0;
  protected readonly packs: readonly PackChange[];
  /** Parsing a witness expression: never declare anything in the program's scopes. */
  protected readonly expressionOnly: boolean;
  protected readonly records: RecordInfo[] = [];
  protected readonly enums: EnumInfo[] = [];

  constructor(
    protected readonly tokens: Token[],
    protected readonly map: SourceMap,
    readonly dm: DataModel,
    options: ParseOptions = {},
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

  protected peek(k = 0): Token {
    return this.tokens[Math.min(this.p + k, this.tokens.length - 1)];
  }
  protected text(k = 0): string {
    const t = this.peek(k);
    if (t.kind !== 'ident') return t.kind === 'punct' ? t.text : t.kind === 'eof' ? '<eof>' : '';
    return CANONICAL.get(t.text) ?? t.text;
  }
  protected next(): Token {
    return this.tokens[this.p++];
  }
  protected is(s: string, k = 0): boolean {
    const t = this.peek(k);
    return (t.kind === 'punct' || t.kind === 'ident') && this.text(k) === s;
  }
  protected accept(s: string): Token | undefined {
    return this.is(s) ? this.next() : undefined;
  }
  protected expect(s: string, what?: string): Token {
    if (this.is(s)) return this.next();
    const t = this.peek();
    const found = t.kind === 'eof' ? 'end of input' : `'${t.text}'`;
    throw this.error(`expected '${s}'${what ? ` ${what}` : ''} before ${found}`, t);
  }
  error(message: string, t: Token | SourceLocation = this.peek()): TarsierError {
    const loc = 'kind' in t ? this.map.location(t.start) : t;
    return new TarsierError('c-syntax', message, loc);
  }
  protected unsupported(what: string, t: Token = this.peek()): TarsierError {
    return new TarsierError('c-unsupported', `unsupported construct: ${what}`, this.map.location(t.start));
  }
  protected loc(startTok: Token | number, endTok?: Token): SourceLocation {
    const start = typeof startTok === 'number' ? startTok : startTok.start;
    const end = endTok ?? this.tokens[Math.max(this.p - 1, 0)];
    return this.map.location(start, Math.max(end.end, start));
  }
  protected locTok(t: Token): SourceLocation {
    return this.map.location(t.start, t.end);
  }
  protected id(): number {
    return this.nextId.value++;
  }

  protected declareBuiltinTypedefs(): void {
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

  /** `wchar_t` of gcc on Linux: `long` with -m32, `int` with -m64 (32 bits either way). */
  protected wcharType(): CType {
    return intType(this.dm === 'LP64' ? 'int' : 'long');
  }


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

  protected isTypeNameStart(k = 0): boolean {
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


  /** Index of the `}` matching the `{` at token index i (for block ranges). */
  protected matchingBrace(i: number): number {
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

  protected findField(info: RecordInfo, name: string): RecordField[] | undefined {
    for (const f of info.fields ?? []) {
      if (f.name === name) return [f];
      if (f.name === undefined && f.type.kind === 'record') {
        const inner = this.findField(f.type.record, name);
        if (inner) return [f, ...inner];
      }
    }
    return undefined;
  }

  protected fileScope(): Scope {
    let s = this.scope;
    while (s.parent) s = s.parent;
    return s;
  }

  // ---- entry points of the later parts ----------------------------------------------

  abstract parseExpression(): Expr;
  abstract parseAssignment(): Expr;
  abstract parseConditional(): Expr;
  abstract parseTypeName(): CType;
  protected abstract parseCast(): Expr;
  protected abstract parseCompound(newScope?: boolean): CompoundStmt;
  protected abstract parseInitializer(): Expr | RawList;
  abstract initialize(t: CType, raw: Expr | RawList): Initializer;
  protected abstract parseStringLiteral(): Extract<Expr, { kind: 'StringLiteral' }>;
}

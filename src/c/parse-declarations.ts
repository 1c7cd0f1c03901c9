/**
 * Declarations: specifiers (with `typeof`, `__auto_type`, `_Alignas`,
 * `_Atomic`), struct/union/enum specifiers with their layouts, declarators,
 * parameter lists (prototypes and K&R identifier lists), type names, and
 * the entities a declaration makes (variables, functions, typedefs) in the
 * scopes, with the ranges witnesses need.
 */
import type { SourceLocation } from '../common/location.js';
import type {
  Declaration, Declarator, EnumConstantDecl, Expr,
  FunctionDecl, Initializer, StorageClass, TypedefDecl, VarDecl,
} from './ast.js';
import type { Token } from './lexer.js';
import { verifierBuiltin } from './builtins.js';
import { Scope, keyOf, type OrdinaryEntry } from './scope.js';
import {
  type CType, type EnumInfo, type FieldDeclaration, type FunctionParam, type FunctionType,
  type IntegerKind, type RecordInfo, type TypeQualifiers,
  alignOf, arrayOf, floatType, intType, isInteger, layoutRecord,
  pointerTo, sameType, sizeOf, typeToString, unqualified, voidType, withQualifiers,
} from './types.js';
import { CANONICAL, KEYWORDS, TYPE_KEYWORDS, type Attribute, type DeclSpecs, type DeclaratorInfo } from './parse-base.js';
import { InitializerParser } from './parse-initializers.js';

export abstract class DeclarationParser extends InitializerParser {
  /** Attributes and asm labels after a declarator. */
  protected parseDeclaratorTail(specs: DeclSpecs): void {
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

  protected float128?: RecordInfo;
  protected float128Record(): RecordInfo {
    this.float128 ??= { id: this.recordIds++, union: false, tag: '__float128 (unsupported)', fields: [], size: 16, align: 16 };
    return this.float128;
  }

  /** The declarations between an old-style parameter list and the body: they give the parameters their types. */
  protected parseKrDeclarations(d: DeclaratorInfo): void {
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

  protected parseStaticAssert(): void {
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

  protected parseDeclSpecs(allowStorage: boolean): DeclSpecs {
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

  protected specifierType(c: Record<string, number>, at: Token): CType {
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

  protected parseRecordSpecifier(): { type: CType; declares: boolean } {
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

  protected parseEnumSpecifier(): { type: CType; declares: boolean } {
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

  protected declareOrdinary(entry: OrdinaryEntry, at: Token): void {
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

  protected recordScoped(entry: OrdinaryEntry, at: Token | number): void {
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
  protected parseDeclarator(abstract: boolean): DeclaratorInfo {
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
  protected isNestedDeclarator(): boolean {
    const t = this.peek(1);
    if (t.kind === 'punct') return t.text === '*' || t.text === '(' || t.text === '[';
    if (t.kind !== 'ident') return false;
    const s = CANONICAL.get(t.text) ?? t.text;
    if (s === '__attribute__') return true;
    if (TYPE_KEYWORDS.has(s) || KEYWORDS.has(s)) return false;
    return this.scope.lookup(t.text)?.kind !== 'Typedef';
  }

  protected parseParameterList(open: Token): { params: FunctionParam[]; decls: VarDecl[]; variadic: boolean; prototyped: boolean; kr?: boolean } {
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

  protected finishDeclarator(specs: DeclSpecs, d: DeclaratorInfo, type: CType, dstart: Token, level: 'file' | 'block'): Declarator {
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
  protected finishAutoType(specs: DeclSpecs, d: DeclaratorInfo, nameTok: Token, dstart: Token, level: 'file' | 'block'): Declarator {
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

  protected newGlobal(name: string, type: CType, storage: StorageClass, loc: SourceLocation): VarDecl {
    const decl: VarDecl = { kind: 'Var', id: this.id(), name, type, storage, scope: 'file', loc };
    this.globals.push(decl);
    return decl;
  }

  protected declareFunction(name: string, type: FunctionType, specs: DeclSpecs, d: DeclaratorInfo, nameTok: Token, level: 'file' | 'block'): FunctionDecl {
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

  protected parseLocalDeclaration(): Declaration {
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

  protected finishDeclaratorAt(specs: DeclSpecs, d: DeclaratorInfo, type: CType, dstart: Token, declStart: Token): Declarator {
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
}

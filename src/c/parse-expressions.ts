/**
 * Expressions: precedence climbing over the binary operators, casts,
 * unary and postfix operators, calls (with implicit declarations of
 * undeclared functions, as gcc makes them), primaries, `_Generic`,
 * statement expressions, and the literals. Every node is typed by the
 * semantic rules (sema.ts) as it is built.
 */
import { TarsierError } from '../common/errors.js';
import type { SourceLocation } from '../common/location.js';
import type { Expr, FunctionDecl } from './ast.js';
import { decodeEscapes, type Token } from './lexer.js';
import { typeError } from './sema.js';
import { isGccBuiltinName, libraryFunctions, nondetType, verifierBuiltin } from './builtins.js';
import {
  type CType, type FunctionType,
  type IntegerKind, alignOf, arrayOf, fieldAlignOf, floatType, intType, isInteger, sameType, sizeOf, sizeTKind, typeToString, unqualified, voidType, withQualifiers,
} from './types.js';
import { KEYWORDS, type RawList } from './parse-base.js';
import { GnuParser } from './parse-gnu.js';

const BINARY_PRECEDENCE: Record<string, number> = {
  '||': 1, '&&': 2, '|': 3, '^': 4, '&': 5, '==': 6, '!=': 6, '<': 7, '>': 7, '<=': 7, '>=': 7,
  '<<': 8, '>>': 8, '+': 9, '-': 9, '*': 10, '/': 10, '%': 10,
};

const ASSIGN_OPS = new Set(['=', '*=', '/=', '%=', '+=', '-=', '<<=', '>>=', '&=', '^=', '|=']);

export abstract class ExpressionParser extends GnuParser {
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

  protected spanLoc(a: SourceLocation, b: SourceLocation): SourceLocation {
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

  protected parseBinary(minPrec: number): Expr {
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

  protected parseCast(): Expr {
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

  protected compoundLiteral(start: Token, type: CType): Expr {
    const raw = this.parseInitializer() as RawList;
    let init = this.initialize(type, raw);
    let t = type;
    if (t.kind === 'array' && t.length === undefined && init.kind === 'InitList') {
      t = arrayOf(t.element, init.items.reduce((m, it) => Math.max(m, it.target + 1), 0));
      init = { ...init, type: t };
    }
    return { kind: 'CompoundLiteral', init, type: t, loc: this.loc(start) };
  }

  protected parseUnary(): Expr {
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

  protected parsePostfixOps(e: Expr, start: Token): Expr {
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

  protected parseCall(calleeRaw: Expr, start: Token): Expr {
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

  protected parsePrimary(): Expr {
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
        const gnu = this.parseGnuPrimary(t, s);
        if (gnu) return gnu;
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
  protected parseGeneric(): Expr {
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
  protected implicitFunction(t: Token): FunctionDecl | undefined {
    const name = t.text;
    if (isGccBuiltinName(name)) return undefined;
    let returnType: CType = intType('int');
    if (name.startsWith('__VERIFIER_nondet_')) returnType = nondetType(name.slice('__VERIFIER_nondet_'.length), this.dm) ?? returnType;
    else if (name === '__VERIFIER_error' || name === 'reach_error' || name === '__VERIFIER_assume' || name.startsWith('__VERIFIER_atomic')) returnType = voidType;
    const library = libraryFunctions(this.dm);
    const known = Object.hasOwn(library, name) ? library[name] : undefined;
    const type: FunctionType = known ?? { kind: 'function', returnType, params: [], variadic: false, prototyped: false };
    const builtin = verifierBuiltin(name, type, this.dm);
    const f: FunctionDecl = { kind: 'Function', id: this.id(), name, type, storage: 'extern', params: [], loc: this.locTok(t), implicit: true, ...(builtin ? { builtin } : {}) };
    this.functions.push(f);
    this.fileScope().names.set(name, f);
    return f;
  }

  protected numberLiteral(t: Token): Expr {
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

  protected charLiteral(t: Token): Expr {
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

  protected parseStringLiteral(): Extract<Expr, { kind: 'StringLiteral' }> {
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

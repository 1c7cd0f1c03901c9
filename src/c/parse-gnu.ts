/**
 * GNU C extensions the parser meets in preprocessed system headers and
 * kernel code: `__attribute__` lists, `mode` attributes, inline assembly
 * (kept as text; a statement is unsupported only where it is lowered),
 * gcc's `__builtin_*` calls and the built-ins with type arguments
 * (`__builtin_va_arg`, `__builtin_offsetof`, `__builtin_choose_expr`,
 * `__builtin_types_compatible_p`).
 */
import type { Expr } from './ast.js';
import type { Token } from './lexer.js';
import { builtinReturnType, genericBuiltinType } from './builtins.js';
import { typeError } from './sema.js';
import { type CType, type IntegerKind, intType, integerKind, isInteger, sameType, sizeOf, sizeTKind, typeToString, unqualified, withQualifiers } from './types.js';
import { ParserBase, type Attribute, type DeclSpecs } from './parse-base.js';

export abstract class GnuParser extends ParserBase {
  /** gcc's `__attribute__((mode(M)))` picks the integer type of that width (same signedness). */
  protected applyMode(specs: DeclSpecs, at: Token): CType {
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

  protected parseAttributes(): Attribute[] {
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

  protected skipBalanced(): string {
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

  protected parseAsmBody(): string {
    this.expect('__asm__');
    while (this.is('volatile') || this.is('inline') || this.is('goto')) this.next();
    return this.skipBalanced();
  }

  /** The GNU built-ins that take a type or a member designator, at an identifier token; undefined for any other name. */
  protected parseGnuPrimary(t: Token, s: string): Expr | undefined {
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
    return undefined;
  }

  /**
   * A call of a gcc built-in that the program does not declare. One the
   * front end does not know is typed `int`, as gcc types an undeclared
   * function: the lowering names it as unsupported only if a run can reach it.
   */
  protected parseBuiltinCall(t: Token): Expr {
    const name = t.text;
    this.expect('(');
    const args: Expr[] = [];
    if (!this.is(')')) {
      for (;;) {
        args.push(this.sema.promote(this.parseAssignment()));
        if (!this.accept(',')) break;
      }
    }
    const close = this.expect(')');
    const rt = builtinReturnType(name, this.dm) ?? genericBuiltinType(name, args) ?? intType('int');
    return { kind: 'BuiltinCall', name, args, rparenLoc: this.locTok(close), type: rt, loc: this.map.location(t.start, close.end) };
  }

  protected parseOffsetof(): Expr {
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
}

/**
 * Statements and blocks: labels, the selection and iteration statements,
 * jumps, inline assembly statements, with the block ranges that scoped
 * names and witnesses use.
 */
import type { BlockItem, CaseStmt, CompoundStmt, DefaultStmt, Declaration, Expr, Stmt } from './ast.js';
import { typeError } from './sema.js';
import { Scope, keyOf, endKeyOf } from './scope.js';
import { type IntegerKind, intType, integerKind, isInteger, isScalar, sizeOf, typeToString } from './types.js';
import { KEYWORDS } from './parse-base.js';
import { DeclarationParser } from './parse-declarations.js';

export abstract class StatementParser extends DeclarationParser {
  // ---- statements -----------------------------------------------------------------------

  protected parseCompound(newScope = true): CompoundStmt {
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

  protected parseBlockItem(): BlockItem | undefined {
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

  protected parseStatement(): Stmt {
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
  protected parseStatementOrDecl(): Stmt {
    if (this.isDeclarationStart()) throw this.error('a label can only be part of a statement and a declaration is not a statement');
    return this.parseStatement();
  }

  protected wrapKind(v: bigint, k: IntegerKind): bigint {
    const bits = k === 'bool' ? 1 : (sizeOf(intType(k), this.dm) ?? 4) * 8;
    const signed = ['char', 'schar', 'short', 'int', 'long', 'longlong', 'int128'].includes(k);
    return signed ? BigInt.asIntN(bits, v) : BigInt.asUintN(bits, v);
  }

  protected loopBody(): Stmt {
    this.loopDepth++;
    this.breakDepth++;
    try {
      return this.parseStatement();
    } finally {
      this.loopDepth--;
      this.breakDepth--;
    }
  }

  protected parseCondition(): Expr {
    const e = this.sema.value(this.parseExpression());
    if (!isScalar(e.type)) throw typeError(`used '${typeToString(e.type)}' where a scalar is required`, e.loc);
    return e;
  }

  protected parseFor(): Stmt {
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
  protected statementEnd(i: number): number {
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

  protected continuesStatement(k: number): boolean {
    // An `else` or the `while` of a do-statement continues the enclosing statement; being
    // conservative here only widens the scope range, which is harmless for name lookup.
    const t = this.tokens[k];
    return t?.kind === 'ident' && t.text === 'else';
  }
}

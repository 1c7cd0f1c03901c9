/**
 * The C parser: tokens to the typed AST, typedef-aware, with scopes. It
 * parses GNU C11 as gcc accepts it for the competition's programs and calls
 * the semantic rules (sema.ts) as it goes, so that every expression it
 * returns is typed and every identifier resolved. This file holds the
 * translation unit and function definitions; the parts are a chain of
 * classes (parse-base.ts says how they fit).
 */
import { TarsierError } from '../common/errors.js';
import type { Declarator, ExternalDeclaration, FunctionDecl, TypedefDecl, VarDecl } from './ast.js';
import type { Token } from './lexer.js';
import { Scope, keyOf, endKeyOf, type ScopedName } from './scope.js';
import { type EnumInfo, type FunctionType, type RecordInfo, arrayOf, intType } from './types.js';
import { KEYWORDS, type DeclSpecs, type DeclaratorInfo } from './parse-base.js';
import { StatementParser } from './parse-statements.js';

export { nondetType } from './builtins.js';

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

export class Parser extends StatementParser {
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

  protected parseExternalDeclaration(): ExternalDeclaration | undefined {
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

  protected parseFunctionDefinition(startTok: Token, specs: DeclSpecs, d: DeclaratorInfo, type: FunctionType): ExternalDeclaration {
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
}

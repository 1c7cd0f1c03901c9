// Recursive-descent parser for IMP's concrete syntax (grammar in README.md,
// section "tarsier imp verify"). Errors are TarsierErrors at file:line:column.
import { TarsierError } from '../common/errors.js';
import { LineIndex, type SourceLocation } from '../common/location.js';
import { ROUNDING_MODES, parseHexFloat, type RoundingMode } from '../common/ieee754.js';
import {
  BUILTINS,
  FLOAT_TYPES,
  type FloatName,
  type BinaryOp,
  type BuiltinName,
  type BvWidth,
  type Expr,
  type Goal,
  type ImpProgram,
  type ImpType,
  type Procedure,
  type Stmt,
  type VarDecl,
} from './ast.js';
import { syntaxError, tokenize, tokenLoc, type Token } from './lexer.js';

export const KEYWORDS = new Set([
  'var',
  'procedure',
  'returns',
  'requires',
  'ensures',
  'invariant',
  'candidate',
  'if',
  'then',
  'else',
  'while',
  'do',
  'skip',
  'assume',
  'assert',
  'havoc',
  'call',
  'true',
  'false',
  'bool',
  'int',
  'real',
  'rmode',
  'fp32',
  'fp64',
  'fp80',
  'RNE',
  'RNA',
  'RTP',
  'RTN',
  'RTZ',
]);

const BUILTIN_SET = new Set<string>(BUILTINS);

export function parseImp(text: string, file: string): ImpProgram {
  return guardDepth(file, () => new Parser(text, file).program());
}

// Absurdly deep nesting exhausts the stack: report it as an input error.
function guardDepth<T>(file: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof RangeError) throw new TarsierError('imp-syntax', 'the program is nested too deeply', { file });
    throw e;
  }
}

/** Parses one expression (for tools that take candidate invariants as text). */
export function parseImpExpr(text: string, file: string): Expr {
  return guardDepth(file, () => {
    const p = new Parser(text, file);
    const e = p.expr();
    p.expectEof();
    return e;
  });
}

class Parser {
  private readonly lines: LineIndex;
  private readonly toks: Token[];
  private pos = 0;

  constructor(
    text: string,
    private readonly file: string,
  ) {
    this.lines = new LineIndex(text);
    this.toks = tokenize(text, file, this.lines);
  }

  // ---- token helpers ----
  private get tok(): Token {
    return this.toks[this.pos];
  }
  private peek(k = 1): Token {
    return this.toks[Math.min(this.pos + k, this.toks.length - 1)];
  }
  private is(text: string): boolean {
    const t = this.tok;
    return (t.kind === 'punct' || t.kind === 'ident') && t.text === text;
  }
  private accept(text: string): boolean {
    if (this.is(text)) {
      this.pos++;
      return true;
    }
    return false;
  }
  private error(message: string, t: Token = this.tok): TarsierError {
    return syntaxError(this.file, this.lines, t.start, message);
  }
  private describe(t: Token): string {
    return t.kind === 'eof' ? 'end of file' : `'${t.text}'`;
  }
  private expect(text: string): Token {
    const t = this.tok;
    if (!this.is(text)) throw this.error(`expected '${text}' but found ${this.describe(t)}`);
    this.pos++;
    return t;
  }
  expectEof(): void {
    if (this.tok.kind !== 'eof') throw this.error(`unexpected ${this.describe(this.tok)}`);
  }
  private ident(what = 'a name'): Token {
    const t = this.tok;
    if (t.kind !== 'ident' || KEYWORDS.has(t.text)) throw this.error(`expected ${what} but found ${this.describe(t)}`);
    this.pos++;
    return t;
  }
  private locFrom(start: Token): SourceLocation {
    const last = this.toks[Math.max(this.pos - 1, 0)];
    return tokenLoc(this.file, this.lines, start.start, Math.max(last.end, start.end));
  }

  // ---- declarations ----
  program(): ImpProgram {
    const globals: VarDecl[] = [];
    const procedures: Procedure[] = [];
    while (this.tok.kind !== 'eof') {
      if (this.is('var')) globals.push(...this.varDecls());
      else if (this.is('procedure')) procedures.push(this.procedure());
      else throw this.error(`expected 'var' or 'procedure' but found ${this.describe(this.tok)}`);
    }
    return { kind: 'program', file: this.file, globals, procedures };
  }

  /** `var a: T, b, c: U;` */
  private varDecls(): VarDecl[] {
    this.expect('var');
    const out = this.typedNames();
    this.expect(';');
    return out;
  }

  /** `a: T, b, c: U` — names before a `:` share its type. */
  private typedNames(): VarDecl[] {
    const out: VarDecl[] = [];
    let pending: Token[] = [];
    for (;;) {
      pending.push(this.ident('a variable name'));
      if (this.accept(':')) {
        const type = this.type();
        for (const t of pending) out.push({ kind: 'var_decl', name: t.text, type, loc: this.tokLoc(t) });
        pending = [];
        if (!this.accept(',')) break;
      } else if (!this.accept(',')) {
        throw this.error(`expected ':' and a type but found ${this.describe(this.tok)}`);
      }
    }
    return out;
  }

  private tokLoc(t: Token): SourceLocation {
    return tokenLoc(this.file, this.lines, t.start, t.end);
  }

  private type(): ImpType {
    const t = this.tok;
    if (this.accept('[')) {
      const key = this.type();
      this.expect(']');
      const value = this.type();
      return { kind: 'map', key, value };
    }
    if (t.kind === 'ident') {
      if (t.text === 'bool' || t.text === 'int' || t.text === 'real' || t.text === 'rmode') {
        this.pos++;
        return { kind: t.text };
      }
      if (Object.hasOwn(FLOAT_TYPES, t.text)) {
        this.pos++;
        return FLOAT_TYPES[t.text as FloatName];
      }
      const m = /^bv(\d+)$/.exec(t.text);
      if (m) {
        const w = Number(m[1]);
        if (w !== 8 && w !== 16 && w !== 32 && w !== 64) throw this.error(`unsupported bit-vector width ${m[1]} (use 8, 16, 32 or 64)`);
        this.pos++;
        return { kind: 'bv', width: w };
      }
    }
    throw this.error(`expected a type (bool, int, real, bv8/16/32/64, fp32/64/80, rmode, [K]V) but found ${this.describe(t)}`);
  }

  private params(): VarDecl[] {
    this.expect('(');
    if (this.accept(')')) return [];
    const out = this.typedNames();
    this.expect(')');
    return out;
  }

  private procedure(): Procedure {
    const start = this.expect('procedure');
    const name = this.ident('a procedure name').text;
    const params = this.params();
    const returns = this.accept('returns') ? this.params() : [];
    const requires: Expr[] = [];
    const ensures: Expr[] = [];
    for (;;) {
      if (this.accept('requires')) {
        requires.push(this.expr());
        this.expect(';');
      } else if (this.accept('ensures')) {
        ensures.push(this.expr());
        this.expect(';');
      } else break;
    }
    const locals: VarDecl[] = [];
    let body: Stmt[] | undefined;
    if (this.accept(';') || (!this.is('{') && (requires.length > 0 || ensures.length > 0) && (this.is('procedure') || this.is('var') || this.tok.kind === 'eof'))) {
      // No body: only the contract is known.
      body = undefined;
    } else {
      if (!this.is('{')) throw this.error(`expected 'requires', 'ensures', '{' or ';' but found ${this.describe(this.tok)}`);
      this.expect('{');
      while (this.is('var')) locals.push(...this.varDecls());
      body = this.stmtsUntilClose();
    }
    return { kind: 'procedure', name, params, returns, requires, ensures, locals, body, loc: this.locFrom(start) };
  }

  // ---- statements ----
  private stmtsUntilClose(): Stmt[] {
    const out: Stmt[] = [];
    while (!this.is('}')) {
      if (this.tok.kind === 'eof') throw this.error(`expected '}' but found end of file`);
      if (this.is('var')) throw this.error('local variables must be declared at the start of the procedure body');
      out.push(this.stmt());
    }
    this.expect('}');
    return out;
  }

  private block(): Stmt[] {
    this.expect('{');
    return this.stmtsUntilClose();
  }

  private stmt(): Stmt {
    const t = this.tok;
    if (t.kind === 'punct' && t.text === '{') {
      const body = this.block();
      return { kind: 'block', body, loc: this.locFrom(t) };
    }
    if (t.kind === 'punct' && t.text === '(') return this.callWithTargets();
    if (t.kind !== 'ident') throw this.error(`expected a statement but found ${this.describe(t)}`);
    switch (t.text) {
      case 'skip':
        this.pos++;
        this.expect(';');
        return { kind: 'skip', loc: this.locFrom(t) };
      case 'assume': {
        this.pos++;
        const cond = this.expr();
        this.expect(';');
        return { kind: 'assume', cond, loc: this.locFrom(t) };
      }
      case 'assert': {
        this.pos++;
        const goal = this.is('{') ? this.goalAnnotation() : undefined;
        const cond = this.expr();
        this.expect(';');
        return { kind: 'assert', cond, ...(goal ? { goal } : {}), loc: this.locFrom(t) };
      }
      case 'if':
        return this.ifStmt();
      case 'while':
        return this.whileStmt();
      case 'call': {
        this.pos++;
        return this.callRest(t, []);
      }
      default:
        return this.assignment();
    }
  }

  /** `{:goal kind id}`: the kind is a name, or names joined by `-` without spaces (`valid-deref`). */
  private goalAnnotation(): Goal {
    this.expect('{');
    this.expect(':');
    const tag = this.tok;
    if (tag.kind !== 'ident' || tag.text !== 'goal') throw this.error(`expected 'goal' but found ${this.describe(tag)}`);
    this.pos++;
    const first = this.tok;
    if (first.kind !== 'ident') throw this.error(`expected a goal kind but found ${this.describe(first)}`);
    this.pos++;
    let kind = first.text;
    let end = first.end;
    while (this.is('-') && this.tok.start === end && this.peek().kind === 'ident' && this.peek().start === this.tok.end) {
      kind += '-' + this.peek().text;
      end = this.peek().end;
      this.pos += 2;
    }
    const id = this.tok;
    if (id.kind !== 'int' || !Number.isSafeInteger(Number(id.text))) throw this.error(`expected the goal's number but found ${this.describe(id)}`);
    this.pos++;
    this.expect('}');
    return { kind, id: Number(id.text) };
  }

  private ifStmt(): Stmt {
    const start = this.expect('if');
    this.expect('(');
    const cond = this.expr();
    this.expect(')');
    this.accept('then');
    const thenB = this.block();
    let elseB: Stmt[] = [];
    if (this.accept('else')) elseB = this.is('if') ? [this.ifStmt()] : this.block();
    return { kind: 'if', cond, then: thenB, else: elseB, loc: this.locFrom(start) };
  }

  private whileStmt(): Stmt {
    const start = this.expect('while');
    this.expect('(');
    const cond = this.expr();
    this.expect(')');
    const invariants: Expr[] = [];
    const candidates: Expr[] = [];
    for (;;) {
      if (this.accept('invariant')) {
        invariants.push(this.expr());
        this.expect(';');
      } else if (this.accept('candidate')) {
        candidates.push(this.expr());
        this.expect(';');
      } else break;
    }
    this.accept('do');
    const body = this.block();
    return { kind: 'while', cond, invariants, candidates, body, loc: this.locFrom(start) };
  }

  private callWithTargets(): Stmt {
    const start = this.expect('(');
    const targets: string[] = [];
    if (!this.is(')')) {
      for (;;) {
        targets.push(this.ident('a variable name').text);
        if (!this.accept(',')) break;
      }
    }
    this.expect(')');
    this.expect(':=');
    if (!this.is('call')) throw this.error(`expected 'call' but found ${this.describe(this.tok)}`);
    this.pos++;
    return this.callRest(start, targets);
  }

  private callRest(start: Token, targets: string[]): Stmt {
    const proc = this.ident('a procedure name').text;
    this.expect('(');
    const args = this.is(')') ? [] : this.exprList();
    this.expect(')');
    this.expect(';');
    return { kind: 'call', targets, proc, args, loc: this.locFrom(start) };
  }

  private assignment(): Stmt {
    const start = this.ident('a statement');
    const target = start.text;
    // `m[i][j] := v` is sugar for `m := m[i := m[i][j := v]]`.
    const indexes: { index: Expr; loc: SourceLocation }[] = [];
    while (this.is('[')) {
      this.pos++;
      indexes.push({ index: this.expr(), loc: this.tokLoc(start) });
      this.expect(']');
    }
    this.expect(':=');
    if (indexes.length === 0 && this.is('havoc')) {
      this.pos++;
      this.expect(';');
      return { kind: 'havoc', target, loc: this.locFrom(start) };
    }
    if (indexes.length === 0 && this.is('call')) {
      this.pos++;
      return this.callRest(start, [target]);
    }
    let value = this.expr();
    this.expect(';');
    const baseLoc = this.tokLoc(start);
    // Rebuild from the innermost index outwards.
    const prefixes: Expr[] = [{ kind: 'var', name: target, loc: baseLoc }];
    for (let k = 0; k < indexes.length - 1; k++) {
      prefixes.push({ kind: 'select', map: prefixes[k], index: indexes[k].index, loc: baseLoc });
    }
    for (let k = indexes.length - 1; k >= 0; k--) {
      value = { kind: 'store', map: prefixes[k], index: indexes[k].index, value, loc: baseLoc };
    }
    return { kind: 'assign', target, value, loc: this.locFrom(start) };
  }

  // ---- expressions (loosest first) ----
  private exprList(): Expr[] {
    const out = [this.expr()];
    while (this.accept(',')) out.push(this.expr());
    return out;
  }

  expr(): Expr {
    let e = this.implies();
    while (this.is('<==>')) {
      this.pos++;
      e = this.bin('<==>', e, this.implies());
    }
    return e;
  }

  private bin(op: BinaryOp, left: Expr, right: Expr): Expr {
    const end = right.loc.end;
    const loc: SourceLocation = end ? { ...left.loc, end } : left.loc;
    return { kind: 'binary', op, left, right, loc };
  }

  private implies(): Expr {
    const e = this.or();
    if (this.is('==>')) {
      this.pos++;
      const rhs = this.impliesRight();
      return this.bin('==>', e, rhs);
    }
    let acc = e;
    while (this.is('<==')) {
      this.pos++;
      acc = this.bin('<==', acc, this.or());
    }
    if (this.is('==>')) throw this.error("mixing '<==' and '==>' needs parentheses");
    return acc;
  }

  private impliesRight(): Expr {
    const e = this.or();
    if (this.is('==>')) {
      this.pos++;
      return this.bin('==>', e, this.impliesRight());
    }
    if (this.is('<==')) throw this.error("mixing '==>' and '<==' needs parentheses");
    return e;
  }

  private leftAssoc(ops: readonly string[], next: () => Expr): Expr {
    let e = next();
    for (;;) {
      const t = this.tok;
      if (t.kind === 'punct' && ops.includes(t.text)) {
        this.pos++;
        e = this.bin(t.text as BinaryOp, e, next());
      } else return e;
    }
  }

  private or(): Expr {
    return this.leftAssoc(['||'], () => this.and());
  }
  private and(): Expr {
    return this.leftAssoc(['&&'], () => this.cmp());
  }
  private cmp(): Expr {
    const rel = ['==', '!=', '<', '<=', '>', '>='];
    const e = this.bitor();
    const t = this.tok;
    if (t.kind === 'punct' && rel.includes(t.text)) {
      this.pos++;
      const r = this.bin(t.text as BinaryOp, e, this.bitor());
      const u = this.tok;
      if (u.kind === 'punct' && rel.includes(u.text)) throw this.error(`comparisons do not chain: put parentheses around one side of '${u.text}'`);
      return r;
    }
    return e;
  }
  private bitor(): Expr {
    return this.leftAssoc(['|'], () => this.bitxor());
  }
  private bitxor(): Expr {
    return this.leftAssoc(['^'], () => this.bitand());
  }
  private bitand(): Expr {
    return this.leftAssoc(['&'], () => this.shift());
  }
  private shift(): Expr {
    return this.leftAssoc(['<<'], () => this.add());
  }
  private add(): Expr {
    return this.leftAssoc(['+', '-'], () => this.mul());
  }
  private mul(): Expr {
    return this.leftAssoc(['*', '/', '%'], () => this.unary());
  }
  private unary(): Expr {
    const t = this.tok;
    if (t.kind === 'punct' && (t.text === '-' || t.text === '!' || t.text === '~')) {
      this.pos++;
      const arg = this.unary();
      return { kind: 'unary', op: t.text, arg, loc: this.locFrom(t) };
    }
    return this.postfix();
  }
  private postfix(): Expr {
    const start = this.tok;
    let e = this.primary();
    while (this.is('[')) {
      this.pos++;
      const index = this.expr();
      if (this.accept(':=')) {
        const value = this.expr();
        this.expect(']');
        e = { kind: 'store', map: e, index, value, loc: this.locFrom(start) };
      } else {
        this.expect(']');
        e = { kind: 'select', map: e, index, loc: this.locFrom(start) };
      }
    }
    return e;
  }

  /** `fp32(0x1.8p+1)`, `fp64(-inf)`, `fp80(nan)`: the value must be exact in the type. */
  private floatLiteral(): Expr {
    const head = this.tok;
    const type = FLOAT_TYPES[head.text as FloatName];
    this.pos += 2;
    let sign = '';
    if (this.is('-') || this.is('+')) sign = this.toks[this.pos++].text;
    const v = this.tok;
    if (v.kind !== 'hexfloat' && !(v.kind === 'ident' && (v.text === 'inf' || v.text === 'nan'))) {
      throw this.error(`expected a hexadecimal floating constant, 'inf' or 'nan' but found ${this.describe(v)}`);
    }
    this.pos++;
    const text = sign + v.text;
    const down = parseHexFloat(type, text, 'RTN');
    const up = parseHexFloat(type, text, 'RTP');
    if (down === undefined || down !== up) throw this.error(`${text} is not a value of ${head.text}`, v);
    this.expect(')');
    return { kind: 'float_lit', bits: down, eb: type.eb, sb: type.sb, loc: this.locFrom(head) };
  }

  private primary(): Expr {
    const t = this.tok;
    switch (t.kind) {
      case 'int':
        this.pos++;
        return { kind: 'int_lit', value: BigInt(t.text), loc: this.tokLoc(t) };
      case 'real':
        this.pos++;
        return { kind: 'real_lit', value: canonicalDecimal(t.text), loc: this.tokLoc(t) };
      case 'bv': {
        this.pos++;
        const [digits, w] = t.text.split('bv');
        const width = Number(w);
        if (width !== 8 && width !== 16 && width !== 32 && width !== 64) {
          throw this.error(`unsupported bit-vector width ${w} (use 8, 16, 32 or 64)`, t);
        }
        const value = BigInt(digits);
        if (value >= 1n << BigInt(width)) throw this.error(`literal ${digits} does not fit in ${width} bits`, t);
        return { kind: 'bv_lit', value, width: width as BvWidth, loc: this.tokLoc(t) };
      }
      case 'punct':
        if (t.text === '(') {
          this.pos++;
          const e = this.expr();
          this.expect(')');
          return e;
        }
        break;
      case 'ident': {
        if (t.text === 'true' || t.text === 'false') {
          this.pos++;
          return { kind: 'bool_lit', value: t.text === 'true', loc: this.tokLoc(t) };
        }
        if (t.text === 'if') {
          this.pos++;
          const cond = this.expr();
          this.expect('then');
          const a = this.expr();
          this.expect('else');
          const b = this.expr();
          return { kind: 'ite', cond, then: a, else: b, loc: this.locFrom(t) };
        }
        if ((ROUNDING_MODES as readonly string[]).includes(t.text)) {
          this.pos++;
          return { kind: 'rm_lit', mode: t.text as RoundingMode, loc: this.tokLoc(t) };
        }
        if (Object.hasOwn(FLOAT_TYPES, t.text) && this.peek().text === '(') return this.floatLiteral();
        if (KEYWORDS.has(t.text)) break;
        this.pos++;
        if (this.is('(')) {
          if (!BUILTIN_SET.has(t.text)) throw this.error(`unknown function '${t.text}' (procedures are called with a 'call' statement)`, t);
          this.pos++;
          const args = this.is(')') ? [] : this.exprList();
          this.expect(')');
          return { kind: 'app', fn: t.text as BuiltinName, args, loc: this.locFrom(t) };
        }
        return { kind: 'var', name: t.text, loc: this.tokLoc(t) };
      }
      default:
        break;
    }
    throw this.error(`expected an expression but found ${this.describe(t)}`);
  }
}

/** `007.500` -> `7.5`, `1.0` -> `1.0`: one spelling per value. */
export function canonicalDecimal(text: string): string {
  let [i, f] = text.split('.');
  i = i.replace(/^0+(?=\d)/, '');
  f = (f ?? '0').replace(/0+$/, '');
  return `${i}.${f === '' ? '0' : f}`;
}

/**
 * The C front end's public API: C text or files to a typed AST with exact
 * locations, loops for witnesses, and witness expressions checked in scope.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TarsierError } from '../common/errors.js';
import { gccModeFlag } from '../common/data-model.js';
import { readTextFile } from '../common/files.js';
import type { SourceLocation } from '../common/location.js';
import type { BlockItem, CProgram, Expr, FunctionDecl, Initializer, Stmt } from './ast.js';
import { lex } from './lexer.js';
import { Parser } from './parser.js';
import { Sema } from './sema.js';
import { scopeAt, functionAt, Scope, type ScopeIndex } from './scope.js';
import { intType, isScalar, typeToString, type DataModel } from './types.js';

export * from './ast.js';
export * from './types.js';
export { nondetType } from './parser.js';

export interface ParseOptions {
  readonly dataModel: DataModel;
  /** The main file's text before preprocessing, so that locations get offsets into it. */
  readonly originalText?: string;
}

/**
 * Parses and type-checks one preprocessed translation unit (line markers are
 * honoured). Throws TarsierError with the original file:line:column.
 */
export function parseCProgram(text: string, file: string, options: ParseOptions): CProgram {
  // A byte order mark is not part of the program; gcc does not count it as a column either.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const { tokens, map, packs } = lex(text, file, options.originalText);
  const parser = new Parser(tokens, map, options.dataModel, { packs });
  const r = guardDepth(parser, () => parser.parseTranslationUnit());
  const scopeIndex: ScopeIndex = { file, fileScope: r.fileScope, names: r.scopedNames, functions: r.functionRanges };
  return {
    file,
    dataModel: options.dataModel,
    declarations: r.declarations,
    functions: r.functions,
    globals: r.globals,
    typedefs: r.typedefs,
    records: r.records,
    enums: r.enums,
    scopeIndex,
  };
}

/** Runs a parse, turning a JavaScript stack overflow (absurdly deep nesting) into a located error. */
function guardDepth<T>(parser: Parser, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof RangeError && /call stack/i.test(e.message)) {
      throw new TarsierError('c-limit', 'constructs nested too deeply for the parser', parser.currentLocation());
    }
    throw e;
  }
}

/** True when the text has preprocessing directives other than line markers and pragmas. */
export function needsPreprocessing(text: string): boolean {
  const re = /^[ \t]*#[ \t]*([A-Za-z_]\w*)/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[1] !== 'line' && m[1] !== 'pragma' && m[1] !== 'ident') return true;
  }
  return false;
}

/**
 * Runs `cpp -m32|-m64` on a C file, keeping line markers so that locations
 * map back to the original file. A built-in preprocessor can replace this.
 */
export function preprocess(path: string, dataModel: DataModel): string {
  const run = (extra: string[]) =>
    spawnSync('cpp', [gccModeFlag(dataModel), ...extra, path], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  let r = run([]);
  if (dataModel === 'ILP32' && r.status !== 0 && /No such file or directory/.test(r.stderr ?? '')) {
    // Without the i386 multilib, `cpp -m32` misses its include directory. The x86-64
    // glibc headers are bi-arch (they follow the -m32 predefined macros); only
    // gnu/stubs-32.h is missing, and it merely lists unimplemented functions.
    const extra = biarchIncludes();
    if (extra.length) r = run(extra);
  }
  if (r.error) {
    const missing = (r.error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new TarsierError(
      'cpp-missing',
      missing ? 'the file has preprocessing directives, and cpp (the C preprocessor of gcc) is not installed' : `cannot run cpp: ${r.error.message}`,
      { file: path },
    );
  }
  if (r.status !== 0) {
    const first = (r.stderr ?? '').split('\n').find((l) => /error/.test(l)) ?? (r.stderr ?? '').trim().split('\n')[0] ?? '';
    const m = /^(.*?):(\d+):(\d+): (?:fatal )?error: (.*)$/.exec(first);
    if (m) throw new TarsierError('cpp-error', `preprocessing failed: ${m[4]}`, { file: m[1], line: Number(m[2]), column: Number(m[3]) });
    throw new TarsierError('cpp-error', `preprocessing failed: ${first}`, { file: path });
  }
  return r.stdout;
}

let biarch: string[] | undefined;
function biarchIncludes(): string[] {
  if (biarch) return biarch;
  biarch = [];
  const multiarch = spawnSync('gcc', ['-m64', '-print-multiarch'], { encoding: 'utf8' }).stdout?.trim();
  if (!multiarch) return biarch;
  const dir = `/usr/include/${multiarch}`;
  if (!existsSync(join(dir, 'bits', 'wordsize.h'))) return biarch;
  const stubs = join(tmpdir(), `tarsier-cpp32-${process.getuid?.() ?? 0}`);
  try {
    mkdirSync(join(stubs, 'gnu'), { recursive: true });
    if (!existsSync(join(stubs, 'gnu', 'stubs-32.h'))) writeFileSync(join(stubs, 'gnu', 'stubs-32.h'), '/* no stubs: written by tarsier for cpp -m32 */\n');
  } catch {
    return biarch;
  }
  biarch = ['-idirafter', dir, '-idirafter', stubs];
  return biarch;
}

/** Reads, preprocesses when needed (`.c` with directives), parses and type-checks a file. */
export function parseCFile(path: string, options: ParseOptions): CProgram {
  const text = readTextFile(path);
  if (path.endsWith('.i') || !needsPreprocessing(text)) return parseCProgram(text, path, options);
  return parseCProgram(preprocess(path, options.dataModel), path, { ...options, originalText: text });
}

// ---- loops ----------------------------------------------------------------------

export interface LoopInfo {
  /** The location of the loop keyword (`for`, `while`, `do`). */
  readonly loc: SourceLocation;
  readonly keyword: 'for' | 'while' | 'do';
  readonly function: string;
}

/** Visits every statement of a function body in source order. */
export function forEachStatement(body: Stmt | BlockItem, visit: (s: Stmt | BlockItem) => void): void {
  visit(body);
  switch (body.kind) {
    case 'Compound': for (const i of body.items) forEachStatement(i, visit); break;
    case 'If': forEachStatement(body.then, visit); if (body.else) forEachStatement(body.else, visit); break;
    case 'While': case 'DoWhile': case 'For': case 'Switch': case 'Case': case 'Default': case 'Label':
      forEachStatement(body.body, visit);
      break;
    default:
      break;
  }
  // Statement expressions hide statements inside expressions; loops there are rare but real.
  for (const e of statementExprs(body)) forEachStatement(e.body, visit);
}

function statementExprs(s: Stmt | BlockItem): Array<Extract<Expr, { kind: 'StatementExpr' }>> {
  const out: Array<Extract<Expr, { kind: 'StatementExpr' }>> = [];
  const roots: Expr[] = [];
  switch (s.kind) {
    case 'ExprStmt': roots.push(s.expr); break;
    case 'If': case 'While': case 'DoWhile': roots.push(s.condition); break;
    case 'For': if (s.init && s.init.kind !== 'Declaration') roots.push(s.init); if (s.condition) roots.push(s.condition); if (s.step) roots.push(s.step); break;
    case 'Switch': roots.push(s.condition); break;
    case 'Return': if (s.value) roots.push(s.value); break;
    case 'DeclStmt': for (const d of s.declaration.declarators) if (d.init && d.init.kind !== 'InitList') roots.push(d.init); break;
    default: break;
  }
  const walk = (e: Expr): void => {
    if (e.kind === 'StatementExpr') {
      out.push(e);
      return;
    }
    for (const c of childExprs(e)) walk(c);
  };
  roots.forEach(walk);
  return out;
}

/** Direct sub-expressions of an expression. */
export function childExprs(e: Expr): Expr[] {
  switch (e.kind) {
    case 'Unary': case 'IncDec': case 'Cast': case 'ImplicitCast': case 'VaArg': return [e.operand];
    case 'Binary': return [e.left, e.right];
    case 'Assign': return [e.target, e.value];
    case 'Conditional': return e.then ? [e.condition, e.then, e.else] : [e.condition, e.else];
    case 'Comma': return [e.left, e.right];
    case 'Call': return [e.callee, ...e.args];
    case 'BuiltinCall': return [...e.args];
    case 'Member': return [e.object];
    case 'Index': return [e.base, e.index];
    case 'SizeOf': return e.argument.kind === 'TypeName' || e.value !== undefined ? [] : [e.argument as Expr];
    default: return [];
  }
}

/** Every loop of the program with the position of its keyword, in source order. */
export function listLoops(program: CProgram): LoopInfo[] {
  const loops: LoopInfo[] = [];
  for (const d of program.declarations) {
    if (d.kind !== 'FunctionDefinition') continue;
    forEachStatement(d.body, (s) => {
      if (s.kind === 'While' || s.kind === 'For' || s.kind === 'DoWhile') {
        loops.push({ loc: s.keywordLoc, keyword: s.kind === 'While' ? 'while' : s.kind === 'For' ? 'for' : 'do', function: d.decl.name });
      }
    });
  }
  return loops;
}

/** Defined functions in source order. */
export function definedFunctions(program: CProgram): FunctionDecl[] {
  return program.declarations.flatMap((d) => (d.kind === 'FunctionDefinition' ? [d.decl] : []));
}

// ---- witness expressions ----------------------------------------------------------------

/**
 * Parses a C expression (a witness invariant or assumption) and type-checks
 * it in the scope that holds at `location` (1-based line and column of the
 * program's file): file-scope names, the parameters of the enclosing
 * function, and the locals declared before that position in enclosing
 * blocks. Without a line (`line` 0), only file-scope names are visible.
 */
export function parseExpressionAt(
  program: CProgram,
  location: { line: number; column: number },
  text: string,
  options: { extraNames?: readonly string[] } = {},
): { expr: Expr } | { error: string; undeclared?: string; syntax?: boolean } {
  const index = program.scopeIndex as ScopeIndex;
  let scope = location.line > 0 ? scopeAt(index, location.line, location.column) : index.fileScope;
  if (options.extraNames?.length) {
    // Ghost variables of a 2.1 witness: their C types are not known here; checked as int.
    scope = new Scope(scope, 'block');
    let id = 2_000_000_000;
    for (const name of options.extraNames) {
      scope.names.set(name, { kind: 'Var', id: id++, name, type: intType('int'), storage: 'none', scope: 'block', loc: { file: '<witness>', line: 1, column: 1, offset: -1 } });
    }
  }
  try {
    const { tokens, map } = lex(text, '<expression>');
    if (tokens.length === 1) return { error: 'empty expression' };
    const parser = new Parser(tokens, map, program.dataModel, { scope, nextId: { value: 1_000_000_000 }, expressionOnly: true });
    const expr = guardDepth(parser, () => parser.parseExpression());
    const rest = tokens[tokens.length - 1];
    void rest;
    parser.expectEnd();
    if (!isScalar(parser.sema.value(expr).type)) {
      return { error: `expression has type '${typeToString(expr.type)}', not a scalar type` };
    }
    return { expr };
  } catch (e) {
    if (e instanceof TarsierError) {
      const loc = e.location && 'line' in e.location ? e.location : undefined;
      const error = loc ? `${e.message} (at column ${loc.column} of the expression)` : e.message;
      const undeclared = e.code === 'c-undeclared' ? /^'([^']+)'/.exec(e.message)?.[1] : undefined;
      return { error, ...(undeclared !== undefined ? { undeclared } : {}), ...(e.code === 'c-syntax' ? { syntax: true } : {}) };
    }
    throw e;
  }
}

/** The function whose body contains a position, if any. */
export function functionAtLocation(program: CProgram, line: number, column: number): string | undefined {
  return functionAt(program.scopeIndex as ScopeIndex, line, column);
}

/** What the witness linter tells a `checkExpression` hook (structurally the witness module's ExpressionContext). */
export interface ExpressionCheckContext {
  readonly location?: { readonly file: string; readonly line: number; readonly column?: number; readonly function?: string };
  readonly format?: string;
  readonly ghostVariables?: readonly string[];
}

/**
 * A ready-made `checkExpression(expr, context)` hook for the witness linter:
 * returns a message (`expr-type: ...`, `undeclared-name: ...`, or a syntax
 * message) when a C expression does not parse or type-check at its location,
 * else undefined. ACSL and extended formats are not checked. Names declared
 * nowhere in the function are left to the linter's own token-level check, so
 * that one problem is reported once.
 */
export function makeExpressionChecker(program: CProgram): (expr: string, context?: ExpressionCheckContext) => string | undefined {
  const index = program.scopeIndex as ScopeIndex;
  const base = (f: string) => f.replace(/^.*[\\/]/, '');
  return (expr, context) => {
    const format = context?.format ?? 'C';
    if (format !== 'C' && format !== 'c_expression') return undefined;
    const loc = context?.location;
    if (loc && base(loc.file) !== base(program.file)) return undefined;
    const at = loc ? { line: loc.line, column: loc.column ?? 1 } : { line: 0, column: 0 };
    const r = parseExpressionAt(program, at, expr, { extraNames: context?.ghostVariables ?? [] });
    if (!('error' in r)) return undefined;
    if (r.undeclared !== undefined) {
      const fn = loc ? functionAt(index, loc.line, loc.column ?? 1) : undefined;
      const declaredInFunction = fn !== undefined && index.names.some((n) => n.name === r.undeclared && n.functionName === fn);
      if (!declaredInFunction) return undefined;
      return `undeclared-name: '${r.undeclared}' is not in scope at line ${at.line}, column ${at.column} (declared later or in a block that does not enclose the location)`;
    }
    return r.syntax ? r.error : `expr-type: ${r.error}`;
  };
}

/** The value of an integer constant expression of the program (as gcc folds it), or undefined. */
export function evaluateInteger(program: CProgram, expr: Expr): bigint | undefined {
  return new Sema(program.dataModel).evalInt(expr);
}

/**
 * The `checkExpression` hook for a program file, or undefined when the
 * program cannot be parsed (the linter then keeps its token-level checks).
 * Tries ILP32 first, then LP64 (names and scopes do not depend on it).
 */
export function expressionCheckerForFile(path: string): ((expr: string, context?: ExpressionCheckContext) => string | undefined) | undefined {
  for (const dataModel of ['ILP32', 'LP64'] as const) {
    try {
      return makeExpressionChecker(parseCFile(path, { dataModel }));
    } catch (e) {
      if (!(e instanceof TarsierError)) throw e;
    }
  }
  return undefined;
}

/** The value of an arithmetic constant expression as a double (float constants, integer constants converted), or undefined. */
export function evaluateFloat(program: CProgram, expr: Expr): number | undefined {
  return new Sema(program.dataModel).evalFloat(expr);
}

// ---- program locations that witnesses point at ---------------------------------------

export interface ProgramLocations {
  /** First character of every statement and of every declaration inside a block (location invariants, assumptions, targets). */
  readonly statements: ReadonlyArray<{ readonly loc: SourceLocation; readonly kind: string; readonly function: string }>;
  /** `if`, `while`, `for`, `do`, `switch` keywords and the `?` of conditional expressions (branching waypoints). */
  readonly branchings: ReadonlyArray<{ readonly loc: SourceLocation; readonly keyword: 'if' | 'while' | 'for' | 'do' | 'switch' | '?'; readonly function: string }>;
  /** The `)` closing the argument list of every call (function_enter / function_return waypoints). */
  readonly calls: ReadonlyArray<{ readonly rparenLoc: SourceLocation; readonly callee?: string; readonly function: string }>;
}

/** Every position of the program a witness may refer to, in source order per function. */
export function listProgramLocations(program: CProgram): ProgramLocations {
  const statements: Array<{ loc: SourceLocation; kind: string; function: string }> = [];
  const branchings: Array<{ loc: SourceLocation; keyword: 'if' | 'while' | 'for' | 'do' | 'switch' | '?'; function: string }> = [];
  const calls: Array<{ rparenLoc: SourceLocation; callee?: string; function: string }> = [];
  for (const d of program.declarations) {
    if (d.kind !== 'FunctionDefinition') continue;
    const fn = d.decl.name;
    const walkExpr = (e: Expr): void => {
      if (e.kind === 'Conditional') branchings.push({ loc: e.questionLoc, keyword: '?', function: fn });
      if (e.kind === 'Call') calls.push({ rparenLoc: e.rparenLoc, ...(e.function ? { callee: e.function.name } : {}), function: fn });
      if (e.kind === 'BuiltinCall') calls.push({ rparenLoc: e.rparenLoc, callee: e.name, function: fn });
      if (e.kind === 'StatementExpr') walkStmt(e.body);
      if (e.kind === 'CompoundLiteral') walkInit(e.init);
      childExprs(e).forEach(walkExpr);
    };
    const walkInit = (i: Initializer): void => (i.kind === 'InitList' ? i.items.forEach((it) => walkInit(it.value)) : walkExpr(i));
    const walkStmt = (s: Stmt | BlockItem): void => {
      if (s.kind !== 'Compound') statements.push({ loc: s.loc, kind: s.kind, function: fn });
      switch (s.kind) {
        case 'Compound': s.items.forEach(walkStmt); break;
        case 'DeclStmt': s.declaration.declarators.forEach((dc) => dc.init && walkInit(dc.init)); break;
        case 'ExprStmt': walkExpr(s.expr); break;
        case 'If': branchings.push({ loc: s.loc, keyword: 'if', function: fn }); walkExpr(s.condition); walkStmt(s.then); if (s.else) walkStmt(s.else); break;
        case 'While': branchings.push({ loc: s.keywordLoc, keyword: 'while', function: fn }); walkExpr(s.condition); walkStmt(s.body); break;
        case 'DoWhile': branchings.push({ loc: s.keywordLoc, keyword: 'do', function: fn }); walkStmt(s.body); walkExpr(s.condition); break;
        case 'For':
          branchings.push({ loc: s.keywordLoc, keyword: 'for', function: fn });
          if (s.init) {
            if (s.init.kind === 'Declaration') s.init.declarators.forEach((dc) => dc.init && walkInit(dc.init));
            else walkExpr(s.init);
          }
          if (s.condition) walkExpr(s.condition);
          if (s.step) walkExpr(s.step);
          walkStmt(s.body);
          break;
        case 'Switch': branchings.push({ loc: s.loc, keyword: 'switch', function: fn }); walkExpr(s.condition); walkStmt(s.body); break;
        case 'Case': case 'Default': case 'Label': walkStmt(s.body); break;
        case 'Return': if (s.value) walkExpr(s.value); break;
        default: break;
      }
    };
    walkStmt(d.body);
  }
  return { statements, branchings, calls };
}

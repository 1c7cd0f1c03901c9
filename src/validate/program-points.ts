// The places of a C program that witness entries point at, with their
// extents in the program's text: statements (assumptions, targets,
// invariants), branching conditions, calls (function_return), and the calls
// of the error function.

import { childExprs, type BlockItem, type CProgram, type Expr, type Initializer, type Stmt } from '../c/index.js';
import { LineIndex, type SourceLocation } from '../common/location.js';

export interface StatementPoint {
  readonly stmt: Stmt | BlockItem;
  readonly start: number;
  readonly end: number;
  readonly loc: SourceLocation;
  readonly function: string;
}

export interface BranchPoint {
  readonly keyword: 'if' | 'while' | 'for' | 'do';
  readonly loc: SourceLocation;
  /** The condition's extent (absent for `for (;;)`). */
  readonly condition?: { readonly start: number; readonly end: number };
  readonly function: string;
}

export interface CallPoint {
  readonly call: Extract<Expr, { kind: 'Call' }>;
  readonly callee?: string;
  readonly start: number;
  readonly end: number;
  readonly rparen: SourceLocation;
  /** The statement the call is in. */
  readonly statement: StatementPoint;
  /** True when the statement is just this call (`f(...);`). */
  readonly isStatement: boolean;
  readonly function: string;
}

export interface ProgramPoints {
  readonly lines: LineIndex;
  readonly statements: readonly StatementPoint[];
  readonly branches: readonly BranchPoint[];
  readonly calls: readonly CallPoint[];
  /** Function definitions with their body extents (and where the definition starts). */
  readonly functions: ReadonlyArray<{ readonly name: string; readonly start: number; readonly end: number; readonly header: number }>;
  /** Start of the first function definition of the main file (where declarations can go). */
  readonly firstDefinition: number;
}

const usable = (loc: SourceLocation, file: string) => loc.offset >= 0 && loc.end !== undefined && loc.end.offset >= 0 && loc.file === file;

function stripCasts(e: Expr): Expr {
  return e.kind === 'ImplicitCast' || e.kind === 'Cast' ? stripCasts(e.operand) : e;
}

/** Every statement, branching condition and call of the program's own file with its text extent. */
export function programPoints(program: CProgram, text: string): ProgramPoints {
  const statements: StatementPoint[] = [];
  const branches: BranchPoint[] = [];
  const calls: CallPoint[] = [];
  const functions: Array<{ name: string; start: number; end: number; header: number }> = [];
  let firstDefinition = -1;
  const file = program.file;
  for (const d of program.declarations) {
    if (d.kind !== 'FunctionDefinition' || !usable(d.body.loc, file)) continue;
    const fn = d.decl.name;
    const defStart = d.decl.definitionLoc?.offset ?? -1;
    if (firstDefinition < 0 && defStart >= 0 && d.decl.definitionLoc?.file === file) firstDefinition = defStart;
    const header = defStart >= 0 && d.decl.definitionLoc?.file === file ? defStart : d.body.loc.offset;
    functions.push({ name: fn, start: d.body.loc.offset, end: d.body.loc.end!.offset, header });
    const walkExpr = (e: Expr, st: StatementPoint, whole: Expr | undefined): void => {
      if (e.kind === 'Call' && usable(e.loc, file)) {
        calls.push({
          call: e,
          ...(e.function ? { callee: e.function.name } : {}),
          start: e.loc.offset,
          end: e.loc.end!.offset,
          rparen: e.rparenLoc,
          statement: st,
          isStatement: whole !== undefined && stripCasts(whole) === e,
          function: fn,
        });
      }
      if (e.kind === 'StatementExpr') walkStmt(e.body);
      for (const c of childExprs(e)) walkExpr(c, st, undefined);
    };
    const walkInit = (i: Initializer, st: StatementPoint): void =>
      i.kind === 'InitList' ? i.items.forEach((it) => walkInit(it.value, st)) : walkExpr(i, st, undefined);
    const cond = (e: Expr) => (usable(e.loc, file) ? { start: e.loc.offset, end: e.loc.end!.offset } : undefined);
    const walkStmt = (s: Stmt | BlockItem): void => {
      const point: StatementPoint | undefined =
        s.kind !== 'Compound' && usable(s.loc, file) ? { stmt: s, start: s.loc.offset, end: s.loc.end!.offset, loc: s.loc, function: fn } : undefined;
      if (point) statements.push(point);
      const st = point ?? { stmt: s, start: -1, end: -1, loc: s.loc, function: fn };
      switch (s.kind) {
        case 'Compound': s.items.forEach(walkStmt); break;
        case 'DeclStmt': s.declaration.declarators.forEach((dc) => dc.init && walkInit(dc.init, st)); break;
        case 'ExprStmt': walkExpr(s.expr, st, s.expr); break;
        case 'If': branches.push({ keyword: 'if', loc: s.loc, condition: cond(s.condition), function: fn }); walkExpr(s.condition, st, undefined); walkStmt(s.then); if (s.else) walkStmt(s.else); break;
        case 'While': branches.push({ keyword: 'while', loc: s.keywordLoc, condition: cond(s.condition), function: fn }); walkExpr(s.condition, st, undefined); walkStmt(s.body); break;
        case 'DoWhile': branches.push({ keyword: 'do', loc: s.keywordLoc, condition: cond(s.condition), function: fn }); walkStmt(s.body); walkExpr(s.condition, st, undefined); break;
        case 'For':
          branches.push({ keyword: 'for', loc: s.keywordLoc, ...(s.condition ? { condition: cond(s.condition) } : {}), function: fn });
          if (s.init) {
            if (s.init.kind === 'Declaration') s.init.declarators.forEach((dc) => dc.init && walkInit(dc.init, st));
            else walkExpr(s.init, st, undefined);
          }
          if (s.condition) walkExpr(s.condition, st, undefined);
          if (s.step) walkExpr(s.step, st, undefined);
          walkStmt(s.body);
          break;
        case 'Switch': walkExpr(s.condition, st, undefined); walkStmt(s.body); break;
        case 'Case': case 'Default': case 'Label': walkStmt(s.body); break;
        case 'Return': if (s.value) walkExpr(s.value, st, undefined); break;
        default: break;
      }
    };
    walkStmt(d.body);
  }
  return { lines: new LineIndex(text), statements, branches, calls, functions, firstDefinition: Math.max(0, firstDefinition) };
}

/** The offset of a 1-based line and column, or undefined outside the text. */
export function offsetOf(points: ProgramPoints, line: number, column: number): number | undefined {
  return points.lines.offsetOf(line, column);
}

/** The statement starting exactly at an offset (the outermost one), skipping labels to the statement they label. */
export function statementAt(points: ProgramPoints, offset: number): StatementPoint | undefined {
  const starting = points.statements.filter((s) => s.start === offset);
  return starting.find((s) => !isLabel(s)) ?? starting[0];
}

/** The innermost statement whose extent contains an offset. */
export function statementContaining(points: ProgramPoints, offset: number): StatementPoint | undefined {
  let best: StatementPoint | undefined;
  for (const s of points.statements) {
    if (s.start <= offset && offset < s.end && !isLabel(s) && (!best || s.end - s.start < best.end - best.start)) best = s;
  }
  return best;
}

export function isLabel(s: StatementPoint): boolean {
  return s.stmt.kind === 'Case' || s.stmt.kind === 'Default' || s.stmt.kind === 'Label';
}

/** The function whose body contains an offset. */
export function functionContaining(points: ProgramPoints, offset: number): string | undefined {
  return points.functions.find((f) => f.start <= offset && offset < f.end)?.name;
}

/** Without a column, a location means the leftmost suitable position on its line (format 2.0). */
export function leftmostColumn(points: ProgramPoints, line: number, type: string): number {
  const columns =
    type === 'branching'
      ? points.branches.filter((b) => b.loc.line === line).map((b) => b.loc.column)
      : type === 'function_return' || type === 'function_enter'
        ? points.calls.filter((c) => c.rparen.line === line).map((c) => c.rparen.column)
        : points.statements.filter((st) => st.loc.line === line).map((st) => st.loc.column);
  return columns.length ? Math.min(...columns) : 1;
}

// Walkers over IMP expressions and statements: visiting, mapping, renaming,
// free and assigned variables. Every folder walks IMP through these, so
// that a new field of an expression or a statement needs one edit: in
// `mapExprChildren` or in `mapStmt`, which alone know the fields; every
// other walker here is derived from them.
//
// Mappers return the very same object when nothing in it changed (IMP nodes
// are immutable, so sharing is safe and saves copies of large programs).
import type { CallStmt, Expr, Stmt, WhileStmt } from './ast.js';

/** `node` with `parts` set, or `node` itself when every part is the one it has. */
function update<T extends object>(node: T, parts: Partial<T>): T {
  for (const k in parts) if (parts[k] !== node[k]) return { ...node, ...parts };
  return node;
}

/** `xs` mapped by `f`, or `xs` itself when `f` changed no element. */
function mapList<T>(xs: readonly T[], f: (x: T) => T): readonly T[] {
  let out: T[] | undefined;
  xs.forEach((x, i) => {
    const y = f(x);
    if (y !== x && !out) out = xs.slice(0, i);
    out?.push(y);
  });
  return out ?? xs;
}

// ---------------------------------------------------------------------------
// Expressions

/** `e` with each direct sub-expression replaced by `f(sub)`, in source order. */
export function mapExprChildren(e: Expr, f: (sub: Expr) => Expr): Expr {
  switch (e.kind) {
    case 'unary':
      return update(e, { arg: f(e.arg) });
    case 'binary':
      return update(e, { left: f(e.left), right: f(e.right) });
    case 'app':
      return update(e, { args: mapList(e.args, f) });
    case 'ite':
      return update(e, { cond: f(e.cond), then: f(e.then), else: f(e.else) });
    case 'select':
      return update(e, { map: f(e.map), index: f(e.index) });
    case 'store':
      return update(e, { map: f(e.map), index: f(e.index), value: f(e.value) });
    case 'bool_lit':
    case 'int_lit':
    case 'real_lit':
    case 'bv_lit':
    case 'float_lit':
    case 'rm_lit':
    case 'var':
      return e;
  }
}

/** The direct sub-expressions of `e`, in source order. */
export function exprChildren(e: Expr): Expr[] {
  const out: Expr[] = [];
  mapExprChildren(e, (x) => (out.push(x), x));
  return out;
}

/** Calls `visit` on `e` and its sub-expressions, outermost first; `visit` returns false to skip a node's sub-expressions. */
export function visitExpr(e: Expr, visit: (x: Expr) => boolean | void): void {
  if (visit(e) !== false) mapExprChildren(e, (x) => (visitExpr(x, visit), x));
}

/**
 * `e` rewritten top-down: where `replace` returns an expression, that
 * replaces the node (and is not walked further); elsewhere the node is kept
 * with its sub-expressions rewritten.
 */
export function rewriteExpr(e: Expr, replace: (x: Expr) => Expr | undefined): Expr {
  return replace(e) ?? mapExprChildren(e, (x) => rewriteExpr(x, replace));
}

/** The variables `e` reads (those under `old(...)` included), added to `out`. */
export function freeVars(e: Expr, out: Set<string> = new Set()): Set<string> {
  visitExpr(e, (x) => {
    if (x.kind === 'var') out.add(x.name);
  });
  return out;
}

/**
 * What renaming does with `old(x)`, which names x in the procedure's
 * pre-state: rename x like any variable (`rename`), leave it (`keep`), or
 * replace the whole `old(x)` by x renamed through the given map (the
 * pre-state's copies, when a call is inlined).
 */
export type OldRenaming = 'rename' | 'keep' | ReadonlyMap<string, string>;

/** `e` with every variable named in `rename` renamed (see `OldRenaming` for `old(...)`). */
export function renameExpr(e: Expr, rename: ReadonlyMap<string, string>, old: OldRenaming = 'rename'): Expr {
  if (rename.size === 0 && typeof old === 'string') return e;
  return rewriteExpr(e, (x) => {
    if (x.kind === 'var') {
      const to = rename.get(x.name);
      return to === undefined || to === x.name ? x : { ...x, name: to };
    }
    if (x.kind === 'app' && x.fn === 'old') {
      if (old === 'keep') return x;
      if (typeof old !== 'string') return renameExpr(x.args[0]!, old);
    }
    return undefined;
  });
}

// ---------------------------------------------------------------------------
// Statements

/** How `mapStmt` changes the parts of a statement; a part without a function stays. */
export interface StmtMapper {
  /** Every expression the statement holds itself; `annotation` for loop invariants and candidates (claims, not executed). */
  readonly expr?: (e: Expr, annotation: boolean) => Expr;
  /** Every variable the statement writes (assignment, havoc, call results). */
  readonly target?: (name: string) => string;
  /** Every statement list the statement holds (branches, loop and block bodies). */
  readonly body?: (ss: readonly Stmt[]) => readonly Stmt[];
}

/**
 * `s` with its parts mapped, one level deep (nested statements are reached
 * through `body`). Parts are visited in source order: targets, expressions
 * (a loop's condition, invariants, candidates), statement lists.
 */
export function mapStmt(s: Stmt, m: StmtMapper): Stmt {
  const expr = (e: Expr) => (m.expr ? m.expr(e, false) : e);
  const annotation = (e: Expr) => (m.expr ? m.expr(e, true) : e);
  const target = (t: string) => (m.target ? m.target(t) : t);
  const body = (ss: readonly Stmt[]) => (m.body ? m.body(ss) : ss);
  switch (s.kind) {
    case 'skip':
      return s;
    case 'assign':
      return update(s, { target: target(s.target), value: expr(s.value) });
    case 'havoc':
      return update(s, { target: target(s.target) });
    case 'assume':
    case 'assert':
      return update(s, { cond: expr(s.cond) });
    case 'if':
      return update(s, { cond: expr(s.cond), then: body(s.then), else: body(s.else) });
    case 'while':
      return update(s, {
        cond: expr(s.cond),
        invariants: mapList(s.invariants, annotation),
        candidates: mapList(s.candidates, annotation),
        body: body(s.body),
      });
    case 'call':
      return update(s, { targets: mapList(s.targets, target), args: mapList(s.args, expr) });
    case 'block':
      return update(s, { body: body(s.body) });
  }
}

/** The expressions `s` holds itself (not those of nested statements); loop invariants and candidates unless `annotations` is false. */
export function stmtExprs(s: Stmt, annotations = true): Expr[] {
  const out: Expr[] = [];
  mapStmt(s, { expr: (e, ann) => ((annotations || !ann) && out.push(e), e) });
  return out;
}

/** The variables `s` itself writes: its assignment or havoc target, a call's results. */
export function stmtTargets(s: Stmt): string[] {
  const out: string[] = [];
  mapStmt(s, { target: (t) => (out.push(t), t) });
  return out;
}

/** The statement lists `s` holds directly (branches, loop and block bodies). */
export function stmtBodies(s: Stmt): (readonly Stmt[])[] {
  const out: (readonly Stmt[])[] = [];
  mapStmt(s, { body: (ss) => (out.push(ss), ss) });
  return out;
}

/** `s` with its targets and expressions renamed through `rename` (nested statements included). */
export function renameStmt(s: Stmt, rename: ReadonlyMap<string, string>, old: OldRenaming = 'rename'): Stmt {
  return mapStmt(s, {
    expr: (e) => renameExpr(e, rename, old),
    target: (t) => rename.get(t) ?? t,
    body: (ss) => mapList(ss, (x) => renameStmt(x, rename, old)),
  });
}

/**
 * Calls `visit` on every statement of `ss`, nested ones included, in
 * program order (a statement before the statements inside it); `visit`
 * returns false to skip what is inside a statement. `leave`, when given, is
 * called on a statement after what is inside it.
 */
export function visitStmts(ss: readonly Stmt[], visit: (s: Stmt) => boolean | void, leave?: (s: Stmt) => void): void {
  for (const s of ss) {
    if (visit(s) !== false) for (const b of stmtBodies(s)) visitStmts(b, visit, leave);
    leave?.(s);
  }
}

/** The first statement of `ss` (nested ones included, outermost first) that satisfies `pred`. */
export function findStmt(ss: readonly Stmt[], pred: (s: Stmt) => boolean): Stmt | undefined {
  for (const s of ss) {
    if (pred(s)) return s;
    for (const b of stmtBodies(s)) {
      const found = findStmt(b, pred);
      if (found) return found;
    }
  }
  return undefined;
}

/** Whether some statement of `ss` (nested ones included) satisfies `pred`. */
export function someStmt(ss: readonly Stmt[], pred: (s: Stmt) => boolean): boolean {
  return findStmt(ss, pred) !== undefined;
}

/**
 * `ss` rewritten top-down: where `replace` returns a statement or a list,
 * that stands for the statement (and is not walked further; `replace` may
 * rewrite inside it itself); elsewhere the statement is kept with the
 * statements inside it rewritten.
 */
export function rewriteStmts(ss: readonly Stmt[], replace: (s: Stmt) => Stmt | readonly Stmt[] | undefined): Stmt[] {
  return ss.flatMap((s) => replace(s) ?? mapStmt(s, { body: (b) => rewriteStmts(b, replace) }));
}

/** Calls `visit` on every expression of the statements (nested ones included), statement by statement in program order, each expression outermost first (see `visitExpr`). */
export function visitStmtExprs(ss: readonly Stmt[], visit: (e: Expr) => boolean | void, annotations = true): void {
  visitStmts(ss, (s) => {
    for (const e of stmtExprs(s, annotations)) visitExpr(e, visit);
  });
}

/** Every variable the statements read or write, nested ones included (in loop invariants and candidates too, unless `annotations` is false). */
export function mentionedVars(ss: readonly Stmt[], annotations = true, out: Set<string> = new Set()): Set<string> {
  visitStmtExprs(ss, (e) => void (e.kind === 'var' && out.add(e.name)), annotations);
  return assignedVars(ss, undefined, out);
}

/** The while loops of `ss`, nested ones included, outer before inner. */
export function loopsOf(ss: readonly Stmt[]): WhileStmt[] {
  const out: WhileStmt[] = [];
  visitStmts(ss, (s) => {
    if (s.kind === 'while') out.push(s);
  });
  return out;
}

/**
 * The variables the statements may write (nested ones included), added to
 * `out` in program order: targets, and for a call what `callWrites` says it
 * writes besides its results (globals, for instance).
 */
export function assignedVars(ss: readonly Stmt[], callWrites: (call: CallStmt) => Iterable<string> = () => [], out: Set<string> = new Set()): Set<string> {
  visitStmts(ss, (s) => {
    for (const t of stmtTargets(s)) out.add(t);
    if (s.kind === 'call') for (const g of callWrites(s)) out.add(g);
  });
  return out;
}

/**
 * How many times the statements (nested ones included) write each variable
 * as written: an assignment or havoc counts 1, a call's result 2 (a value
 * the statements do not define, so never "assigned once").
 */
export function writeCounts(ss: readonly Stmt[]): Map<string, number> {
  const writes = new Map<string, number>();
  visitStmts(ss, (s) => {
    if (s.kind === 'assign' || s.kind === 'havoc') writes.set(s.target, (writes.get(s.target) ?? 0) + 1);
    if (s.kind === 'call') for (const t of s.targets) writes.set(t, (writes.get(t) ?? 0) + 2);
  });
  return writes;
}

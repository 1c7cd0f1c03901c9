// The array-cell abstraction: a program whose arrays (IMP maps) are each
// replaced by the one cell at a symbolic index `k`, chosen once at the
// start and never changed. A write at `k` updates the cell, a write
// elsewhere is dropped, a read at `k` gives the cell and a read elsewhere an
// arbitrary value. Facts about every cell (`forall q < i: a[q] == b[q]`)
// become facts about one (`k < i ==> a_k == b_k`), which k-induction
// proves as it proves any scalar invariant, from the candidates below.
//
// Reading arbitrary values elsewhere over-approximates, but alone it would
// fail every check that reads a cell other than `k`. So a check is skipped
// when the statement with array reads that ran last before it read its
// first cell at an index other than `k` (the ghost `$cell_miss`). This
// never hides a violation: the program with one `k` can follow any
// concrete run exactly (every arbitrary read taking the concrete value,
// the cell tracking a[k]), and which index that last read was is a fact of
// the run, not of `k`. So a run that fails a check is followed, unskipped,
// by the choice of `k` equal to that index. A proof of the abstraction for
// every `k` (k is arbitrary) is a proof of the program; a failure of it
// shows nothing (it may read an arbitrary value), so it is used only to prove.
import type { BvWidth, Expr, ImpProgram, ImpType, Procedure, Stmt, VarDecl, WhileStmt } from '../ivl/ast.js';
import { boolType, findProcedure, syntheticLoc, typeToString } from '../ivl/ast.js';
import { assignedVars, freeVars, loopsOf, mapExprChildren, mapStmt, rewriteExpr, stmtBodies, visitExpr, visitStmtExprs } from '../ivl/walk.js';
import { printExpr } from '../ivl/printer.js';
import type { LoopCandidateSource } from './candidates.js';

export interface CellAbstraction {
  readonly program: ImpProgram;
  /** The cell standing for each array, by the array's name. */
  readonly cells: ReadonlyMap<string, string>;
  /** The variables the abstraction adds (the cells, the indices, the reads, the ghost): none is a program variable. */
  readonly ghosts: ReadonlySet<string>;
  /** The indices `k` (one per index type). */
  readonly indices: ReadonlySet<string>;
  /** Candidate invariants about the cells, per loop of the abstraction (see `cellCandidates`). */
  readonly candidates: LoopCandidateSource;
}

/** Thrown where the program uses an array in a way the abstraction does not model. */
class NotAbstracted extends Error {}

const MISS = '$cell_miss';
const loc = syntheticLoc('<array cells>');
const v = (name: string): Expr => ({ kind: 'var', name, loc });
const eq = (a: Expr, b: Expr): Expr => ({ kind: 'binary', op: '==', left: a, right: b, loc });
const ite = (c: Expr, a: Expr, b: Expr): Expr => ({ kind: 'ite', cond: c, then: a, else: b, loc });
const assign = (target: string, value: Expr): Stmt => ({ kind: 'assign', target, value, loc });

/**
 * The abstraction of `main` (the whole program: calls are not modelled), or
 * the reason it does not apply: no arrays, an array of arrays, an array
 * compared or passed as a whole, a call.
 */
export function abstractArrayCells(p: ImpProgram, entry = 'main'): CellAbstraction | { readonly reason: string } {
  const main = findProcedure(p, entry);
  if (!main?.body) return { reason: `no procedure ${entry}` };
  const arrays = new Map<string, { key: ImpType; value: ImpType }>();
  for (const d of [...p.globals, ...main.params, ...main.locals]) {
    if (d.type.kind !== 'map') continue;
    if (d.type.value.kind === 'map' || d.type.key.kind === 'map') return { reason: `array of arrays ${d.name}` };
    arrays.set(d.name, { key: d.type.key, value: d.type.value });
  }
  if (arrays.size === 0) return { reason: 'no arrays' };
  try {
    return new Abstraction(arrays).run(p, main);
  } catch (e) {
    if (e instanceof NotAbstracted) return { reason: e.message };
    throw e;
  }
}

class Abstraction {
  readonly cells = new Map<string, string>();
  /** The index `k` per key type. */
  readonly indices = new Map<string, { name: string; type: ImpType }>();
  readonly decls: VarDecl[] = [];
  /** Read temporaries per value type, reused statement after statement. */
  readonly readTemps = new Map<string, string[]>();
  /** Per statement: the reads' temporaries used so far (per type), the statements that compute them, the first read's index test. */
  private used = new Map<string, number>();
  private pre: Stmt[] = [];
  private firstRead: Expr | undefined;
  /** The indices the statement reads at (as text). */
  private readAt = new Set<string>();
  /** What the program stores in or says about one cell: `c == 10` for a stored literal, `c1 == c2` for a copy, a condition on reads at one index with the cell in their place. */
  readonly facts = new Map<string, Expr>();

  constructor(readonly arrays: ReadonlyMap<string, { key: ImpType; value: ImpType }>) {
    for (const [name, t] of arrays) {
      const cell = `${name}$cell`;
      this.cells.set(name, cell);
      this.declare(cell, t.value);
      const key = typeToString(t.key);
      if (!this.indices.has(key)) {
        const k = `$cell_k_${key}`;
        this.indices.set(key, { name: k, type: t.key });
        this.declare(k, t.key);
      }
    }
    this.declare(MISS, boolType);
  }

  run(p: ImpProgram, main: Procedure): CellAbstraction {
    const body = this.stmts(main.body!);
    const start: Stmt[] = [...[...this.indices.values()].map((k): Stmt => ({ kind: 'havoc', target: k.name, loc })), assign(MISS, { kind: 'bool_lit', value: false, loc })];
    const keep = (d: VarDecl) => !this.arrays.has(d.name);
    const abstracted: Procedure = { ...main, params: main.params.filter(keep), locals: [...main.locals.filter(keep), ...this.decls], body: [...start, ...body] };
    // main calls nothing (else the abstraction does not apply): the other procedures, which may use the arrays, go.
    const program: ImpProgram = { ...p, globals: p.globals.filter(keep), procedures: [abstracted] };
    return { program, cells: this.cells, ghosts: new Set(this.decls.map((d) => d.name)), indices: new Set([...this.indices.values()].map((k) => k.name)), candidates: cellCandidates([...this.facts.values()], this.indices, abstracted) };
  }

  private declare(name: string, type: ImpType): void {
    this.decls.push({ kind: 'var_decl', name, type, loc });
  }

  private stmts(ss: readonly Stmt[]): Stmt[] {
    return ss.flatMap((s) => this.stmt(s));
  }

  /** One statement: the reads it makes computed before it, `$cell_miss` set by the first, checks skipped on a miss. */
  private stmt(s: Stmt): Stmt[] {
    switch (s.kind) {
      case 'call':
        throw new NotAbstracted(`call of ${s.proc}`);
      case 'havoc':
        return [this.arrays.has(s.target) ? { ...s, target: this.cells.get(s.target)! } : s];
      case 'assign':
        if (this.arrays.has(s.target)) return this.withReads(() => assign(this.cells.get(s.target)!, this.cellOf(s.value)));
        return this.withReads(() => ({ ...s, value: this.scalar(s.value) }));
      case 'assert':
        return this.withReads(() => ({ ...s, cond: { kind: 'binary', op: '||', left: this.scalar(s.cond), right: v(MISS), loc: s.loc } }));
      case 'while': {
        const [condPre, cond] = this.hoisted(s.cond);
        const body = this.stmts(s.body);
        const annotations = (es: readonly Expr[]) => es.filter((e) => !this.readsArrays(e));
        return [...condPre, { ...s, cond, invariants: annotations(s.invariants), candidates: annotations(s.candidates), body: [...body, ...condPre] }];
      }
      case 'if': {
        const [condPre, cond] = this.hoisted(s.cond);
        return [...condPre, { ...s, cond, then: this.stmts(s.then), else: this.stmts(s.else) }];
      }
      case 'assume':
        return this.withReads(() => ({ ...s, cond: this.scalar(s.cond) }));
      case 'skip':
        return [s];
      case 'block':
        return [mapStmt(s, { body: (b) => this.stmts(b) })];
    }
  }

  /**
   * The statement `make` builds, after the reads its expressions need and
   * the update of `$cell_miss` when there are some. A statement that reads
   * two cells at once (`a[i] == a[j]`) is not abstracted: its value needs
   * both, and one of them is always arbitrary here.
   */
  private withReads(make: () => Stmt): Stmt[] {
    this.used = new Map();
    this.pre = [];
    this.firstRead = undefined;
    this.readAt = new Set();
    const s = make();
    if (this.readAt.size > 1 && !(s.kind === 'assign' && this.arrays.has(s.target))) throw new NotAbstracted(`two cells read at once at ${s.loc.line}:${s.loc.column}`);
    const miss = this.firstRead ? [assign(MISS, { kind: 'unary', op: '!', arg: this.firstRead, loc })] : [];
    return [...this.pre, ...miss, s];
  }

  /** A condition and the statements before it that read its cells. */
  private hoisted(cond: Expr): [Stmt[], Expr] {
    let out: Expr = cond;
    const stmts = this.withReads(() => {
      out = this.scalar(cond);
      return { kind: 'skip', loc };
    });
    return [stmts.slice(0, -1), out];
  }

  private readsArrays(e: Expr): boolean {
    return [...freeVars(e)].some((x) => this.arrays.has(x));
  }

  /** A scalar expression with each array read replaced by its cell at `k` or an arbitrary value. */
  private scalar(e: Expr): Expr {
    this.noteCondition(e);
    if (e.kind === 'select') {
      const { key, value } = this.arrayTypeOf(e.map);
      const index = this.scalar(e.index);
      const k = this.indices.get(typeToString(key))!;
      const atK = eq(index, v(k.name));
      this.firstRead ??= atK;
      this.readAt.add(printExpr(e.index));
      const cell = this.cellOf(e.map);
      const temp = this.readTemp(value);
      this.pre.push({ kind: 'havoc', target: temp, loc });
      return ite(atK, cell, v(temp));
    }
    if (e.kind === 'var' && this.arrays.has(e.name)) throw new NotAbstracted(`array ${e.name} used as a whole at ${e.loc.line}:${e.loc.column}`);
    if (e.kind === 'store') throw new NotAbstracted(`array value used as a whole at ${e.loc.line}:${e.loc.column}`);
    return mapExprChildren(e, (x) => this.scalar(x));
  }

  /** The value at `k` of an array-valued expression. */
  private cellOf(e: Expr): Expr {
    switch (e.kind) {
      case 'var': {
        const cell = this.cells.get(e.name);
        if (!cell) throw new NotAbstracted(`array expression ${e.name}`);
        return v(cell);
      }
      case 'store': {
        const { key } = this.arrayTypeOf(e.map);
        const k = this.indices.get(typeToString(key))!;
        const index = this.scalar(e.index);
        const value = this.scalar(e.value);
        const root = rootArray(e);
        const stored = this.atSameIndex(e.value, e.index);
        if (root && (e.value.kind === 'bv_lit' || stored)) this.fact(eq(v(this.cells.get(root)!), stored ?? e.value));
        return ite(eq(index, v(k.name)), value, this.cellOf(e.map));
      }
      case 'ite':
        return ite(this.scalar(e.cond), this.cellOf(e.then), this.cellOf(e.else));
      default:
        throw new NotAbstracted(`array expression of kind ${e.kind} at ${e.loc.line}:${e.loc.column}`);
    }
  }

  /** A condition (a comparison or a connective) whose array reads are all at one index: the same condition about the cells. */
  private noteCondition(e: Expr): void {
    const isCondition =
      (e.kind === 'binary' && ['==', '!=', '&&', '||', '==>'].includes(e.op)) ||
      (e.kind === 'app' && ['slt', 'sle', 'sgt', 'sge', 'ult', 'ule', 'ugt', 'uge'].includes(e.fn)) ||
      (e.kind === 'unary' && e.op === '!');
    if (!isCondition) return;
    let index: Expr | undefined;
    visitExpr(e, (x) => {
      if (x.kind === 'select') index ??= x.index;
    });
    const cellular = index && this.atSameIndex(e, index);
    if (cellular) this.fact(cellular);
  }

  /** `e` with its reads (all at `index`, else undefined) replaced by the cells; undefined when it reads nothing. */
  private atSameIndex(e: Expr, index: Expr): Expr | undefined {
    let reads = 0;
    let other = false;
    const text = printExpr(index);
    const out = rewriteExpr(e, (x) => {
      if (x.kind === 'store' || (x.kind === 'var' && this.arrays.has(x.name))) other = true;
      if (x.kind !== 'select') return undefined;
      if (x.map.kind !== 'var' || !this.arrays.has(x.map.name) || printExpr(x.index) !== text) other = true;
      else reads++;
      return x.map.kind === 'var' ? v(this.cells.get(x.map.name) ?? x.map.name) : x;
    });
    return reads > 0 && !other ? out : undefined;
  }

  private fact(e: Expr): void {
    if (e.kind === 'binary' && e.op === '==' && printExpr(e.left) === printExpr(e.right)) return;
    const text = printExpr(e);
    if (!this.facts.has(text)) this.facts.set(text, e);
  }

  private arrayTypeOf(e: Expr): { key: ImpType; value: ImpType } {
    if (e.kind === 'var') {
      const t = this.arrays.get(e.name);
      if (t) return t;
    }
    if (e.kind === 'store') return this.arrayTypeOf(e.map);
    if (e.kind === 'ite') return this.arrayTypeOf(e.then);
    throw new NotAbstracted(`array expression of kind ${e.kind} at ${e.loc.line}:${e.loc.column}`);
  }

  private readTemp(type: ImpType): string {
    const key = typeToString(type);
    const n = this.used.get(key) ?? 0;
    this.used.set(key, n + 1);
    const temps = this.readTemps.get(key) ?? [];
    this.readTemps.set(key, temps);
    if (n === temps.length) {
      const name = `$cell_read${n}_${key}`;
      temps.push(name);
      this.declare(name, type);
    }
    return temps[n]!;
  }
}

/**
 * The indices a loop reads or writes at (`e` of the abstraction's `e == k`),
 * and those of an inner loop also with the inner loop's variables at their
 * values before it (`i*2 - j` with `j := 2` before the inner loop: `i*2 - 2`,
 * the first cell the next run of the inner loop writes).
 */
function indicesAt(loop: WhileStmt, k: string): Expr[] {
  const out: Expr[] = [];
  const atK = (ss: readonly Stmt[]): Expr[] => {
    const found: Expr[] = [];
    visitStmtExprs(ss, (x) => {
      if (x.kind === 'binary' && x.op === '==' && x.right.kind === 'var' && x.right.name === k) found.push(x.left);
    });
    return found;
  };
  out.push(...atK(loop.body));
  const scan = (body: readonly Stmt[]): void => {
    body.forEach((inner, n) => {
      for (const b of stmtBodies(inner)) scan(b);
      if (inner.kind !== 'while') return;
      const start = new Map<string, Expr>();
      for (let m = n - 1; m >= 0; m--) {
        const before = body[m]!;
        if (before.kind !== 'assign') break;
        if (!start.has(before.target)) start.set(before.target, before.value);
      }
      if (start.size > 0) for (const e of atK(inner.body)) out.push(substitute(e, start));
    });
  };
  scan(loop.body);
  return out;
}

/** `k % m == r` for each index `x*m ± c` (m > 1 a literal) the program reads or writes at, with r = ±c mod m. */
function congruences(main: Procedure, k: string, width: BvWidth): Expr[] {
  const out = new Map<string, Expr>();
  const lit = (value: bigint): Expr => ({ kind: 'bv_lit', value, width, loc });
  visitStmtExprs(main.body ?? [], (x) => {
    if (x.kind !== 'binary' || x.op !== '==' || x.right.kind !== 'var' || x.right.name !== k) return;
    let index = x.left;
    let offset = 0n;
    if (index.kind === 'binary' && (index.op === '+' || index.op === '-') && index.right.kind === 'bv_lit') {
      offset = index.op === '+' ? index.right.value : -index.right.value;
      index = index.left;
    }
    if (index.kind !== 'binary' || index.op !== '*') return;
    const m = index.right.kind === 'bv_lit' ? index.right.value : index.left.kind === 'bv_lit' ? index.left.value : 0n;
    if (m < 2n || m > 64n) return;
    const r = ((offset % m) + m) % m;
    const e: Expr = eq({ kind: 'app', fn: 'srem', args: [v(k), lit(m)], loc }, lit(r));
    out.set(printExpr(e), e);
  });
  return [...out.values()];
}

function substitute(e: Expr, values: ReadonlyMap<string, Expr>): Expr {
  return rewriteExpr(e, (x) => (x.kind === 'var' ? values.get(x.name) : undefined));
}

function rootArray(e: Expr): string | undefined {
  while (e.kind === 'store') e = e.map;
  return e.kind === 'var' ? e.name : undefined;
}

/** At most this many candidates per loop: Houdini checks them all in each round. */
const MAX_PER_LOOP = 400;

/**
 * Candidates about the cells at one loop: each fact the program states or
 * stores about a cell, guarded by where `k` lies: `lo && hi && c ==> fact`,
 * with `lo` `0 <= k` (C's indices start there), `hi` nothing, `k < e` for an index `e` the
 * loop reads or writes at (the cells before it are done), or `k < b` for a
 * bound `b` of some loop's condition (the array's extent), and `c` nothing,
 * a condition of the loop's branches that the loop does not change, or
 * `k % m == r` for an index `x*m + c` of the program (a loop that fills
 * every m-th cell).
 */
function cellCandidates(facts: readonly Expr[], indices: ReadonlyMap<string, { name: string; type: ImpType }>, main: Procedure): LoopCandidateSource {
  const bounds: Expr[] = [];
  for (const loop of loopsOf(main.body ?? [])) {
    visitExpr(loop.cond, (x) => {
      if (x.kind === 'app' && ['slt', 'sle', 'ult', 'ule'].includes(x.fn)) bounds.push(x.args[1]!);
    });
  }
  return (loop) => {
    if (loop.kind !== 'while') return [];
    const assigned = assignedVars(loop.body);
    const out = new Map<string, Expr>();
    for (const k of indices.values()) {
      const kv = v(k.name);
      const width = k.type.kind === 'bv' ? k.type.width : undefined;
      if (width === undefined) continue;
      const zero: Expr = { kind: 'bv_lit', value: 0n, width, loc };
      const app = (fn: 'slt' | 'sle', a: Expr, b: Expr): Expr => ({ kind: 'app', fn, args: [a, b], loc });
      const his: (Expr | undefined)[] = [undefined];
      for (const index of indicesAt(loop, k.name)) his.push(app('slt', kv, index));
      for (const b of bounds) his.push(app('slt', kv, b));
      const conds: (Expr | undefined)[] = [undefined, ...congruences(main, k.name, width)];
      const visitIfs = (ss: readonly Stmt[]): void => {
        for (const s of ss) {
          if (s.kind === 'if' && ![...freeVars(s.cond)].some((x) => assigned.has(x) || x.startsWith('$cell'))) conds.push(s.cond);
          if (s.kind === 'if') (visitIfs(s.then), visitIfs(s.else));
          if (s.kind === 'block') visitIfs(s.body);
        }
      };
      visitIfs(loop.body);
      for (const fact of facts) {
        for (const hi of his) {
          for (const c of conds) {
            const guard = [app('sle', zero, kv), hi, c].filter((g): g is Expr => g !== undefined).reduce((a, b) => ({ kind: 'binary', op: '&&', left: a, right: b, loc }));
            const e: Expr = { kind: 'binary', op: '==>', left: guard, right: fact, loc };
            out.set(printExpr(e), e);
          }
        }
      }
    }
    return [...out.values()].slice(0, MAX_PER_LOOP);
  };
}

// Shared IMP helpers of invariant selection: the loop table (ids, nesting),
// loop targets T(loop), renaming of expressions, fresh names, and the
// candidate model. Everything here is a pure function of the AST.
import type { SourceLocation } from '../common/location.js';
import { type Expr, type ImpProgram, type ImpType, type Procedure, type Stmt, type VarDecl, type WhileStmt, boolType, syntheticLoc } from '../ivl/ast.js';
import { printExpr } from '../ivl/printer.js';
import { procedureScope } from '../ivl/typecheck.js';
import { KEYWORDS } from '../ivl/parser.js';
import { assignedVars, freeVars, renameExpr, stmtExprs, stmtTargets, visitStmts } from '../ivl/walk.js';
import { modifiedGlobals } from '../vc/encode.js';

/** Where a candidate came from when it was read from a witness entry. */
export interface CandidateOrigin {
  /** `loop_invariant` (0.1 entry, certificates can be written) or `invariant_set` (2.0). */
  readonly entryType: 'loop_invariant' | 'invariant_set';
  readonly uuid: string;
  /** `location.file_hash` of a 0.1 entry (the certificate's `target.file_hash`). */
  readonly fileHash?: string;
}

/** One candidate invariant attached to one loop. */
export interface Candidate {
  /** Position in the ordered candidate list I' (0-based, program order). */
  readonly index: number;
  readonly loopId: number;
  readonly expr: Expr;
  /** The candidate's own position (in the IMP file, or in the YAML file). */
  readonly loc: SourceLocation;
  /** The expression as written (inline: printed from the AST). */
  readonly text: string;
  readonly origin?: CandidateOrigin;
}

/** A loop of the program. Ids are 1-based, in program pre-order. */
export interface LoopInfo {
  readonly id: number;
  readonly proc: string;
  readonly loop: WhileStmt;
  /** The innermost enclosing loop, if any. */
  readonly parent?: number;
  /** Every loop inside this one, at any depth, in pre-order (get_nested_id). */
  readonly nested: readonly number[];
  /** T(loop): every variable the loop may write, sorted. */
  readonly targets: readonly string[];
}

export class LoopTable {
  readonly loops: LoopInfo[] = [];
  private readonly byStmt = new Map<WhileStmt, LoopInfo>();

  constructor(readonly program: ImpProgram) {
    const mods = modifiedGlobals(program);
    for (const proc of program.procedures) {
      // The loops around the statement being visited, outermost first.
      const open: { id: number; nested: number[] }[] = [];
      const enter = (s: Stmt) => {
        if (s.kind !== 'while') return;
        const id = this.loops.length + 1;
        const nested: number[] = [];
        const info: LoopInfo = { id, proc: proc.name, loop: s, parent: open.at(-1)?.id, nested, targets: loopTargets(program, s.body, mods) };
        this.loops.push(info);
        this.byStmt.set(s, info);
        for (const o of open) o.nested.push(id);
        open.push({ id, nested });
      };
      visitStmts(proc.body ?? [], enter, (s) => s.kind === 'while' && open.pop());
    }
  }

  get(id: number): LoopInfo {
    const l = this.loops[id - 1];
    if (!l) throw new Error(`no loop ${id}`);
    return l;
  }

  of(stmt: WhileStmt): LoopInfo {
    const l = this.byStmt.get(stmt);
    if (!l) throw new Error('loop not in table');
    return l;
  }
}

/**
 * T(loop): the variables a loop body may write: assignment and havoc targets,
 * call results, and the globals the called procedures may write (vc/'s
 * notion, so that the cut and the encodings agree with the verifier).
 */
export function loopTargets(program: ImpProgram, body: readonly Stmt[], mods = modifiedGlobals(program)): string[] {
  return [...assignedVars(body, (call) => mods.get(call.proc) ?? [])].sort();
}

/** e[vars/M(vars)]: every free occurrence of a renamed variable replaced (`old(e)` names the pre-state: never renamed). */
export function renameFree(e: Expr, m: ReadonlyMap<string, string>): Expr {
  return renameExpr(e, m, 'keep');
}

/** Every name that occurs in the program (declarations, procedures, uses). */
export function programNames(program: ImpProgram): Set<string> {
  const names = new Set<string>();
  const expr = (e: Expr) => freeVars(e, names);
  program.globals.forEach((g) => names.add(g.name));
  for (const p of program.procedures) {
    names.add(p.name);
    [...p.params, ...p.returns, ...p.locals].forEach((d) => names.add(d.name));
    p.requires.forEach(expr);
    p.ensures.forEach(expr);
    visitStmts(p.body ?? [], (s) => {
      stmtTargets(s).forEach((t) => names.add(t));
      stmtExprs(s).forEach(expr);
      if (s.kind === 'call') names.add(s.proc);
    });
  }
  return names;
}

/**
 * fresh(vars): names that occur nowhere in the program and are not keywords
 * or built-ins. A taken base name gets `_1`, `_2`, ... appended.
 */
export class FreshNames {
  private readonly taken: Set<string>;
  constructor(program: ImpProgram) {
    this.taken = programNames(program);
  }
  fresh(base: string): string {
    let name = base;
    for (let k = 1; this.taken.has(name) || KEYWORDS.has(name) || BUILTIN_NAMES.has(name); k++) name = `${base}_${k}`;
    this.taken.add(name);
    return name;
  }
}

const BUILTIN_NAMES = new Set<string>([
  'sdiv', 'udiv', 'srem', 'urem', 'slt', 'sle', 'sgt', 'sge', 'ult', 'ule', 'ugt', 'uge', 'ashr', 'lshr',
  'zext8', 'zext16', 'zext32', 'zext64', 'sext8', 'sext16', 'sext32', 'sext64', 'trunc8', 'trunc16', 'trunc32',
  'trunc64', 'int2bv8', 'int2bv16', 'int2bv32', 'int2bv64', 'ubv2int', 'sbv2int', 'to_real', 'to_int', 'old',
]);

/** The declared type of a variable visible in a procedure. */
export function varType(program: ImpProgram, proc: Procedure, name: string): ImpType {
  const v = procedureScope(program, proc).get(name);
  if (!v) throw new Error(`unknown variable ${name}`);
  return v.decl.type;
}

// ---- tiny AST builders for generated code (synthetic locations) ----
const G = syntheticLoc();
export const v = (name: string): Expr => ({ kind: 'var', name, loc: G });
export const not = (e: Expr): Expr => ({ kind: 'unary', op: '!', arg: e, loc: G });
export const bin = (op: '&&' | '||' | '==>' | '<==>', left: Expr, right: Expr): Expr => ({ kind: 'binary', op, left, right, loc: G });
export const and = (es: readonly Expr[]): Expr =>
  es.length === 0 ? { kind: 'bool_lit', value: true, loc: G } : es.reduce((a, b) => bin('&&', a, b));
export const falseE: Expr = { kind: 'bool_lit', value: false, loc: G };
export const havoc = (target: string): Stmt => ({ kind: 'havoc', target, loc: G });
export const assume = (cond: Expr, loc: SourceLocation = G): Stmt => ({ kind: 'assume', cond, loc });
export const assert = (cond: Expr, loc: SourceLocation = G): Stmt => ({ kind: 'assert', cond, loc });
export const ifS = (cond: Expr, then: Stmt[], els: Stmt[] = []): Stmt => ({ kind: 'if', cond, then, else: els, loc: G });
export const skip: Stmt = { kind: 'skip', loc: G };
export const decl = (name: string, type: ImpType): VarDecl => ({ kind: 'var_decl', name, type, loc: G });
export const boolDecl = (name: string): VarDecl => decl(name, boolType);

/** The candidate's expression as text, for output. */
export function candidateText(e: Expr): string {
  return printExpr(e);
}

/** Candidates written inline (`candidate e;`), in program order. */
export function inlineCandidates(table: LoopTable): Candidate[] {
  const out: Candidate[] = [];
  for (const l of table.loops) {
    for (const c of l.loop.candidates) {
      out.push({ index: out.length, loopId: l.id, expr: c, loc: c.loc, text: printExpr(c) });
    }
  }
  return out;
}

/** Candidates grouped by loop id, in index order. */
export function byLoop(cands: readonly Candidate[]): Map<number, Candidate[]> {
  const m = new Map<number, Candidate[]>();
  for (const c of cands) {
    const list = m.get(c.loopId) ?? [];
    list.push(c);
    m.set(c.loopId, list);
  }
  return m;
}

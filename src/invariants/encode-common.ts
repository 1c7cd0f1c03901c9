// The parts the seed's encoding and the corrected encoding share: fresh names
// (the duplicates M, the flags), the "actual loop" [[·]]_NL, the probe goals
// that read the selection off one verification run, and the assembly of the
// transformed procedure with its declarations.
import { TarsierError } from '../common/errors.js';
import type { SourceLocation } from '../common/location.js';
import { modifiedGlobals } from '../vc/encode.js';
import { procedureScope } from '../ivl/typecheck.js';
import { mapStmt, rewriteStmts } from '../ivl/walk.js';
import type { ImpProgram, Procedure, Stmt, VarDecl, WhileStmt } from '../ivl/ast.js';
import {
  type Candidate,
  FreshNames,
  LoopTable,
  type LoopInfo,
  and,
  assert,
  assume,
  bin,
  boolDecl,
  byLoop,
  decl,
  falseE,
  havoc,
  ifS,
  not,
  renameFree,
  v,
  varType,
} from './program.js';

/** A probe goal `assert on_…` that is proved iff the candidate's flag is forced true. */
export interface Probe {
  readonly candidate: number;
  /** Which flag of the candidate (0 unless an encoding probes several, e.g. two rounds). */
  readonly slot: number;
  /** The probe goal `assert flag` (for a reader of the transformed program). */
  readonly loc: SourceLocation;
  /** The flag variable, and the probe point (marker) where it is read. */
  readonly flag: string;
  readonly point: number;
}

export interface EncodedProgram {
  readonly program: ImpProgram;
  readonly probes: readonly Probe[];
}

/** Probe goals get locations in a file of their own so they cannot be mistaken for program goals. */
export const PROBE_FILE = '<probe>';
export function probeLoc(candidate: number, slot = 0): SourceLocation {
  return { file: PROBE_FILE, line: candidate + 1, column: slot + 1, offset: -1 };
}
/** The `probe := havoc` that marks probe point k (line 0 of the probe file). */
export function markerLoc(point: number): SourceLocation {
  return { file: PROBE_FILE, line: 0, column: point + 1, offset: -1 };
}

export interface Flags {
  readonly on: string[];
  readonly onB: string[];
  readonly onA: string[];
}

export abstract class EncoderBase {
  protected readonly table: LoopTable;
  protected readonly names: FreshNames;
  protected readonly cands: Map<number, Candidate[]>;
  protected readonly probes: Probe[] = [];
  /** Per procedure: M, the duplicates of every loop target. */
  protected m = new Map<string, string>();
  /** Declarations added to the current procedure. */
  protected extra: VarDecl[] = [];
  protected proc!: Procedure;
  private readonly flagNames = new Map<number, Flags>();
  private readonly loopNames = new Map<string, string>();
  private probeVar = '';
  private readonly mods: Map<string, Set<string>>;

  constructor(
    protected readonly program: ImpProgram,
    candidates: readonly Candidate[],
    /** Whether the on_b / on_a flags exist (the seed's encoding). */
    private readonly withBA: boolean,
    /** M covers the loop targets (the seed) or every variable of the procedure. */
    private readonly dupScope: 'targets' | 'all' = 'targets',
  ) {
    this.table = new LoopTable(program);
    this.names = new FreshNames(program);
    this.cands = byLoop(candidates);
    this.mods = modifiedGlobals(program);
  }

  encode(): EncodedProgram {
    const procedures = this.program.procedures.map((p) => this.procedure(p));
    return { program: { ...this.program, procedures }, probes: this.probes };
  }

  protected candidatesOf(loopId: number): Candidate[] {
    return this.cands.get(loopId) ?? [];
  }

  /** on_id_i, on_b_id_i, on_a_id_i for every candidate of a loop (fresh, declared once). */
  protected flags(loopId: number): Flags {
    let f = this.flagNames.get(loopId);
    if (!f) {
      const k = this.candidatesOf(loopId).length;
      const mk = (prefix: string) => Array.from({ length: k }, (_, i) => this.boolVar(`${prefix}_L${loopId}_${i + 1}`));
      f = { on: mk('on'), onB: this.withBA ? mk('on_b') : [], onA: this.withBA ? mk('on_a') : [] };
      this.flagNames.set(loopId, f);
    }
    return f;
  }

  /** A per-loop fresh boolean such as star_id or lc_id. */
  protected loopVar(prefix: string, loopId: number): string {
    const key = `${prefix}/${loopId}`;
    let n = this.loopNames.get(key);
    if (!n) {
      n = this.boolVar(`${prefix}_L${loopId}`);
      this.loopNames.set(key, n);
    }
    return n;
  }

  protected boolVar(base: string): string {
    const n = this.names.fresh(base);
    this.extra.push(boolDecl(n));
    return n;
  }

  private procedure(proc: Procedure): Procedure {
    if (!proc.body) return proc;
    this.proc = proc;
    this.extra = [];
    this.probeVar = '';
    // locals := the union of T(loop) over the procedure's loops; locals' := M(locals).
    const locals = new Set<string>();
    for (const l of this.table.loops) if (l.proc === proc.name) l.targets.forEach((t) => locals.add(t));
    if (this.dupScope === 'all' && this.table.loops.some((l) => l.proc === proc.name)) {
      procedureScope(this.program, proc).forEach((_, name) => locals.add(name));
    }
    this.m = new Map();
    for (const x of [...locals].sort()) {
      const dup = this.names.fresh(`${x}'`);
      this.m.set(x, dup);
      this.extra.push(decl(dup, varType(this.program, proc, x)));
    }
    const init: Stmt[] = [...this.m.values()].map(havoc);
    const main = this.top(proc.body);
    const body = [...init, ...this.prologue(proc), ...main];
    return { ...proc, locals: [...proc.locals, ...this.extra], body };
  }

  /** Statements placed after the duplicates' havocs, before the body (none by default). */
  protected prologue(_proc: Procedure): Stmt[] {
    return [];
  }

  /** [[·]]_I: statements outside loops are kept; loops are encoded. */
  protected top(stmts: readonly Stmt[]): Stmt[] {
    return rewriteStmts(stmts, (s) => (s.kind === 'while' ? this.loop(this.table.of(s)) : undefined));
  }

  /** The encoding of one outermost loop. */
  protected abstract loop(info: LoopInfo): Stmt[];

  /** M restricted to a set of targets. */
  protected dupMap(targets: readonly string[]): Map<string, string> {
    const r = new Map<string, string>();
    for (const t of targets) {
      const d = this.m.get(t);
      if (d === undefined) throw new Error(`no duplicate for ${t}`);
      r.set(t, d);
    }
    return r;
  }

  /**
   * One probe goal per flag of the loop and of its nested loops, each in a
   * branch of its own that ends in `assume false`, so that no probe is assumed
   * when the next one is checked.
   */
  protected probeGoals(info: LoopInfo): Stmt[] {
    const out: Stmt[] = this.probePoint();
    for (const id of [info.id, ...info.nested]) {
      const f = this.flags(id);
      this.candidatesOf(id).forEach((c, i) => {
        out.push(...this.probe(f.on[i], c.index, 0));
      });
    }
    return out;
  }

  private points = 0;

  /**
   * Starts a probe point: the flags probed after it are read where this
   * marker is (the read-off takes the path condition of the marker and the
   * flags' values from one model, so one model can refute many flags).
   */
  protected probePoint(): Stmt[] {
    if (!this.probeVar) this.probeVar = this.boolVar('probe');
    return [{ kind: 'havoc', target: this.probeVar, loc: markerLoc(this.points++) }];
  }

  /** `probe := havoc; if (probe) { assert flag; assume false }` */
  protected probe(flag: string, candidate: number, slot: number): Stmt[] {
    if (!this.probeVar) this.probeVar = this.boolVar('probe');
    const loc = probeLoc(candidate, slot);
    this.probes.push({ candidate, slot, loc, flag, point: this.points - 1 });
    return [havoc(this.probeVar), ifS(v(this.probeVar), [assert(v(flag), loc), assume(falseE)])];
  }

  /**
   * The actual loop (the seed's tail of [[while]]_I, and [[while]]_NL):
   *   star := havoc; havoc T(loop); assume on_i ==> inv_i;
   *   if (star) { assume e; [[s]]_NL; assume false } else { assume !e }
   * Extension for IMP's declared `invariant e;` clauses (the seed's IMP has
   * none): they are asserted on entry, assumed after the havoc, and asserted
   * at the end of the body, as a verifier checks them.
   */
  protected actualLoop(info: LoopInfo): Stmt[] {
    const l: WhileStmt = info.loop;
    const star = this.loopVar('star', info.id);
    const f = this.flags(info.id);
    const cs = this.candidatesOf(info.id);
    const out: Stmt[] = [];
    for (const inv of l.invariants) out.push(assert(inv, inv.loc));
    out.push(havoc(star), ...info.targets.map(havoc));
    cs.forEach((c, i) => out.push(assume(bin('==>', v(f.on[i]), c.expr))));
    for (const inv of l.invariants) out.push(assume(inv));
    const body: Stmt[] = [assume(l.cond), ...this.nl(l.body)];
    for (const inv of l.invariants) body.push(assert(inv, inv.loc));
    body.push(assume(falseE));
    out.push(ifS(v(star), body, [assume(not(l.cond))]));
    return out;
  }

  /** [[·]]_NL: the identity except on loops, which become actual loops. */
  protected nl(stmts: readonly Stmt[]): Stmt[] {
    return rewriteStmts(stmts, (s) => (s.kind === 'while' ? this.actualLoop(this.table.of(s)) : undefined));
  }

  /**
   * A statement inside a simulated iteration, on duplicates (the seed's
   * [[·]]_IL rules for every statement but `while`): targets renamed through
   * M, asserts dropped (skip), calls kept with renamed arguments and results.
   */
  protected simStmt(s: Stmt, ren: ReadonlyMap<string, string>, loop: (w: WhileStmt) => Stmt[]): Stmt[] {
    switch (s.kind) {
      case 'assert':
        return [{ kind: 'skip', loc: s.loc }];
      case 'while':
        return loop(s);
      case 'call':
        // A call's writes to globals would hit the originals, not the duplicates.
        if ((this.mods.get(s.proc)?.size ?? 0) > 0) {
          throw new TarsierError(
            'unsupported',
            `the encodings cannot simulate a call to '${s.proc}' on a duplicated path: it writes global variables (use --method houdini)`,
            s.loc,
          );
        }
        break;
      default:
        break;
    }
    return [
      mapStmt(s, {
        expr: (x) => renameFree(x, ren),
        target: (x) => ren.get(x) ?? x,
        body: (b) => b.flatMap((x) => this.simStmt(x, ren, loop)),
      }),
    ];
  }

  protected static conj = and;
}

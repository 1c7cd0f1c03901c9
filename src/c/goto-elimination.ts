/**
 * Goto elimination: a function body with arbitrary jumps (goto forwards,
 * backwards, into blocks and loops, out of loops; a switch whose case labels
 * sit inside nested statements, as in Duff's device) becomes an equivalent
 * body without goto, built of the structured statements and int flags,
 * after Erosa and Hendren ("Taming control flow", ICCL 1994). A goto is
 * moved one level at a time: outwards (set its label's flag, leave the
 * statement by `break` or by skipping the rest of the block, test the flag
 * after the statement) and inwards (enter the statement that holds the label
 * while the flag is set, without evaluating its condition or initialiser),
 * until it is a sibling of its label; then a forward jump becomes a
 * conditional and a backward one a do-while loop. A flag is true exactly
 * while its jump is under way: set by the goto, cleared at the label.
 *
 * The engines consume structured IMP, so the lowering lowers this goto-free
 * body (docs/ARCHITECTURE.md says why this and not a control-flow graph).
 * What the pass makes is marked `synthetic` (blocks that open no scope,
 * branches and loops that are not the program's, flags that are not its
 * variables), so that the source map and witnesses only see the C program.
 */
import { TarsierError } from '../common/errors.js';
import type { SourceLocation } from '../common/location.js';
import type {
  BlockItem,
  CaseStmt,
  CompoundStmt,
  Declaration,
  DefaultStmt,
  DoWhileStmt,
  Expr,
  IfStmt,
  LoopStmt,
  Stmt,
  SwitchStmt,
  VarDecl,
} from './ast.js';
import { Sema } from './sema.js';
import { type CType, type DataModel, intType, unqualified } from './types.js';

type L = SourceLocation;

// ---- the pass's own tree: labels and case labels are marks among a block's items ----

interface Seq {
  readonly k: 'seq';
  items: Node[];
  /** A C block (opens a scope); false for a group the pass made. */
  readonly scoped: boolean;
  readonly loc: L;
}
/** A statement without nested statements (expression, declaration, break, continue, return, asm, null). */
interface Leaf {
  readonly k: 'leaf';
  readonly s: BlockItem;
  /** A `break` the pass made for a jump under way, whose flag this is. */
  readonly flight?: VarDecl;
}
interface IfN {
  readonly k: 'if';
  cond: Expr;
  readonly then: Seq;
  readonly else?: Seq;
  /** The C if statement; absent for a test of the pass's flags. */
  readonly src?: IfStmt;
  readonly loc: L;
  /** The then part of a split if (splitIf): the saved condition, set when a jump enters the then part. */
  readonly saved?: VarDecl;
}
interface LoopN {
  readonly k: 'while' | 'do' | 'for';
  cond?: Expr;
  init?: Declaration | Expr;
  readonly step?: Expr;
  readonly body: Seq;
  /** The C loop; absent for a loop of a backward jump. */
  readonly src?: LoopStmt;
  readonly loc: L;
}
interface SwitchN {
  readonly k: 'switch';
  readonly cond: Expr;
  readonly body: Seq;
  readonly src: SwitchStmt;
}
interface LabelN {
  readonly k: 'label';
  readonly name: string;
  readonly loc: L;
}
interface CaseN {
  readonly k: 'case';
  readonly src: CaseStmt | DefaultStmt;
}
/** `if (cond) goto label` (cond absent: unconditional). */
interface GotoN {
  readonly k: 'goto';
  readonly label: string;
  readonly cond?: Expr;
  readonly loc: L;
}
type Node = Seq | Leaf | IfN | LoopN | SwitchN | LabelN | CaseN | GotoN;

/** A position: the item `index` of `seq`. A path lists them from the body inwards. */
interface Step {
  readonly seq: Seq;
  readonly index: number;
}

export interface IdSource {
  value: number;
}

function unsupported(what: string, loc: L): TarsierError {
  return new TarsierError('c-unsupported', `unsupported construct: ${what}`, loc);
}

/** The nested statements of a C statement (not those inside expressions). */
function childStmts(s: BlockItem): Stmt[] {
  switch (s.kind) {
    case 'Compound': return s.items.filter((x): x is Stmt => x.kind !== 'DeclStmt');
    case 'If': return s.else ? [s.then, s.else] : [s.then];
    case 'While': case 'DoWhile': case 'For': case 'Switch': case 'Case': case 'Default': case 'Label':
      return [s.body];
    default: return [];
  }
}

function walkStmts(s: BlockItem, visit: (s: BlockItem) => void): void {
  visit(s);
  if (s.kind === 'Compound') for (const x of s.items) walkStmts(x, visit);
  else for (const c of childStmts(s)) walkStmts(c, visit);
}

/** The case labels at the top level of a switch body (through label and case chains). */
function topLevelCases(body: Stmt): Set<Stmt> {
  const top = new Set<Stmt>();
  const items = body.kind === 'Compound' ? body.items : [body];
  for (let x of items) {
    while (x.kind === 'Case' || x.kind === 'Default' || x.kind === 'Label') {
      if (x.kind !== 'Label') top.add(x);
      x = x.body;
    }
  }
  return top;
}

/** Labels that a goto of the body jumps to. */
function gotoTargets(body: CompoundStmt): Set<string> {
  const out = new Set<string>();
  walkStmts(body, (s) => {
    if (s.kind === 'Goto') out.add(s.label);
  });
  return out;
}

/** Switches the pass turns into jumps: a case label inside a nested statement, or a label a goto jumps to inside the body. */
function irregularSwitches(body: CompoundStmt): Set<SwitchStmt> {
  const targets = gotoTargets(body);
  const out = new Set<SwitchStmt>();
  walkStmts(body, (s) => {
    if (s.kind !== 'Switch') return;
    const top = topLevelCases(s.body);
    let irregular = s.cases.some((c) => !top.has(c));
    walkStmts(s.body, (x) => {
      if (x.kind === 'Label' && targets.has(x.name)) irregular = true;
    });
    if (irregular) out.add(s);
  });
  return out;
}

/** True when the body has a goto or a switch whose case labels are not all at the top level of its body. */
export function needsGotoElimination(body: CompoundStmt): boolean {
  let found = false;
  walkStmts(body, (s) => {
    if (s.kind === 'Goto') found = true;
    if (s.kind === 'Switch') {
      const top = topLevelCases(s.body);
      if (s.cases.some((c) => !top.has(c))) found = true;
    }
  });
  return found;
}

/**
 * The body of a function without goto: the same behaviour, in structured
 * statements and flags. Throws an unsupported-construct error for a jump it
 * cannot follow (into a statement expression).
 */
export function eliminateGotos(body: CompoundStmt, dm: DataModel, ids: IdSource): CompoundStmt {
  if (!needsGotoElimination(body)) return body;
  return new GotoEliminator(dm, ids).run(body);
}

class GotoEliminator {
  private readonly sema: Sema;
  private readonly flags = new Map<string, VarDecl>();
  private readonly temps: VarDecl[] = [];
  private fresh = 0;
  /** Fresh labels that a `break` of a loop or switch becomes (after that statement). */
  private readonly breakLabels = new Map<Node, string>();
  /** Fresh labels that a `continue` of a loop becomes (at the end of its body). */
  private readonly continueLabels = new Map<Node, string>();

  constructor(
    dm: DataModel,
    private readonly ids: IdSource,
  ) {
    this.sema = new Sema(dm);
  }

  run(body: CompoundStmt): CompoundStmt {
    const irregular = irregularSwitches(body);
    const root = this.seqOf(body, irregular, []);
    this.shortcuts(root);
    for (let g = firstGoto(root); g; g = firstGoto(root)) this.eliminate(root, g);
    this.finishLabels(root);
    const out = this.emitSeq(root);
    const decls: BlockItem[] = [...this.flags.values(), ...this.temps].map((decl) => this.declStmt(decl));
    return { ...out, items: [...decls, ...out.items] };
  }

  // ---- C AST to the pass's tree -------------------------------------------------------------

  /** `breaks`: per enclosing breakable statement, undefined for a real one or the end label of a switch turned into jumps. */
  private seqOf(s: Stmt, irregular: ReadonlySet<SwitchStmt>, breaks: Array<string | undefined>): Seq {
    if (s.kind === 'Compound') return { k: 'seq', items: s.items.flatMap((x) => this.nodes(x, irregular, breaks)), scoped: true, loc: s.loc };
    return { k: 'seq', items: this.nodes(s, irregular, breaks), scoped: false, loc: s.loc };
  }

  private nodes(s: BlockItem, irregular: ReadonlySet<SwitchStmt>, breaks: Array<string | undefined>): Node[] {
    switch (s.kind) {
      case 'Compound':
        return [this.seqOf(s, irregular, breaks)];
      case 'Label':
        return [{ k: 'label', name: s.name, loc: s.loc }, ...this.nodes(s.body, irregular, breaks)];
      case 'Case':
      case 'Default': {
        const label = this.caseLabelOf(s);
        const mark: Node = label !== undefined ? { k: 'label', name: label, loc: s.loc } : { k: 'case', src: s };
        return [mark, ...this.nodes(s.body, irregular, breaks)];
      }
      case 'If':
        return [{ k: 'if', cond: s.condition, then: this.seqOf(s.then, irregular, breaks), ...(s.else ? { else: this.seqOf(s.else, irregular, breaks) } : {}), src: s, loc: s.loc }];
      case 'While':
        return [{ k: 'while', cond: s.condition, body: this.seqOf(s.body, irregular, [...breaks, undefined]), src: s, loc: s.loc }];
      case 'DoWhile':
        return [{ k: 'do', cond: s.condition, body: this.seqOf(s.body, irregular, [...breaks, undefined]), src: s, loc: s.loc }];
      case 'For':
        return [{ k: 'for', init: s.init, cond: s.condition, step: s.step, body: this.seqOf(s.body, irregular, [...breaks, undefined]), src: s, loc: s.loc }];
      case 'Switch':
        if (irregular.has(s)) return this.switchAsJumps(s, irregular, breaks);
        return [{ k: 'switch', cond: s.condition, body: this.seqOf(s.body, irregular, [...breaks, undefined]), src: s }];
      case 'Goto':
        return [{ k: 'goto', label: s.label, loc: s.loc }];
      case 'Break': {
        const target = breaks[breaks.length - 1];
        return [target === undefined ? { k: 'leaf', s } : { k: 'goto', label: target, loc: s.loc }];
      }
      default:
        return [{ k: 'leaf', s }];
    }
  }

  private readonly switchCaseLabels = new Map<Stmt, string>();
  private caseLabelOf(s: CaseStmt | DefaultStmt): string | undefined {
    return this.switchCaseLabels.get(s);
  }

  /**
   * `switch (e) body` as jumps: `t = e; if (t == v1) goto c1; ...; goto
   * default (or end); body with its case labels as labels; end:`, its
   * `break`s jumps to the end.
   */
  private switchAsJumps(s: SwitchStmt, irregular: ReadonlySet<SwitchStmt>, breaks: Array<string | undefined>): Node[] {
    const n = ++this.fresh;
    const end = `switch#${n}#end`;
    const t = this.temp(unqualified(s.condition.type), `switch#${n}`, s.loc);
    const out: Node[] = [this.leafExpr(this.sema.assign('=', this.ref(t, s.loc), s.condition, s.loc), s.loc)];
    let fallback = end;
    s.cases.forEach((c, k) => {
      const label = `switch#${n}#case${k}`;
      this.switchCaseLabels.set(c, label);
      if (c.kind === 'Default') {
        fallback = label;
        return;
      }
      const lit = (v: bigint): Expr => ({ kind: 'IntegerLiteral', value: v, text: String(v), type: t.type, loc: c.loc });
      const cond =
        c.last === undefined
          ? this.sema.binary('==', this.ref(t, c.loc), lit(c.value), c.loc)
          : this.sema.binary('&&', this.sema.binary('>=', this.ref(t, c.loc), lit(c.value), c.loc), this.sema.binary('<=', this.ref(t, c.loc), lit(c.last), c.loc), c.loc);
      out.push({ k: 'goto', label, cond, loc: c.loc });
    });
    out.push({ k: 'goto', label: fallback, loc: s.loc });
    out.push(this.seqOf(s.body, irregular, [...breaks, end]));
    out.push({ k: 'label', name: end, loc: s.loc });
    return [{ k: 'seq', items: out, scoped: false, loc: s.loc }];
  }

  // ---- expressions and declarations the pass makes ------------------------------------------------

  private temp(type: CType, name: string, loc: L): VarDecl {
    const decl: VarDecl = { kind: 'Var', id: this.ids.value++, name, type, storage: 'none', scope: 'block', loc, defined: true, synthetic: true };
    this.temps.push(decl);
    return decl;
  }

  private flag(label: string, loc: L): VarDecl {
    let f = this.flags.get(label);
    if (!f) {
      f = { kind: 'Var', id: this.ids.value++, name: `goto#${label}`, type: intType('int'), storage: 'none', scope: 'block', loc, defined: true, synthetic: true };
      f.init = this.lit(0n, loc);
      this.flags.set(label, f);
    }
    return f;
  }

  private lit(v: bigint, loc: L): Expr {
    return { kind: 'IntegerLiteral', value: v, text: String(v), type: intType('int'), loc };
  }

  private ref(d: VarDecl, loc: L): Expr {
    return { kind: 'Identifier', name: d.name, decl: d, type: d.type, loc };
  }

  private leafExpr(e: Expr, loc: L): Leaf {
    return { k: 'leaf', s: { kind: 'ExprStmt', loc, expr: e } };
  }

  private setFlag(f: VarDecl, value: Expr, loc: L): Leaf {
    return this.leafExpr(this.sema.assign('=', this.ref(f, loc), value, loc), loc);
  }

  private not(e: Expr, loc: L): Expr {
    return this.sema.unary('!', e, loc);
  }

  private guardIf(cond: Expr, items: Node[], loc: L): IfN {
    return { k: 'if', cond, then: { k: 'seq', items, scoped: false, loc }, loc };
  }

  private declStmt(decl: VarDecl): BlockItem {
    const declarator = decl.init ? { kind: 'Declarator' as const, loc: decl.loc, decl, init: decl.init } : { kind: 'Declarator' as const, loc: decl.loc, decl };
    return { kind: 'DeclStmt', loc: decl.loc, declaration: { kind: 'Declaration', loc: decl.loc, declarators: [declarator] } };
  }

  // ---- the elimination -------------------------------------------------------------------------------

  /**
   * Jumps that need no flag: a goto to the label right after it, to the
   * label right after the loop or switch it leaves (`break`), or to the end
   * of the body of the loop it is in (`continue`).
   */
  private shortcuts(root: Seq): void {
    const visit = (seq: Seq, breakable: Node | undefined, loop: LoopN | undefined, after: (n: Node) => string[]): void => {
      for (let i = 0; i < seq.items.length; i++) {
        const n = seq.items[i];
        if (n.k === 'goto' && !n.cond) {
          if (labelsAt(seq.items, i + 1).includes(n.label)) {
            seq.items.splice(i--, 1);
            continue;
          }
          if (breakable && after(breakable).includes(n.label)) {
            seq.items[i] = { k: 'leaf', s: { kind: 'Break', loc: n.loc } };
            continue;
          }
          if (loop && labelsAtEnd(loop.body).includes(n.label)) {
            seq.items[i] = { k: 'leaf', s: { kind: 'Continue', loc: n.loc } };
            continue;
          }
        }
        const nextLabels = (x: Node): string[] => (x === n ? labelsAt(seq.items, i + 1) : after(x));
        for (const child of childSeqs(n)) visit(child, isBreakable(n) ? n : breakable, isLoop(n) ? n : loop, nextLabels);
      }
    };
    visit(root, undefined, undefined, () => []);
  }

  private eliminate(root: Seq, g0: GotoN): void {
    let g = g0;
    for (;;) {
      const gp = pathTo(root, (n) => n === g)!;
      const lp = pathTo(root, (n) => n.k === 'label' && n.name === g.label);
      if (!lp) throw unsupported(`goto into a statement expression (label '${g.label}')`, g.loc);
      let t = 0;
      while (t + 1 < gp.length && t + 1 < lp.length && gp[t + 1].seq === lp[t + 1].seq) t++;
      if (t === gp.length - 1 && t === lp.length - 1) {
        this.siblings(g, gp[t].seq, gp[t].index, lp[t].index, gp);
        return;
      }
      if (t < gp.length - 1) {
        // The goto and the label in the two branches of one if: split the if (no loop for a forward jump).
        const node = gp[t].seq.items[gp[t].index];
        if (t === gp.length - 2 && gp[t].index === lp[t].index && node.k === 'if' && node.else === lp[t + 1].seq && node.then === gp[t + 1].seq) {
          g = this.splitIf(gp[t].seq, gp[t].index, node, g, gp[t + 1]);
          continue;
        }
        g = this.outward(g, gp);
        continue;
      }
      g = this.inward(g, gp, lp[t].index, lp[t + 1].seq);
    }
  }

  /** The goto is in `seq`, its label is too: a forward jump skips what lies between, a backward one loops. */
  private siblings(g: GotoN, seq: Seq, i: number, j: number, gp: Step[]): void {
    if (j > i) {
      const between = seq.items.splice(i + 1, j - i - 1);
      if (between.length === 0 || (!g.cond && !hasMark(between))) {
        seq.items.splice(i, 1);
        return;
      }
      if (g.cond) {
        seq.items.splice(i, 1, this.guardIf(this.not(g.cond, g.loc), between, g.loc));
        return;
      }
      const f = this.flag(g.label, g.loc);
      seq.items.splice(i, 1, this.setFlag(f, this.lit(1n, g.loc), g.loc), this.guardIf(this.not(this.ref(f, g.loc), g.loc), between, g.loc));
      return;
    }
    const label = seq.items[j] as LabelN;
    const f = this.flag(g.label, label.loc);
    const escaping = this.captureJumps(seq, j, i, gp);
    const body = seq.items.slice(j, i);
    if (!this.isFlag(g.cond, f)) body.push(this.setFlag(f, g.cond ?? this.lit(1n, g.loc), g.loc));
    seq.items.splice(j, i - j + 1, this.backLoop(f, body, label.loc), ...this.breakOnAfter(escaping, label.loc));
  }

  private backLoop(f: VarDecl, items: Node[], loc: L): LoopN {
    return { k: 'do', cond: this.ref(f, loc), body: { k: 'seq', items, scoped: false, loc }, loc };
  }

  private isFlag(e: Expr | undefined, f: VarDecl): boolean {
    return e?.kind === 'Identifier' && e.decl === f;
  }

  /** Out of the statement around it: set the flag, leave the statement, and test the flag after it. */
  private outward(g: GotoN, gp: Step[]): GotoN {
    const { seq, index: i } = gp[gp.length - 1];
    const outer = gp[gp.length - 2];
    const parent = outer.seq.items[outer.index];
    const f = this.flag(g.label, g.loc);
    const set = this.isFlag(g.cond, f) ? [] : [this.setFlag(f, g.cond ?? this.lit(1n, g.loc), g.loc)];
    if (isBreakable(parent)) {
      const brk: Node = { k: 'leaf', s: { kind: 'Break', loc: g.loc }, flight: f };
      seq.items.splice(i, 1, ...set, g.cond ? this.guardIf(this.ref(f, g.loc), [brk], g.loc) : brk);
    } else {
      const rest = seq.items.splice(i + 1);
      seq.items.splice(i, 1, ...set);
      if (rest.length && (g.cond || hasMark(rest))) seq.items.push(this.guardIf(this.not(this.ref(f, g.loc), g.loc), rest, g.loc));
    }
    const next: GotoN = { k: 'goto', label: g.label, cond: this.ref(f, g.loc), loc: g.loc };
    outer.seq.items.splice(outer.index + 1, 0, next);
    return next;
  }

  /** Into the statement at `j` of the goto's block that holds the label (in its block `inner`). */
  private inward(g: GotoN, gp: Step[], j: number, inner: Seq): GotoN {
    const { seq, index: i } = gp[gp.length - 1];
    const target = seq.items[j];
    const lp = pathTo(target.k === 'seq' ? target : inner, (n) => n.k === 'label' && n.name === g.label);
    const labelLoc = lp ? (lp[lp.length - 1].seq.items[lp[lp.length - 1].index] as LabelN).loc : g.loc;
    const f = this.flag(g.label, labelLoc);
    if (j < i) {
      // Backward: loop over the items from the statement to the goto, entering the statement again while the flag is set.
      const escaping = this.captureJumps(seq, j, i, gp);
      const enter: GotoN = { k: 'goto', label: g.label, cond: this.ref(f, g.loc), loc: g.loc };
      const body: Node[] = [enter, ...seq.items.slice(j, i)];
      if (!this.isFlag(g.cond, f)) body.push(this.setFlag(f, g.cond ?? this.lit(1n, g.loc), g.loc));
      seq.items.splice(j, i - j + 1, this.backLoop(f, body, labelLoc), ...this.breakOnAfter(escaping, labelLoc));
      return enter;
    }
    const between = seq.items.splice(i + 1, j - i - 1);
    const set = this.isFlag(g.cond, f) ? [] : [this.setFlag(f, g.cond ?? this.lit(1n, g.loc), g.loc)];
    const guard = between.length && (g.cond || hasMark(between)) ? [this.guardIf(this.not(this.ref(f, g.loc), g.loc), between, g.loc)] : [];
    seq.items.splice(i, 1, ...set, ...guard);
    const at = i + set.length + guard.length;
    const next: GotoN = { k: 'goto', label: g.label, cond: this.ref(f, g.loc), loc: g.loc };
    const flagRef = () => this.ref(f, g.loc);
    switch (target.k) {
      case 'seq':
        target.items.unshift(next);
        break;
      case 'if':
        target.cond = target.then === inner ? this.sema.binary('||', flagRef(), target.cond, g.loc) : this.sema.binary('&&', this.not(flagRef(), g.loc), target.cond, g.loc);
        inner.items.unshift(next);
        // Entered by a jump, the then part of a split if must keep its else part (the next if) from running.
        if (target.saved && target.then === inner) inner.items.unshift(this.setFlag(target.saved, this.lit(1n, g.loc), g.loc));
        break;
      case 'while':
        target.cond = this.sema.binary('||', flagRef(), target.cond!, g.loc);
        target.body.items.unshift(next);
        break;
      case 'do':
        target.body.items.unshift(next);
        break;
      case 'for': {
        if (target.cond) target.cond = this.sema.binary('||', flagRef(), target.cond, g.loc);
        target.body.items.unshift(next);
        const init = target.init;
        if (init) {
          // The initialiser runs only when the loop is entered from its start.
          target.init = undefined;
          const initNode: Node = init.kind === 'Declaration' ? { k: 'leaf', s: { kind: 'DeclStmt', loc: init.loc, declaration: init } } : this.leafExpr(init, init.loc);
          const skip = this.guardIf(this.not(flagRef(), g.loc), [initNode], g.loc);
          // A declared loop variable keeps the scope of the loop statement.
          seq.items[at] = init.kind === 'Declaration' ? { k: 'seq', items: [skip, target], scoped: true, loc: target.loc } : target;
          if (init.kind !== 'Declaration') seq.items.splice(at, 0, skip);
        }
        break;
      }
      case 'switch':
        // Labels a goto jumps to make a switch into jumps before the elimination starts.
        throw new Error('goto elimination: a jump into a switch that was not turned into jumps');
      default:
        throw new Error(`goto elimination: label inside a ${target.k}`);
    }
    return next;
  }

  /**
   * `if (c) A else B` with the goto at the top of A and its label in B:
   * `t = c; if (t) A; if (!t || flag) B` (the flag set by the goto), so a
   * forward jump makes no loop. A later jump into A sets t.
   */
  private splitIf(seq: Seq, index: number, node: IfN, g: GotoN, at: Step): GotoN {
    const t = this.temp(intType('int'), `if#${++this.fresh}`, node.loc);
    const f = this.flag(g.label, g.loc);
    const rest = at.seq.items.splice(at.index + 1);
    const set = this.isFlag(g.cond, f) ? [] : [this.setFlag(f, g.cond ?? this.lit(1n, g.loc), g.loc)];
    at.seq.items.splice(at.index, 1, ...set);
    if (rest.length && (g.cond || hasMark(rest))) at.seq.items.push(this.guardIf(this.not(this.ref(f, g.loc), g.loc), rest, g.loc));
    const save = this.leafExpr(this.sema.assign('=', this.ref(t, node.loc), this.not(this.not(node.cond, node.loc), node.loc), node.loc), node.loc);
    const first: IfN = { ...node, cond: this.ref(t, node.loc), else: undefined, saved: t };
    const secondCond = this.sema.binary('||', this.ref(f, g.loc), this.not(this.ref(t, node.loc), node.loc), g.loc);
    const second: IfN = { k: 'if', cond: secondCond, then: node.else!, loc: g.loc };
    const next: GotoN = { k: 'goto', label: g.label, cond: this.ref(f, g.loc), loc: g.loc };
    node.else!.items.unshift(next);
    seq.items.splice(index, 1, save, first, second);
    return next;
  }

  /**
   * Before the items seq[j..i) are wrapped in a loop of the pass: their
   * `break` and `continue` that belong to an enclosing loop or switch become
   * gotos to fresh labels after that statement or at the end of the loop's
   * body. A `break` of a jump under way stays (it leaves the new loop) and
   * is repeated after the loop: the flags of those jumps are returned. (A
   * goto of its own would make two jumps under way at once, and the first to
   * arrive could leave the other's flag set.)
   */
  private captureJumps(seq: Seq, j: number, i: number, gp: Step[]): Set<VarDecl> {
    const escaping = new Set<VarDecl>();
    const owners = gp.slice(0, -1).map((s) => s.seq.items[s.index]);
    const breakOwner = [...owners].reverse().find(isBreakable);
    const loopOwner = [...owners].reverse().find(isLoop);
    const rewrite = (n: Node, inBreakable: boolean, inLoop: boolean): Node => {
      if (n.k === 'leaf' && n.s.kind === 'Break' && !inBreakable && n.flight) {
        escaping.add(n.flight);
        return n;
      }
      if (n.k === 'leaf' && n.s.kind === 'Break' && !inBreakable) {
        if (!breakOwner) throw new Error('goto elimination: break outside a loop or switch');
        return { k: 'goto', label: this.breakLabel(gp, breakOwner), loc: n.s.loc };
      }
      if (n.k === 'leaf' && n.s.kind === 'Continue' && !inLoop) {
        if (!loopOwner) throw new Error('goto elimination: continue outside a loop');
        return { k: 'goto', label: this.continueLabel(loopOwner), loc: n.s.loc };
      }
      for (const c of childSeqs(n)) c.items = c.items.map((x) => rewrite(x, inBreakable || isBreakable(n), inLoop || isLoop(n)));
      return n;
    };
    for (let k = j; k < i; k++) seq.items[k] = rewrite(seq.items[k], false, false);
    return escaping;
  }

  /** After a loop of the pass: the jumps under way that left it leave the statement around it too. */
  private breakOnAfter(escaping: Set<VarDecl>, loc: L): Node[] {
    return [...escaping].map((f) => this.guardIf(this.ref(f, loc), [{ k: 'leaf', s: { kind: 'Break', loc }, flight: f }], loc));
  }

  private breakLabel(gp: Step[], owner: Node): string {
    let label = this.breakLabels.get(owner);
    if (!label) {
      label = `break#${++this.fresh}`;
      this.breakLabels.set(owner, label);
      const k = gp.findIndex((s) => s.seq.items[s.index] === owner);
      const at = gp[k];
      at.seq.items.splice(at.index + 1, 0, { k: 'label', name: label, loc: at.seq.loc });
    }
    return label;
  }

  private continueLabel(owner: LoopN): string {
    let label = this.continueLabels.get(owner);
    if (!label) {
      label = `continue#${++this.fresh}`;
      this.continueLabels.set(owner, label);
      owner.body.items.push({ k: 'label', name: label, loc: owner.body.loc });
    }
    return label;
  }

  /** Every label with a flag clears it; the labels themselves go. */
  private finishLabels(seq: Seq): void {
    seq.items = seq.items.flatMap((n): Node[] => {
      if (n.k === 'label') {
        const f = this.flags.get(n.name);
        return f ? [this.setFlag(f, this.lit(0n, n.loc), n.loc)] : [];
      }
      for (const c of childSeqs(n)) this.finishLabels(c);
      return [n];
    });
  }

  // ---- back to the C AST -----------------------------------------------------------------------------

  private emitSeq(s: Seq): CompoundStmt {
    return { kind: 'Compound', loc: s.loc, items: this.emitItems(s.items), ...(s.scoped ? {} : { synthetic: true as const }) };
  }

  /** A statement of an if or a loop: a group of one statement is that statement. */
  private emitBody(s: Seq): Stmt {
    const items = this.emitItems(s.items);
    if (!s.scoped && items.length === 1 && items[0].kind !== 'DeclStmt') return items[0];
    if (!s.scoped && items.length === 0) return { kind: 'Null', loc: s.loc };
    return { kind: 'Compound', loc: s.loc, items, ...(s.scoped ? {} : { synthetic: true as const }) };
  }

  private emitItems(nodes: readonly Node[]): BlockItem[] {
    const out: BlockItem[] = [];
    let cases: Array<CaseStmt | DefaultStmt> = [];
    const push = (s: BlockItem) => {
      if (cases.length && s.kind === 'DeclStmt') push({ kind: 'Null', loc: s.loc });
      if (cases.length === 0) {
        out.push(s);
        return;
      }
      let body = s as Stmt;
      for (let k = cases.length - 1; k >= 0; k--) body = this.rebuildCase(cases[k], body);
      out.push(body);
      cases = [];
    };
    for (const n of nodes) {
      if (n.k === 'case') {
        cases.push(n.src);
        continue;
      }
      const s = this.emitNode(n);
      if (s) push(s);
    }
    if (cases.length) push({ kind: 'Null', loc: cases[cases.length - 1].loc });
    return out;
  }

  private readonly rebuiltCases = new Map<CaseStmt | DefaultStmt, CaseStmt | DefaultStmt>();
  private rebuildCase(c: CaseStmt | DefaultStmt, body: Stmt): Stmt {
    const made = { ...c, body };
    this.rebuiltCases.set(c, made);
    return made;
  }

  private emitNode(n: Node): BlockItem | undefined {
    switch (n.k) {
      case 'seq':
        return this.emitSeq(n);
      case 'leaf':
        return n.s;
      case 'if': {
        const then = this.emitBody(n.then);
        const els = n.else ? { else: this.emitBody(n.else) } : {};
        if (n.src) return { kind: 'If', loc: n.src.loc, condition: n.cond, then, ...els };
        return { kind: 'If', loc: n.loc, condition: n.cond, then, ...els, synthetic: true };
      }
      case 'while':
        return { ...(n.src as Extract<LoopStmt, { kind: 'While' }>), condition: n.cond!, body: this.emitBody(n.body) };
      case 'do': {
        if (n.src) return { ...(n.src as DoWhileStmt), body: this.emitBody(n.body) };
        return { kind: 'DoWhile', loc: n.loc, keywordLoc: n.loc, whileLoc: n.loc, body: this.emitBody(n.body), condition: n.cond!, synthetic: true };
      }
      case 'for': {
        const src = n.src as Extract<LoopStmt, { kind: 'For' }>;
        const { init: _i, condition: _c, ...rest } = src;
        return { ...rest, ...(n.init ? { init: n.init } : {}), ...(n.cond ? { condition: n.cond } : {}), body: this.emitBody(n.body) };
      }
      case 'switch': {
        const body = this.emitBody(n.body);
        const cases = n.src.cases.map((c) => this.rebuiltCases.get(c) ?? c);
        return { ...n.src, body, cases };
      }
      case 'label':
        return undefined;
      case 'case':
        throw new Error('goto elimination: case label outside a switch body');
      case 'goto':
        throw new Error(`goto elimination: goto '${n.label}' left`);
    }
  }
}

// ---- tree helpers ------------------------------------------------------------------------------------

function isLoop(n: Node): n is LoopN {
  return n.k === 'while' || n.k === 'do' || n.k === 'for';
}

function isBreakable(n: Node): n is LoopN | SwitchN {
  return isLoop(n) || n.k === 'switch';
}

function childSeqs(n: Node): Seq[] {
  switch (n.k) {
    case 'seq': return [n];
    case 'if': return n.else ? [n.then, n.else] : [n.then];
    case 'while': case 'do': case 'for': case 'switch': return [n.body];
    default: return [];
  }
}

/** The path from the root to the first node (depth first, in order) that satisfies `pred`. */
function pathTo(root: Seq, pred: (n: Node) => boolean): Step[] | undefined {
  const path: Step[] = [];
  const visit = (seq: Seq): boolean => {
    for (let i = 0; i < seq.items.length; i++) {
      const n = seq.items[i];
      path.push({ seq, index: i });
      if (pred(n)) return true;
      for (const c of childSeqs(n)) if (visit(c)) return true;
      path.pop();
    }
    return false;
  };
  return visit(root) ? path : undefined;
}

function firstGoto(root: Seq): GotoN | undefined {
  const path = pathTo(root, (n) => n.k === 'goto');
  if (!path) return undefined;
  const last = path[path.length - 1];
  return last.seq.items[last.index] as GotoN;
}

/** Labels and case labels, at any depth. */
function hasMark(items: readonly Node[]): boolean {
  return items.some((n) => n.k === 'label' || n.k === 'case' || childSeqs(n).some((c) => hasMark(c.items)));
}

/** The labels at items[i...] before the first statement that does something. */
function labelsAt(items: readonly Node[], i: number): string[] {
  const out: string[] = [];
  for (let k = i; k < items.length; k++) {
    const n = items[k];
    if (n.k === 'label') out.push(n.name);
    else if (!(n.k === 'leaf' && n.s.kind === 'Null')) break;
  }
  return out;
}

/** The labels at the end of a loop body (nothing that does something after them). */
function labelsAtEnd(body: Seq): string[] {
  const out: string[] = [];
  for (let k = body.items.length - 1; k >= 0; k--) {
    const n = body.items[k];
    if (n.k === 'label') out.push(n.name);
    else if (!(n.k === 'leaf' && n.s.kind === 'Null')) break;
  }
  return out;
}


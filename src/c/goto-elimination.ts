/**
 * Goto elimination: a function body with arbitrary jumps (goto forwards,
 * backwards, into blocks and loops, out of loops; a switch whose case labels
 * sit inside nested statements, as in Duff's device) becomes an equivalent
 * body without goto, built of the structured statements and one variable,
 * after Erosa and Hendren ("Taming control flow", ICCL 1994). A goto is
 * moved one level at a time: outwards (start the jump, leave the statement
 * by `break` or by skipping the rest of the block, carry the jump on after
 * the statement) and inwards (enter the statement that holds the label while
 * the jump is under way, without evaluating its condition or initialiser),
 * until it is a sibling of its label; then a forward jump skips what lies
 * between and a backward one becomes a do-while loop.
 *
 * `jump` says which jump is under way: 0 none, else the number of its label
 * (labels are numbered in source order). The goto sets it, the label clears
 * it. What a jump skips is guarded by `jump` not being that label's number,
 * one guard for each run of statements between labels (labels stay at the
 * level of their block, so nothing nests deeper for them; the guards of
 * several jumps over one run merge into one test). Tests of sets of labels
 * are written as ranges of numbers, so that a state machine of a hundred
 * labels (CIL's switch into `if (0) { ... }`) costs a few comparisons a test.
 *
 * The engines consume structured IMP, so the lowering lowers this goto-free
 * body (docs/ARCHITECTURE.md says why this and not a control-flow graph).
 * What the pass makes is marked `synthetic` (blocks that open no scope,
 * branches and loops that are not the program's, the jump variable and
 * temporaries that are not its variables), so that the source map and
 * witnesses only see the C program.
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
  /** A `break` the pass made for the jump under way to this label. */
  readonly flight?: string;
}
/**
 * An if. Its test, as emitted: `skip`: `jump` is not one of those labels'
 * (a guard); `test`: `jump` is that label's; else `jump` is one of `enter`'s,
 * or (`jump` is none of `enterElse`'s and `cond`).
 */
interface IfN {
  readonly k: 'if';
  cond?: Expr;
  readonly then: Seq;
  readonly else?: Seq;
  /** The C if statement; absent for a test of the pass. */
  readonly src?: IfStmt;
  readonly loc: L;
  readonly skip?: Set<string>;
  readonly test?: string;
  enter?: Set<string>;
  enterElse?: Set<string>;
}
/** A loop; its test `jump` is one of `enter`'s, or `cond` (`again`: `jump` is that label's, a loop of the pass). */
interface LoopN {
  readonly k: 'while' | 'do' | 'for';
  cond?: Expr;
  init?: Declaration | Expr;
  readonly step?: Expr;
  readonly body: Seq;
  /** The C loop; absent for a loop of a backward jump. */
  readonly src?: LoopStmt;
  readonly loc: L;
  enter?: Set<string>;
  readonly again?: string;
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
/** `if (cond) goto label` (no cond: unconditional; `flight`: the jump is under way, the test is `jump` being the label's). */
interface GotoN {
  readonly k: 'goto';
  readonly label: string;
  readonly cond?: Expr;
  readonly flight?: true;
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

/**
 * Switches the pass turns into jumps: a case label inside a nested
 * statement; a label inside the body that a goto from outside jumps to; a
 * backward jump inside the body over one of its case labels (the loop it
 * becomes would hold the case label).
 */
function irregularSwitches(body: CompoundStmt): Set<SwitchStmt> {
  const order = new Map<BlockItem, number>();
  const within = new Map<BlockItem, SwitchStmt[]>();
  const labels = new Map<string, BlockItem>();
  const gotos: Array<Extract<BlockItem, { kind: 'Goto' }>> = [];
  const switches: SwitchStmt[] = [];
  const visit = (s: BlockItem, around: SwitchStmt[]): void => {
    order.set(s, order.size);
    within.set(s, around);
    if (s.kind === 'Label') labels.set(s.name, s);
    if (s.kind === 'Goto') gotos.push(s);
    if (s.kind === 'Switch') switches.push(s);
    const inner = s.kind === 'Switch' ? [...around, s] : around;
    if (s.kind === 'Compound') for (const x of s.items) visit(x, inner);
    else for (const c of childStmts(s)) visit(c, inner);
  };
  visit(body, []);
  const out = new Set<SwitchStmt>();
  for (const s of switches) {
    const top = topLevelCases(s.body);
    if (s.cases.some((c) => !top.has(c))) out.add(s);
  }
  for (const g of gotos) {
    const l = labels.get(g.label);
    if (!l) continue;
    const gs = within.get(g)!;
    for (const s of within.get(l)!) {
      if (!gs.includes(s)) out.add(s);
      else if (order.get(l)! < order.get(g)! && s.cases.some((c) => order.get(l)! < order.get(c)! && order.get(c)! < order.get(g)!)) out.add(s);
    }
  }
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
 * statements and a jump variable. Throws an unsupported-construct error for
 * a jump it cannot follow (into a statement expression).
 */
export function eliminateGotos(body: CompoundStmt, dm: DataModel, ids: IdSource): CompoundStmt {
  if (!needsGotoElimination(body)) return body;
  return new GotoEliminator(dm, ids).run(body);
}

class GotoEliminator {
  private readonly sema: Sema;
  private jump?: VarDecl;
  /** Label numbers, in source order (labels the pass makes later come after). */
  private readonly labelNumbers = new Map<string, bigint>();
  /** Labels that a jump went to: they clear `jump`. */
  private readonly jumpedTo = new Set<string>();
  private readonly temps: VarDecl[] = [];
  private fresh = 0;
  /** Fresh labels that a `break` of a loop or switch becomes (after that statement). */
  private readonly breakLabels = new Map<Node, string>();
  /** Fresh labels that a `continue` of a loop becomes (at the end of its body). */
  private readonly continueLabels = new Map<Node, string>();
  private readonly switchCaseLabels = new Map<Stmt, string>();
  private readonly rebuiltCases = new Map<CaseStmt | DefaultStmt, CaseStmt | DefaultStmt>();

  constructor(
    dm: DataModel,
    private readonly ids: IdSource,
  ) {
    this.sema = new Sema(dm);
  }

  run(body: CompoundStmt): CompoundStmt {
    const irregular = irregularSwitches(body);
    const root = this.seqOf(body, irregular, []);
    for (const label of labelsIn(root.items)) this.labelNumber(label);
    this.shortcuts(root);
    for (let g = lastGoto(root); g; g = lastGoto(root)) this.eliminate(root, g);
    this.finishLabels(root);
    const out = this.emitSeq(root);
    const decls: BlockItem[] = [...(this.jump ? [this.jump] : []), ...this.temps].map((decl) => this.declStmt(decl));
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
        const label = this.switchCaseLabels.get(s);
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

  /**
   * `switch (e) body` as jumps: `t = e; if (t == v1) goto c1; ...; goto
   * default (or end); body with its case labels as labels; end:`, its
   * `break`s jumps to the end.
   */
  private switchAsJumps(s: SwitchStmt, irregular: ReadonlySet<SwitchStmt>, breaks: Array<string | undefined>): Node[] {
    const n = ++this.fresh;
    const end = `switch#${n}#end`;
    const t = this.temp(unqualified(s.condition.type), `switch#${n}`, s.loc);
    const out: Node[] = [this.assignLeaf(t, s.condition, s.loc)];
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

  // ---- statements and expressions the pass makes ------------------------------------------------

  private temp(type: CType, name: string, loc: L): VarDecl {
    const decl: VarDecl = { kind: 'Var', id: this.ids.value++, name, type, storage: 'none', scope: 'block', loc, defined: true, synthetic: true };
    this.temps.push(decl);
    return decl;
  }

  /** The variable that says which jump is under way (0: none). */
  private jumpVar(loc: L): VarDecl {
    this.jump ??= { kind: 'Var', id: this.ids.value++, name: 'goto#jump', type: intType('int'), storage: 'none', scope: 'block', loc, defined: true, synthetic: true, init: this.lit(0n, loc) };
    return this.jump;
  }

  private labelNumber(label: string): bigint {
    let n = this.labelNumbers.get(label);
    if (n === undefined) {
      n = BigInt(this.labelNumbers.size + 1);
      this.labelNumbers.set(label, n);
    }
    return n;
  }

  private lit(v: bigint, loc: L): Expr {
    return { kind: 'IntegerLiteral', value: v, text: String(v), type: intType('int'), loc };
  }

  private ref(d: VarDecl, loc: L): Expr {
    return { kind: 'Identifier', name: d.name, decl: d, type: d.type, loc };
  }

  private assignLeaf(d: VarDecl, value: Expr, loc: L): Leaf {
    return { k: 'leaf', s: { kind: 'ExprStmt', loc, expr: this.sema.assign('=', this.ref(d, loc), value, loc) } };
  }

  /** What starts the jump of `g`: `jump = n`, under its condition; nothing when the jump is under way already. */
  private start(g: GotoN): Node[] {
    if (g.flight) return [];
    this.jumpedTo.add(g.label);
    const set = this.assignLeaf(this.jumpVar(g.loc), this.lit(this.labelNumber(g.label), g.loc), g.loc);
    return [g.cond ? this.synthIf({ cond: g.cond }, [set], g.loc) : set];
  }

  /** The goto that carries a jump under way on. */
  private carry(g: GotoN): GotoN {
    return { k: 'goto', label: g.label, flight: true, loc: g.loc };
  }

  private synthIf(test: { cond?: Expr; skip?: Set<string>; test?: string }, items: Node[], loc: L): IfN {
    return { k: 'if', ...test, then: { k: 'seq', items, scoped: false, loc }, loc };
  }

  /** `if (jump == n) break;` for the jump to `label`, leaving a loop or switch. */
  private breakFor(label: string, loc: L): IfN {
    return this.synthIf({ test: label }, [{ k: 'leaf', s: { kind: 'Break', loc }, flight: label }], loc);
  }

  /**
   * The items as the jump to `label` skips them: each run of statements
   * between labels (and case labels) under one guard; a guard among them
   * gets the label among those it skips for (so guards never nest for
   * jumps over the same statements).
   */
  private skipped(items: Node[], label: string, loc: L): Node[] {
    const out: Node[] = [];
    let run: Node[] = [];
    const flush = () => {
      if (run.length) out.push(this.synthIf({ skip: new Set([label]) }, run, loc));
      run = [];
    };
    for (const n of items) {
      if (n.k === 'label' || n.k === 'case') {
        flush();
        out.push(n);
      } else if (n.k === 'if' && n.skip) {
        flush();
        n.skip.add(label);
        out.push(n);
      } else run.push(n);
    }
    flush();
    return out;
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
      const [gp, lp] = pathsTo(root, g);
      if (!gp) throw new Error(`goto elimination: goto '${g.label}' lost`);
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
      const between = seq.items.slice(i + 1, j);
      if (between.length === 0 || (!g.cond && !g.flight && !hasMark(between))) {
        seq.items.splice(i, j - i);
        return;
      }
      seq.items.splice(i, j - i, ...this.start(g), ...this.skipped(between, g.label, g.loc));
      return;
    }
    const label = seq.items[j] as LabelN;
    const escaping = this.captureJumps(seq, j, i, gp);
    const body = [...seq.items.slice(j, i), ...this.start(g)];
    seq.items.splice(j, i - j + 1, this.backLoop(g.label, body, label.loc), ...this.breaksAfter(escaping, label.loc));
  }

  /** `do { items } while (jump == n)`: a loop of the pass for a backward jump. */
  private backLoop(label: string, items: Node[], loc: L): LoopN {
    return { k: 'do', again: label, body: { k: 'seq', items, scoped: false, loc }, loc };
  }

  /** Out of the statement around it: start the jump, leave the statement, and carry the jump on after it. */
  private outward(g: GotoN, gp: Step[]): GotoN {
    const { seq, index: i } = gp[gp.length - 1];
    const outer = gp[gp.length - 2];
    const parent = outer.seq.items[outer.index];
    if (isBreakable(parent)) {
      const brk: Leaf = { k: 'leaf', s: { kind: 'Break', loc: g.loc }, flight: g.label };
      const isBreakFor = (n: Node | undefined) => n?.k === 'if' && n.test === g.label && n.then.items[0]?.k === 'leaf' && n.then.items[0].flight === g.label;
      // A jump under way to the same label leaves here already.
      if (g.flight && (isBreakFor(seq.items[i - 1]) || isBreakFor(seq.items[i + 1]))) seq.items.splice(i, 1);
      else seq.items.splice(i, 1, ...this.start(g), g.cond || g.flight ? this.breakFor(g.label, g.loc) : brk);
    } else {
      const rest = seq.items.splice(i + 1);
      seq.items.splice(i, 1, ...this.start(g));
      if (rest.length && (g.cond || g.flight || hasMark(rest))) seq.items.push(...this.skipped(rest, g.label, g.loc));
    }
    // Another jump to the same label is carried on from here already: one goto carries both.
    const after = outer.seq.items[outer.index + 1];
    if (after?.k === 'goto' && after.flight && after.label === g.label) return after;
    const next = this.carry(g);
    outer.seq.items.splice(outer.index + 1, 0, next);
    return next;
  }

  /** Into the statement at `j` of the goto's block that holds the label (in its block `inner`). */
  private inward(g: GotoN, gp: Step[], j: number, inner: Seq): GotoN {
    const { seq, index: i } = gp[gp.length - 1];
    const target = seq.items[j];
    if (j < i) {
      // Backward: loop over the items from the statement to the goto, entering the statement again while the jump is under way.
      const escaping = this.captureJumps(seq, j, i, gp);
      const enter = this.carry(g);
      const body: Node[] = [enter, ...seq.items.slice(j, i), ...this.start(g)];
      seq.items.splice(j, i - j + 1, this.backLoop(g.label, body, g.loc), ...this.breaksAfter(escaping, g.loc));
      return enter;
    }
    const between = seq.items.slice(i + 1, j);
    const skip = between.length && (g.cond || g.flight || hasMark(between)) ? this.skipped(between, g.label, g.loc) : [];
    const set = this.start(g);
    seq.items.splice(i, j - i, ...set, ...skip);
    const at = i + set.length + skip.length;
    const next = this.carry(g);
    switch (target.k) {
      case 'seq':
        target.items.unshift(next);
        break;
      case 'if':
        if (target.then === inner) (target.enter ??= new Set()).add(g.label);
        else (target.enterElse ??= new Set()).add(g.label);
        inner.items.unshift(next);
        break;
      case 'while':
        (target.enter ??= new Set()).add(g.label);
        target.body.items.unshift(next);
        break;
      case 'do':
        target.body.items.unshift(next);
        break;
      case 'for': {
        if (target.cond) (target.enter ??= new Set()).add(g.label);
        target.body.items.unshift(next);
        const init = target.init;
        if (init) {
          // The initialiser runs only when the loop is entered from its start.
          target.init = undefined;
          const initNode: Node = init.kind === 'Declaration' ? { k: 'leaf', s: { kind: 'DeclStmt', loc: init.loc, declaration: init } } : { k: 'leaf', s: { kind: 'ExprStmt', loc: init.loc, expr: init } };
          const skipInit = this.skipped([initNode], g.label, g.loc);
          // A declared loop variable keeps the scope of the loop statement.
          if (init.kind === 'Declaration') seq.items[at] = { k: 'seq', items: [...skipInit, target], scoped: true, loc: target.loc };
          else seq.items.splice(at, 0, ...skipInit);
        }
        break;
      }
      case 'switch':
        // Labels a goto from outside jumps to make a switch into jumps before the elimination starts.
        throw new Error('goto elimination: a jump into a switch that was not turned into jumps');
      default:
        throw new Error(`goto elimination: label inside a ${target.k}`);
    }
    return next;
  }

  /**
   * `if (c) A else B` with the goto at the top of A and its label in B:
   * `t = !!c; if (t) { A; t = 1; } if (jump == n || !t) B`, so a forward
   * jump makes no loop. (A run that leaves A at its end, also one that a
   * jump entered A for, must not run B.) The jumps the if let in already
   * decide t as they decided the if.
   */
  private splitIf(seq: Seq, index: number, node: IfN, g: GotoN, at: Step): GotoN {
    const t = this.temp(intType('int'), `if#${++this.fresh}`, node.loc);
    const rest = at.seq.items.splice(at.index + 1);
    at.seq.items.splice(at.index, 1, ...this.start(g));
    if (rest.length && (g.cond || g.flight || hasMark(rest))) at.seq.items.push(...this.skipped(rest, g.label, g.loc));
    const save = this.assignLeaf(t, this.sema.unary('!', this.sema.unary('!', this.condOf(node), node.loc), node.loc), node.loc);
    node.then.items.push(this.assignLeaf(t, this.lit(1n, node.loc), node.loc));
    const first: IfN = { k: 'if', cond: this.ref(t, node.loc), then: node.then, ...(node.src ? { src: node.src } : {}), loc: node.loc };
    const second: IfN = { k: 'if', cond: this.sema.unary('!', this.ref(t, node.loc), node.loc), enter: new Set([g.label]), then: node.else!, loc: g.loc };
    const next = this.carry(g);
    node.else!.items.unshift(next);
    seq.items.splice(index, 1, save, first, second);
    return next;
  }

  /**
   * Before the items seq[j..i) are wrapped in a loop of the pass: their
   * `break` and `continue` that belong to an enclosing loop or switch become
   * gotos to fresh labels after that statement or at the end of the loop's
   * body. A `break` of a jump under way stays (it leaves the new loop) and
   * is repeated after the loop: the labels of those jumps are returned. (A
   * goto of its own would start a second jump while one is under way.)
   */
  private captureJumps(seq: Seq, j: number, i: number, gp: Step[]): Set<string> {
    const escaping = new Set<string>();
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
  private breaksAfter(escaping: Set<string>, loc: L): Node[] {
    return [...escaping].map((label) => this.breakFor(label, loc));
  }

  private breakLabel(gp: Step[], owner: Node): string {
    let label = this.breakLabels.get(owner);
    if (!label) {
      label = `break#${++this.fresh}`;
      this.labelNumber(label);
      this.breakLabels.set(owner, label);
      const at = gp[gp.findIndex((s) => s.seq.items[s.index] === owner)];
      at.seq.items.splice(at.index + 1, 0, { k: 'label', name: label, loc: at.seq.loc });
    }
    return label;
  }

  private continueLabel(owner: LoopN): string {
    let label = this.continueLabels.get(owner);
    if (!label) {
      label = `continue#${++this.fresh}`;
      this.labelNumber(label);
      this.continueLabels.set(owner, label);
      owner.body.items.push({ k: 'label', name: label, loc: owner.body.loc });
    }
    return label;
  }

  /** A label some jump went to ends that jump (`if (jump == n) jump = 0`); the labels themselves go. */
  private finishLabels(seq: Seq): void {
    seq.items = seq.items.flatMap((n): Node[] => {
      if (n.k === 'label') {
        if (!this.jumpedTo.has(n.name)) return [];
        return [this.synthIf({ test: n.name }, [this.assignLeaf(this.jumpVar(n.loc), this.lit(0n, n.loc), n.loc)], n.loc)];
      }
      for (const c of childSeqs(n)) this.finishLabels(c);
      return [n];
    });
  }

  // ---- back to the C AST -----------------------------------------------------------------------------

  /** `jump` is one of the labels' numbers: ranges of consecutive numbers are one comparison each. */
  private jumpIn(labels: ReadonlySet<string>, loc: L): Expr {
    const nums = [...labels].map((l) => this.labelNumber(l)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const jump = () => this.ref(this.jumpVar(loc), loc);
    const parts: Expr[] = [];
    for (let k = 0; k < nums.length; ) {
      let e = k;
      while (e + 1 < nums.length && nums[e + 1] === nums[e] + 1n) e++;
      if (e === k) parts.push(this.sema.binary('==', jump(), this.lit(nums[k], loc), loc));
      else parts.push(this.sema.binary('&&', this.sema.binary('>=', jump(), this.lit(nums[k], loc), loc), this.sema.binary('<=', jump(), this.lit(nums[e], loc), loc), loc));
      k = e + 1;
    }
    return parts.reduce((a, b) => this.sema.binary('||', a, b, loc));
  }

  /** The test of an if of the tree. */
  private condOf(n: IfN): Expr {
    if (n.skip) return this.sema.unary('!', this.jumpIn(n.skip, n.loc), n.loc);
    if (n.test !== undefined) return this.jumpIn(new Set([n.test]), n.loc);
    let c = n.cond!;
    if (n.enterElse?.size) c = this.sema.binary('&&', this.sema.unary('!', this.jumpIn(n.enterElse, n.loc), n.loc), c, n.loc);
    if (n.enter?.size) c = this.sema.binary('||', this.jumpIn(n.enter, n.loc), c, n.loc);
    return c;
  }

  private loopCond(n: LoopN): Expr | undefined {
    if (n.again !== undefined) return this.jumpIn(new Set([n.again]), n.loc);
    if (n.cond && n.enter?.size) return this.sema.binary('||', this.jumpIn(n.enter, n.loc), n.cond, n.loc);
    return n.cond;
  }

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
        if (n.src) return { kind: 'If', loc: n.src.loc, condition: this.condOf(n), then, ...els };
        return { kind: 'If', loc: n.loc, condition: this.condOf(n), then, ...els, synthetic: true };
      }
      case 'while':
        return { ...(n.src as Extract<LoopStmt, { kind: 'While' }>), condition: this.loopCond(n)!, body: this.emitBody(n.body) };
      case 'do': {
        if (n.src) return { ...(n.src as DoWhileStmt), body: this.emitBody(n.body) };
        return { kind: 'DoWhile', loc: n.loc, keywordLoc: n.loc, whileLoc: n.loc, body: this.emitBody(n.body), condition: this.loopCond(n)!, synthetic: true };
      }
      case 'for': {
        const src = n.src as Extract<LoopStmt, { kind: 'For' }>;
        const { init: _i, condition: _c, ...rest } = src;
        const cond = this.loopCond(n);
        return { ...rest, ...(n.init ? { init: n.init } : {}), ...(cond ? { condition: cond } : {}), body: this.emitBody(n.body) };
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

/** The paths from the root to a goto and to its label (one walk of the tree, which stops once it has both). */
function pathsTo(root: Seq, g: GotoN): [Step[] | undefined, Step[] | undefined] {
  const path: Step[] = [];
  let gp: Step[] | undefined;
  let lp: Step[] | undefined;
  const visit = (seq: Seq): boolean => {
    for (let i = 0; i < seq.items.length; i++) {
      const n = seq.items[i];
      path.push({ seq, index: i });
      if (n === g) gp = [...path];
      else if (n.k === 'label' && n.name === g.label) lp = [...path];
      if (gp && lp) return true;
      for (const c of childSeqs(n)) if (visit(c)) return true;
      path.pop();
    }
    return false;
  };
  visit(root);
  return [gp, lp];
}

/**
 * The last goto (in source order). Taking the jumps from the last makes
 * fewer jumps wrapped by others' guards: in `if (c1) goto L1; if (c2) goto
 * L2; ... L1: ... L2:`, taking the first would wrap all the later gotos,
 * which would then have to move out of it.
 */
function lastGoto(root: Seq): GotoN | undefined {
  let found: GotoN | undefined;
  const visit = (seq: Seq): void => {
    for (const n of seq.items) {
      if (n.k === 'goto') found = n;
      for (const c of childSeqs(n)) visit(c);
    }
  };
  visit(root);
  return found;
}

/** The labels at any depth, in source order. */
function labelsIn(items: readonly Node[]): string[] {
  return items.flatMap((n) => (n.k === 'label' ? [n.name] : childSeqs(n).flatMap((c) => labelsIn(c.items))));
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

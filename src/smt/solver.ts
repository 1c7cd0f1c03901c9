import { appendFileSync } from 'node:fs';
// The solver interface and its SMT-LIB 2 implementation, shared by every
// back end: a back end only moves text to a solver and back (a Channel).
import * as ieee from '../common/ieee754.js';
import type { RoundingMode } from '../common/ieee754.js';
import { parseSExprs, sexprToString, unquoteString, type SExpr } from './sexpr.js';
import { freeConsts, isNonlinearProduct, mkConst, mkEq, BoolSort, quoteSymbol, sortToSmt, termToSmt, type Term } from './terms.js';

export type SmtValue =
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'int'; readonly value: bigint }
  /** num/den in lowest terms, den > 0 */
  | { readonly kind: 'real'; readonly num: bigint; readonly den: bigint }
  | { readonly kind: 'bv'; readonly value: bigint; readonly width: number }
  /** A floating-point value by its packed IEEE bits (a NaN is the canonical one). */
  | { readonly kind: 'float'; readonly eb: number; readonly sb: number; readonly bits: bigint }
  | { readonly kind: 'rmode'; readonly mode: RoundingMode }
  /** Anything else (arrays), as the solver printed it. */
  | { readonly kind: 'raw'; readonly text: string };

export type SatStatus = 'sat' | 'unsat' | 'unknown';

export interface CheckSatResult {
  readonly status: SatStatus;
  /** Why the answer is unknown (`timeout`, the solver's reason-unknown, a crash). */
  readonly reason?: string;
  /** Wall-clock time of the call in milliseconds. */
  readonly timeMs: number;
}

export interface Solver {
  readonly name: string;
  /** Opens a scope: assertions and declarations after it are dropped by the matching pop. */
  push(): Promise<void>;
  pop(n?: number): Promise<void>;
  assert(t: Term): Promise<void>;
  /** `check-sat-assuming`: the assumptions hold for this call only. */
  checkSat(assumptions?: readonly Term[], options?: { timeoutMs?: number }): Promise<CheckSatResult>;
  /** Values of terms in the model of the last `sat` answer. */
  getValues(terms: readonly Term[]): Promise<SmtValue[]>;
  eval(t: Term): Promise<SmtValue>;
  /** The value of every declared constant in the model of the last `sat` answer, by name. */
  getModel(): Promise<Map<string, SmtValue>>;
  /** Default timeout (ms) of every later checkSat; 0 means none. */
  setTimeout(ms: number): void;
  /** Ends the solver (and its process or worker context). */
  dispose(): Promise<void>;
}

/** The result of sending one batch of SMT-LIB commands. */
export type ChannelReply = { readonly output: string } | { readonly timedOut: true } | { readonly crashed: string };

/**
 * Moves SMT-LIB text to one solver instance. After a reply other than
 * `output`, the instance has been discarded and the next `exec` runs on a
 * fresh one: `build(true)` is then asked for a script that replays the state.
 */
export interface Channel {
  /** `build` is called when the command is about to be sent. */
  exec(build: (fresh: boolean) => string, deadlineMs?: number): Promise<ChannelReply>;
  dispose(): Promise<void>;
}

export interface SmtLibDialect {
  /** Commands sent first to every fresh instance. */
  readonly preamble: readonly string[];
  /** The command that sets a per-check time limit, or undefined. */
  timeoutOption?(ms: number): string;
  /**
   * A tactic to check with (`check-sat-using`), the assumptions asserted in
   * a scope of their own; undefined: `check-sat-assuming`.
   */
  readonly tactic?: string;
  /**
   * The tactic for assertions with a product of two bit-vector terms that
   * are not literals, when it differs from `tactic`.
   */
  readonly nonlinearTactic?: string;
  /**
   * `replay`: scopes are kept here, not in the solver: after a pop (and
   * the end of a check's scope) the next command is preceded by
   * `(reset-assertions)` and the commands of the levels left (z3 keeps
   * declarations across it: those sent already are not repeated).
   */
  readonly scopes?: 'native' | 'replay';
}

export const z3Dialect: SmtLibDialect = {
  preamble: ['(set-option :produce-models true)'],
  timeoutOption: (ms) => `(set-option :timeout ${ms})`,
  // After a push, z3's check-sat uses its incremental core, which is
  // slow on bit-vector problems (measured: a trivially sat unrolling of a
  // recursion answers unknown after 16 s there, sat in 20 ms with qfbv);
  // its bit-vector tactic solves from scratch, other logics fall back to smt.
  tactic: '(or-else qfbv smt)',
  // qfbv's AIG step (it runs on every problem that fits in memory) spends
  // seconds compressing 64-bit multipliers: an induction step on y*y that
  // took 3.3 s is decided in 0.2 s by the same steps without it.
  // Only on pure bit-vector problems (floating point goes through qfbv or smt as usual).
  nonlinearTactic: '(or-else (if is-qfbv (then simplify propagate-values solve-eqs elim-uncnstr max-bv-sharing bit-blast sat) qfbv) smt)',
  // A push makes z3 hand everything asserted so far to that incremental
  // core, which preprocesses and internalizes it: unused work as costly as
  // the tactic's own (measured: 0.3 of 0.7 s on a loop-free program of 6000
  // definitions). Replaying the text is cheap (parsing it took 0.04 s);
  // (reset-assertions) costs about 4 ms a check, (reset) 8, push/pop 3.
  scopes: 'replay',
};

export const cvc5Dialect: SmtLibDialect = {
  preamble: ['(set-option :produce-models true)', '(set-option :incremental true)', '(set-logic ALL)'],
  timeoutOption: (ms) => `(set-option :tlimit-per ${ms})`,
};

export const genericDialect: SmtLibDialect = {
  preamble: ['(set-option :produce-models true)', '(set-logic ALL)'],
};

export class SolverError extends Error {}

/** How much longer than the requested time a call may run before its instance is killed. */
function hardDeadline(ms: number): number {
  return Math.ceil(ms * 1.25) + 1500;
}

const productChecked = new WeakMap<Term, boolean>();

/** Whether a term multiplies two bit-vector terms neither of which is a literal. */
function hasNonlinearProduct(t: Term): boolean {
  const known = productChecked.get(t);
  if (known !== undefined) return known;
  const out = isNonlinearProduct(t) || t.args.some(hasNonlinearProduct);
  productChecked.set(t, out);
  return out;
}

let solverSerial = 0;

export class SmtLibSolver implements Solver {
  /** Commands of each scope level, replayed on a fresh instance. */
  private readonly levels: string[][] = [[]];
  private readonly declared: Map<string, Term>[] = [new Map()];
  /** Whether each scope level asserts a nonlinear bit-vector product (see `nonlinearTactic`). */
  private readonly nonlinear: boolean[] = [false];
  private pending: string[] = [];
  private timeoutMs = 0;
  private lastTimeoutOption: number | undefined;
  private disposed = false;
  private hasModel = false;
  private assumptionCounter = 0;
  /** The last check opened a scope for its assumptions (closed before the next command that is not a model query). */
  private checkScope = false;
  /** Tells this solver's scripts apart in TARSIER_SMT_LOG. */
  private readonly serial = ++solverSerial;

  constructor(
    readonly name: string,
    private readonly channel: Channel,
    private readonly dialect: SmtLibDialect,
  ) {
  }

  /** Replay scopes: the solver's assertions are stale; reset and replay the levels before the next command. */
  private stale = false;
  /** Replay scopes: the declaration sent to the current instance, by name. */
  private readonly sentDeclarations = new Map<string, string>();

  private get replayScopes(): boolean {
    return this.dialect.scopes === 'replay';
  }

  private closeCheckScope(): void {
    if (!this.checkScope) return;
    this.checkScope = false;
    if (this.replayScopes) this.stale = true;
    else this.pending.push('(pop 1)');
  }

  private emit(cmd: string): void {
    this.closeCheckScope();
    this.levels[this.levels.length - 1].push(cmd);
    this.pending.push(cmd);
  }

  private isDeclared(name: string): boolean {
    return this.declared.some((s) => s.has(name));
  }

  private declareConsts(t: Term): void {
    for (const [name, c] of freeConsts(t)) {
      if (this.isDeclared(name)) continue;
      this.declared[this.declared.length - 1].set(name, c);
      this.emit(`(declare-fun ${quoteSymbol(name)} () ${sortToSmt(c.sort)})`);
    }
  }

  async push(): Promise<void> {
    this.ensureAlive();
    this.closeCheckScope();
    if (!this.replayScopes) this.pending.push('(push 1)');
    this.levels.push([]);
    this.declared.push(new Map());
    this.nonlinear.push(false);
    this.hasModel = false;
  }

  async pop(n = 1): Promise<void> {
    this.ensureAlive();
    if (n > this.levels.length - 1) throw new SolverError(`pop(${n}) without matching push`);
    this.closeCheckScope();
    for (let k = 0; k < n; k++) {
      this.levels.pop();
      this.declared.pop();
      this.nonlinear.pop();
    }
    if (this.replayScopes) this.stale = true;
    else this.pending.push(`(pop ${n})`);
    this.hasModel = false;
  }

  async assert(t: Term): Promise<void> {
    this.ensureAlive();
    if (t.sort.kind !== 'Bool') throw new SolverError('assert of a non-Boolean term');
    this.declareConsts(t);
    if (hasNonlinearProduct(t)) this.nonlinear[this.nonlinear.length - 1] = true;
    this.emit(`(assert ${termToSmt(t)})`);
    this.hasModel = false;
  }

  setTimeout(ms: number): void {
    this.timeoutMs = Math.max(0, Math.floor(ms));
  }

  private ensureAlive(): void {
    if (this.disposed) throw new SolverError('solver used after dispose');
  }

  /** The commands to send now: a replay of everything when the instance is fresh. */
  private takeScript(fresh: boolean): string[] {
    if (!this.replayScopes) return this.buildScript(fresh);
    if (!fresh && !this.stale && this.pending.some((cmd) => this.redeclares(cmd))) {
      // The instance knows the name with another sort: only a full reset forgets it.
      if (this.checkScope) throw new SolverError('a constant of another sort has the name of one declared before; declare it before the check');
      this.stale = true;
    }
    // Declarations outlive `(reset-assertions)`: the instance is told each one once.
    return this.buildScript(fresh).filter((cmd) => {
      const name = declaredName(cmd);
      if (name === undefined) return true;
      if (this.sentDeclarations.get(name) === cmd) return false;
      this.sentDeclarations.set(name, cmd);
      return true;
    });
  }

  private redeclares(cmd: string): boolean {
    const name = declaredName(cmd);
    const sent = name === undefined ? undefined : this.sentDeclarations.get(name);
    return sent !== undefined && sent !== cmd;
  }

  private buildScript(fresh: boolean): string[] {
    if (fresh || this.stale) {
      // The levels hold every command that defines the state (pending ones too).
      // Replay scopes: a name declared again with another sort needs a full `(reset)`.
      const full = fresh || (this.replayScopes && this.levels.some((cmds) => cmds.some((cmd) => this.redeclares(cmd))));
      if (full) this.sentDeclarations.clear();
      const replay: string[] = fresh ? [...this.dialect.preamble] : full ? ['(reset)', ...this.dialect.preamble] : ['(reset-assertions)'];
      this.lastTimeoutOption = undefined;
      this.checkScope = false;
      this.stale = false;
      this.levels.forEach((cmds, k) => {
        if (k > 0 && !this.replayScopes) replay.push('(push 1)');
        replay.push(...cmds);
      });
      this.pending = [];
      return replay;
    }
    const out = this.pending;
    this.pending = [];
    return out;
  }

  private async run(commands: (fresh: boolean) => string[], timeoutMs?: number): Promise<ChannelReply> {
    const build = (fresh: boolean) => {
      const head = this.takeScript(fresh);
      return [...head, ...commands(fresh)].join('\n') + '\n';
    };
    const logged = (fresh: boolean) => {
      const text = build(fresh);
      // TARSIER_SMT_LOG=file appends every script sent to a solver (for debugging).
      if (process.env.TARSIER_SMT_LOG) appendFileSync(process.env.TARSIER_SMT_LOG, `; ---- ${this.name} #${this.serial}${fresh ? ' (fresh)' : ''}\n${text}`);
      return text;
    };
    const reply = await this.channel.exec(logged, timeoutMs ? hardDeadline(timeoutMs) : undefined);
    if (!('output' in reply)) {
      // The instance is gone; what was pending is part of the replay log already.
      this.hasModel = false;
    }
    return reply;
  }

  async checkSat(assumptions: readonly Term[] = [], options: { timeoutMs?: number } = {}): Promise<CheckSatResult> {
    this.ensureAlive();
    const start = Date.now();
    const lits: string[] = [];
    for (const a of assumptions) {
      if (a.op === 'const' || (a.op === 'not' && a.args[0].op === 'const')) {
        this.declareConsts(a);
        lits.push(termToSmt(a));
      } else {
        // check-sat-assuming takes literals only: name the term.
        const c = mkConst(`tarsier!assume!${++this.assumptionCounter}`, BoolSort);
        await this.assert(mkEq(c, a));
        lits.push(termToSmt(c));
      }
    }
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    this.closeCheckScope();
    const tactic = (this.nonlinear.includes(true) && this.dialect.nonlinearTactic) || this.dialect.tactic;
    const cmds = (): string[] => {
      const out: string[] = [];
      if (tactic) {
        if (!this.replayScopes) out.push('(push 1)');
        out.push(...lits.map((l) => `(assert ${l})`));
        out.push(`(check-sat-using ${timeoutMs ? `(try-for ${tactic} ${timeoutMs})` : tactic})`);
        return out;
      }
      // takeScript has run: lastTimeoutOption is undefined on a fresh instance.
      if (this.dialect.timeoutOption && timeoutMs !== this.lastTimeoutOption) out.push(this.dialect.timeoutOption(timeoutMs));
      out.push(lits.length > 0 ? `(check-sat-assuming (${lits.join(' ')}))` : '(check-sat)');
      return out;
    };
    const reply = await this.run(cmds, timeoutMs || undefined);
    const timeMs = Date.now() - start;
    if ('timedOut' in reply) return { status: 'unknown', reason: 'timeout', timeMs };
    if ('crashed' in reply) return { status: 'unknown', reason: `solver failed: ${reply.crashed}`, timeMs };
    if (tactic) this.checkScope = true;
    else if (this.dialect.timeoutOption) this.lastTimeoutOption = timeoutMs;
    const answers = responses(reply.output);
    const last = answers[answers.length - 1];
    if (last === 'sat') {
      this.hasModel = true;
      return { status: 'sat', timeMs };
    }
    this.hasModel = false;
    if (last === 'unsat') return { status: 'unsat', timeMs };
    if (last === 'unknown') {
      const info = await this.run(() => ['(get-info :reason-unknown)']);
      let reason = 'the solver answered unknown';
      if ('output' in info) {
        const r = responses(info.output)[0];
        if (Array.isArray(r) && typeof r[1] === 'string') reason = unquoteString(r[1]);
      }
      if (/timeout|canceled|cancelled/i.test(reason)) reason = 'timeout';
      return { status: 'unknown', reason, timeMs: Date.now() - start };
    }
    throw new SolverError(`unexpected solver answer: ${reply.output.trim().slice(0, 200)}`);
  }

  async getValues(terms: readonly Term[]): Promise<SmtValue[]> {
    this.ensureAlive();
    if (terms.length === 0) return [];
    if (!this.hasModel) throw new SolverError('no model: the last check was not sat');
    const seen = new Set<string>();
    for (const t of terms) {
      if (!this.checkScope) {
        this.declareConsts(t);
        continue;
      }
      // Inside the scope of the last check: declare unknown constants there
      // (they leave with it) rather than close it and lose the model.
      for (const [name, c] of freeConsts(t)) {
        if (this.isDeclared(name) || seen.has(name)) continue;
        seen.add(name);
        this.pending.push(`(declare-fun ${quoteSymbol(name)} () ${sortToSmt(c.sort)})`);
      }
    }
    const query = `(get-value (${terms.map((t) => termToSmt(t)).join(' ')}))`;
    let lost = false;
    const reply = await this.run((fresh) => {
      lost = fresh;
      return fresh ? [] : [query];
    });
    if (lost || !('output' in reply)) throw new SolverError('the solver stopped before giving a model');
    const r = responses(reply.output);
    const pairs = r[r.length - 1];
    if (!Array.isArray(pairs) || pairs.length !== terms.length) throw new SolverError(`unexpected get-value answer: ${reply.output.slice(0, 200)}`);
    return pairs.map((p, k) => parseValue(Array.isArray(p) ? p[1] : p, terms[k]));
  }

  async eval(t: Term): Promise<SmtValue> {
    return (await this.getValues([t]))[0];
  }

  async getModel(): Promise<Map<string, SmtValue>> {
    const consts = this.declared.flatMap((m) => [...m.values()]);
    const values = await this.getValues(consts);
    return new Map(consts.map((c, k) => [c.name!, values[k]]));
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.channel.dispose();
  }
}

/** The name a `declare-fun` command declares, else undefined. */
function declaredName(cmd: string): string | undefined {
  if (!cmd.startsWith('(declare-fun ')) return undefined;
  const rest = cmd.slice('(declare-fun '.length);
  return rest.startsWith('|') ? rest.slice(0, rest.indexOf('|', 1) + 1) : rest.slice(0, rest.indexOf(' '));
}

/** The solver's answers, with `success` lines dropped and errors thrown. */
function responses(output: string): SExpr[] {
  const all = parseSExprs(output).filter((e) => e !== 'success');
  for (const e of all) {
    if (Array.isArray(e) && e[0] === 'error') {
      throw new SolverError(`solver error: ${unquoteString(typeof e[1] === 'string' ? e[1] : sexprToString(e))}`);
    }
  }
  return all;
}

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b) [a, b] = [b, a % b];
  return a;
}

function parseRational(e: SExpr): { num: bigint; den: bigint } | undefined {
  if (typeof e === 'string') {
    const m = /^(\d+)(?:\.(\d+))?$/.exec(e);
    if (!m) return undefined;
    const frac = m[2] ?? '';
    return { num: BigInt(m[1] + frac), den: 10n ** BigInt(frac.length) };
  }
  if (e[0] === '-' && e.length === 2) {
    const r = parseRational(e[1]);
    return r && { num: -r.num, den: r.den };
  }
  if (e[0] === '/' && e.length === 3) {
    const a = parseRational(e[1]);
    const b = parseRational(e[2]);
    return a && b && b.num !== 0n ? { num: a.num * b.den, den: a.den * b.num } : undefined;
  }
  return undefined;
}

export function parseValue(e: SExpr, t: Term): SmtValue {
  const raw: SmtValue = { kind: 'raw', text: sexprToString(e) };
  switch (t.sort.kind) {
    case 'Bool':
      return e === 'true' || e === 'false' ? { kind: 'bool', value: e === 'true' } : raw;
    case 'Int': {
      const r = parseRational(e);
      return r && r.den === 1n ? { kind: 'int', value: r.num } : raw;
    }
    case 'Real': {
      const r = parseRational(e);
      if (!r) return raw;
      let { num, den } = r;
      if (den < 0n) [num, den] = [-num, -den];
      const g = gcd(num, den) || 1n;
      return { kind: 'real', num: num / g, den: den / g };
    }
    case 'FloatingPoint':
      return parseFloatValue(e, t.sort.eb, t.sort.sb) ?? raw;
    case 'RoundingMode': {
      const mode = typeof e === 'string' ? ROUNDING_MODE_NAMES[e] : undefined;
      return mode ? { kind: 'rmode', mode } : raw;
    }
    case 'BitVec': {
      const width = t.sort.width;
      if (typeof e === 'string') {
        if (e.startsWith('#x')) return { kind: 'bv', value: BigInt('0x' + e.slice(2)), width };
        if (e.startsWith('#b')) return { kind: 'bv', value: BigInt('0b' + e.slice(2)), width };
      } else if (e[0] === '_' && typeof e[1] === 'string' && e[1].startsWith('bv')) {
        return { kind: 'bv', value: BigInt(e[1].slice(2)), width };
      }
      return raw;
    }
    default:
      return raw;
  }
}

const ROUNDING_MODE_NAMES: Readonly<Record<string, RoundingMode>> = {
  RNE: 'RNE',
  RNA: 'RNA',
  RTP: 'RTP',
  RTN: 'RTN',
  RTZ: 'RTZ',
  roundNearestTiesToEven: 'RNE',
  roundNearestTiesToAway: 'RNA',
  roundTowardPositive: 'RTP',
  roundTowardNegative: 'RTN',
  roundTowardZero: 'RTZ',
};

function bvLiteral(e: SExpr): { value: bigint; width: number } | undefined {
  if (typeof e !== 'string') return undefined;
  if (e.startsWith('#x')) return { value: BigInt('0x' + e.slice(2)), width: 4 * (e.length - 2) };
  if (e.startsWith('#b')) return { value: BigInt('0b' + e.slice(2)), width: e.length - 2 };
  return undefined;
}

/** `(fp #b0 #x7f #b0...)`, `(_ +zero 8 24)`, `(_ -oo 11 53)`, `(_ NaN 8 24)`: the packed bits of a value. */
function parseFloatValue(e: SExpr, eb: number, sb: number): SmtValue | undefined {
  const f = { eb, sb };
  const make = (bits: bigint): SmtValue => ({ kind: 'float', eb, sb, bits: ieee.canonical(f, bits) });
  if (!Array.isArray(e)) return undefined;
  if (e[0] === 'fp' && e.length === 4) {
    const [sign, exp, frac] = [bvLiteral(e[1]), bvLiteral(e[2]), bvLiteral(e[3])];
    if (!sign || !exp || !frac || sign.width !== 1 || exp.width !== eb || frac.width !== sb - 1) return undefined;
    return make((sign.value << BigInt(eb + sb - 1)) | (exp.value << BigInt(sb - 1)) | frac.value);
  }
  if (e[0] === '_' && e.length === 4 && e[2] === String(eb) && e[3] === String(sb)) {
    switch (e[1]) {
      case '+zero':
        return make(ieee.zeroBits(f, false));
      case '-zero':
        return make(ieee.zeroBits(f, true));
      case '+oo':
        return make(ieee.infBits(f, false));
      case '-oo':
        return make(ieee.infBits(f, true));
      case 'NaN':
        return make(ieee.nanBits(f));
    }
  }
  return undefined;
}

/** A readable rendering: `-3`, `1/2`, `true`, `4294967295bv32`, `0x1.8p+1`. */
export function formatValue(v: SmtValue): string {
  switch (v.kind) {
    case 'bool':
      return String(v.value);
    case 'int':
      return v.value.toString();
    case 'real':
      return v.den === 1n ? `${v.num}.0` : `${v.num}/${v.den}`;
    case 'bv':
      return `${v.value}bv${v.width}`;
    case 'float':
      return ieee.toHexString(v, v.bits);
    case 'rmode':
      return v.mode;
    case 'raw':
      return v.text;
  }
}

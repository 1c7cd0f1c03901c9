// A search for a violation by running the program: the lowered IMP program
// is executed with the verifier's own semantics (the interpreter) on nondet
// values drawn from the program's own constants, their neighbours (a few
// ulps or units away) and random values between them, in every other run
// one value for all nondets of a type. Floating-point
// queries are expensive for the solvers, while the violations of float
// programs often lie at the edges of the ranges their assumptions allow:
// a run finds them at the cost of an interpretation. Evidence only: a run
// that violates a goal is a counterexample, to be replayed as every one is;
// runs that find nothing prove nothing.
import * as ieee from '../common/ieee754.js';
import type { SourceLocation } from '../common/location.js';
import type { ImpProgram, ImpType, Stmt } from '../ivl/ast.js';
import { executeImp, type ImpValue } from '../ivl/interp.js';
import { visitStmtExprs, visitStmts } from '../ivl/walk.js';
import { rng } from '../common/random.js';
import type { Counterexample, TraceHavoc } from './bmc.js';
import { roleOf, type GoalRoles } from './unroll.js';

export interface SampleOptions {
  /** Milliseconds left; the search stops when it reaches 0. */
  readonly deadline: () => number;
  /** Which failing asserts are violations. */
  readonly roles: GoalRoles;
  readonly seed?: number;
  /** Statements one run may execute. */
  readonly maxSteps?: number;
  /** Runs at most (default: as many as the time allows). */
  readonly maxRuns?: number;
}

export interface SampleResult {
  readonly counterexample?: Counterexample;
  readonly runs: number;
}

/** The values a nondet of each type is drawn from: the program's constants and their neighbours. */
class Pools {
  private readonly floats = new Map<string, bigint[]>();
  private readonly ints = new Map<number, bigint[]>();

  constructor(program: ImpProgram) {
    const floatLits = new Map<string, Set<bigint>>();
    const bvLits = new Map<number, Set<bigint>>();
    for (const p of program.procedures) {
      visitStmtExprs(p.body ?? [], (e) => {
        if (e.kind === 'float_lit') {
          const key = `${e.eb}/${e.sb}`;
          if (!floatLits.has(key)) floatLits.set(key, new Set());
          floatLits.get(key)!.add(e.bits);
        } else if (e.kind === 'bv_lit') {
          if (!bvLits.has(e.width)) bvLits.set(e.width, new Set());
          bvLits.get(e.width)!.add(e.value);
        }
      });
    }
    for (const [key, lits] of floatLits) this.floats.set(key, floatPool(formatOf(key), lits));
    for (const [w, lits] of bvLits) this.ints.set(w, intPool(w, lits));
  }

  value(t: ImpType, r: () => number): ImpValue {
    switch (t.kind) {
      case 'bool':
        return { kind: 'bool', value: r() < 0.5 };
      case 'float': {
        const pool = this.floats.get(`${t.eb}/${t.sb}`) ?? floatPool(t, new Set());
        return { kind: 'float', eb: t.eb, sb: t.sb, bits: ieee.canonical(t, pickFloat(t, pool, r)) };
      }
      case 'bv': {
        const pool = this.ints.get(t.width) ?? intPool(t.width, new Set());
        const x = r();
        const v = x < 0.6 ? pool[Math.floor(r() * pool.length)]! : x < 0.8 ? randomBits(t.width, r) : BigInt.asUintN(t.width, pool[Math.floor(r() * pool.length)]! + BigInt(Math.floor(r() * 33) - 16));
        return { kind: 'bv', value: BigInt.asUintN(t.width, v), width: t.width };
      }
      case 'int':
        return { kind: 'int', value: BigInt(Math.floor(r() * 201) - 100) };
      default:
        return zeroOf(t);
    }
  }
}

function formatOf(key: string): ieee.FloatFormat {
  const [eb, sb] = key.split('/').map(Number);
  return { eb: eb!, sb: sb! };
}

function zeroOf(t: ImpType): ImpValue {
  if (t.kind === 'rmode') return { kind: 'rmode', mode: 'RNE' };
  if (t.kind === 'real') return { kind: 'real', num: 0n, den: 1n };
  if (t.kind === 'map') return { kind: 'map', default: zeroOf(t.value), entries: new Map() };
  return { kind: 'bool', value: false };
}

function randomBits(width: number, r: () => number): bigint {
  let v = 0n;
  for (let i = 0; i < width; i += 16) v = (v << 16n) | BigInt(Math.floor(r() * 65536));
  return BigInt.asUintN(width, v);
}

/** Sorted (by value) finite values: the constants, their negations and neighbours, and the landmarks of the format. */
function floatPool(f: ieee.FloatFormat, lits: ReadonlySet<bigint>): bigint[] {
  const out = new Set<bigint>();
  const add = (b: bigint) => {
    if (ieee.classify(f, b) !== 'nan') out.add(b);
  };
  const one = ieee.fromInteger(f, 'RNE', 1n);
  for (const b of [ieee.zeroBits(f, false), one, 1n, ieee.maxFiniteBits(f, false), ieee.infBits(f, false), ...lits]) {
    for (const x of [b, ieee.neg(f, b)]) {
      let up = x;
      let down = x;
      add(x);
      for (let k = 0; k < 3; k++) {
        up = ieee.nextUp(f, up);
        down = ieee.nextDown(f, down);
        add(up);
        add(down);
      }
    }
  }
  return [...out].sort((a, b) => (orderKey(f, a) < orderKey(f, b) ? -1 : 1));
}

/** A key that orders finite values and infinities as numbers (−0 just below +0). */
function orderKey(f: ieee.FloatFormat, b: bigint): bigint {
  const sign = 1n << BigInt(f.eb + f.sb - 1);
  return b & sign ? -(b & (sign - 1n)) - 1n : b;
}

function fromKey(f: ieee.FloatFormat, k: bigint): bigint {
  const sign = 1n << BigInt(f.eb + f.sb - 1);
  return k < 0n ? (-(k + 1n)) | sign : k;
}

/** A pool value, or a value strictly between two neighbouring pool values (uniform over the floats there). */
function pickFloat(f: ieee.FloatFormat, pool: readonly bigint[], r: () => number): bigint {
  const x = r();
  if (x < 0.02) return ieee.nanBits(f);
  if (x < 0.45 || pool.length < 2) return pool[Math.floor(r() * pool.length)]!;
  const i = Math.floor(r() * (pool.length - 1));
  const lo = orderKey(f, pool[i]!);
  const hi = orderKey(f, pool[i + 1]!);
  if (hi - lo <= 1n) return pool[i]!;
  const span = hi - lo - 1n;
  const k = lo + 1n + (randomBits(Math.max(1, span.toString(2).length + 8), r) % span);
  return fromKey(f, k);
}

function intPool(width: number, lits: ReadonlySet<bigint>): bigint[] {
  const out = new Set<bigint>([0n, 1n, BigInt.asUintN(width, -1n), 1n << BigInt(width - 1), (1n << BigInt(width - 1)) - 1n]);
  for (const l of lits) for (const d of [-1n, 0n, 1n]) out.add(BigInt.asUintN(width, l + d));
  return [...out];
}

/** Runs the program on sampled nondet values until a run violates an error goal or the time is up. */
export function sampleViolation(program: ImpProgram, options: SampleOptions): SampleResult {
  const proc = program.procedures.find((p) => p.name === 'main') ?? program.procedures[0];
  if (!proc) return { runs: 0 };
  const pools = new Pools(program);
  const r = rng(options.seed ?? 1);
  const asserts = new Map<string, Stmt>();
  visitStmts(proc.body ?? [], (s) => {
    if (s.kind === 'assert') asserts.set(key(s.loc, s.goal?.id), s);
  });
  let runs = 0;
  while (options.deadline() > 0 && runs < (options.maxRuns ?? Infinity)) {
    runs++;
    const havocs: TraceHavoc[] = [];
    // Every other run gives all nondets of a type one value, drawn once: a
    // violation that needs many values alike (every element of an array
    // nonzero) is as likely as one that needs one value.
    const uniform = runs % 2 === 0 ? new Map<string, ImpValue>() : undefined;
    const result = executeImp(program, proc.name, {}, {
      maxSteps: options.maxSteps ?? 100_000,
      outOfTime: () => options.deadline() <= 0,
      checkInvariants: false,
      havoc: (name, type, loc) => {
        const kind = JSON.stringify(type);
        const value = uniform?.get(kind) ?? pools.value(type, r);
        uniform?.set(kind, value);
        havocs.push({ loc, target: name, type, value: valueBits(value) });
        return value;
      },
    });
    if (result.status !== 'assertion-failed' || !result.loc) continue;
    const s = asserts.get(key(result.loc, result.goal?.id));
    if (!s || s.kind !== 'assert' || roleOf(s, options.roles) !== 'error') continue;
    return { runs, counterexample: { goal: { loc: result.loc, origin: 'assert', ...(result.goal ? { goal: result.goal } : {}) }, havocs, branches: [] } };
  }
  return { runs };
}

function key(loc: SourceLocation, id: number | undefined): string {
  return `${loc.line}:${loc.column}:${loc.offset}:${id ?? ''}`;
}

/** A havoc's value as the counterexample records it (bit-vectors unsigned, floats their bits, bool 0/1). */
function valueBits(v: ImpValue): bigint {
  if (v.kind === 'bv' || v.kind === 'int') return v.value;
  if (v.kind === 'float') return v.bits;
  if (v.kind === 'bool') return v.value ? 1n : 0n;
  return 0n;
}

/**
 * The source map that ties the lowered IMP program back to the C program.
 *
 * Convention (the contract between lower/ and the engines):
 * - Every IMP statement and expression the lowering creates carries, as its
 *   `loc`, the C location of the construct it came from (file, line, column,
 *   offset of the C file). So "IMP statement → C location" is just `stmt.loc`;
 *   no table is needed for it. Statements that have no C counterpart of
 *   their own (temporaries, flags) carry the location of the C statement or
 *   expression they help to implement.
 * - Every IMP `assert` the lowering makes carries its goal (`assert.goal`:
 *   the kind and the index in `goals`; `goalOf` finds the entry), at the
 *   goal's `loc` (goals of different kinds may share a place). The other
 *   special statements are found by their `loc`, compared with `locKey`
 *   (file, line, column, offset). The lowering guarantees that one key never
 *   names two different nondet calls or loops:
 *     * an IMP `x := havoc` whose loc is a nondet's `loc` is that nondet call
 *       (other havocs, e.g. of uninitialised locals, have no entry);
 *     * an IMP `while` whose loc is a loop's `loc` is that C loop;
 *     * an IMP `if` whose loc is a branch's `loc` is that C branching
 *       (then-branch = the C condition was true).
 *   Inlining a function twice gives two IMP statements with the same loc;
 *   they map to the same entry, which is what the witness formats want (they
 *   speak of C locations, not of call contexts).
 * - All lists are in the order of first appearance in the lowered program
 *   (deterministic).
 */
import type { SourceLocation } from '../common/location.js';
import type { Goal } from '../ivl/ast.js';

/**
 * What an IMP `assert` made by the lowering checks.
 * - `reach_error`: a call of `reach_error()` / `__VERIFIER_error()` (always `assert false`).
 * - `overflow`: a signed arithmetic operation's mathematical result is representable.
 * - `recursion`: NOT an error. An unwinding assertion for recursion: the
 *   lowering inlined recursive calls to `recursionDepth` and cut deeper
 *   calls with `assert false; assume false` of this kind. If such an assert
 *   can fail, the bound was too small (no TRUE verdict); it is never a FALSE.
 * - `valid-deref`, `valid-free`, `valid-memtrack`, `valid-memcleanup`: the
 *   memory-safety sub-properties (made only when one of them is checked);
 *   the lowering assumes the condition right after the assert, so later
 *   goals concern only executions without an earlier violation.
 * - `memory-unknown`: NOT an error. A place where the memory model is not
 *   exact (a pointer into an object of another type, a block still allocated
 *   when the program aborts); if it can fail the answer is UNKNOWN.
 */
export const GOAL_KINDS = [
  'reach_error',
  /** A failing `assert()`: a call of `__assert_fail` and friends (always `assert false`), or an undefined `__VERIFIER_assert(c)` (`c != 0`). */
  'assertion',
  /** The divisor of an integer `/` or `%` is not zero. */
  'div-by-zero',
  'overflow',
  'recursion',
  'valid-deref',
  'valid-free',
  'valid-memtrack',
  'valid-memcleanup',
  'memory-unknown',
  /** A condition of the entry function's recursion summary, where it returns (see RecursionSummaries). */
  'summary',
  /** A recursive call of the entry function whose measure must decrease (see RecursionSummaries). */
  'decrease',
  /** An access to an object other threads can reach, while another thread is about to make a conflicting one (threads/interleave.ts). */
  'data-race',
  /** NOT an error: a pthread_create inside a loop starting more threads than the model's slots. */
  'thread-bound',
] as const;
export type GoalKind = (typeof GOAL_KINDS)[number];

export interface GoalInfo {
  /** The goal's identity: its index in `SourceMap.goals`, and the `id` of the IMP asserts made for it. */
  readonly id: number;
  readonly kind: GoalKind;
  /**
   * The IMP assert's loc: for `reach_error` the call expression (first
   * character of the callee name); for `overflow` the C arithmetic
   * expression (its first character: the left operand of a binary operator,
   * the `-` of a negation, the operand of a postfix `++`); for `recursion`
   * the `)` closing the cut call's arguments. Nested operations starting at
   * one character share one goal entry.
   */
  readonly loc: SourceLocation;
  /**
   * Where a witness `target` waypoint should point: the first character of
   * the C statement or full expression whose evaluation contains the
   * violation (for `reach_error` this is the call itself when the call is
   * the statement).
   */
  readonly targetLoc: SourceLocation;
  /** Name of the C function that contains the location (the witness `function` field). */
  readonly function: string;
  /** Human-readable, e.g. `signed overflow in int + int`, `call of reach_error`. */
  readonly description: string;
}

export interface NondetInfo {
  /** The IMP havoc's loc = the C call expression's start (first character of the callee name). */
  readonly loc: SourceLocation;
  /** The `)` that closes the call's argument list (witness `function_return` waypoints), when known. */
  readonly closeParenLoc?: SourceLocation;
  /** First character of the C statement (or block-scope declaration) containing the call (witness `assumption` waypoints). */
  readonly statementLoc: SourceLocation;
  /** The called function, e.g. `__VERIFIER_nondet_int`. */
  readonly callee: string;
  /** The C function containing the call. */
  readonly function: string;
  /** The C return type as written in C, e.g. `int`, `unsigned char`, `_Bool`. */
  readonly cType: string;
  /** Width of the IMP bit-vector that is havocked (8, 16, 32, 64). */
  readonly width: number;
  /** Whether the C type is signed: read the bit-vector as two's complement when printing the value. */
  readonly signed: boolean;
  /** For `_Bool`: the havocked bit-vector is constrained to 0/1 by an assume right after the havoc. */
  readonly isBool: boolean;
  /** For `float` and `double`: the havocked variable is a float; its value is given as its IEEE bits (`width` of them). */
  readonly isFloat?: boolean;
  /** The IMP variable the havoc writes. */
  readonly variable: string;
}

export interface LoopInfo {
  /** The IMP while's loc = the first character of the C keyword `while`, `for` or `do`. */
  readonly loc: SourceLocation;
  readonly keyword: 'while' | 'for' | 'do';
  readonly function: string;
}

export interface BranchInfo {
  /** The IMP if's loc = the C `if` keyword or the `?` of a conditional operator. */
  readonly loc: SourceLocation;
  readonly keyword: 'if' | '?';
  readonly function: string;
}

/**
 * A C scalar variable and the IMP variable holding it in one inlined
 * instance of its function (several instances give several entries).
 * Only scalar variables (integers) are listed; struct members, arrays and
 * pointers are spread over several IMP variables (see memory.ts).
 */
export interface VariableInfo {
  readonly name: string;
  /** Enclosing function for locals and parameters; undefined for file-scope variables. */
  readonly function?: string;
  /** Where the variable is declared. */
  readonly declLoc: SourceLocation;
  readonly imp: string;
  readonly width: number;
  readonly signed: boolean;
}

export interface SourceMap {
  /** The C file the program was parsed from. */
  readonly file: string;
  readonly goals: readonly GoalInfo[];
  readonly nondets: readonly NondetInfo[];
  readonly loops: readonly LoopInfo[];
  readonly branches: readonly BranchInfo[];
  readonly variables: readonly VariableInfo[];
}

/** Key used to compare IMP locs with source-map entries. */
export function locKey(loc: SourceLocation): string {
  return `${loc.file}:${loc.line}:${loc.column}:${loc.offset}`;
}

function lookup<T extends { loc: SourceLocation }>(items: readonly T[], loc: SourceLocation): T | undefined {
  const k = locKey(loc);
  return items.find((x) => locKey(x.loc) === k);
}

/** The goal an IMP assert stands for (undefined: not a goal made by the lowering). */
export function goalOf(map: SourceMap, goal: Goal | undefined): GoalInfo | undefined {
  const g = goal === undefined ? undefined : map.goals[goal.id];
  return g && g.kind === goal!.kind ? g : undefined;
}

/** The goal at a C location (for a location that comes from outside IMP, e.g. a witness). */
export function goalAt(map: SourceMap, loc: SourceLocation): GoalInfo | undefined {
  return lookup(map.goals, loc);
}
/** The nondet call an IMP havoc stands for (undefined: not a nondet call). */
export function nondetAt(map: SourceMap, loc: SourceLocation): NondetInfo | undefined {
  return lookup(map.nondets, loc);
}
/** The C loop an IMP while stands for. */
export function loopAt(map: SourceMap, loc: SourceLocation): LoopInfo | undefined {
  return lookup(map.loops, loc);
}
/** The C branching an IMP if stands for (undefined: an if made for `&&`, `||`, a break flag, ...). */
export function branchAt(map: SourceMap, loc: SourceLocation): BranchInfo | undefined {
  return lookup(map.branches, loc);
}

/** Builds a SourceMap while lowering; entries with an already-known key are not added twice. */
export class SourceMapBuilder {
  private readonly goals = new Map<string, GoalInfo>();
  private readonly nondets = new Map<string, NondetInfo>();
  private readonly loops = new Map<string, LoopInfo>();
  private readonly branches = new Map<string, BranchInfo>();
  private readonly variables: VariableInfo[] = [];

  constructor(readonly file: string) {}

  /**
   * The goal of kind `g.kind` at `g.loc` (the entry already there, or a new
   * one): the identity its IMP asserts carry. Goals of different kinds may
   * share a place (an overflow and an invalid read in `a[i] + 1`, both at `a`).
   */
  addGoal(g: Omit<GoalInfo, 'id'>): Goal {
    const k = `${g.kind}@${locKey(g.loc)}`;
    let entry = this.goals.get(k);
    if (!entry) {
      entry = { id: this.goals.size, ...g };
      this.goals.set(k, entry);
    }
    return { kind: entry.kind, id: entry.id };
  }
  addNondet(n: NondetInfo): void {
    const k = locKey(n.loc);
    if (!this.nondets.has(k)) this.nondets.set(k, n);
  }
  addLoop(l: LoopInfo): void {
    const k = locKey(l.loc);
    if (!this.loops.has(k)) this.loops.set(k, l);
  }
  addBranch(b: BranchInfo): void {
    const k = locKey(b.loc);
    if (!this.branches.has(k)) this.branches.set(k, b);
  }
  addVariable(x: VariableInfo): void {
    this.variables.push(x);
  }
  build(): SourceMap {
    return {
      file: this.file,
      goals: [...this.goals.values()],
      nondets: [...this.nondets.values()],
      loops: [...this.loops.values()],
      branches: [...this.branches.values()],
      variables: [...this.variables],
    };
  }
}

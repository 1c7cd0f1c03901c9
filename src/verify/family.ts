// The program of one verification lowered per bound: recursion is inlined
// as deep as BMC's bound asks (a program without recursion is the same at
// every bound), with the lowering of each program kept for its source map.

import { EncodeError } from '../engines/index.js';
import { programSize, type ImpProgram } from '../ivl/ast.js';
import type { LoweredProgram } from '../lower/index.js';
import type { SourceMap } from '../lower/source-map.js';

const MAX_PROGRAM_SIZE = 400_000;

export class LoweredFamily {
  /** The lowerings made so far, by program (a witness ties the engine's loops and goals to C through them). */
  readonly lowerings: Map<ImpProgram, LoweredProgram>;
  /** Whether the lowering cut recursion at depth 1: deeper inlining changes the program. */
  readonly recursive: boolean;
  private readonly programs: Map<number, ImpProgram>;
  private readonly byDepth: Map<number, LoweredProgram>;
  private readonly sizes: Map<number, number>;
  private last: SourceMap;
  private established_ = 0;

  constructor(
    readonly first: LoweredProgram,
    /** The program lowered with recursion inlined `depth` deep. */
    readonly lowerAt: (depth: number) => LoweredProgram,
    /** Called with the largest bound up to which no violation exists, each time it grows. */
    private readonly onBound: ((bound: number) => void) | undefined,
    /** Called around each lowering (to charge its CPU time; the time before it to `phase`). */
    private readonly lowering: (during: () => LoweredProgram, phase: string) => LoweredProgram,
  ) {
    this.lowerings = new Map([[first.imp, first]]);
    this.programs = new Map([[1, first.imp]]);
    this.byDepth = new Map([[1, first]]);
    this.sizes = new Map([[1, programSize(first.imp)]]);
    this.last = first.sourceMap;
    this.recursive = first.sourceMap.goals.some((g) => g.kind === 'recursion');
  }

  /** The largest bound BMC has shown free of violations. */
  get established(): number {
    return this.established_;
  }

  /** The source map of the last lowering (the keys of its entries, C locations, are the same at every depth). */
  get sourceMap(): SourceMap {
    return this.last;
  }

  /** BMC's search showed no violation up to `bound` (at every bound it checked up to there). */
  noViolationUpTo(bound: number): void {
    if (bound <= this.established_) return;
    this.established_ = bound;
    this.onBound?.(bound);
  }

  /** The program at a bound (recursion inlined that deep); EncodeError when it would grow too large or change nothing. */
  programAt(bound: number): ImpProgram {
    if (!this.recursive) return this.first.imp;
    let p = this.programs.get(bound);
    if (p) return p;
    // Recursion inlined deeper grows the program, maybe exponentially:
    // extrapolate from the last two depths and stop before it explodes.
    const known = [...this.sizes.keys()].sort((a, b) => a - b);
    const last = this.sizes.get(known[known.length - 1]!)!;
    const prev = known.length > 1 ? this.sizes.get(known[known.length - 2]!)! : last;
    if (last * Math.max(1, last / Math.max(1, prev)) > MAX_PROGRAM_SIZE) {
      throw new EncodeError(`inlining recursion deeper than ${known[known.length - 1]} makes the program too large`);
    }
    const l = this.loweringAt(bound, 'bmc');
    if (l.unsupported) throw new EncodeError(`unsupported at recursion depth ${bound}: ${l.unsupported.construct}`);
    p = l.imp;
    this.sizes.set(bound, programSize(p));
    // The same size at a greater depth: the lowering's budget of inlined
    // bodies is spent, deeper depths change nothing, and without loops no
    // greater bound can either.
    if (this.sizes.get(bound) === last && this.first.sourceMap.loops.length === 0) {
      throw new EncodeError(`recursion deeper than ${known[known.length - 1]} exceeds the lowering's budget of inlined function bodies`);
    }
    this.last = l.sourceMap;
    this.programs.set(bound, p);
    this.lowerings.set(p, l);
    return p;
  }

  /** The program lowered with recursion inlined `depth` deep, made once; the time before it is charged to `phase`. */
  loweringAt(depth: number, phase: string): LoweredProgram {
    let l = this.byDepth.get(depth);
    if (!l) {
      l = this.lowering(() => this.lowerAt(depth), phase);
      this.byDepth.set(depth, l);
    }
    return l;
  }

  /**
   * The bound after `bound`: recursion that branches makes the program grow
   * exponentially with the inlining depth, so there the depth grows by one
   * (each step doubles the program, as doubling the bound doubles an
   * unrolled loop); otherwise the bound doubles.
   */
  nextBound(bound: number): number {
    const known = [...this.sizes.keys()].filter((b) => b < bound).sort((a, b) => a - b);
    const prev = known[known.length - 1];
    const now = this.sizes.get(bound);
    if (!this.recursive || prev === undefined || now === undefined) return bound * 2;
    const growthPerStep = Math.pow(now / Math.max(1, this.sizes.get(prev)!), 1 / (bound - prev));
    return growthPerStep >= 1.4 ? bound + 1 : bound * 2;
  }
}

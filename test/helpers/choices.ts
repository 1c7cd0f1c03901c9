// Random choices for the tests' program generators. Every draw comes from
// one seeded source, so a seed gives the same program again.

import { rng } from '../../src/common/random.js';

export class Choices {
  constructor(protected readonly r: () => number) {}

  /** Choices drawn from mulberry32 with this seed. */
  static seeded(seed: number): Choices {
    return new Choices(rng(seed));
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.r() * n);
  }

  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }

  chance(p: number): boolean {
    return this.r() < p;
  }
}

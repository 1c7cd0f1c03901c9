// Random C functions full of jumps, for the differential tests of the goto
// elimination and of the lowering: goto forward, backward, into and out of
// blocks, loops and if branches; switch with case labels at the top level or,
// as in Duff's device, inside nested statements; labels inside switch bodies;
// break, continue, return; declarations skipped by jumps (used right away
// only, so no run reads an indeterminate value). Every label spends gas, so
// every run ends. `int fN(int a, int b, int c)` returns a checksum `h`.

import { Choices } from './choices.js';

interface Ctx {
  depth: number;
  loops: number;
  breakable: boolean;
  inSwitch?: { duff: boolean; next: () => string | undefined };
}

/** Random functions `int fN(int a, int b, int c)` full of jumps; every label spends gas, so every run ends. */
export class JumpGen extends Choices {
  private labels: string[] = [];
  private unplaced: string[] = [];
  private temps = 0;
  private marks = 0;
  private expr(d: number): string {
    const v = this.pick(['a', 'b', 'c', 'h']);
    if (d === 0 || this.chance(0.3)) return this.chance(0.7) ? v : String(this.int(9) - 3);
    const s = () => this.expr(d - 1);
    switch (this.int(4)) {
      case 0: return `(${s()} ${this.pick(['+', '-', '*', '^', '&', '|'])} ${s()})`;
      case 1: return `(${s()} ${this.pick(['<', '<=', '>', '==', '!='])} ${s()})`;
      case 2: return `(${s()} ${this.pick(['&&', '||'])} ${s()})`;
      default: return `(${v}++ ${this.pick(['<', '>'])} ${this.int(7) - 2})`;
    }
  }
  private mark(): string {
    return `h = h * 31 + a + 3 * b + 7 * c + ${++this.marks};`;
  }
  private labelUnit(): string[] {
    const l = this.unplaced.shift()!;
    return [`${l}: if (--gas < 0) return h + 1000;`, this.mark()];
  }
  block(ctx: Ctx, n: number): string[] {
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      if (this.unplaced.length && this.chance(0.25)) out.push(...this.labelUnit());
      out.push(...this.stmt(ctx));
    }
    return out;
  }
  private loopBody(ctx: Ctx): string[] {
    return this.block({ ...ctx, depth: ctx.depth + 1, loops: ctx.loops + 1, breakable: true }, 1 + this.int(3));
  }
  stmt(ctx: Ctx): string[] {
    const nested = ctx.depth < 4;
    const kinds = ['assign', 'assign', 'mark', 'decl', 'goto', 'goto', 'goto'];
    if (nested) kinds.push('if', 'if', 'switch', 'block');
    if (nested && ctx.loops < 3) kinds.push('loop', 'loop');
    if (ctx.breakable) kinds.push('break');
    if (ctx.loops > 0) kinds.push('continue');
    if (ctx.inSwitch) kinds.push('case', 'case');
    kinds.push('return');
    const guard = () => (this.chance(0.7) ? `if (${this.expr(2)}) ` : '');
    const inner = { ...ctx, depth: ctx.depth + 1 };
    switch (this.pick(kinds)) {
      case 'assign':
        return [`${this.pick(['a', 'b', 'c'])} ${this.pick(['=', '+=', '-=', '^='])} ${this.expr(2)};`];
      case 'mark':
        return [this.mark()];
      case 'decl': {
        // Used right away only: a jump past the declaration never reads it.
        const t = `t${++this.temps}`;
        return [`int ${t} = ${this.expr(2)};`, `a ^= ${t};`];
      }
      case 'goto':
        return [`${guard()}goto ${this.pick(this.labels)};`];
      case 'break':
        return [`${guard()}break;`];
      case 'continue':
        return [`${guard()}continue;`];
      case 'return':
        return [`if (${this.expr(2)}) return h;`];
      case 'case': {
        const label = ctx.inSwitch!.next();
        return label ? [`${label} ;`] : [this.mark()];
      }
      case 'block':
        return ['{', ...this.block(inner, 1 + this.int(3)), '}'];
      case 'if': {
        const s = [`if (${this.expr(2)}) {`, ...this.block(inner, 1 + this.int(3)), '}'];
        if (this.chance(0.5)) s.push('else {', ...this.block(inner, 1 + this.int(3)), '}');
        return s;
      }
      case 'loop': {
        const i = `i${ctx.loops}`;
        const n = 1 + this.int(4);
        const kind = this.pick(['for', 'while', 'do']);
        const body = this.loopBody(ctx);
        if (kind === 'for') return [`for (${i} = 0; ${i} < ${n}; ${i}++) {`, ...body, '}'];
        if (kind === 'while') return [`${i} = 0;`, `while (${i}++ < ${n}) {`, ...body, '}'];
        return [`${i} = 0;`, 'do {', ...body, `} while (++${i} < ${n});`];
      }
      case 'switch': {
        // Case labels at the top level, or (Duff's device) also inside nested statements.
        const duff = this.chance(0.5);
        const values = ['case 0:', 'case 1:', 'case 2:', 'default:'].filter(() => this.chance(0.8));
        const pending = [...values];
        const sw: Ctx = { ...inner, breakable: true, inSwitch: { duff, next: () => (duff ? pending.shift() : undefined) } };
        const s = [`switch (${this.expr(2)} & 3) {`];
        while (pending.length) {
          s.push(`${pending.shift()} ;`, ...this.block(sw, this.int(3)));
          if (this.chance(0.4)) s.push('break;');
          if (duff && this.chance(0.5)) s.push(...this.stmt(sw));
        }
        s.push('}');
        return s;
      }
      default:
        return [this.mark()];
    }
  }
  fn(name: string): string[] {
    this.labels = Array.from({ length: 1 + this.int(5) }, (_, k) => `${name}_L${k}`);
    this.unplaced = [...this.labels].sort(() => this.r() - 0.5);
    const ctx: Ctx = { depth: 0, loops: 0, breakable: false };
    const body = this.block(ctx, 2 + this.int(4));
    while (this.unplaced.length) body.push(...this.labelUnit(), ...(this.chance(0.5) ? this.stmt(ctx) : []));
    return [`int ${name}(int a, int b, int c) {`, '  int h = 0, gas = 30, i0 = 0, i1 = 0, i2 = 0;', ...body, '  return h;', '}'];
  }
}

export const INPUTS = [
  [0, 0, 0], [1, 2, 3], [-1, 5, -2], [3, -4, 7], [7, 7, 1], [-5, 0, 2], [2, 9, -3], [100, -100, 5],
];


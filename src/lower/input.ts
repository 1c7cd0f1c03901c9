// The C library's input from stdin as nondeterministic input: `scanf` with
// integer and character conversions, `getchar`. The input is arbitrary, so
// each outcome the C standard allows is possible: scanf's result is EOF or
// the number of items assigned (C11 7.21.6.2p16), each assigned item any
// value of its type, the rest unchanged; getchar's is EOF or an unsigned char.
// Methods of the Lowerer (lower.ts).
import type { Call } from '../c/ast.js';
import { unqualified } from '../c/types.js';
import type { BvWidth } from '../ivl/ast.js';
import { bvType } from '../ivl/ast.js';
import { and, app, bv, havoc, ifs, type L, v } from './imp-build.js';
import { UnsupportedError, type Val, intKindOf, intWidth } from './memory.js';
import { stripCasts } from './common.js';
import type { Lowerer } from './lower.js';

export const INPUT_FUNCTIONS = new Set(['scanf', 'getchar']);

/** One conversion of a scanf format: the width in bits of the integer it assigns, undefined when suppressed (`%*d`). */
interface Conversion {
  readonly text: string;
  readonly bits?: number;
}

/** The conversions of a scanf format; a conversion the model does not know (strings, floats, %n) is unsupported. */
function conversions(format: string, pw: number, longBits: number, loc: L): Conversion[] {
  const out: Conversion[] = [];
  const re = /%(\*?)(\d*)(hh|h|ll|l|j|z|t|L|q)?(.)/gs;
  for (let m = re.exec(format); m; m = re.exec(format)) {
    const [text, star, width, length, conv] = m;
    if (conv === '%' && !star && !width && !length) continue;
    let bits: number;
    if ('diouxX'.includes(conv)) {
      const sizes: Record<string, number> = { hh: 8, h: 16, '': 32, l: longBits, ll: 64, q: 64, j: 64, z: pw, t: pw };
      const b = sizes[length ?? ''];
      if (b === undefined) throw new UnsupportedError(`scanf conversion '${text}'`, loc);
      bits = b;
    } else if (conv === 'c' && !length && (width === '' || width === '1')) {
      bits = 8;
    } else {
      throw new UnsupportedError(`scanf conversion '${text}'`, loc);
    }
    out.push(star ? { text } : { text, bits });
  }
  if (/%/.test(format.replace(re, ''))) throw new UnsupportedError('scanf format with an incomplete conversion', loc);
  return out;
}

export class InputLowering {
  /** A call of one of INPUT_FUNCTIONS. */
  input(this: Lowerer, e: Call, name: string): Val {
    const loc = e.loc;
    const ret = unqualified(e.function!.type.returnType);
    if (intKindOf(ret) !== 'int') throw new UnsupportedError(`${name} not returning int`, loc);
    const r = this.temp(bvType(32), `$${name}`);
    const signedIn = (lo: bigint, hi: bigint) => and(app('sle', [bv(BigInt.asUintN(32, lo), 32, loc), v(r, loc)], loc), app('sle', [v(r, loc), bv(hi, 32, loc)], loc), loc);
    if (name === 'getchar') {
      if (e.args.length) throw new UnsupportedError(`getchar with ${e.args.length} arguments`, loc);
      this.emit(havoc(r, loc));
      this.assumeThat(signedIn(-1n, 255n), loc, 'c-value');
      return { k: 'int', e: v(r, loc), ik: 'int' };
    }
    const f = e.args.length ? stripCasts(e.args[0]) : undefined;
    if (!f || f.kind !== 'StringLiteral') throw new UnsupportedError('scanf with a format that is not a string literal', loc);
    const format = String.fromCharCode(...f.units.map(Number));
    const convs = conversions(format, this.pw, intWidth('long', this.dm, loc), loc);
    const assigned = convs.filter((c) => c.bits !== undefined);
    if (e.args.length !== 1 + assigned.length) throw new UnsupportedError(`scanf with ${e.args.length - 1} arguments for ${assigned.length} conversions`, loc);
    const targets = e.args.slice(1).map((a, i) => {
      const t = unqualified(a.type);
      const k = t.kind === 'pointer' ? intKindOf(t.pointee) : undefined;
      if (t.kind !== 'pointer' || k === undefined || k === 'bool' || intWidth(k, this.dm, loc) !== assigned[i].bits) {
        throw new UnsupportedError(`scanf conversion '${assigned[i].text}' into an argument of another type`, a.loc);
      }
      return { p: this.snapshot(this.rv(a), a.loc), pointee: t.pointee, w: intWidth(k, this.dm, loc) as BvWidth };
    });
    this.emit(havoc(r, loc));
    this.assumeThat(signedIn(-1n, BigInt(assigned.length)), loc, 'c-value');
    targets.forEach(({ p, pointee, w }, i) => {
      // Item i is assigned when the result says more than i items were.
      const [writes] = this.buffer(() => {
        const x = this.temp(bvType(w), '$in');
        this.emit(havoc(x, loc));
        this.store(this.deref(p, pointee, loc), { k: 'int', e: v(x, loc), ik: intKindOf(pointee)! }, loc);
      });
      this.emit(ifs(app('slt', [bv(BigInt(i), 32, loc), v(r, loc)], loc), writes, [], loc));
    });
    return { k: 'int', e: v(r, loc), ik: 'int' };
  }
}

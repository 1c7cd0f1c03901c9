// Initialised globals compared byte for byte with the data gcc emits: checks
// the semantic form of initializers (designators, brace elision, unions,
// strings, bit-fields) together with struct layouts and constant values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCProgram, evaluateInteger, evaluateFloat, sizeOf, type CProgram, type CType, type DataModel, type Initializer, type Expr } from '../../src/c/index.js';

const work = mkdtempSync(join(tmpdir(), 'tarsier-init-'));

/** Bytes of every global in gcc's assembly (data directives between a label and the next symbol). */
function gccData(source: string, dm: DataModel): Map<string, number[]> | string {
  const file = join(work, `init-${dm}.c`);
  writeFileSync(file, source);
  const r = spawnSync('gcc', [dm === 'LP64' ? '-m64' : '-m32', '-S', '-O0', '-w', '-fno-zero-initialized-in-bss', '-o', '-', file], { encoding: 'utf8' });
  if (r.error) return `gcc is not available (${r.error.message})`;
  if (r.status !== 0) return `gcc failed: ${r.stderr.split('\n').slice(0, 3).join(' | ')}`;
  const out = new Map<string, number[]>();
  let cur: number[] | undefined;
  const le = (v: bigint, n: number) => {
    for (let i = 0; i < n; i++) cur!.push(Number(BigInt.asUintN(8, v >> BigInt(8 * i))));
  };
  for (const line of r.stdout.split('\n')) {
    const label = /^([A-Za-z_]\w*):$/.exec(line);
    if (label) {
      cur = [];
      out.set(label[1], cur);
      continue;
    }
    if (!cur) continue;
    const m = /^\s+\.(byte|value|long|quad|zero|string|ascii)\s+(.*)$/.exec(line);
    if (!m) {
      if (/^\s+\.(size|globl|type|section|text|data|bss|local|comm|ident)\b/.test(line)) cur = undefined;
      continue;
    }
    const arg = m[2].trim();
    switch (m[1]) {
      case 'byte': le(BigInt(arg), 1); break;
      case 'value': le(BigInt(arg), 2); break;
      case 'long': le(BigInt(arg), 4); break;
      case 'quad': le(BigInt(arg), 8); break;
      case 'zero': for (let i = 0; i < Number(arg); i++) cur.push(0); break;
      default: {
        const body = arg.slice(1, -1);
        for (let i = 0; i < body.length; i++) {
          if (body[i] !== '\\') {
            cur.push(body.charCodeAt(i));
            continue;
          }
          const e = body[++i];
          if (/[0-7]/.test(e)) {
            let j = i;
            while (j < i + 3 && /[0-7]/.test(body[j])) j++;
            cur.push(Number.parseInt(body.slice(i, j), 8));
            i = j - 1;
          } else cur.push({ n: 10, t: 9, r: 13, b: 8, f: 12, v: 11, a: 7 }[e as 'n'] ?? e.charCodeAt(0));
        }
        if (m[1] === 'string') cur.push(0);
      }
    }
  }
  return out;
}

function floatBytes(v: number, t: CType, dm: DataModel): number[] {
  const size = sizeOf(t, dm)!;
  const b = Buffer.alloc(size);
  if (size === 4) b.writeFloatLE(v);
  else if (size === 8) b.writeDoubleLE(v);
  else {
    // x87 extended: 64-bit mantissa with explicit integer bit, 15-bit exponent, sign.
    const d = Buffer.alloc(8);
    d.writeDoubleLE(v);
    const bits = d.readBigUInt64LE();
    const sign = Number(bits >> 63n);
    const exp = Number((bits >> 52n) & 0x7ffn);
    const frac = bits & ((1n << 52n) - 1n);
    if (v !== 0) {
      b.writeBigUInt64LE((1n << 63n) | (frac << 11n), 0);
      b.writeUInt16LE((sign << 15) | (exp - 1023 + 16383), 8);
    } else b.writeUInt16LE(sign << 15, 8);
  }
  return [...b];
}

/** Our bytes for a global: its initializer laid out with our layouts and constant values. */
function ourBytes(prog: CProgram, t: CType, init: Initializer | undefined): number[] {
  const dm = prog.dataModel;
  const buf = new Array<number>(sizeOf(t, dm)!).fill(0);
  const put = (off: number, type: CType, e: Initializer): void => {
    if (e.kind === 'InitList') {
      if (type.kind === 'array') for (const it of e.items) put(off + it.target * sizeOf(type.element, dm)!, type.element, it.value);
      else if (type.kind === 'record') {
        for (const it of e.items) {
          const f = type.record.fields![it.target];
          if (f.bitWidth !== undefined) {
            const v = evaluateInteger(prog, it.value as Expr)!;
            const start = f.offset * 8 + f.bitOffset!;
            for (let k = 0; k < f.bitWidth; k++) {
              const bit = Number((BigInt.asUintN(f.bitWidth, v) >> BigInt(k)) & 1n);
              const pos = start + k;
              buf[pos >> 3] = (buf[pos >> 3] & ~(1 << (pos & 7))) | (bit << (pos & 7));
            }
          } else put(off + f.offset, f.type, it.value);
        }
      } else if (e.items.length) put(off, type, e.items[0].value);
      return;
    }
    if (e.kind === 'StringLiteral' && type.kind === 'array') {
      const w = sizeOf(type.element, dm)!;
      e.units.forEach((u, i) => {
        for (let k = 0; k < w; k++) buf[off + i * w + k] = (u >> (8 * k)) & 0xff;
      });
      return;
    }
    if (type.kind === 'float') {
      const v = evaluateFloat(prog, e as Expr);
      assert.ok(v !== undefined, 'constant float initializer');
      floatBytes(type.name === 'float' ? Math.fround(v) : v, type, dm).forEach((x, i) => (buf[off + i] = x));
      return;
    }
    const v = evaluateInteger(prog, e as Expr);
    assert.ok(v !== undefined, 'constant initializer');
    const n = sizeOf(type, dm)!;
    for (let k = 0; k < n; k++) buf[off + k] = Number(BigInt.asUintN(8, v >> BigInt(8 * k)));
  };
  if (init) put(0, t, init);
  return buf;
}

const PROGRAM = `
struct bf { unsigned a:3; int b:5; char c; unsigned d:20; long long e; _Bool f; };
struct bf g1 = { 5, -3, 'x', 1000, -1LL, 7 };
char g2[] = "hi\\377";
short g3[4] = { 1, [3] = -2 };
double g4 = 1.5;
long double g5 = 2.5L;
float g6[2] = { 1.0f, -2.0f };
struct pt { int x, y; };
struct pt g7[] = { 1, 2, [3] = { .y = 7 }, 5 };
int g8[2][3] = { 1, 2, 3, 4 };
int g9[2][3] = { { 1 }, { 4, 5 } };
union u { int i; char c[6]; short s; } g10 = { .c = "ab" }, g11 = { 0x01020304 };
struct nest { char tag; struct pt p[2]; union u un; } g12 = { 'n', { { 1, 2 }, 3 }, .un.s = -1 };
struct nest g13 = { .p[1].y = 9, .p[0] = { 4 }, 'z' };
char g14[6] = { "ab" };
unsigned char g15[4] = { 255, 256, -1 };
int g16[] = { [0 ... 3] = 7, [5] = 1 };
struct anon { int x; union { int y; float z; }; struct { char p, q; }; } g17 = { 1, { 2 }, { 'a', 'b' } };
enum col { R = 2, G = 5 } g18 = G;
long g19[3] = { -1L, 1L << 20, sizeof(struct nest) };
struct { char a; long double b; short c; } g20 = { 1, 1.0L, 2 };
wchar_t_placeholder
struct q3 { int a[3]; struct pt p; char s[4]; } g22 = { .a[1] = 1, 2, 3, 4, .s = "xy" };
int g23[3][3] = { [1][2] = 5, 6, [0] = { 1 }, 7 };
struct q3 g24 = { .p.y = 1, "ab" };
union u g25[2] = { 1, { .s = 3 } };
struct q3 g26[] = { [1].p = { 1, 2 }, [0].a = { 9 }, 8 };
int g27[2][2] = { [0][1] = 3, [0] = { 4 } };
struct pt g28 = { .y = 5, .x = 6, 7 };
#pragma pack(push, 1)
struct pb { char a:4; int b:30; char c; unsigned d:7; } g29 = { 3, -5, 'q', 100 };
#pragma pack(4)
struct pc { char a:4; int b:30; char c; short d:9; int e:20; long long f; } g31 = { 3, -5, 'q', 100, 77, -2 };
#pragma pack(pop)
struct p7 { char c; unsigned x:12 __attribute__((packed)); unsigned y:30; } g30 = { 1, 4095, 123456 };
`.replace('wchar_t_placeholder', 'int g21[] = { (int)3.7, (char)300, 1 ? 2 : 3, (unsigned short)-1 };');

test('initialised globals have the bytes gcc emits', (t) => {
  const probe = gccData('int x = 1;\n', 'ILP32');
  if (typeof probe === 'string') {
    t.skip(`skipped: ${probe}`);
    return;
  }
  for (const dm of ['ILP32', 'LP64'] as const) {
    const data = gccData(PROGRAM, dm);
    assert.ok(typeof data !== 'string', String(data));
    const prog = parseCProgram(PROGRAM, 'init.c', { dataModel: dm });
    let n = 0;
    for (const g of prog.globals) {
      const theirs = data.get(g.name);
      assert.ok(theirs, `gcc data for ${g.name}`);
      assert.deepEqual(ourBytes(prog, g.type, g.init), theirs.slice(0, sizeOf(g.type, dm)), `${dm}: bytes of ${g.name}`);
      n++;
    }
    assert.equal(n, 31);
  }
});

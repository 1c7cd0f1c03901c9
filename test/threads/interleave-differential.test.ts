// Differential test of the interleaving (threads/interleave.ts) and its
// explicit exploration (threads/explore.ts): for small random programs with
// threads (assignments between globals, a mutex, atomic sections, creation
// and joins), the final states the exploration reaches are exactly those a
// brute-force scheduler reaches, switching threads before every access to
// a global, every lock and every join.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { needTools } from '../helpers/tools.js';
import { lowerC, parseC } from '../../src/verify/frontend.js';
import { interleave } from '../../src/threads/interleave.js';
import { exploreInterleavings } from '../../src/threads/explore.js';
import { goalRolesOf } from '../../src/properties/index.js';
import { rng } from '../../src/invariants/random.js';

const noCpp = needTools('cpp');
const GLOBALS = 3;

type Assign = { readonly dst: number; readonly src?: number; readonly c: number };
type Op = { readonly kind: 'assign'; readonly a: Assign } | { readonly kind: 'locked' | 'atomic'; readonly body: readonly Assign[] };
interface Program {
  /** Per worker (thread 1, 2, ...), its operations. */
  readonly workers: readonly (readonly Op[])[];
  /** Main's operations before the creations, between them and after (length workers + 1). */
  readonly main: readonly (readonly Op[])[];
}

function randomProgram(seed: number): Program {
  const r = rng(seed);
  const int = (n: number) => Math.floor(r() * n);
  const assign = (): Assign => (r() < 0.7 ? { dst: int(GLOBALS), src: int(GLOBALS), c: int(3) } : { dst: int(GLOBALS), c: int(4) });
  const op = (): Op => {
    const x = r();
    if (x < 0.6) return { kind: 'assign', a: assign() };
    return { kind: x < 0.8 ? 'locked' : 'atomic', body: Array.from({ length: 1 + int(2) }, assign) };
  };
  const ops = (max: number) => Array.from({ length: int(max + 1) }, op);
  const n = 1 + int(2);
  return { workers: Array.from({ length: n }, () => [op(), ...ops(2)]), main: Array.from({ length: n + 1 }, () => ops(2)) };
}

function cOf(p: Program): string {
  const a = (x: Assign) => `g${x.dst} = ${x.src === undefined ? '' : `g${x.src} + `}${x.c};`;
  const op = (o: Op): string =>
    o.kind === 'assign'
      ? a(o.a)
      : o.kind === 'locked'
        ? `pthread_mutex_lock(&m); ${o.body.map(a).join(' ')} pthread_mutex_unlock(&m);`
        : `__VERIFIER_atomic_begin(); ${o.body.map(a).join(' ')} __VERIFIER_atomic_end();`;
  const lines = [
    '#include <pthread.h>',
    'extern void __VERIFIER_atomic_begin(void);',
    'extern void __VERIFIER_atomic_end(void);',
    `int ${Array.from({ length: GLOBALS }, (_, i) => `g${i}`).join(', ')};`,
    'pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;',
    ...p.workers.map((w, i) => `void *w${i + 1}(void *arg) { ${w.map(op).join(' ')} return 0; }`),
    'int main(void) {',
    `  pthread_t ${p.workers.map((_, i) => `t${i + 1}`).join(', ')};`,
  ];
  p.main.forEach((ops, i) => {
    lines.push(`  ${ops.map(op).join(' ')}`);
    if (i < p.workers.length) lines.push(`  pthread_create(&t${i + 1}, 0, w${i + 1}, 0);`);
  });
  lines.push(...p.workers.map((_, i) => `  pthread_join(t${i + 1}, 0);`), '  return 0;', '}');
  return lines.join('\n') + '\n';
}

/** One step of a thread for the brute-force scheduler. */
type Action =
  | { readonly kind: 'read'; readonly g: number }
  | { readonly kind: 'write'; readonly a: Assign }
  | { readonly kind: 'atomic'; readonly body: readonly Assign[] }
  | { readonly kind: 'lock' | 'unlock' }
  | { readonly kind: 'create' | 'join'; readonly worker: number };

function actions(ops: readonly Op[]): Action[] {
  const out: Action[] = [];
  const assign = (a: Assign) => {
    if (a.src !== undefined) out.push({ kind: 'read', g: a.src });
    out.push({ kind: 'write', a });
  };
  for (const o of ops) {
    if (o.kind === 'assign') assign(o.a);
    else if (o.kind === 'atomic') out.push({ kind: 'atomic', body: o.body });
    else {
      out.push({ kind: 'lock' });
      o.body.forEach(assign);
      out.push({ kind: 'unlock' });
    }
  }
  return out;
}

/** The final values of the globals over every interleaving of the actions (a switch possible before each one). */
function bruteForce(p: Program): Set<string> {
  const threads: Action[][] = [[]];
  p.main.forEach((ops, i) => {
    threads[0]!.push(...actions(ops));
    if (i < p.workers.length) threads[0]!.push({ kind: 'create', worker: i + 1 });
  });
  threads[0]!.push(...p.workers.map((_, i): Action => ({ kind: 'join', worker: i + 1 })));
  p.workers.forEach((w) => threads.push(actions(w)));
  type S = { pc: number[]; started: boolean[]; tmp: number[]; g: number[]; holder: number };
  const finals = new Set<string>();
  const seen = new Set<string>();
  const visit = (s: S) => {
    const key = JSON.stringify(s);
    if (seen.has(key)) return;
    seen.add(key);
    if (s.pc[0] === threads[0]!.length) {
      finals.add(s.g.join(','));
      return;
    }
    threads.forEach((acts, t) => {
      if (!s.started[t] || s.pc[t]! >= acts.length) return;
      const a = acts[s.pc[t]!]!;
      const n: S = { pc: [...s.pc], started: [...s.started], tmp: [...s.tmp], g: [...s.g], holder: s.holder };
      const write = (x: Assign, tmp: number) => (n.g[x.dst] = (x.src === undefined ? 0 : tmp) + x.c);
      switch (a.kind) {
        case 'read':
          n.tmp[t] = n.g[a.g]!;
          break;
        case 'write':
          write(a.a, n.tmp[t]!);
          break;
        case 'atomic':
          for (const x of a.body) write(x, x.src === undefined ? 0 : n.g[x.src]!);
          break;
        case 'lock':
          if (n.holder >= 0) return;
          n.holder = t;
          break;
        case 'unlock':
          n.holder = -1;
          break;
        case 'create':
          n.started[a.worker] = true;
          break;
        case 'join':
          if (n.pc[a.worker]! < threads[a.worker]!.length) return;
          break;
      }
      n.pc[t]!++;
      visit(n);
    });
  };
  visit({ pc: threads.map(() => 0), started: threads.map((_, t) => t === 0), tmp: threads.map(() => 0), g: Array.from({ length: GLOBALS }, () => 0), holder: -1 });
  return finals;
}

test('the explored interleavings end in exactly the states a brute-force scheduler reaches', { skip: noCpp }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-interleave-'));
  try {
    for (let seed = 1; seed <= 30; seed++) {
      const p = randomProgram(seed);
      const source = cOf(p);
      const file = join(dir, `p${seed}.c`);
      writeFileSync(file, source);
      const lowered = lowerC(parseC(file, 'ILP32'), { passes: ['error-calls'], dataModel: 'ILP32', recursionDepth: 1 });
      assert.equal(lowered.unsupported, undefined, source);
      const finals = new Set<string>();
      const e = exploreInterleavings(interleave(lowered.imp).program, {
        roles: goalRolesOf('unreach-call'),
        budgetMs: 60_000,
        onEnd: (values) => {
          const g = Array.from({ length: GLOBALS }, (_, i) => {
            const v = values.get(`g${i}`);
            // A global the program never uses is not lowered: it keeps its 0.
            if (v === undefined && (source.match(new RegExp(`\\bg${i}\\b`, 'g')) ?? []).length === 1) return '0';
            assert.ok(v?.kind === 'bv', `g${i} is known at the end`);
            return String(BigInt.asIntN(32, v.value));
          });
          finals.add(g.join(','));
        },
      });
      assert.equal(e.verdict, 'true', `${e.reason}\n${source}`);
      assert.deepEqual([...finals].sort(), [...bruteForce(p)].sort(), source);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// The differential soundness test: random C programs whose nondet inputs
// range over small domains, so that every execution can be run. Each
// program is compiled by gcc with sanitizers in both data models and run on
// every input; then Tarsier verifies it. Whenever some run reaches
// reach_error or a sanitizer reports a violation, Tarsier must never answer
// TRUE; whenever none does, never FALSE.
//
// The programs mix the places where C leaves behaviour undefined or
// implementation-defined: VLAs of zero and negative size, shifts by the
// width, INT_MIN / -1, division by zero, out-of-range conversions, pointer
// arithmetic past the end, calls after undefined behaviour, and block-local
// arrays re-entered in loops.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Choices } from './choices.js';
import { runsI386Programs } from '../../src/replay/i386.js';

/** What a program may contain (the npm-test run can leave out what has known open defects). */
export interface Features {
  readonly divisions: boolean;
  readonly shifts: boolean;
  readonly vlas: boolean;
  readonly arrays: boolean;
  readonly pointers: boolean;
  readonly reentered: boolean;
  readonly calls: boolean;
}
export const ALL_FEATURES: Features = { divisions: true, shifts: true, vlas: true, arrays: true, pointers: true, reentered: true, calls: true };

export interface Program {
  readonly text: string;
  /** The domain of each nondet input, in call order. */
  readonly domains: readonly (readonly number[])[];
}

const TYPES = ['int', 'unsigned int', 'long', 'long long', 'char', 'unsigned char', 'short'] as const;
const CONSTANTS = ['0', '1', '2', '-1', '3', '7', '31', '32', '64', '100000', '65536', '2147483647', '(-2147483647 - 1)', '4294967295u', '255'];
const INPUT_VALUES = [-2147483647 - 1, -3, -1, 0, 1, 2, 3, 4, 31, 32, 2147483647];

/** One random program. */
export function generateProgram(rng: Choices, features: Features = ALL_FEATURES): Program {
  const inputs = 1 + rng.int(2);
  const domains: number[][] = [];
  const vars: { name: string; type: string }[] = [];
  const lines: string[] = [];
  let fresh = 0;
  const body: string[] = [];
  const indent = (d: number) => '  '.repeat(d);

  for (let k = 0; k < inputs; k++) {
    const values = [...new Set(Array.from({ length: 2 + rng.int(2) }, () => rng.pick(INPUT_VALUES)))].sort((a, b) => a - b);
    domains.push(values);
    body.push(`  int x${k} = __VERIFIER_nondet_int();`);
    body.push(`  __VERIFIER_assume(${values.map((v) => `x${k} == ${cint(v)}`).join(' || ')});`);
    vars.push({ name: `x${k}`, type: 'int' });
  }
  const locals = 2 + rng.int(2);
  for (let k = 0; k < locals; k++) {
    const type = rng.pick(TYPES);
    const name = `v${k}`;
    body.push(`  ${type} ${name} = ${rng.pick(CONSTANTS)};`);
    vars.push({ name, type });
  }
  const arrays = features.arrays || features.pointers;
  if (arrays) body.push('  int arr[4] = {1, 2, 3, 4};');

  const atom = (): string => (rng.chance(0.6) ? rng.pick(vars).name : rng.pick(CONSTANTS));
  const binops = ['+', '-', '*', '&', '|', '^', '<', '==', '!=', '>='];
  if (features.divisions) binops.push('/', '%');
  if (features.shifts) binops.push('<<', '>>');
  const expr = (depth: number): string => {
    if (depth <= 0 || rng.chance(0.3)) return atom();
    switch (rng.int(6)) {
      case 0:
        return `(${rng.pick(['-', '~', '!'])}${expr(depth - 1)})`;
      case 1:
        return `((${rng.pick(TYPES)})${expr(depth - 1)})`;
      case 2:
        return arrays && features.arrays ? `arr[${index()}]` : atom();
      default:
        return `(${expr(depth - 1)} ${rng.pick(binops)} ${expr(depth - 1)})`;
    }
  };
  // Indexes mostly in bounds, sometimes not.
  const index = (): string => (rng.chance(0.7) ? `(${rng.pick(vars).name} & 3)` : rng.pick(['x0', '4', '-1', `(${rng.pick(vars).name} % 5)`]));
  const cond = (): string => `${expr(2)} ${rng.pick(['<', '>', '==', '!=', '<=', '>='])} ${expr(1)}`;
  const assignable = () => rng.pick(vars.filter((v) => v.name.startsWith('v')));

  const stmt = (depth: number): string[] => {
    const d = indent(depth);
    const choice = rng.int(12);
    if (choice <= 3) return [`${d}${assignable().name} = ${expr(3)};`];
    if (choice === 4 && depth < 3) {
      const then = block(depth + 1, 1 + rng.int(2));
      const els = rng.chance(0.5) ? block(depth + 1, 1 + rng.int(2)) : [];
      return [`${d}if (${cond()}) {`, ...then, ...(els.length ? [`${d}} else {`, ...els] : []), `${d}}`];
    }
    if (choice === 5 && depth < 3) {
      const i = `i${fresh++}`;
      return [`${d}for (int ${i} = 0; ${i} < ${1 + rng.int(3)}; ${i}++) {`, ...block(depth + 1, 1 + rng.int(2)), `${d}}`];
    }
    if (choice === 6) return [`${d}if (${cond()}) reach_error();`];
    if (choice === 7 && features.vlas) {
      const n = `n${fresh++}`;
      const a = `a${fresh++}`;
      const v = assignable();
      return [`${d}{`, `${d}  int ${n} = ${expr(2)} % 4;`, `${d}  int ${a}[${n}];`, `${d}  ${a}[0] = ${expr(1)};`, `${d}  ${v.name} = ${a}[0];`, `${d}}`];
    }
    if (choice === 8 && features.arrays) return rng.chance(0.5) ? [`${d}arr[${index()}] = ${expr(2)};`] : [`${d}${assignable().name} = arr[${index()}];`];
    if (choice === 9 && features.pointers) {
      const p = `p${fresh++}`;
      return [`${d}{`, `${d}  int *${p} = arr + ${rng.pick(['1', '3', '4', '(x0 & 3)', '(x0 & 7)'])};`, `${d}  ${assignable().name} = *${p};`, `${d}}`];
    }
    if (choice === 10 && features.reentered && depth < 3) {
      const i = `i${fresh++}`;
      const t = `t${fresh++}`;
      const v = assignable();
      return [
        `${d}for (int ${i} = 0; ${i} < 2; ${i}++) {`,
        `${d}  int ${t}[2];`,
        `${d}  if (${i} == 0) ${t}[0] = ${expr(1)};`,
        `${d}  ${v.name} = ${t}[0];`,
        `${d}}`,
      ];
    }
    if (choice === 11 && features.calls) return [`${d}${assignable().name} = f(${expr(2)}, ${expr(2)});`];
    return [`${d}${assignable().name} = ${expr(2)};`];
  };
  const block = (depth: number, n: number): string[] => Array.from({ length: n }, () => stmt(depth)).flat();

  body.push(...block(1, 3 + rng.int(5)));
  body.push(`  if (${cond()}) reach_error();`);
  body.push('  return 0;');

  lines.push('extern int __VERIFIER_nondet_int(void);');
  lines.push('extern void __VERIFIER_assume(int);');
  lines.push('extern void abort(void);');
  lines.push('void reach_error(void) { abort(); }');
  if (features.calls) {
    const fop = rng.pick(features.divisions ? ['+', '*', '-', '/', '%'] : ['+', '*', '-']);
    lines.push(`int f(int a, int b) { if (a > b) return a ${fop} b; return b - a; }`);
  }
  lines.push('int main(void) {', ...body, '}');
  return { text: lines.join('\n') + '\n', domains };
}

function cint(v: number): string {
  return v === -2147483647 - 1 ? '(-2147483647 - 1)' : String(v);
}

export type Property = 'unreach-call' | 'no-overflow';
export type Model = 'ILP32' | 'LP64';

/** What the runs of a program show under a property and a data model. */
export interface Oracle {
  /** Some run reached reach_error, overflowed (no-overflow), or had other undefined behaviour. */
  readonly bad: boolean;
  /** The first such run: its inputs and what happened. */
  readonly example?: string;
  /** Why the oracle has no answer (gcc missing, a compile error): the program is skipped. */
  readonly unavailable?: string;
}

const HARNESS = `
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
static int tarsier_argc; static char **tarsier_argv; static int tarsier_next = 1;
__attribute__((constructor)) static void tarsier_init(int argc, char **argv) { tarsier_argc = argc; tarsier_argv = argv; }
int __VERIFIER_nondet_int(void) { if (tarsier_next >= tarsier_argc) _exit(85); return atoi(tarsier_argv[tarsier_next++]); }
void __VERIFIER_assume(int c) { if (!c) _exit(84); }
void abort(void) { fputs("ORACLE: abort\\n", stderr); _exit(86); }
`;

/**
 * The undefined behaviour each property's runs check. Under unreach-call
 * signed arithmetic wraps (the model's and the competition's reading), so
 * neither signed overflow nor an overflowing left shift counts there.
 */
const SANITIZE: Record<Property, string[]> = {
  'unreach-call': ['-fwrapv', '-fsanitize=address,undefined', '-fno-sanitize=signed-integer-overflow,shift-base', '-fno-sanitize-recover=all'],
  'no-overflow': ['-fsanitize=address,undefined', '-fno-sanitize-recover=all'],
};

/** Compiles the program for one property and data model and runs it on every input. */
export function runOracle(text: string, domains: readonly (readonly number[])[], property: Property, model: Model): Oracle {
  // AddressSanitizer's -m32 programs hang under qemu-i386: they run only where the kernel runs them.
  if (model === 'ILP32' && !runsI386Programs()) return { bad: false, unavailable: "this kernel does not run 32-bit programs, and AddressSanitizer's hang under qemu-i386" };
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-soundness-'));
  try {
    writeFileSync(join(dir, 'p.c'), text);
    writeFileSync(join(dir, 'h.c'), HARNESS);
    const exe = join(dir, 'p');
    const c = spawnSync('gcc', [model === 'ILP32' ? '-m32' : '-m64', '-O0', '-w', '-g', ...SANITIZE[property], join(dir, 'p.c'), join(dir, 'h.c'), '-o', exe], { encoding: 'utf8' });
    if (c.error || c.status !== 0) return { bad: false, unavailable: `gcc: ${(c.stderr || c.error?.message || '').split('\n')[0]}` };
    const env = { ...process.env, UBSAN_OPTIONS: 'print_stacktrace=0:halt_on_error=1', ASAN_OPTIONS: 'detect_leaks=0:halt_on_error=1' };
    for (const input of product(domains)) {
      const r = spawnSync(exe, input.map(String), { encoding: 'utf8', env, timeout: 10_000 });
      const stderr = r.stderr ?? '';
      const report = /runtime error: .*|ERROR: AddressSanitizer: [\w-]+/.exec(stderr)?.[0];
      if (report) return { bad: true, example: `inputs ${input.join(', ')}: ${report}` };
      if (r.status === 86 && property === 'unreach-call') return { bad: true, example: `inputs ${input.join(', ')}: reach_error` };
      if (r.error) return { bad: false, unavailable: `run: ${r.error.message}` };
    }
    return { bad: false };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function product(domains: readonly (readonly number[])[]): number[][] {
  return domains.reduce<number[][]>((acc, d) => acc.flatMap((p) => d.map((v) => [...p, v])), [[]]);
}

/** The verdict Tarsier may not give, given the oracle: TRUE after a bad run, FALSE without one. */
export function disagreement(oracle: Oracle, verdict: 'true' | 'false' | 'unknown'): string | undefined {
  if (oracle.unavailable) return undefined;
  if (oracle.bad && verdict === 'true') return `TRUE, but ${oracle.example}`;
  if (!oracle.bad && verdict === 'false') return 'FALSE, but no run reaches reach_error or has undefined behaviour';
  return undefined;
}

export interface Finding {
  readonly property: Property;
  readonly model: Model;
  readonly verdict: string;
  readonly reason: string;
  readonly oracle: Oracle;
  /** What Tarsier may not have answered, when it did. */
  readonly disagreement?: string;
}

/** Verifies one program for each property and data model, and compares with the runs. */
export async function checkProgram(
  program: Program,
  verify: (file: string, property: Property, model: Model) => Promise<{ verdict: 'true' | 'false' | 'unknown'; reason: string }>,
  options: { readonly properties?: readonly Property[]; readonly models?: readonly Model[] } = {},
): Promise<Finding[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-soundness-'));
  const file = join(dir, 'program.c');
  writeFileSync(file, program.text);
  const out: Finding[] = [];
  try {
    for (const property of options.properties ?? (['unreach-call', 'no-overflow'] as const)) {
      for (const model of options.models ?? (['ILP32', 'LP64'] as const)) {
        const oracle = runOracle(program.text, program.domains, property, model);
        if (oracle.unavailable) {
          out.push({ property, model, verdict: 'skipped', reason: oracle.unavailable, oracle });
          continue;
        }
        const r = await verify(file, property, model);
        const d = disagreement(oracle, r.verdict);
        out.push({ property, model, verdict: r.verdict, reason: r.reason, oracle, ...(d ? { disagreement: d } : {}) });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

// The external oracles of the soundness tests (gcc, gcc -m32, its
// sanitizers, cpp, z3, cvc5, valgrind). On a user's machine a test whose oracle is
// missing skips with the reason; under CI (CI=true) a missing oracle fails
// the run, naming it, so that a green CI always means the oracles ran.
import { test } from 'node:test';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type Tool = 'gcc' | 'gcc -m32' | 'gcc -fsanitize' | 'cpp' | 'z3' | 'cvc5' | 'valgrind' | 'python3';

/** Compiles and runs a trivial program with these gcc flags. */
function gccRuns(flags: string[]): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'tarsier-tool-'));
  try {
    writeFileSync(join(dir, 'p.c'), 'int main(void) { return 0; }\n');
    const c = spawnSync('gcc', [...flags, '-o', join(dir, 'p'), join(dir, 'p.c')], { encoding: 'utf8', timeout: 60_000 });
    if (c.error) return `gcc cannot start (${c.error.message})`;
    if (c.status !== 0) return `gcc ${flags.join(' ')} cannot build a program (${c.stderr.trim().split('\n')[0] ?? ''})`;
    const r = spawnSync(join(dir, 'p'), [], { timeout: 10_000 });
    return r.status === 0 ? undefined : `a program built with gcc ${flags.join(' ')} does not run`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function runs(cmd: string, args: string[]): string | undefined {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 20_000 });
  if (r.error) return `${cmd} cannot start (${r.error.message})`;
  return r.status === 0 ? undefined : `${cmd} ${args.join(' ')} exits with ${r.status}`;
}

const probes: Record<Tool, () => string | undefined> = {
  gcc: () => gccRuns([]),
  'gcc -m32': () => gccRuns(['-m32']),
  'gcc -fsanitize': () => gccRuns(['-fsanitize=signed-integer-overflow,shift']),
  cpp: () => runs('cpp', ['--version']),
  z3: () => runs('z3', ['--version']),
  cvc5: () => runs('cvc5', ['--version']),
  valgrind: () => runs('valgrind', ['--version']),
  python3: () => runs('python3', ['--version']),
};

const cache = new Map<Tool, string | undefined>();
const reported = new Set<Tool>();

/** Why `tool` is missing, or undefined when it works. */
export function toolProblem(tool: Tool): string | undefined {
  if (!cache.has(tool)) cache.set(tool, probes[tool]());
  return cache.get(tool);
}

export const inCI = process.env.CI === 'true' || process.env.CI === '1';

/**
 * The `skip` option of a test that needs these tools: false when they all
 * work; otherwise the reason. Under CI a missing tool also adds a failing
 * test that names it (once per test file), so that the run cannot pass.
 */
export function needTools(...tools: Tool[]): string | false {
  const missing = tools.filter((t) => toolProblem(t) !== undefined);
  if (missing.length === 0) return false;
  const reason = `skipped: ${missing.map((t) => toolProblem(t)).join('; ')}`;
  if (inCI) {
    for (const t of missing) {
      if (reported.has(t)) continue;
      reported.add(t);
      test(`CI=true: the oracle '${t}' is required`, () => {
        throw new Error(`CI=true and '${t}' is missing: ${toolProblem(t)} (run scripts/install-system-tools.sh)`);
      });
    }
  }
  return reason;
}

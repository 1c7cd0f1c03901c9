// SIGINT or SIGTERM to `tarsier verify` or `validate` while a solver works:
// every child process ends with it, the answer so far is printed (UNKNOWN,
// interrupted), and the exit status is the conventional one (130, 143).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath } from '../helpers/shared.js';
import { needTools } from '../helpers/tools.js';

const dir = mkdtempSync(join(tmpdir(), 'tarsier-interrupt-'));
after(() => rmSync(dir, { recursive: true, force: true }));

// True, but only a non-linear invariant (y == x * x) proves it, and no bound
// ends the loop: the engines keep the solver busy until the time limit.
const program = join(dir, 'squares.c');
writeFileSync(
  program,
  `extern unsigned int __VERIFIER_nondet_uint(void);
extern void reach_error(void);
int main(void) {
  unsigned int n = __VERIFIER_nondet_uint(), x = 0, y = 0;
  while (x < n) {
    x++;
    y += 2 * x - 1;
  }
  if (y != x * x) reach_error();
  return 0;
}
`,
);
// A violation witness of its (unreachable) error call: validation searches as long.
const witness = join(dir, 'witness.yml');
writeFileSync(
  witness,
  `- entry_type: violation_sequence
  metadata:
    format_version: "2.0"
    uuid: "2fbd54bc-95e3-4273-b91f-fcc546aaab34"
    creation_time: "2024-05-01T12:00:00Z"
    producer: { name: test, version: "1" }
    task:
      input_files: [squares.c]
      input_file_hashes: { squares.c: "0000000000000000000000000000000000000000000000000000000000000000" }
      specification: "CHECK( init(main()), LTL(G ! call(reach_error())) )"
      data_model: ILP32
      language: C
  content:
    - segment:
        - waypoint:
            type: target
            action: follow
            location: { file_name: squares.c, line: 9, column: 19, function: main }
`,
);

/** The pids of a process's descendants, from /proc. */
function descendants(pid: number): number[] {
  const out: number[] = [];
  const todo = [pid];
  while (todo.length > 0) {
    const p = todo.pop()!;
    let kids: number[] = [];
    try {
      kids = readdirSync(`/proc/${p}/task`).flatMap((t) => readFileSync(`/proc/${p}/task/${t}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
    } catch {
      // ended
    }
    out.push(...kids);
    todo.push(...kids);
  }
  return out.filter((p) => p !== pid);
}
const commOf = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
};
const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/^\S+ \S+ Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/\(.*\)/, 'x'));

/** Starts tarsier, waits until one of its descendants is `solver`, sends `signal`; its exit status, output and the descendants seen. */
async function interrupt(args: string[], solver: string, signal: NodeJS.Signals) {
  const child = spawn(process.execPath, [cliPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', () => {});
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  const seen = new Set<number>();
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    for (const p of descendants(child.pid!)) seen.add(p);
    if ([...seen].some((p) => commOf(p) === solver)) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok([...seen].some((p) => alive(p) && commOf(p) === solver), `no ${solver} process started`);
  child.kill(signal);
  const code = await exited;
  // Give the kernel a moment to reap what was killed.
  await new Promise((r) => setTimeout(r, 300));
  return { code, out, survivors: [...seen].filter(alive).map((p) => `${p} ${commOf(p)}`) };
}

const cases: [string, string[], string, NodeJS.Signals, number][] = [
  ['verify --solver cvc5, SIGINT', ['verify', program, '--property', 'unreach-call', '--solver', 'cvc5', '--timeout', '300', '--witness', join(dir, 'w1.yml')], 'cvc5', 'SIGINT', 130],
  ['verify --solver z3, SIGTERM', ['verify', program, '--property', 'unreach-call', '--solver', 'z3', '--timeout', '300', '--witness', join(dir, 'w2.yml')], 'z3', 'SIGTERM', 143],
  ['validate, SIGINT', ['validate', program, '--property', 'unreach-call', '--witness', witness, '--timeout', '300'], 'z3', 'SIGINT', 130],
];

for (const [name, args, solver, signal, status] of cases) {
  test(`interrupted ${name}: no child survives, UNKNOWN is printed, exit ${status}`, { skip: needTools(solver as 'z3' | 'cvc5'), timeout: 180_000 }, async () => {
    const r = await interrupt(args, solver, signal);
    assert.equal(r.code, status, r.out);
    assert.deepEqual(r.survivors, []);
    assert.match(r.out, /interrupted \(SIG(INT|TERM)\)/);
    assert.match(r.out, /Verification result: UNKNOWN\n$/);
  });
}

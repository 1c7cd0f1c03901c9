import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A fake verifier for tests. It reads the program named by its first argument
 * and acts on `// mode:` and `// answer:` comments there:
 * answer (print `Verification result: <answer>`), hang (sleep without CPU),
 * hangpid (write its pid to pid.txt in the working folder, then hang),
 * hog (allocate memory until killed), garbage (print noise), busy (two child
 * processes burn CPU), slow (sleep 150 ms, then answer), witness (write
 * witness.yml to the working folder, then answer), args (print its arguments),
 * sleepy (write its pid to pid.txt, sleep 1 s without CPU, then answer).
 */
export const FAKE_TOOL = String.raw`
import { readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
const [program, prop, dataModel] = process.argv.slice(2);
const text = readFileSync(program, 'utf8');
const mode = (/\/\/ mode: (\S+)/.exec(text) || [])[1] || 'answer';
const answer = (/\/\/ answer: (\S+)/.exec(text) || [])[1] || 'UNKNOWN';
const say = () => console.log('some log line\nVerification result: ' + answer);
if (mode === 'answer') say();
else if (mode === 'hang') setTimeout(() => {}, 1e9);
else if (mode === 'hangpid') { writeFileSync('pid.txt', String(process.pid)); setTimeout(() => {}, 1e9); }
else if (mode === 'hog') { const keep = []; setInterval(() => { for (let i = 0; i < 20; i++) keep.push(Buffer.alloc(1 << 20, 1)); }, 10); }
else if (mode === 'garbage') console.log('Verification result: PROBABLY\n\u0001\u0002 random bytes ###');
else if (mode === 'busy') { for (let i = 0; i < 2; i++) spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }); setTimeout(() => {}, 1e9); }
else if (mode === 'slow') setTimeout(say, 150);
else if (mode === 'witness') { writeFileSync('witness.yml', '- entry_type: violation_sequence\n'); say(); }
else if (mode === 'sleepy') { writeFileSync('pid.txt', String(process.pid)); setTimeout(say, 1000); }
else if (mode === 'args') { console.log('ARGS ' + JSON.stringify({ program, prop, dataModel })); say(); }
`;

/** A fake validator: answers what the witness file's first line says (`# validator: FALSE(unreach-call)`), else UNKNOWN. */
export const FAKE_VALIDATOR = String.raw`
import { readFileSync } from 'node:fs';
const witness = process.argv[2];
const m = /# validator: (\S+)/.exec(readFileSync(witness, 'utf8'));
console.log('Verification result: ' + (m ? m[1] : 'UNKNOWN'));
`;

export const UNREACH = 'CHECK( init(main()), LTL(G ! call(reach_error())) )\n';
export const MEMSAFETY =
  'CHECK( init(main()), LTL(G valid-free) )\nCHECK( init(main()), LTL(G valid-deref) )\nCHECK( init(main()), LTL(G valid-memtrack) )\n';

export interface FakeTask {
  readonly dir: string;
  readonly name: string;
  /** `true`, `false`, or `false(valid-deref)` style expected verdict. */
  readonly expected: string;
  readonly property?: 'unreach-call' | 'valid-memsafety';
  readonly mode?: string;
  readonly answer?: string;
  readonly dataModel?: 'ILP32' | 'LP64';
}

/** Writes a benchmark folder: properties/, the tasks under their folders, tool.mjs and validator.mjs. */
export function makeBench(tasks: readonly FakeTask[]): string {
  const root = mkdtempSync(join(tmpdir(), 'tarsier-bench-'));
  mkdirSync(join(root, 'set', 'properties'), { recursive: true });
  writeFileSync(join(root, 'set', 'properties', 'unreach-call.prp'), UNREACH);
  writeFileSync(join(root, 'set', 'properties', 'valid-memsafety.prp'), MEMSAFETY);
  writeFileSync(join(root, 'tool.mjs'), FAKE_TOOL);
  writeFileSync(join(root, 'validator.mjs'), FAKE_VALIDATOR);
  for (const t of tasks) {
    const dir = join(root, 'set', t.dir);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${t.name}.c`), `// mode: ${t.mode ?? 'answer'}\n// answer: ${t.answer ?? 'UNKNOWN'}\nint main(void) { return 0; }\n`);
    const m = /^(true|false)(?:\((.+)\))?$/.exec(t.expected)!;
    const prop = t.property ?? 'unreach-call';
    writeFileSync(
      join(dir, `${t.name}.yml`),
      [
        "format_version: '2.0'",
        `input_files: '${t.name}.c'`,
        'properties:',
        `  - property_file: ../properties/${prop}.prp`,
        `    expected_verdict: ${m[1]}`,
        ...(m[2] ? [`    subproperty: ${m[2]}`] : []),
        '  - property_file: ../properties/coverage-error-call.prp',
        'options:',
        '  language: C',
        `  data_model: ${t.dataModel ?? 'ILP32'}`,
        '',
      ].join('\n'),
    );
  }
  return root;
}

/** Tasks in slow mode (150 ms each) with right and wrong TRUE and FALSE answers. */
export function slowMixedTasks(count: number): FakeTask[] {
  return Array.from({ length: count }, (_, i) => ({
    dir: 'loops',
    name: `t${i}`,
    expected: i % 2 ? 'false' : 'true',
    mode: 'slow',
    answer: i % 3 ? 'TRUE' : 'FALSE(unreach-call)',
  }));
}

export function toolCmd(root: string): string {
  return `${JSON.stringify(process.execPath)} ${JSON.stringify(join(root, 'tool.mjs'))} {program} {prop} {data_model}`;
}

// npm run bench:lint — a 2.0 witness with 10,000 invariants: time to read, schema-check/lint and write it.
import { performance } from 'node:perf_hooks';
import { parse } from 'yaml';
import { lintWitness, makeMetadata, readWitness, writeWitness, type InvariantSetEntry } from '../src/witness/index.js';
import { entryValidator } from '../src/witness/schema.js';

const N = Number(process.argv[2] ?? 10_000);
const RUNS = 5;

function witness(n: number): string {
  const md = makeMetadata({
    formatVersion: '2.0',
    producer: { name: 'bench', version: '1' },
    task: {
      inputFiles: ['big.c'],
      inputFileHashes: { 'big.c': '335b799059963370d0194da751f4eb87a1e259636a3c4fb9ce9548bea7cb3ef1' },
      specification: 'CHECK( init(main()), LTL(G ! call(reach_error())) )',
      dataModel: 'ILP32',
    },
    uuid: '6b3f6f3e-2f0a-4d55-9d2e-3c1b0a9e7c21',
    creationTime: '2024-05-01T12:00:00Z',
  });
  const entry: InvariantSetEntry = {
    entry_type: 'invariant_set',
    metadata: md,
    content: Array.from({ length: n }, (_, i) => ({
      kind: i % 2 ? ('location_invariant' as const) : ('loop_invariant' as const),
      location: { file_name: 'big.c', line: 10 + i, column: 3, function: 'main', columnBase: 1 as const },
      value: { text: `(long long )x${i % 97} + ${i}LL >= (long long )y && s == 2 * i && i <= n`, format: 'c_expression' },
    })),
  };
  return writeWitness({ format: 'yaml', entries: [entry] });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

// CPU time of this process (user + system): less disturbed by other load on the machine than wall time.
const cpu: Record<string, number[]> = { read: [], schema: [], lint: [], lintProgram: [], write: [] };
function time<T>(what: string, f: () => T): [T, number] {
  const c = process.cpuUsage();
  const t = performance.now();
  const r = f();
  const d = process.cpuUsage(c);
  cpu[what].push((d.user + d.system) / 1000);
  return [r, performance.now() - t];
}

// A program with a loop on each line an invariant points at (line 10 + i, column 3).
function program(n: number): string {
  const head = ['int y, s, i, n;', ...Array.from({ length: 97 }, (_, k) => `int x${k};`).join(' ').match(/.{1,2000}(\s|$)/g)!];
  const lines = [...head];
  while (lines.length < 8) lines.push('');
  lines.push('int main(void) {');
  while (lines.length < 9) lines.push('');
  for (let k = 0; k < n; k++) lines.push(`  while (x${k % 97} < ${k}) x${k % 97}++;`);
  lines.push('  return 0;', '}', '');
  return lines.join('\n');
}

const text = witness(N);
const programText = program(N);
const reads: number[] = [];
const lints: number[] = [];
const schemas: number[] = [];
const lintsProgram: number[] = [];
const writes: number[] = [];
lintWitness(witness(2), 'warmup.yml'); // compiles the schemas once
// The JSON Schema check alone, on the plain data of the entry.
const data = (parse(text) as unknown[])[0];
const validate = entryValidator('2.0', 'invariant_set')!;
for (let r = 0; r < RUNS; r++) {
  const [doc, tr] = time('read', () => readWitness(text, 'big.yml'));
  reads.push(tr);
  const [ok, ts] = time('schema', () => validate(data));
  if (!ok) throw new Error('the generated witness should satisfy the schema');
  schemas.push(ts);
  const [ds, tl] = time('lint', () => lintWitness(text, 'big.yml'));
  if (ds.length !== 0) throw new Error(`the generated witness should lint clean: ${ds[0].message}`);
  lints.push(tl);
  // programHash: the recorded hash, so that the figure is about the location and name checks.
  const [dp, tp] = time('lintProgram', () => lintWitness(text, 'big.yml', { programText, programFile: 'big.c', programHash: '335b799059963370d0194da751f4eb87a1e259636a3c4fb9ce9548bea7cb3ef1' }));
  if (dp.length !== 0) throw new Error(`the generated witness should lint clean with its program: ${dp[0].message}`);
  lintsProgram.push(tp);
  const [, tw] = time('write', () => writeWitness(doc));
  writes.push(tw);
}
const mb = (Buffer.byteLength(text) / 1e6).toFixed(1);
console.log(`witness: ${N} invariants, ${mb} MB of YAML; median of ${RUNS} runs (Node ${process.version})`);
const row = (name: string, wall: number[], key: string) =>
  console.log(`${name.padEnd(36)} ${median(wall).toFixed(0).padStart(6)} ms wall  ${median(cpu[key]).toFixed(0).padStart(6)} ms CPU`);
row('read (YAML parse + model):', reads, 'read');
row('schema check (ajv, one entry):', schemas, 'schema');
row('lint (parse + schema + all checks):', lints, 'lint');
row('lint --program (token-level checks):', lintsProgram, 'lintProgram');
row('write (deterministic YAML):', writes, 'write');

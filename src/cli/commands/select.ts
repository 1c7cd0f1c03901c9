// `tarsier select PROG.imp [--candidates C.yml] [--method ...]`: argument
// parsing and printing only; the logic is in src/invariants/.
import { readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { DataModel } from '../../common/data-model.js';
import { TarsierError, usageError } from '../../common/errors.js';
import { readTextFile } from '../../common/files.js';
import { printImp } from '../../ivl/printer.js';
import { parseImp } from '../../ivl/parser.js';
import { checkImp } from '../../ivl/typecheck.js';
import {
  LoopTable,
  SELECT_METHODS,
  type SelectMethod,
  candidatesFromWitness,
  certificateEntries,
  isCInput,
  select,
  encodeFor,
  encodeRounds,
  inlineCandidates,
  selectInvariants,
  writeCertificates,
} from '../../invariants/index.js';
import { checkSolverWorks } from '../../smt/probe.js';
import { creationTimeNow } from '../../witness/metadata.js';
import { withinCpuTime } from '../cpu-limit.js';
import { checkOutputFile, choiceOption, parseSeconds } from '../options.js';
import { readWitness } from '../../witness/read.js';
import type { CommandRegistrar } from '../command.js';

function packageVersion(): string {
  const url = new URL('../../../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
}

interface SelectCliOptions {
  candidates?: string;
  method: string;
  format: string;
  emit?: boolean;
  rounds?: string;
  certificates?: string;
  solver: string;
  timeout: string;
  solverTimeout: string;
  dataModel?: string;
}

function writeCertificateFile(path: string, text: string): void {
  try {
    writeFileSync(path, text);
  } catch (e) {
    throw new TarsierError('io', `cannot write certificates: ${(e as Error).message}`, { file: path }, 2);
  }
}

/** What `select` prints, for IMP and C programs alike. */
type Position = { file?: string; line: number; column: number };

/** `FILE:LINE:COLUMN`, the file defaulting to `file`. */
function where(loc: Position, file: string): string {
  return `${loc.file || file}:${loc.line}:${loc.column}`;
}

interface SelectionReport {
  /** The file positions without a file name refer to. */
  readonly file: string;
  readonly candidates: readonly { readonly loc: Position; readonly text: string; readonly loopLoc?: Position }[];
  readonly verdicts: readonly { candidate: number; status: string; reason?: string; counterexample?: unknown }[];
  readonly proved: boolean;
  readonly solverCalls: number;
  /** Goals the selected candidates leave unproved. */
  readonly unproved: readonly { loc: Position; status: string; kind: string; text: string; reason?: string }[];
  /** Whether to say that the selected candidates prove every assertion. */
  readonly provedAll: boolean;
  readonly verdict: string;
  /** Printed before the result line of an UNKNOWN. */
  readonly reason?: string;
}

function printSelection(r: SelectionReport, format: string): void {
  if (format === 'json') {
    const out = {
      candidates: r.verdicts.map((v) => {
        const c = r.candidates[v.candidate];
        return {
          line: c.loc.line,
          column: c.loc.column,
          expression: c.text,
          status: v.status,
          reason: v.reason ?? null,
          counterexample: v.counterexample ?? null,
        };
      }),
      proved: r.proved,
      solverCalls: r.solverCalls,
    };
    process.stdout.write(JSON.stringify(out, null, 2) + '\n');
    return;
  }
  const lines: string[] = [];
  for (const v of r.verdicts) {
    const c = r.candidates[v.candidate];
    const status = v.status === 'selected' ? 'selected' : `rejected (${v.reason})`;
    lines.push(`${where(c.loc, r.file)}: ${status}: ${c.text}${c.loopLoc ? ` (loop at ${where(c.loopLoc, r.file)})` : ''}`);
  }
  if (r.provedAll) lines.push('The selected candidates prove every assertion.');
  else if (r.unproved.length) {
    lines.push('Not proved with the selected candidates:');
    for (const g of r.unproved) lines.push(`  ${where(g.loc, r.file)}: ${g.status} (${g.kind}: ${g.text})${g.reason ? ` — ${g.reason}` : ''}`);
  }
  if (r.verdict === 'UNKNOWN' && r.reason) lines.push(`reason: ${r.reason}`);
  lines.push(`Verification result: ${r.verdict}`);
  process.stdout.write(lines.join('\n') + '\n');
}

export const registerSelect: CommandRegistrar = (program: Command, run) => {
  program
    .command('select')
    .description('Select the valid loop invariants among candidates (inline `candidate e;` clauses and/or a YAML witness)')
    .argument('<program>', 'IMP program (.imp), C program (.c, .i) or task file (.yml)')
    .option('--candidates <file>', 'YAML witness with loop invariants (0.1 loop_invariant entries or a 2.0 invariant_set)')
    .addOption(choiceOption('--method <method>', 'houdini; encoding: sound, one verification run; encoding-seed: the seed as written', SELECT_METHODS, 'houdini'))
    .addOption(choiceOption('--format <format>', 'output format', ['text', 'json'], 'text'))
    .option('--rounds <n>', 'with --method encoding: the rounds encoding with Houdini\'s precision, n rounds (falls back to the one-run least-fixpoint encoding when n rounds do not reach the fixpoint)')
    .option('--emit', 'print the transformed program of an encoding method and stop')
    .option('--certificates <file>', 'write a 0.1 loop_invariant_certificate per 0.1 loop_invariant candidate')
    .option('--solver <name>', 'z3-wasm (built in, default), z3, cvc5 or the path of an SMT-LIB 2 solver', 'z3-wasm')
    .option('--timeout <seconds>', 'total CPU-time limit in seconds', '900')
    .option('--solver-timeout <seconds>', 'time limit of each solver call', '10')
    .addOption(choiceOption('--data-model <model>', 'C programs: the data model (default: the task\'s, else ILP32)', ['ILP32', 'LP64']))
    .action(
      run(async (file: string, opts: SelectCliOptions) => {
        const totalS = parseSeconds('--timeout', opts.timeout);
        const seconds = parseSeconds('--solver-timeout', opts.solverTimeout);
        const method = opts.method as SelectMethod;
        let rounds: number | undefined;
        if (opts.rounds !== undefined) {
          rounds = Number(opts.rounds);
          if (!Number.isInteger(rounds) || rounds < 1) throw usageError(`--rounds must be a positive integer, not '${opts.rounds}'`);
          if (method !== 'encoding') throw usageError('--rounds needs --method encoding');
        }
        if (opts.certificates) checkOutputFile(opts.certificates, '--certificates');
        await checkSolverWorks(opts.solver);
        // Ends the command with UNKNOWN when the total CPU time is used up.
        const limited = async <T>(work: Promise<T>): Promise<T> => {
          const r = await withinCpuTime(totalS, work);
          if ('value' in r) return r.value;
          const reason = `time limit reached (${totalS} s of CPU time)`;
          if (opts.format === 'json') process.stdout.write(JSON.stringify({ candidates: [], proved: false, solverCalls: null, verdict: 'UNKNOWN', reason }, null, 2) + '\n');
          else process.stdout.write(`${reason}\nVerification result: UNKNOWN\n`);
          process.exit(0);
        };
        if (isCInput(file)) {
          if (!opts.candidates) throw usageError('a C program needs --candidates (a YAML witness with loop invariants)');
          if (opts.emit) throw usageError('--emit works on IMP programs only');
          const witness = opts.candidates;
          const result = await limited(select(file, {
            candidates: witness,
            ...(opts.dataModel ? { dataModel: opts.dataModel as DataModel } : {}),
            method,
            rounds,
            solver: opts.solver,
            timeoutMs: Math.round(seconds * 1000),
            log: (line) => process.stderr.write(`${witness}: ${line}\n`),
          }));
          const programFile = result.prepared.program.file;
          if (result.note) process.stderr.write(`note: ${result.note}\n`);
          if (opts.certificates) {
            const chosen = new Set(result.verdicts.filter((v) => v.status === 'selected').map((v) => v.candidate));
            writeCertificateFile(opts.certificates, writeCertificates(certificateEntries(result.candidates, chosen, { producerVersion: packageVersion(), creationTime: creationTimeNow() })));
          }
          // Unproved goals in C terms: the program's position and source text, not the lowered IMP.
          const programLines = readTextFile(programFile).split('\n');
          const unproved = result.unproved.map((g) => ({ ...g, loc: { ...g.loc, file: programFile }, text: programLines[g.loc.line - 1]?.trim() ?? g.text }));
          printSelection(
            { ...result, file: opts.candidates, unproved, provedAll: !!result.imp && result.unproved.length === 0 && !result.reason },
            opts.format,
          );
          return 0;
        }
        const prog = parseImp(readTextFile(file), file);
        checkImp(prog);
        const table = new LoopTable(prog);
        const candidates = inlineCandidates(table);
        if (opts.candidates) {
          const doc = readWitness(readTextFile(opts.candidates), opts.candidates);
          candidates.push(...candidatesFromWitness(doc, table, candidates.length));
        }
        if (opts.emit) {
          if (method === 'houdini') throw usageError('--emit needs --method encoding or encoding-seed');
          const enc = rounds !== undefined ? encodeRounds(prog, candidates, rounds) : encodeFor(method, prog, candidates);
          process.stdout.write(printImp(enc.program));
          return 0;
        }
        const result = await limited(selectInvariants(prog, candidates, { method, rounds, solver: opts.solver, timeoutMs: Math.round(seconds * 1000) }));
        if (result.note) process.stderr.write(`note: ${result.note}\n`);
        if (opts.certificates) {
          const chosen = new Set(result.verdicts.filter((v) => v.status === 'selected').map((v) => v.candidate));
          const entries = certificateEntries(candidates, chosen, { producerVersion: packageVersion(), creationTime: creationTimeNow() });
          writeCertificateFile(opts.certificates, writeCertificates(entries));
        }
        const verification = result.verification!;
        const unproved = verification.goals.filter((g) => g.status !== 'proved');
        printSelection(
          {
            file,
            candidates,
            verdicts: result.verdicts,
            proved: result.proved,
            solverCalls: result.solverCalls,
            unproved,
            provedAll: unproved.length === 0,
            verdict: verification.verdict,
            reason: 'the selected candidates do not prove every assertion',
          },
          opts.format,
        );
        return 0;
      }),
    );
};

// `tarsier imp verify FILE.imp`: argument parsing and printing only.
import type { Command } from 'commander';
import { TarsierError, usageError } from '../../common/errors.js';
import { checkSolverWorks } from '../../smt/probe.js';
import { withinCpuTime } from '../cpu-limit.js';
import { choiceOption, parseSeconds } from '../options.js';
import { readTextFile } from '../../common/files.js';
import { parseImp } from '../../ivl/parser.js';
import { formatCounterexample, verifyImp, type GoalResult } from '../../vc/verify.js';
import type { CommandRegistrar } from '../command.js';

const KIND_LABEL: Record<GoalResult['kind'], string> = {
  assert: 'assert',
  precondition: 'precondition of call',
  postcondition: 'postcondition',
  'invariant-entry': 'invariant on entry',
  'invariant-preserved': 'invariant preserved',
};

export const registerImp: CommandRegistrar = (program: Command, run) => {
  const imp = program.command('imp').description('The IMP intermediate verification language');
  imp
    .command('verify')
    .description('Verify the procedures of an IMP program against their contracts, assertions and loop invariants')
    .argument('<file>', 'IMP program (.imp)')
    .option('--solver <name>', 'z3-wasm (built in, default), z3, cvc5 or the path of an SMT-LIB 2 solver', 'z3-wasm')
    .option('--timeout <seconds>', 'total CPU-time limit in seconds', '900')
    .option('--solver-timeout <seconds>', 'time limit of each solver call', '10')
    .addOption(choiceOption('--format <format>', 'output format', ['text', 'json'], 'text'))
    .option('--unroll <n>', 'iterations tried for loops without invariants when looking for a real failure', '3')
    .option('--verbose', 'report the solver time of every goal on standard error')
    .action(
      run(async (file: string, opts: { solver: string; timeout: string; solverTimeout: string; format: string; unroll: string; verbose?: boolean }) => {
        const totalS = parseSeconds('--timeout', opts.timeout);
        const seconds = parseSeconds('--solver-timeout', opts.solverTimeout);
        const unroll = Number(opts.unroll);
        if (!Number.isInteger(unroll) || unroll < 0 || unroll > 1000) throw usageError(`--unroll must be an integer from 0 to 1000, not '${opts.unroll}'`);
        const text = readTextFile(file);
        const prog = parseImp(text, file);
        if (prog.procedures.length === 0) throw new TarsierError('imp', 'the program has no procedure to verify', { file }, 1);
        await checkSolverWorks(opts.solver);
        const started = Date.now();
        const limited = await withinCpuTime(totalS, verifyImp(prog, { solver: opts.solver, timeoutMs: Math.round(seconds * 1000), unroll }));
        if ('timedOut' in limited) {
          const reason = `time limit reached (${totalS} s of CPU time)`;
          if (opts.format === 'json') process.stdout.write(JSON.stringify({ file, verdict: 'UNKNOWN', reason, goals: [] }, null, 2) + '\n');
          else process.stdout.write(`${reason}\nVerification result: UNKNOWN\n`);
          process.exit(0);
        }
        const result = limited.value;
        if (opts.verbose) {
          for (const g of result.goals) process.stderr.write(`tarsier: ${g.proc} ${g.loc.line}:${g.loc.column} ${g.kind}: ${g.status} in ${g.timeMs} ms\n`);
          process.stderr.write(`tarsier: ${result.goals.length} goals, ${opts.solver}, ${Date.now() - started} ms\n`);
        }
        if (opts.format === 'json') {
          const goals = result.goals.map((g) => ({
            procedure: g.proc,
            kind: g.kind,
            line: g.loc.line,
            column: g.loc.column,
            condition: g.text,
            status: g.status,
            ...(g.reason ? { reason: g.reason } : {}),
            ...(g.counterexample ? { counterexample: jsonCex(g) } : {}),
          }));
          process.stdout.write(JSON.stringify({ file, verdict: result.verdict, goals }, null, 2) + '\n');
          return 0;
        }
        const lines: string[] = [];
        for (const g of result.goals) {
          lines.push(`${g.loc.line}:${g.loc.column}: ${g.status} (${KIND_LABEL[g.kind]}: ${g.text})`);
          if (g.reason) lines.push(`  ${g.status === 'unknown' ? 'reason' : 'note'}: ${g.reason}`);
          if (g.counterexample) {
            const cx = formatCounterexample(g.counterexample, '    ');
            lines.push(cx.length > 0 ? '  counterexample:' : '  counterexample: (no variables on the path)', ...cx);
          }
        }
        lines.push(`Verification result: ${result.verdict}`);
        process.stdout.write(lines.join('\n') + '\n');
        return 0;
      }),
    );
};

function jsonCex(g: GoalResult) {
  const cx = g.counterexample!;
  return {
    entry: Object.fromEntries(cx.entry.map((v) => [v.name, v.value])),
    steps: cx.steps.map((s) => ({ line: s.loc.line, column: s.loc.column, step: s.what, values: Object.fromEntries(s.values.map((v) => [v.name, v.value])) })),
  };
}

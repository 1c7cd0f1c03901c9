import { Option } from 'commander';
import { TarsierError, usageError } from '../../common/errors.js';
import { formatResultLine } from '../../task/verdict.js';
import { describeNondet, type NondetValue, type ValidateResult } from '../../validate/index.js';
import { validateWithHardLimit } from '../../validate/worker.js';
import { formatDiagnosticLine } from '../../witness/diagnostics.js';
import { toOneBasedColumn } from '../../witness/model.js';
import type { CommandRegistrar } from '../command.js';
import { checkOutputFile } from '../options.js';
import { onInterrupt } from '../interrupt.js';

/** A nondet value in the JSON output (decimal strings: the values may not fit a JSON number). */
function nondetJson(v: NondetValue): { function: string; value: string; repeat?: string } {
  return { function: v.function, value: String(v.value), ...(v.repeat !== undefined ? { repeat: String(v.repeat) } : {}) };
}

interface ValidateFlags {
  property?: string;
  prop?: string;
  dataModel?: 'ILP32' | 'LP64';
  witness?: string;
  timeout?: string;
  format: 'text' | 'json';
  certificates?: string;
  emitProgram?: string;
  verbose?: boolean;
  report?: string;
}

const inputsText = (r: { inputs?: ValidateResult['inputs'] }) =>
  r.inputs && r.inputs.length ? `inputs: ${r.inputs.map((v) => describeNondet(v)).join(', ')}` : '';

function textLines(r: ValidateResult): string[] {
  const out: string[] = [];
  for (const d of r.lint.errors) out.push(formatDiagnosticLine(d));
  for (const d of r.lint.findings) out.push(formatDiagnosticLine({ ...d, severity: 'warning' }));
  for (const n of r.notes) out.push(`note: ${n}`);
  for (const w of r.waypoints) {
    if (w.reading === 'exact') continue;
    const l = w.waypoint.location;
    out.push(`${l.line}:${toOneBasedColumn(l) ?? 1}: ${w.reading === 'dropped' ? 'dropped' : 'read leniently'}: ${w.waypoint.type} waypoint: ${w.note ?? ''}`);
  }
  for (const i of r.invariants) {
    const extra = [i.reason, inputsText(i)].filter((x) => x).join('; ');
    out.push(`${i.line}:${i.column}: ${i.status}: ${i.expression} (${extra})`);
  }
  if (r.kind === 'violation' && r.lint.errors.length === 0) {
    out.push(`waypoints: ${r.entries.used} used as written, ${r.entries.lenient} read leniently, ${r.entries.dropped} dropped`);
  }
  if (r.kind === 'violation' && r.outcome === 'confirmed' && r.inputs) out.push(inputsText(r));
  out.push(`Witness ${r.outcome}: ${r.reason}`);
  out.push(formatResultLine(r.verdict));
  return out;
}

function json(r: ValidateResult): unknown {
  return {
    verdict: r.verdict.kind === 'false' ? `false(${r.verdict.property})` : r.verdict.kind,
    result: formatResultLine(r.verdict).replace('Verification result: ', ''),
    property: r.property,
    witness: { file: r.witness, kind: r.kind, outcome: r.outcome, method: r.method ?? null },
    reason: r.reason,
    entries: r.entries,
    waypoints: r.waypoints.map((w) => ({ type: w.waypoint.type, line: w.waypoint.location.line, column: toOneBasedColumn(w.waypoint.location) ?? null, reading: w.reading, note: w.note ?? null })),
    invariants: r.invariants.map((i) => ({ index: i.index, kind: i.kind, line: i.line, column: i.column, expression: i.expression, status: i.status, reason: i.reason, inputs: i.inputs?.map(nondetJson) ?? null })),
    inputs: r.inputs?.map(nondetJson) ?? null,
    lint: { errors: r.lint.errors, findings: r.lint.findings },
    certificates: r.certificates.length,
    cpuTimeS: Number(r.cpuTimeS.toFixed(3)),
    wallTimeS: Number(r.wallTimeS.toFixed(3)),
  };
}

function inconclusive(reason: string, format: 'text' | 'json'): number {
  if (format === 'json') process.stdout.write(JSON.stringify({ verdict: 'unknown', result: 'UNKNOWN', witness: { outcome: 'unconfirmed' }, reason }) + '\n');
  else process.stdout.write(`Witness unconfirmed: ${reason}\nVerification result: UNKNOWN\n`);
  return 0;
}

export const registerValidate: CommandRegistrar = (program, run) => {
  program
    .command('validate')
    .description('confirm or refute a witness (violation or correctness) of a task or a C program; prints the verdict last')
    .argument('<input>', 'task-definition file (.yml) or C program (.c/.i)')
    .option('--witness <file>', 'the witness (YAML 0.1/2.0/2.1 or GraphML 1.0)')
    .option('--property <name>', 'with a task file: the property (e.g. unreach-call)')
    .option('--prop <file>', 'with a program: the property file (.prp)')
    .addOption(new Option('--data-model <model>', 'data model of the program').choices(['ILP32', 'LP64']))
    .option('--timeout <seconds>', 'CPU-time limit (default 90 for violation, 300 for correctness witnesses)')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .option('--certificates <file>', 'write a 0.1 loop_invariant_certificate per decided invariant')
    .option('--emit-program <file>', 'write the witness turned into a C program (waypoints as assumptions, invariants as checks)')
    .option('--verbose', 'tell what each step did')
    .option('--report <file>', "also write the HTML report of the witness on its program with what validation found (see tarsier report)")
    .action(
      run(async (input: string, flags: ValidateFlags) => {
        if (!flags.witness) throw usageError('--witness W is required');
        const timeoutS = flags.timeout === undefined ? undefined : Number(flags.timeout);
        if (timeoutS !== undefined && (!Number.isFinite(timeoutS) || timeoutS <= 0)) throw usageError(`--timeout needs a positive number of seconds, not '${flags.timeout}'`);
        if (flags.report) checkOutputFile(flags.report, '--report');
        let r: ValidateResult | 'timeout';
        const stopListening = onInterrupt((signal) => inconclusive(`interrupted (${signal})`, flags.format));
        try {
          r = await validateWithHardLimit(input, flags.witness, {
            property: flags.property,
            prp: flags.prop,
            dataModel: flags.dataModel,
            ...(timeoutS !== undefined ? { timeoutS } : {}),
            ...(flags.certificates ? { certificatesPath: flags.certificates } : {}),
            ...(flags.emitProgram ? { emitProgramPath: flags.emitProgram } : {}),
            ...(flags.verbose ? { verbose: true } : {}),
            // The limit is this process's CPU time, start-up included.
            cpuOriginMs: 0,
          });
        } catch (e) {
          if (e instanceof TarsierError) throw e;
          // A crash of the analysis (e.g. the solver out of memory) is no verdict.
          return inconclusive(`the validator failed: ${e instanceof Error ? e.message : String(e)}`, flags.format);
        } finally {
          stopListening();
        }
        if (r === 'timeout') return inconclusive('time limit reached', flags.format);
        if (flags.format === 'json') process.stdout.write(JSON.stringify(json(r)) + '\n');
        else process.stdout.write(textLines(r).join('\n') + '\n');
        if (flags.report) {
          // The report's modules are loaded only when a page is asked for.
          const { validationView, writeReportFile } = await import('../../report/index.js');
          writeReportFile(r.program, r.witness, flags.report, validationView(r, r.witness));
          process.stderr.write(`report written to ${flags.report}\n`);
        }
        return r.lint.errors.length > 0 ? 1 : 0;
      }),
    );
};

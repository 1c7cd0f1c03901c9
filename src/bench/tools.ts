import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { usageError } from '../common/errors.js';
import { findResult, parseVerdictString, type Verdict } from '../task/verdict.js';
import type { RunSpec } from './sets.js';

/** How a tool's output is read. */
export type ResultStyle = 'auto' | 'verification-result' | 'sv-comp-result';

export const RESULT_STYLES: readonly ResultStyle[] = ['auto', 'verification-result', 'sv-comp-result'];

/**
 * A tool as data, so that it can travel in a queued job and be rebuilt on
 * another machine: Tarsier (the worker's own) or a command template.
 */
export type ToolDescription =
  | { readonly kind: 'tarsier'; readonly name: string }
  | { readonly kind: 'template'; readonly name: string; readonly template: string; readonly resultStyle: ResultStyle };

/** A tool to benchmark: how to start it on a run, and how to read its answer. */
export interface ToolSpec {
  readonly name: string;
  readonly description: ToolDescription;
  /** A text identifying the command (kept in the result folder to refuse mixing tools on --resume). */
  readonly signature: string;
  readonly resultStyle: ResultStyle;
  commandFor(run: RunSpec, context: RunContext): { command: string; args: string[] };
}

export interface RunContext {
  /** CPU-time limit of the run in seconds. */
  readonly timeout: number;
  /** The run's working folder (where witness.yml / witness.graphml is expected). */
  readonly runDir: string;
  /** Where a validator finds the witness ({witness}). */
  readonly witness?: string;
}

/** The repository's CLI entry (dist/src/bench/tools.js → bin/tarsier.js). */
export function tarsierCli(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '../../../bin/tarsier.js');
}

/**
 * Tarsier itself: `node bin/tarsier.js verify TASK.yml --property KIND --timeout S`,
 * run in the run folder, where it writes the witness under the file name
 * the rules give its format (witness.yml or witness.graphml).
 */
export function tarsierTool(name = 'tarsier'): ToolSpec {
  const cli = tarsierCli();
  return {
    name,
    description: { kind: 'tarsier', name },
    signature: `tarsier verify (${cli})`,
    resultStyle: 'verification-result',
    commandFor(run, context) {
      return {
        command: process.execPath,
        args: [
          cli,
          'verify',
          run.taskFile,
          '--property',
          run.property,
          '--timeout',
          String(context.timeout),
        ],
      };
    },
  };
}

/** Quotes a value for /bin/sh. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

const PLACEHOLDERS = ['program', 'prop', 'property', 'data_model', 'task', 'timeout', 'bits', 'witness'] as const;

/**
 * Fills a command template: `{program}` (the program file(s)), `{prop}` (the
 * .prp file), `{property}` (its kind, e.g. unreach-call), `{data_model}` (ILP32 or LP64), `{bits}` (32 or 64), `{task}`
 * (the task file), `{timeout}` (seconds), `{witness}` (validators: the witness
 * file). Values are shell-quoted; the result runs under /bin/sh.
 */
export function fillTemplate(template: string, run: RunSpec, context: RunContext): string {
  const values: Record<(typeof PLACEHOLDERS)[number], string> = {
    program: run.inputFiles.map(shellQuote).join(' '),
    prop: shellQuote(run.propertyFile),
    property: run.property,
    data_model: run.dataModel,
    bits: run.dataModel === 'LP64' ? '64' : '32',
    task: shellQuote(run.taskFile),
    timeout: String(context.timeout),
    witness: shellQuote(context.witness ?? join(context.runDir, 'witness.yml')),
  };
  return template.replace(/\{([a-z_]+)\}/g, (whole, name: string) =>
    name in values ? values[name as keyof typeof values] : whole,
  );
}

export function checkTemplate(template: string, option: string): void {
  for (const m of template.matchAll(/\{([a-z_]+)\}/g)) {
    if (!(PLACEHOLDERS as readonly string[]).includes(m[1])) {
      throw usageError(`${option}: unknown placeholder {${m[1]}} (known: ${PLACEHOLDERS.map((p) => `{${p}}`).join(' ')})`);
    }
  }
}

/** Any tool, started from a command template (see `fillTemplate`). */
export function templateTool(template: string, name?: string, resultStyle: ResultStyle = 'auto'): ToolSpec {
  checkTemplate(template, '--tool-cmd');
  const first = (template.trim().split(/\s+/)[0] ?? 'tool').replace(/^["']|["']$/g, '');
  const toolName = name ?? first.split('/').pop()!;
  return {
    name: toolName,
    description: { kind: 'template', name: toolName, template, resultStyle },
    signature: `template: ${template}`,
    resultStyle,
    commandFor(run, context) {
      return { command: '/bin/sh', args: ['-c', fillTemplate(template, run, context)] };
    },
  };
}

/**
 * Reads the answer from a tool's output. `verification-result`: the last
 * `Verification result: TRUE|FALSE(p)|UNKNOWN` line (Tarsier, CPAchecker);
 * `sv-comp-result`: the last `SV-COMP result: true|false(p)|unknown` line
 * (Goblint); `auto`: whichever of the two comes last.
 */
export function readAnswer(output: string, style: ResultStyle): Verdict | undefined {
  const lines = output.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i];
    if (style !== 'sv-comp-result') {
      const v = findResult(line);
      if (v) {
        // Tarsier prints the reason of an UNKNOWN on the line before.
        const before = lines.slice(0, i).reverse().find((l) => l.trim() !== '')?.trim();
        if (v.kind === 'unknown' && !v.reason && before) return { kind: 'unknown', reason: before.slice(0, 300) };
        return v;
      }
    }
    if (style !== 'verification-result') {
      const m = /^\s*SV-COMP result:\s*(\S+)\s*$/.exec(line.replace(/\r$/, ''));
      if (m) {
        const v = parseVerdictString(m[1]);
        if (v) return v;
      }
    }
  }
  return undefined;
}

/** Rebuilds a tool from its description (on a worker: with the worker's own Tarsier). */
export function toolFromDescription(d: ToolDescription): ToolSpec {
  return d.kind === 'tarsier' ? tarsierTool(d.name) : templateTool(d.template, d.name, d.resultStyle);
}

/** A witness validator as data: Tarsier's `validate` command or a command template. */
export type ValidatorDescription =
  | { readonly kind: 'tarsier' }
  | { readonly kind: 'template'; readonly template: string; readonly resultStyle: ResultStyle };

/**
 * The validator template for `--validate tarsier`: `node bin/tarsier.js
 * validate TASK --property KIND --witness W --timeout S`, with this
 * machine's Node and Tarsier.
 */
export function tarsierValidateTemplate(): string {
  return `${shellQuote(process.execPath)} ${shellQuote(tarsierCli())} validate {task} --property {property} --witness {witness} --timeout {timeout}`;
}

/** The command template and answer style of a validator on this machine. */
export function validatorCommand(d: ValidatorDescription): { template: string; resultStyle: ResultStyle } {
  return d.kind === 'tarsier'
    ? { template: tarsierValidateTemplate(), resultStyle: 'verification-result' }
    : { template: d.template, resultStyle: d.resultStyle };
}

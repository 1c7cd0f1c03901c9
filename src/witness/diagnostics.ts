import type { WitnessPos } from './model.js';

export type Severity = 'error' | 'warning';

/** One lint finding; `rule` is a check id of witness-formats.md §9. */
export interface Diagnostic {
  file: string;
  line: number;
  column: number;
  severity: Severity;
  message: string;
  rule: string;
}

/** `file:line:column: severity: message [rule]`, the CLI's text form. */
export function formatDiagnosticLine(d: Diagnostic): string {
  return `${d.file}:${d.line}:${d.column}: ${d.severity}: ${d.message} [${d.rule}]`;
}

/** Sorted by position, then rule, then message: output order is deterministic. */
export function sortDiagnostics(ds: Diagnostic[]): Diagnostic[] {
  return [...ds].sort(
    (a, b) =>
      a.line - b.line ||
      a.column - b.column ||
      (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0) ||
      (a.message < b.message ? -1 : a.message > b.message ? 1 : 0),
  );
}

/** Longest quoted value a message repeats in full; longer ones are cut (tools write values of thousands of characters). */
const MAX_QUOTED = 80;

/** The message with every overlong quoted value shortened, saying how long it was. */
export function shortenValues(message: string): string {
  return message.replace(/'([^']*)'/g, (whole, value: string) =>
    value.length > MAX_QUOTED ? `'${value.slice(0, MAX_QUOTED - 20)}…' (${value.length} characters)` : whole,
  );
}

/**
 * Collects diagnostics of one file: one per problem, i.e. per check and
 * position (checks that look at the same node from two sides report once).
 */
export class DiagnosticSink {
  readonly items: Diagnostic[] = [];
  private readonly seen = new Set<string>();

  constructor(
    readonly file: string,
    /** Problems that change nothing a witness claims (who made an entry, when, its UUID; an undefined standard GraphML key) are warnings: validators go on, as CPAchecker's does. */
    readonly lenientMetadata = false,
  ) {}

  /** A problem that changes nothing the witness claims: an error, or a warning when reading leniently. */
  descriptive(rule: string, at: WitnessPos | undefined, message: string): void {
    if (this.lenientMetadata) this.add('warning', rule, at, `${message} (read leniently: it changes nothing the witness claims)`);
    else this.add('error', rule, at, message);
  }

  add(severity: Severity, rule: string, at: WitnessPos | undefined, message: string): void {
    const line = at?.line ?? 1;
    const column = at?.column ?? 1;
    const key = `${line}:${column}:${rule}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.items.push({ file: this.file, line, column, severity, message: shortenValues(message), rule });
  }
  error(rule: string, at: WitnessPos | undefined, message: string): void {
    this.add('error', rule, at, message);
  }
  warn(rule: string, at: WitnessPos | undefined, message: string): void {
    this.add('warning', rule, at, message);
  }
  has(rule: string): boolean {
    return this.items.some((d) => d.rule === rule);
  }
}

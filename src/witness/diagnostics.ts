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

/** Collects diagnostics of one file, dropping exact duplicates. */
export class DiagnosticSink {
  readonly items: Diagnostic[] = [];
  private readonly seen = new Set<string>();

  constructor(readonly file: string) {}

  add(severity: Severity, rule: string, at: WitnessPos | undefined, message: string): void {
    const line = at?.line ?? 1;
    const column = at?.column ?? 1;
    const key = `${line}:${column}:${rule}:${message}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.items.push({ file: this.file, line, column, severity, message, rule });
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

/**
 * What a validation found, in the form the report shows it: the outcome,
 * the verdict, each invariant's or waypoint's status by its line in the
 * witness file (pinned on the program like select's), the counterexample of
 * a refutation or the inputs of a confirmed violation, and the reasons the
 * witness was refused. Plain data: the browser's worker and `tarsier serve`
 * both send it to the page.
 */
import { describeNondet } from '../replay/harness.js';
import type { ValidateResult } from '../validate/index.js';

export interface ValidationEntryStatus {
  /** The line of the entry in the witness file. */
  readonly witnessLine: number;
  /** `confirmed`, `refuted: …`, `unconfirmed: …`, or for a waypoint `used` / `read leniently: …` / `dropped: …`. */
  readonly status: string;
  /** What it says and where, for the page's text output. */
  readonly text: string;
}

export interface ValidationView {
  readonly outcome: 'confirmed' | 'refuted' | 'unconfirmed';
  /** The validator's answer: TRUE, FALSE(property), UNKNOWN. */
  readonly verdict: string;
  readonly kind: 'violation' | 'correctness';
  readonly reason: string;
  readonly entries: readonly ValidationEntryStatus[];
  /** `__VERIFIER_nondet_int() = 5`, in call order: the run that confirms a violation or refutes the witness. */
  readonly counterexample?: readonly string[];
  /** Schema errors that made the validator refuse the witness (`witness:line:column: error: message`). */
  readonly errors: readonly string[];
  readonly notes: readonly string[];
  /** Where the playground ran it (replay, gcc, is only on the server); undefined on the command line. */
  readonly where?: 'browser' | 'server';
}

const values = (inputs: ValidateResult['inputs']) => inputs?.map((v) => describeNondet(v, ' = '));

export function validationView(r: ValidateResult, witnessName: string, where?: 'browser' | 'server'): ValidationView {
  const verdict = r.verdict.kind === 'false' ? `FALSE(${r.verdict.property})` : r.verdict.kind.toUpperCase();
  const entries: ValidationEntryStatus[] = [];
  for (const i of r.invariants) {
    if (!i.witnessAt) continue;
    const cex = i.inputs?.length ? `; counterexample: ${values(i.inputs)!.join(', ')}` : '';
    entries.push({
      witnessLine: i.witnessAt.line,
      status: i.status === 'confirmed' ? 'confirmed' : `${i.status}: ${i.reason}${cex}`,
      text: `${i.kind} ${i.expression} at line ${i.line}, column ${i.column}`,
    });
  }
  for (const w of r.waypoints) {
    if (!w.waypoint.at) continue;
    const status = w.reading === 'exact' ? 'used' : `${w.reading === 'lenient' ? 'read leniently' : 'dropped'}${w.note ? `: ${w.note}` : ''}`;
    const c = w.waypoint.constraint ? ` ${String(w.waypoint.constraint.value)}` : '';
    entries.push({ witnessLine: w.waypoint.at.line, status, text: `${w.waypoint.type} (${w.waypoint.action})${c} at line ${w.waypoint.location.line}` });
  }
  const counterexample = values(r.inputs);
  return {
    outcome: r.outcome,
    verdict,
    kind: r.kind,
    reason: r.reason,
    entries,
    ...(counterexample ? { counterexample } : {}),
    errors: r.lint.errors.map((d) => `${witnessName}:${d.line}:${d.column}: error: ${d.message}`),
    notes: [...r.notes],
    ...(where ? { where } : {}),
  };
}

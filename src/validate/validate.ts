// `validate`: a program, its property and a witness in; whether the witness
// is confirmed, refuted or unconfirmed out, with the verdict a validator
// answers (violation: FALSE = confirmed, TRUE = refuted; correctness:
// TRUE = confirmed, FALSE = refuted; UNKNOWN otherwise).

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseCFile } from '../c/index.js';
import { processTreeCpuMs } from '../smt/index.js';
import { TarsierError, usageError } from '../common/errors.js';
import { includedProperty, violationNames } from '../properties/index.js';
import { propertyOfSpecification, type PropertyKind, type Verdict } from '../task/index.js';
import { resolveInput, type VerifyOptions } from '../verify/index.js';
import { GRAPHML_CLAIM_NOTE, type Diagnostic, type ViolationSequenceEntry } from '../witness/index.js';
import { certificatesFor } from './certificates.js';
import { isCycleWitness, validateCycle } from './cycle.js';
import { withGhosts } from './ghosts.js';
import { validateCorrectness, type InvariantResult } from './correctness.js';
import type { NondetValue } from '../replay/index.js';
import { validateViolation, type Outcome } from './violation.js';
import { readWitnessForValidation } from './witness-input.js';
import { hasThreadIds, validateThreadWitness } from './threads.js';
import { readGraphml } from '../witness/index.js';
import { startsThreads } from '../lower/threads.js';
import type { WaypointReading } from './waypoints.js';
import type { CertificateEntry01, Entry } from '../witness/model.js';

export interface ValidateOptions extends Pick<VerifyOptions, 'property' | 'prp' | 'dataModel'> {
  /** CPU seconds (default 90 for violation, 300 for correctness witnesses). */
  readonly timeoutS?: number;
  /** Write the 0.1 certificates here. */
  readonly certificatesPath?: string;
  /** Write the witness turned into a C program here. */
  readonly emitProgramPath?: string;
  /**
   * The CPU time (ms of processTreeCpuMs) from which the budget counts; by
   * default when `validate` starts. The CLI passes 0: its limit is the whole
   * process's, start-up included, as a benchmark measures it.
   */
  readonly cpuOriginMs?: number;
  /** Pins the certificates' creation time (tests). */
  readonly creationTime?: string;
  readonly log?: (m: string) => void;
}

export interface ValidateResult {
  readonly verdict: Verdict;
  readonly outcome: Outcome;
  /** One line: why. */
  readonly reason: string;
  readonly kind: 'violation' | 'correctness';
  readonly property: PropertyKind;
  readonly program: string;
  readonly witness: string;
  /** §9.1 errors (the witness was refused) and §9.2 findings (read leniently or dropped). */
  readonly lint: { readonly errors: readonly Diagnostic[]; readonly findings: readonly Diagnostic[] };
  /** Violation witnesses: how each waypoint was read. */
  readonly waypoints: readonly WaypointReading[];
  /** Entries used as written, read leniently, dropped (waypoints; or invariants: confirmed/refuted/unconfirmed are in `invariants`). */
  readonly entries: { readonly used: number; readonly lenient: number; readonly dropped: number };
  readonly invariants: readonly InvariantResult[];
  readonly certificates: readonly CertificateEntry01[];
  /** The nondet values of the execution that confirms (violation) or refutes (correctness). */
  readonly inputs?: readonly NondetValue[];
  readonly method?: 'execution' | 'search';
  /** A confirmed memory-safety violation: the sub-property the run violates. */
  readonly violated?: string;
  readonly notes: readonly string[];
  readonly cpuTimeS: number;
  readonly wallTimeS: number;
}

/** The property a witness's `task.specification` names, if it names one. */
function propertyOfWitness(entries: readonly Entry[]): PropertyKind | undefined {
  for (const e of entries) {
    const spec = 'metadata' in e ? e.metadata?.task?.specification : undefined;
    const p = spec ? propertyOfSpecification(spec) : undefined;
    if (!p) continue;
    // A line of a property that the file may include (a memory-safety
    // specification with a valid-memcleanup line) names that property.
    const included = includedProperty(p.kind);
    return included && p.subproperties.some((s) => violationNames(included).includes(s)) ? included : p.kind;
  }
  return undefined;
}

/** CPU seconds since `startMs` of this process and the processes it started (solvers, gcc). */
function cpuSeconds(startMs: number): number {
  return (processTreeCpuMs() - startMs) / 1000;
}

/** The verdict a validator answers for an outcome (a confirmed memory-safety violation names its sub-property). */
function verdictOf(kind: 'violation' | 'correctness', outcome: Outcome, property: PropertyKind, violated?: string): Verdict {
  if (outcome === 'unconfirmed') return { kind: 'unknown', reason: 'witness unconfirmed' };
  const holds = (kind === 'correctness') === (outcome === 'confirmed');
  return holds ? { kind: 'true' } : { kind: 'false', property: violated ?? property };
}

/** The program with the ghosts written in, as a file of the same name (the witness names it) in `dir`, parsed. */
function ghostProgram(dir: string, resolved: ReturnType<typeof resolveInput>, text: string) {
  const program = join(dir, basename(resolved.program));
  writeFileSync(program, text);
  return { resolved: { ...resolved, program }, c: parseCFile(program, { dataModel: resolved.dataModel }), text };
}

/** Validates a witness for a task (or a program with a property file). Throws TarsierError for bad input. */
export async function validate(input: string, witness: string, options: ValidateOptions = {}): Promise<ValidateResult> {
  const cpu0 = options.cpuOriginMs ?? processTreeCpuMs();
  const wall0 = Date.now();
  const log = options.log ?? (() => {});
  if (options.timeoutS !== undefined && !(options.timeoutS > 0)) throw usageError('the time limit must be a positive number of seconds');
  let resolved = resolveInput(input, options);
  const text = readFileSync(resolved.program, 'utf8');
  const w = readWitnessForValidation(witness, resolved.program, text);
  // A task, or a program, without a property named: the property the witness is about (for a task, when the task has it).
  const named = propertyOfWitness(w.entries);
  if (!options.property && !options.prp && named && named !== resolved.property.kind) {
    try {
      resolved = resolveInput(input, { ...options, property: named });
    } catch {
      // The task does not have it: keep the default property.
    }
  }
  const base = {
    property: resolved.property.kind,
    program: resolved.program,
    witness,
    kind: w.kind,
    lint: { errors: w.schemaErrors, findings: w.programFindings },
    notes: w.notes,
  };
  const timeoutS = options.timeoutS ?? (w.kind === 'violation' ? 90 : 300);
  const done = (decided: Outcome, why: string, extra: Partial<ValidateResult> = {}): ValidateResult => {
    const cpuTimeS = cpuSeconds(cpu0);
    // An answer found after the limit is none (a benchmark would have ended the run; the hard limit lets it go on 2 s).
    const late = decided !== 'unconfirmed' && cpuTimeS > timeoutS;
    const outcome = late ? 'unconfirmed' : decided;
    const reason = late ? `time limit reached: the witness was ${decided} after ${cpuTimeS.toFixed(2)} s of CPU time (${why})` : why;
    return {
      ...base,
      waypoints: [],
      entries: { used: 0, lenient: 0, dropped: 0 },
      invariants: [],
      certificates: [],
      ...extra,
      verdict: verdictOf(w.kind, outcome, resolved.property.kind, extra.violated),
      outcome,
      reason,
      cpuTimeS,
      wallTimeS: (Date.now() - wall0) / 1000,
    };
  };
  if (w.schemaErrors.length > 0) return done('unconfirmed', `invalid witness: ${invalidWitness(w.schemaErrors)}`);
  // A program with threads: the GraphML path is a schedule, run as such (threads.ts).
  if (w.kind === 'violation' && w.format === 'graphml') {
    const doc = readGraphml(readFileSync(witness, 'utf8'), witness);
    const c = hasThreadIds(doc) ? parseCFile(resolved.program, { dataModel: resolved.dataModel }) : undefined;
    if (c && startsThreads(c)) {
      const v = validateThreadWitness(doc, resolved, c);
      return done(v.outcome, v.reason, { ...(v.inputs ? { inputs: v.inputs, method: 'execution' as const } : {}) });
    }
  }
  if (w.unsupported) return done('unconfirmed', w.unsupported);

  // Keep a little for the last replay and the output (a gcc compile alone takes 0.2-0.5 s).
  const budgetS = () => timeoutS - Math.max(0.05 * timeoutS, 0.4) - cpuSeconds(cpu0);
  const c = parseCFile(resolved.program, { dataModel: resolved.dataModel });

  if (w.kind === 'violation') {
    const sequences = w.entries.filter((e): e is ViolationSequenceEntry => !('unknown' in e) && e.entry_type === 'violation_sequence');
    if (sequences.length !== 1) return done('unconfirmed', `the witness has ${sequences.length} violation sequences; one is validated`);
    if (isCycleWitness(sequences[0]!)) {
      const cy = await validateCycle({ resolved, c, text, entry: sequences[0]!, budgetS, log });
      if (options.emitProgramPath) writeFileSync(options.emitProgramPath, cy.program);
      return done(cy.outcome, cy.reason);
    }
    const v = await validateViolation({ resolved, c, text, entry: sequences[0]!, format: w.format, budgetS, log });
    if (options.emitProgramPath) writeFileSync(options.emitProgramPath, v.program);
    const count = (r: string) => v.readings.filter((x) => x.reading === r).length;
    return done(v.outcome, v.reason, {
      waypoints: v.readings,
      entries: { used: count('exact'), lenient: count('lenient'), dropped: count('dropped') },
      ...(v.inputs ? { inputs: v.inputs } : {}),
      ...(v.method ? { method: v.method } : {}),
      ...(v.violated ? { violated: v.violated } : {}),
    });
  }

  const doc = { format: 'yaml' as const, file: witness, entries: [...w.entries] };
  // Ghost variables (2.1): the invariants are checked on the program with the ghosts written in.
  const ghosts = withGhosts(c, text, w.entries);
  if (ghosts && 'unsupported' in ghosts) return done('unconfirmed', ghosts.unsupported);
  const ghostDir = ghosts ? mkdtempSync(join(tmpdir(), 'tarsier-ghosts-')) : undefined;
  let r;
  try {
    let on = { resolved, c, text };
    if (ghosts && ghostDir) {
      try {
        on = ghostProgram(ghostDir, resolved, ghosts.text);
      } catch (e) {
        if (e instanceof TarsierError) return done('unconfirmed', `the ghosts cannot be written into the program: ${e.message}`);
        throw e;
      }
    }
    if (ghosts) log(`ghosts: ${ghosts.ghosts} variables, ${ghosts.updates} updates written into the program`);
    r = await validateCorrectness({ ...on, doc, budgetS, log, ...(w.format === 'graphml' ? { claimsStronger: GRAPHML_CLAIM_NOTE } : {}) });
  } finally {
    if (ghostDir) rmSync(ghostDir, { recursive: true, force: true });
  }
  if (options.emitProgramPath) writeFileSync(options.emitProgramPath, r.program);
  const certificates = certificatesFor(r.invariants, resolved.program, options.creationTime);
  if (options.certificatesPath) writeFileSync(options.certificatesPath, certificates.text);
  const used = r.invariants.filter((i) => i.status !== 'unconfirmed' || !/^(unsupported|invalid|no loop|.*entries are not checked)/.test(i.reason)).length;
  return done(r.outcome, r.reason, {
    invariants: r.invariants,
    certificates: certificates.entries,
    entries: { used, lenient: 0, dropped: r.invariants.length - used },
    ...(r.inputs ? { inputs: r.inputs } : {}),
  });
}

/** What makes a witness invalid, in a few words: its syntax error (YAML or XML: nothing else was checked), or how many schema errors it has. */
function invalidWitness(errors: readonly { readonly rule: string; readonly message: string }[]): string {
  const syntax = errors.find((d) => d.rule === 'yaml-syntax' || d.rule === 'xml-syntax');
  if (syntax) return `${syntax.rule === 'xml-syntax' ? 'XML' : 'YAML'} syntax error: ${syntax.message}`;
  return `${errors.length} schema error${errors.length > 1 ? 's' : ''}`;
}

// One verification in progress: what the steps of the strategy share (the
// task, the parsed program, the property's row, the CPU budget, the
// profile) and the verdicts they give, each with its witness.

import type { CProgram } from '../c/index.js';
import { formatLocation } from '../common/location.js';
import type { LoopInvariants } from '../engines/index.js';
import type { GoalInfo } from '../lower/source-map.js';
import type { LoweredProgram } from '../lower/index.js';
import { propertyRow, violatedCheck, violationWitnessFormat, type PropertyRow } from '../properties/index.js';
import { nondetCalls, type ReplayResult } from '../replay/index.js';
import { builtInProperty, type Verdict } from '../task/index.js';
import { writeWitness } from '../witness/index.js';
import { buildCorrectnessWitness } from './correctness-witness.js';
import type { LoweredFamily } from './family.js';
import { cpuSeconds, type PhaseProfile } from './profile.js';
import type { Resolved } from '../properties/resolve.js';
import type { TraceStep } from './trace.js';
import type { VerifyOptions, VerifyResult } from './types.js';
import { buildViolationWitness, pinnedSteps, replayValues, violationGraphml, type NondetStep } from './witness.js';
import { emitWitness, witnessContext, witnessFields, witnessMetadata } from './witness-output.js';

/** The invariants an engine's proof used (for the correctness witness), or `null`: a proof that needs none (an execution, summaries). */
export type ProofEvidence = { readonly lowered: LoweredProgram; readonly invariants: readonly LoopInvariants[] } | undefined | null;

export class VerificationRun {
  readonly row: PropertyRow;
  /** What the lowering says about its model of the program, appended to every reason. */
  notes = '';
  /** The program lowered per bound (set once the program is lowered). */
  family: LoweredFamily | undefined;

  private program: CProgram | undefined;

  constructor(
    readonly r: Resolved,
    readonly options: VerifyOptions,
    readonly profile: PhaseProfile,
    readonly log: (message: string) => void,
    readonly timeoutS: number,
    /** CPU ms (processTreeCpuMs) and wall-clock ms when `verify` began. */
    private readonly cpu0: number,
    private readonly wall0: number,
  ) {
    this.row = propertyRow(r.property.kind);
  }

  /** The parsed program (set once the front end has parsed it). */
  get c(): CProgram {
    if (!this.program) throw new Error('verify: the program is not parsed yet');
    return this.program;
  }
  set c(program: CProgram) {
    this.program = program;
  }

  /** CPU ms kept for the replay and the witness: what the engines must leave. */
  get reserveMs(): number {
    return Math.min(15000, Math.max(500, this.timeoutS * 1000 * 0.1));
  }

  /** CPU ms left for the engines (the budget is CPU time of this process and its solver processes). */
  deadline(): number {
    return this.timeoutS * 1000 - this.reserveMs - cpuSeconds(this.cpu0) * 1000;
  }

  /**
   * A solver call's time limit: Z3 measures wall time, so on a loaded
   * machine it gets the CPU time left scaled by how much slower than CPU
   * time the wall clock has run so far.
   */
  solverTimeoutMs(): number {
    const cpu = Math.max(0.05, cpuSeconds(this.cpu0));
    const ratio = Math.min(4, Math.max(1, (Date.now() - this.wall0) / 1000 / cpu));
    return Math.max(1, this.deadline()) * ratio;
  }

  done(verdict: Verdict, reason: string, extra: Partial<VerifyResult> = {}): VerifyResult {
    return {
      verdict: verdict.kind === 'unknown' ? { kind: 'unknown', reason: reason + this.notes } : verdict,
      reason: reason + this.notes,
      property: this.r.property.kind,
      program: this.r.program,
      dataModel: this.r.dataModel,
      cpuTimeS: cpuSeconds(this.cpu0),
      wallTimeS: (Date.now() - this.wall0) / 1000,
      ...extra,
    };
  }

  unknown(reason: string, extra: Partial<VerifyResult> = {}): VerifyResult {
    return this.done({ kind: 'unknown', reason }, reason, extra);
  }

  /**
   * FALSE(violated), replayed already, with its violation witness: the
   * nondet values of `steps` and the target `goal`, in the format the rules
   * require for the violated (sub-)property.
   */
  refuted(goal: GoalInfo, violated: string, steps: readonly NondetStep[], replay: ReplayResult, configuration: string, how: string, bound?: number, trace?: readonly TraceStep[]): VerifyResult {
    const r = this.r;
    const format = violationWitnessFormat(r.property.kind, violated, witnessContext(this.c));
    // Under `default` the witness names the specification of the check violated.
    const check = violatedCheck(r.property.kind, violated);
    const metadata = witnessMetadata(check === r.property.kind ? r : { ...r, property: builtInProperty(check)! }, this.options, '2.0', configuration);
    const text = (withValues: boolean) => () => {
      const entry = buildViolationWitness({ steps: withValues ? steps : [], goal, fileName: r.programAsWritten, metadata });
      if (format.version !== '1.0') return writeWitness({ format: 'yaml', entries: [entry] });
      const callees = (withValues ? pinnedSteps(steps) : []).filter((x) => x.info.closeParenLoc).map((x) => x.info.callee);
      return violationGraphml(entry, r.programAsWritten, callees);
    };
    // The full witness pins every nondet value; if it does not lint clean,
    // fall back to the target alone (valid, only less guiding).
    const emitted = emitWitness(r, { ...this.options, log: this.log }, format, [
      { label: 'witness', text: text(true) },
      { label: 'witness (target only)', text: text(false) },
    ]);
    if (emitted.kind !== 'not-wanted') this.profile.mark('witness lint');
    if (emitted.kind === 'not-clean') return this.unknown(`the violation witness does not lint clean: ${emitted.problem}`, { bound, replay });
    const where = formatLocation({ ...goal.loc, file: r.programAsWritten });
    return this.done(
      { kind: 'false', property: violated },
      `${goal.description} at ${where} (${how}, ${nondetCalls(replayValues(steps))} nondet values; ${replay.reason})`,
      { bound, replay, counterexample: replayValues(steps), ...(trace ? { trace } : {}), ...witnessFields(emitted) },
    );
  }

  /** TRUE, with its correctness witness where the property table has one (the invariants the proof used, if any). */
  async proved(how: string, configuration: string, engine: ProofEvidence, bound?: number): Promise<VerifyResult> {
    const format = this.row.correctnessWitness?.format;
    const wanted = this.options.witnessPath != null || this.options.witnessFolder !== undefined;
    if (!wanted || !format || !this.family) return this.done({ kind: 'true' }, how, { bound });
    const family = this.family;
    const witnessLeft = () => this.timeoutS * 1000 - 400 - cpuSeconds(this.cpu0) * 1000;
    const w = await buildCorrectnessWitness({
      program: this.c,
      // Without recursion every depth lowers to the same program: the first one serves.
      lowered: family.recursive ? family.lowerAt(3) : family.first,
      fileName: this.r.programAsWritten,
      metadata: witnessMetadata(this.r, this.options, format.version === '2.1' ? '2.1' : '2.0', configuration),
      // What is left of the hard CPU limit (the verdict is lost if the witness overruns it).
      timeoutMs: Math.round(Math.max(100, Math.min(witnessLeft() / 4, 60_000))),
      analysisMs: Math.round(Math.max(100, Math.min(witnessLeft() / 4, 5000))),
      check: engine !== null && witnessLeft() > 400,
      engine: engine ?? undefined,
      log: this.log,
    });
    this.profile.mark('correctness witness');
    const emitted = emitWitness(this.r, { ...this.options, log: this.log }, format, [{ label: 'correctness witness', text: () => writeWitness({ format: 'yaml', entries: [w.entry] }) }]);
    this.profile.mark('witness lint');
    // A witness that does not lint clean is a bug of the witness writer: the answer stands, the witness is not written.
    const note = emitted.kind === 'not-clean' ? `; no witness: it does not lint clean: ${emitted.problem}` : '';
    return this.done({ kind: 'true' }, how + note, { bound, ...witnessFields(emitted) });
  }
}

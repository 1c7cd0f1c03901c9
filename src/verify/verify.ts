// `verify`: a task (or a program and a property file) in, a verdict out.
//
// task/ → c/ (parse) → the property's strategy (properties/, steps.ts):
// lower/ (C → IMP with the property's instrumentation), then engines/ step
// by step, each with its share of the CPU budget → replay/ (gcc) →
// witness/. FALSE is answered only when gcc replays the counterexample and
// sees the violation; TRUE only when an engine proves it; everything else
// is UNKNOWN with the reason.

import { TarsierError, usageError } from '../common/errors.js';
import { formatLocation } from '../common/location.js';
import { processTreeCpuMs } from '../smt/index.js';
import { parseC } from './frontend.js';
import { PhaseProfile } from './profile.js';
import { resolveInput } from '../properties/resolve.js';
import { VerificationRun } from './run.js';
import { runStrategy } from './steps.js';
import { verifyWithIncludedLine } from './included-line.js';
import type { VerifyOptions, VerifyResult } from './types.js';

export { TOOL_NAME } from '../common/tool.js';
export { resolveInput, type Resolved } from '../properties/resolve.js';
export type { RankingFunctionReport, VerifyOptions, VerifyResult } from './types.js';
export { formatTrace, type TraceStep } from './trace.js';
export { timeLimitReason } from './time-limit.js';

/** The error functions the lowering knows (SV-COMP's, and the one of older tasks). */
const ERROR_FUNCTIONS = ['reach_error', '__VERIFIER_error'];

/** Verifies one property of one program. Throws TarsierError for bad input (missing file, unparsable program, usage). */
export async function verify(input: string, options: VerifyOptions = {}): Promise<VerifyResult> {
  const withIncluded = await verifyWithIncludedLine(input, options, verify);
  if (withIncluded) return withIncluded;
  const cpu0 = processTreeCpuMs();
  const wall0 = Date.now();
  const log = options.log ?? (() => {});
  const profile = new PhaseProfile(cpu0);
  try {
    const timeoutS = options.timeoutS ?? 900;
    if (!(timeoutS > 0)) throw usageError('the time limit must be a positive number of seconds');
    const r = resolveInput(input, options);
    const run = new VerificationRun(r, options, profile, log, timeoutS, cpu0, wall0);
    // Parse first: an unparsable program is an input error whatever the property.
    try {
      run.c = parseC(r.program, r.dataModel);
      profile.mark('parse');
    } catch (e) {
      // A construct the front end knows but does not support is no input error: UNKNOWN, saying what and where.
      if (!(e instanceof TarsierError && e.code === 'c-unsupported')) throw e;
      return run.unknown(`${e.message.replace(/^unsupported construct: /, 'unsupported: ')} at ${e.location && 'line' in e.location ? formatLocation({ ...e.location, file: r.programAsWritten }) : r.programAsWritten}`);
    }
    const p = r.property;
    if (run.row.notSupported) return run.unknown(run.row.notSupported);
    if (p.errorFunction !== undefined && !ERROR_FUNCTIONS.includes(p.errorFunction)) {
      return run.unknown(`${p.kind} of '${p.errorFunction}' is not supported (only ${ERROR_FUNCTIONS.join(' and ')})`);
    }
    if (p.entryFunction !== 'main') return run.unknown(`entry function '${p.entryFunction}' is not supported (only main)`);
    return await runStrategy(run);
  } catch (e) {
    // Recursion inlined very deep, or a program nested very deep: no answer, but no crash either.
    if (!(e instanceof RangeError) || !/call stack/.test(e.message)) throw e;
    const reason = 'the program nests too deeply for Tarsier (its stack overflowed)';
    const run = new VerificationRun(resolveInput(input, options), options, profile, log, options.timeoutS ?? 900, cpu0, wall0);
    return run.unknown(reason);
  } finally {
    log(profile.summary());
  }
}

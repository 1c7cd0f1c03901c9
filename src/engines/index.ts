// Verification engines over IMP, built on vc/ (the encoding) and smt/ (the solvers).
//
// `bmc(program, options)` is the entry: BMC with iterative deepening and
// k-induction. The interface other modules build on:
// - `options.loopCandidates(loop, program)`: extra candidate invariants per
//   IMP while (Boolean IMP expressions over the variables in scope there;
//   a C loop inlined several times gives several whiles with the same `loc`,
//   which equals the source map's LoopInfo.loc). They go through Houdini with
//   the built-in comparison templates and strengthen k-induction.
// - A TRUE result carries `method` ('unrolling' | 'k-induction'), the
//   `program` checked at the final bound, and `invariants`: per while of that
//   program, the candidates (caller-supplied and built-in) that survived
//   Houdini and were assumed in the proof (may be empty for 'unrolling').
//   Each survivor holds at every arrival at its loop in every execution
//   (checked on entry, and preserved by one iteration from any state that
//   satisfies all survivors; executions end at a failing assert).
export { bmc } from './bmc.js';
export type { BmcOptions, BmcResult, Counterexample, LoopInvariants, TraceHavoc, TraceBranch, ProgramAtBound } from './bmc.js';
export { EncodeError, unrollProgram } from './unroll.js';
export type { AssertRole, GoalRoles, GoalTag, LoopCandidate, UnrollOptions, Unrolled } from './unroll.js';
export { roleOf } from './unroll.js';
export { assertionCandidates, candidateSources, templateCandidates } from './candidates.js';
export { polynomialCandidates } from './polynomial-candidates.js';
export { accumulatorCandidates } from './accumulator-candidates.js';
export { sampleViolation, type SampleOptions, type SampleResult } from './sample.js';
export { proveByIntervals, type IntervalProof, type IntervalProofOptions } from './intervals.js';
export type { LoopCandidateSource } from './candidates.js';
export { proveByHorn, hornBackend } from './horn.js';
export type { HornOptions, HornResult, HornSemantics } from './horn.js';
export { provedBounded, provedByRanking, findLasso, confirmLasso } from './termination.js';
export type { TerminationOptions, TerminationProof, LoopRanking, Lasso } from './termination.js';
export { executeOnePath } from './execute.js';
export type { CalledProgram, ExecuteOptions, ExecutionVerdict, HavocCall, LoopJump } from './execute.js';
export { vacuityOf } from './vacuity.js';
export type { VacuityOptions } from './vacuity.js';
export { checkSummaries, strongestSummaries } from './summaries.js';
export type { FailedSummaryCheck, SummaryCheck, SummaryCheckProgram } from './summaries.js';
export { abstractArrayCells, type CellAbstraction } from './array-cells.js';
export { accelerateLoops, expandRepeats, jumpsOf, type RepeatedHavoc } from './acceleration.js';
export { filteredByRuns, type RunFilterOptions } from './run-filter.js';

// Verification engines over IMP. Only BMC so far.
export { bmc } from './bmc.js';
export type { BmcOptions, BmcResult, Counterexample, TraceHavoc, TraceBranch, ProgramAtBound } from './bmc.js';
export { encodeBounded, EncodeError } from './encode.js';
export type { AssertRole, EncodeOptions, Encoding } from './encode.js';
export { provedBounded, provedByRanking, findLasso, confirmLasso } from './termination.js';
export type { TerminationOptions, TerminationProof, LoopRanking, Lasso } from './termination.js';

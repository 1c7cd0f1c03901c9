// Verification engines over IMP. Only BMC so far.
export { bmc } from './bmc.js';
export type { BmcOptions, BmcResult, Counterexample, TraceHavoc, TraceBranch, ProgramAtBound } from './bmc.js';
export { encodeBounded, EncodeError } from './encode.js';
export type { AssertRole, EncodeOptions, Encoding } from './encode.js';

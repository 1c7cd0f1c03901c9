// C → IMP lowering with exact C integer semantics and a source map.
export { lowerProgram } from './lower.js';
export type { AssumptionReason, InstrumentationPass, LoweredProgram, LowerOptions, SummarisedCall, ThreadInfo, Unsupported } from './types.js';
export * from './source-map.js';

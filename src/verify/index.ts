export { verify, resolveInput, TOOL_NAME } from './verify.js';
export type { VerifyOptions, VerifyResult, Resolved } from './verify.js';
export { buildViolationWitness, nondetSteps, replayValues } from './witness.js';
export type { NondetStep, WitnessInput } from './witness.js';
export { buildCorrectnessWitness, exprToC } from './correctness-witness.js';
export type { CorrectnessWitness, CorrectnessWitnessInput } from './correctness-witness.js';

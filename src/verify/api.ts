// What the library entry point exports of the verifier, its engine and the replay.
export { verify, type VerifyOptions, type VerifyResult } from './verify.js';
export { bmc, type BmcOptions, type BmcResult } from '../engines/index.js';
export { buildCorrectnessWitness, type CorrectnessWitness, type CorrectnessWitnessInput } from './correctness-witness.js';
export { replayCounterexample, probeGcc, type NondetValue, type ReplayOptions, type ReplayResult } from '../replay/index.js';

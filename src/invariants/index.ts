// Invariant selection: candidates, Houdini, the seed's encoding and the corrected one, certificates.
export { type Candidate, type CandidateOrigin, type LoopInfo, LoopTable, inlineCandidates, loopTargets } from './program.js';
export { candidatesFromWitness, certificateEntries, writeCertificates, loopAtLocation, type CertificateOptions } from './candidates.js';
export { type EncodedProgram, type Probe, PROBE_FILE } from './encode-common.js';
export { encodeSeed } from './encoding-seed.js';
export { encodeSound, encodeRounds, roundBound } from './encoding.js';
export { houdini, type CandidateVerdict, type Counterexample, type RejectReason, type HoudiniResult } from './houdini.js';
export { type SolverSession } from './session.js';
export {
  SELECT_METHODS,
  type SelectMethod,
  type SelectOptions,
  type SelectResult,
  encodeFor,
  readOffSelection,
  selectInvariants,
  withInvariants,
} from './select.js';
export { randomProgram, rng } from './random.js';
export {
  type CCandidate,
  type CCandidateVerdict,
  type CSelectOptions,
  type CSelectResult,
  cCandidatesFromWitness,
  loopInstanceViews,
  type CView,
  selectCInvariants,
} from './c-candidates.js';
export { type CSelection, type PreparedC, type SelectCOptions, ignoredWitnessContent, isCInput, prepareCProgram, select, witnessProgramMismatch } from './select-c.js';
export { CandidateTranslator, UnsupportedCandidate, type VariableResolver } from './c-expr.js';
export { HARNESS_C, generateCandidates, instrumentChecks } from './c-crosscheck.js';

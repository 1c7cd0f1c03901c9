// The library entry point: every command is also a function here.
export * from './common/location.js';
export * from './common/errors.js';
export * from './task/index.js';
export * from './bench/index.js';
export { parseCProgram, parseCFile, parseExpressionAt, listLoops, makeExpressionChecker, type CProgram, type LoopInfo } from './c/index.js';
export * from './witness/index.js';
export { parseImp, parseImpExpr, printImp, printExpr, typecheckImp, checkImp, executeImp, type ImpProgram, type Procedure, type Stmt, type Expr, type ImpType, type ImpValue, type ExecutionResult } from './ivl/index.js';
export { verifyImp, encodeProcedure, checkGoal, formatCounterexample, type ImpVerificationResult, type GoalResult, type ProcedureEncoding, type EncodedGoal } from './vc/index.js';
export { createSolver, createZ3WasmSolver, createProcessSolver, shutdownZ3Wasm, type Solver, type Term } from './smt/index.js';
export { select, prepareCProgram, selectCInvariants, cCandidatesFromWitness, type SelectCOptions, type CSelection, type CSelectResult, type CCandidate, type PreparedC, selectInvariants, houdini, encodeSeed, encodeSound, encodeFor, withInvariants, candidatesFromWitness, certificateEntries, inlineCandidates, LoopTable as ImpLoopTable, type Candidate, type SelectResult, type SelectMethod, type CandidateVerdict } from './invariants/index.js';
export { lowerProgram, goalAt, goalOf, nondetAt, loopAt, branchAt, locKey, type LoweredProgram, type LowerOptions, type InstrumentationPass, type Unsupported, type SourceMap, type GoalInfo, type GoalKind as LoweredGoalKind, type NondetInfo, type BranchInfo, type LoopInfo as LoweredLoopInfo } from './lower/index.js';
export { verify, bmc, buildCorrectnessWitness, replayCounterexample, probeGcc, type CorrectnessWitness, type VerifyOptions, type VerifyResult, type BmcOptions, type BmcResult, type NondetValue, type ReplayOptions, type ReplayResult } from './verify/api.js';
export { analyzeProgram, analysisCandidates, factToExpr, factsToExprs, type AnalysisOptions, type AnalysisResult, type LoopResult, type LoopFact } from './analysis/index.js';
export { validate, type ValidateOptions, type ValidateResult, type InvariantResult, type InvariantStatus, type Outcome as WitnessOutcome, type WaypointReading } from './validate/index.js';
export { provedByRanking, provedBounded, findLasso, type TerminationOptions, type TerminationProof, type LoopRanking, type Lasso } from './engines/index.js';
export { loopRelation, synthesizeRanking, feasiblePaths, type LoopRelation, type RankingProblem, type RankingComponent, type LinearExpr, type LinearConstraint } from './analysis/index.js';
export { buildReport, renderReportBody, renderReportPage, reportFromFiles, writeReportFile, attachReportInteractions, servePlayground, createPlaygroundServer, type ServeOptions, type ReportData, type ReportInput, type ReportMarker, validationView, type ValidationView, type ReportValidation } from './report/index.js';

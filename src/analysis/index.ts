// Program analyses over IMP that know no C: abstract interpretation (loop-head
// invariants), linear loop relations and ranking-function synthesis.
export * from './linear.js';
export * from './loop-relation.js';
export * from './ranking.js';
export { analyzeProgram } from './analyze.js';
export type { AnalysisOptions, AnalysisResult, LoopResult } from './analyze.js';
export { factToExpr, factsToExprs } from './facts.js';
export type { EqualityTerm, LoopFact } from './facts.js';
export type { View } from './domain.js';
export { analysisCandidates } from './candidates.js';

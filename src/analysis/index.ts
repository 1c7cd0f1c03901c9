// Abstract interpretation over IMP (knows no C).
export { analyzeProgram } from './analyze.js';
export type { AnalysisOptions, AnalysisResult, LoopResult } from './analyze.js';
export { factToExpr, factsToExprs } from './facts.js';
export type { LoopFact } from './facts.js';
export type { View } from './domain.js';
export { analysisCandidates } from './candidates.js';

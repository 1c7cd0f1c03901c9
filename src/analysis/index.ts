// Program analyses over IMP that know no C: linear loop relations and ranking-function synthesis.
export * from './linear.js';
export * from './loop-relation.js';
export * from './ranking.js';

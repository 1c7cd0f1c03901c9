// Verification conditions: IMP procedures to passive form and SMT, goal by goal.
export * from './encode.js';
export * from './verify.js';
export { translateExpr, sortOf, type TranslateEnv } from './translate.js';

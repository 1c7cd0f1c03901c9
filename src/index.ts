// The library entry point: every command is also a function here.
export * from './common/location.js';
export * from './common/errors.js';
export * from './task/index.js';
export * from './bench/index.js';
export { parseCProgram, parseCFile, parseExpressionAt, listLoops, makeExpressionChecker, type CProgram, type LoopInfo } from './c/index.js';
export * from './witness/index.js';

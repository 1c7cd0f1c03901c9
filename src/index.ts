// The library entry point: every command is also a function here.
export * from './common/location.js';
export * from './common/errors.js';
export * from './task/index.js';

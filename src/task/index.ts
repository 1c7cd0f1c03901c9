// Verification tasks: task-definition files, property files, verdicts, scoring.
export * from './property.js';
export * from './taskfile.js';
export * from './verdict.js';
export * from './score.js';
export { expandPattern } from './glob.js';

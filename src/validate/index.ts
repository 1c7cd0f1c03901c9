// The validator: confirms or refutes witnesses of any tool.
export { validate, type ValidateOptions, type ValidateResult } from './validate.js';
export type { InvariantResult, InvariantStatus } from './correctness.js';
export type { Outcome } from './violation.js';
export type { WaypointReading, Reading } from './waypoints.js';
// A result's inputs are the replay's nondet values: how to write one.
export { describeNondet, type NondetValue } from '../replay/harness.js';

export { replayCounterexample, probeGcc } from './replay.js';
export type { ReplayOptions, ReplayResult, ReplayStatus, Symptom, DataModel } from './replay.js';
export { describeNondet, harnessSource, nondetCalls, nondetValue, NONDET_TYPES, HARNESS_EXIT } from './harness.js';
export type { NondetValue } from './harness.js';
export { dataModelDependence } from './data-model.js';
export { MEMORY_PROPERTIES, sanitizerViolation, shownAtExit, type MemoryProperty } from './memory.js';

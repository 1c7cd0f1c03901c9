export { replayCounterexample, probeGcc } from './replay.js';
export type { ReplayOptions, ReplayResult, ReplayStatus, ReplayProperty, DataModel } from './replay.js';
export { harnessSource, nondetValue, NONDET_TYPES, HARNESS_EXIT } from './harness.js';
export type { NondetValue } from './harness.js';
export { dataModelDependence } from './data-model.js';
export { MEMORY_PROPERTIES, sanitizerViolation, type MemoryProperty } from './memory.js';

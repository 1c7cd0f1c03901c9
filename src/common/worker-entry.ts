// The entry of a worker thread started from a bundle (bundle-loader.ts's
// workerEntry): loads the bundle the worker's data names, which serves the job.

import { workerData } from 'node:worker_threads';
import { loadBundle } from './bundle-loader.js';

loadBundle((workerData as { bundle: string }).bundle);

// Worker threads start here: they do not inherit the main thread's TypeScript loader, so each
// registers it before loading its TypeScript module (given in workerData.module).
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.module);

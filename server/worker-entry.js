// Worker threads start here when the TypeScript sources run (tests and benches under
// `node --import tsx`): a thread does not inherit the main thread's loader, so it registers tsx
// before loading its TypeScript module (workerData.module). Built, each worker module is a bundle
// started directly (worker-module.ts decides which).
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.module);

// The ingest writer thread starts here: worker threads do not inherit the main thread's
// TypeScript loader, so it is registered before the writer's TypeScript module is loaded.
import { register } from 'tsx/esm/api';

register();
await import('./ingest-writer-thread.ts');

/**
 * Which file a worker thread (or a child process) starts, in the two ways LocalIQ runs:
 * - built (`npm run build`, out/server/): every worker module is a bundle of its own beside this
 *   code, started directly;
 * - from the TypeScript sources (tests and benches under `node --import tsx`): a worker thread
 *   does not inherit the main thread's loader, so it starts worker-entry.js, which registers tsx
 *   and imports the module's source (workerData.module).
 */
import { fileURLToPath } from 'node:url';

/** Each worker module: its name (and the name of its bundle) and its source under server/. */
export const WORKER_MODULES = {
  'pipeline-worker': 'pipeline/pipeline-worker.ts',
  'text-worker': 'pipeline/text-worker.ts',
  'query-embedder-worker': 'embedders/query-embedder-worker.ts',
  'ingest-writer-thread': 'storage/ingest-writer-thread.ts',
  'backup-thread': 'storage/backup-thread.ts',
  'extractor-child': 'pipeline/extract/extractor-child.ts',
} as const;

export type WorkerModuleName = keyof typeof WORKER_MODULES;

/** This file is TypeScript only when the sources run; built, it is part of a .js bundle. */
const RUNNING_SOURCES = import.meta.url.endsWith('.ts');

/**
 * `entry`: the file to give `new Worker`; `module`: the URL of the code the thread runs, for
 * workerData.module (read by worker-entry.js when the sources run).
 */
export function workerModule(name: WorkerModuleName): { entry: string; module: string } {
  if (RUNNING_SOURCES) {
    return {
      entry: fileURLToPath(new URL('./worker-entry.js', import.meta.url)),
      module: new URL(`./${WORKER_MODULES[name]}`, import.meta.url).href,
    };
  }
  const bundle = new URL(`./${name}.js`, import.meta.url);
  return { entry: fileURLToPath(bundle), module: bundle.href };
}

/**
 * `entry` and `execArgv` for `child_process.fork` of a worker module: a process has a loader of
 * its own, so from the sources it registers tsx itself (`--import`) and runs the module's source.
 */
export function processModule(name: WorkerModuleName): { entry: string; execArgv: string[] } {
  if (RUNNING_SOURCES) {
    return { entry: fileURLToPath(new URL(`./${WORKER_MODULES[name]}`, import.meta.url)), execArgv: ['--import', import.meta.resolve('tsx')] };
  }
  return { entry: fileURLToPath(new URL(`./${name}.js`, import.meta.url)), execArgv: [] };
}

import { parentPort, workerData } from 'node:worker_threads';
import { backupDatabase } from './backup.ts';

/** A backup on a thread of its own (backupInThread, backup.ts): the copy holds its thread for seconds. */
const { dataDir, target } = workerData as { dataDir: string; target: string };
parentPort!.postMessage(backupDatabase(dataDir, target));

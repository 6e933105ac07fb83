/**
 * Which pushes wait long right after a start-up, and when: a data folder with a large index
 * (bench/lib/scale-index.ts, pipeline off) is served, single-item pushes at 16 connections start
 * as soon as the server listens, and every push slower than `--slow` milliseconds is printed
 * with when it was sent and answered (milliseconds since the pushes began). Search's in-memory
 * indexes load meanwhile (the server's log says when they are loaded).
 *
 *   node --import tsx bench/diagnostics/startup-waits.ts [--chunks 100000 --seconds 15 --slow 150]
 *
 * Compare two versions by running it alternately in two checkouts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pushLoad } from '../lib/push-load.ts';
import { buildScaleIndex } from '../lib/scale-index.ts';
import { startServerChild, stopServerChild } from '../lib/server-child.ts';

const { values } = parseArgs({
  options: {
    chunks: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '15' },
    slow: { type: 'string', default: '150' },
  },
});
const slowMs = Number(values.slow);

process.stderr.write(`building an index of ${values.chunks} chunks…\n`);
const { services } = await buildScaleIndex(Number(values.chunks));
const dataDir = path.dirname(services.db.name);
services.close();
const server = await startServerChild(dataDir, { LOCALIQ_WORKERS: '0' });
const slow: string[] = [];
let longestWaitMs = 0;
try {
  const started = performance.now();
  const load = pushLoad(server.url, server.key, 'startup', 16, Number(values.seconds));
  load.on('response', (_client, _status, _bytes, ms) => {
    longestWaitMs = Math.max(longestWaitMs, Math.round(ms));
    const answered = Math.round(performance.now() - started);
    if (ms > slowMs) slow.push(`sent ${answered - Math.round(ms)}, answered ${answered} (${Math.round(ms)} ms)`);
  });
  await load;
} finally {
  await stopServerChild(server);
  fs.rmSync(dataDir, { recursive: true, force: true });
}
console.log(JSON.stringify({ chunks: Number(values.chunks), longestWaitMs, [`pushesOver${slowMs}Ms`]: slow }, null, 2));

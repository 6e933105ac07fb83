/**
 * An edit's time to searchable while a bulk import is queued (loopback only, bounded): a shop's
 * integration pushes 2,000 products in two bulks of 1,000, and a few seconds later one price
 * change with POST /ingest; the time from that push until a keyword search finds the new price,
 * and how many of the import's jobs were still pending then. With `--before DIR` (a checkout of
 * an earlier version, its node_modules in place) the same scenario runs against that version too,
 * alternating, in the same run.
 * Usage: node --import tsx bench/edit-during-import.ts [--items 2000 --rounds 1 --workers 2 --before DIR]
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { call, startServerChild, stopServerChild, tempDir, type ServerChild } from './lib/server-child.ts';
import { loaf } from './lib/loaves.ts';

const { values } = parseArgs({
  options: {
    items: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '1' },
    workers: { type: 'string', default: '2' },
    'delay-ms': { type: 'string', default: '3000' },
    before: { type: 'string' },
  },
});
const itemCount = Number(values.items);
const KB = 'shop';
const SEARCH_TIMEOUT_MS = 30 * 60_000;

const product = (i: number) => loaf(i, KB, { priced: true });

const pendingOf = async (server: ServerChild): Promise<number> =>
  ((await call(server, 'GET', '/knowledge-bases')).data as Array<{ id: string; pendingJobs: number }>).find((kb) => kb.id === KB)?.pendingJobs ?? 0;

async function round(version: string, root: string | undefined) {
  const server = await startServerChild(tempDir(), { LOCALIQ_WORKERS: values.workers! }, root ?? undefined);
  try {
    const items = Array.from({ length: itemCount }, (_, i) => product(i));
    for (let i = 0; i < items.length; i += 1_000) await call(server, 'POST', '/ingest/bulk', { items: items.slice(i, i + 1_000) });
    await new Promise((r) => setTimeout(r, Number(values['delay-ms'])));
    const queuedAtEdit = await pendingOf(server);
    const edit = { ...product(0), externalId: 'sku-sourdough', data: { title: 'Sourdough', content: 'Sourdough now costs 4.20 EUR, zanthoprice week.' } };
    const pushedAt = performance.now();
    await call(server, 'POST', '/ingest', edit);
    while (performance.now() - pushedAt < SEARCH_TIMEOUT_MS) {
      const found = await call(server, 'POST', `/knowledge-bases/${KB}/search`, { query: 'zanthoprice', mode: 'keyword', topK: 1 });
      if (found.results[0]?.externalId === 'sku-sourdough') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = (performance.now() - pushedAt) / 1000;
    return { version, editSearchableSeconds: Number(seconds.toFixed(1)), importPendingAtEdit: queuedAtEdit, importPendingWhenFound: await pendingOf(server) };
  } finally {
    await stopServerChild(server);
  }
}

const versions: Array<[string, string | undefined]> = [['this checkout', undefined]];
if (values.before) versions.unshift([`before (${path.basename(path.resolve(values.before))})`, path.resolve(values.before)]);
const results = [];
for (let r = 0; r < Number(values.rounds); r++) for (const [name, root] of versions) results.push(await round(name, root));
console.log(JSON.stringify({ items: itemCount, workers: Number(values.workers), delayMs: Number(values['delay-ms']), results }, null, 2));

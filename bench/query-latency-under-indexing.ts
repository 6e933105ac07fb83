/**
 * What a search's query costs while the pipeline indexes: semantic searches (query embedding
 * included, timed at the client) one after another while two pipeline workers embed SQuAD passages,
 * then the same searches with the pipeline idle; the indexing rate and the process tree's peak RSS
 * beside them. With --before DIR another checkout (e.g. one whose query embedder has a thread of
 * its own) runs the same scenario in the same run, the two taking turns.
 *
 * Usage: node --import tsx bench/query-latency-under-indexing.ts [--before DIR] [--items 150] [--rounds 2] [--idle 40]
 * Both checkouts run their build (`npm run build` in each first).
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { drain, percentile, startServerChild, stopServerChild, tempDir } from './lib/server-child.ts';
import { TreeRssSampler } from './lib/tree-rss.ts';
import { loadDataset } from './retrieval/datasets.ts';
import { ingestBulk, knowledgeBase, search } from './retrieval/http-client.ts';

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    items: { type: 'string', default: '150' },
    rounds: { type: 'string', default: '2' },
    idle: { type: 'string', default: '40' },
  },
});
const log = (line: string) => process.stderr.write(`[query-latency] ${line}\n`);
const squad = loadDataset('squad');
const items = squad.items.slice(0, Number(values.items));
const queries = squad.queries.map((q) => q.text);
const kb = squad.knowledgeBaseId;

type Run = { duringMs: number[]; idleMs: number[]; indexingSeconds: number; chunks: number; peakTreeMb: number };

async function runOnce(root: string | undefined): Promise<Run> {
  const server = await startServerChild(tempDir(), { LOCALIQ_WORKERS: '2' }, root);
  const sampler = new TreeRssSampler(server.child.pid!);
  const target = { url: server.url, key: server.key };
  try {
    // The knowledge base exists and every thread that embeds has its model loaded before timing.
    await ingestBulk(target, items.slice(0, 1));
    await drain(server, kb);
    await search(target, kb, { query: queries[0]!, mode: 'semantic', topK: 10 });
    const timed = async (query: string) => {
      const started = performance.now();
      await search(target, kb, { query, mode: 'semantic', topK: 10 });
      return performance.now() - started;
    };
    const duringMs: number[] = [];
    const started = performance.now();
    await ingestBulk(target, items.slice(1));
    let drained = false;
    const draining = drain(server, kb).then(() => {
      drained = true;
    });
    for (let i = 0; !drained; i++) {
      const ms = await timed(queries[(i + 1) % queries.length]!);
      if (!drained) duringMs.push(ms);
    }
    await draining;
    const indexingSeconds = (performance.now() - started) / 1000;
    const idleMs: number[] = [];
    for (let i = 0; i < Number(values.idle); i++) idleMs.push(await timed(queries[(i + 500) % queries.length]!));
    const chunks = (await knowledgeBase(target, kb))!.chunkCount;
    sampler.stop();
    return { duringMs, idleMs, indexingSeconds, chunks, peakTreeMb: Math.round(sampler.overall()!.totalMb) };
  } finally {
    await stopServerChild(server);
  }
}

const checkouts: Array<{ name: string; root: string | undefined }> = [{ name: 'this checkout', root: undefined }];
if (values.before) checkouts.push({ name: path.resolve(values.before), root: path.resolve(values.before) });
const runs = new Map<string, Run[]>(checkouts.map((c) => [c.name, []]));
for (let round = 0; round < Number(values.rounds); round++) {
  // Which checkout goes first alternates from round to round.
  const order = round % 2 === 0 ? checkouts : [...checkouts].reverse();
  for (const checkout of order) {
    log(`round ${round + 1}: ${checkout.name}`);
    runs.get(checkout.name)!.push(await runOnce(checkout.root));
  }
}

const summary = (ms: number[]) => ({ count: ms.length, p50: Math.round(percentile(ms, 50)), p95: Math.round(percentile(ms, 95)), max: Math.round(Math.max(...ms)) });
console.log(
  JSON.stringify(
    {
      when: new Date().toISOString(),
      items: items.length,
      checkouts: checkouts.map((c) => {
        const mine = runs.get(c.name)!;
        return {
          checkout: c.name,
          semanticSearchDuringIndexingMs: summary(mine.flatMap((r) => r.duringMs)),
          semanticSearchIdleMs: summary(mine.flatMap((r) => r.idleMs)),
          chunksPerSecond: mine.map((r) => Math.round((r.chunks / r.indexingSeconds) * 10) / 10),
          peakTreeMb: mine.map((r) => r.peakTreeMb),
        };
      }),
    },
    null,
    2,
  ),
);

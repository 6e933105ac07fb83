/**
 * Searchable at once (docs/pipeline.md, "Two phases"): 2,000 products pushed as fast as the server
 * acknowledges them (bulks of --bulk, one after another); 40 of them, spread over the backlog, each
 * hold a word no other item holds. For each of those, the time from the acknowledgement of its
 * push to the first keyword search, and the first hybrid search, that finds it (two searchers, one
 * per mode, one search at a time, each search asking for every word not found yet). Meanwhile semantic searches, one at a time, while
 * the pipeline embeds the backlog, then the same number once it is idle; the process tree's peak RSS.
 *
 * Usage: node --import tsx bench/searchable-at-once.ts [--items 2000 --marked 40 --bulk 20 --workers 2]
 * Runs the build (`npm run build` first).
 */
import { parseArgs } from 'node:util';
import { call, drain, percentile, startServerChild, stopServerChild, tempDir } from './lib/server-child.ts';
import { TreeRssSampler } from './lib/tree-rss.ts';
import { loaf } from './lib/loaves.ts';

const { values } = parseArgs({
  options: {
    items: { type: 'string', default: '2000' },
    marked: { type: 'string', default: '40' },
    bulk: { type: 'string', default: '20' },
    workers: { type: 'string', default: '2' },
  },
});
const itemCount = Number(values.items);
const markedCount = Number(values.marked);
const bulkSize = Number(values.bulk);
const KB = 'shop';
const FIND_TIMEOUT_MS = 10 * 60_000;
const log = (line: string) => process.stderr.write(`[searchable] ${line}\n`);

/** A word of letters only (FTS5 keeps it one token), different for each marked item. */
function markWord(n: number): string {
  let word = '';
  for (let v = n + 26 * 26; v > 0; v = Math.floor(v / 26)) word += String.fromCharCode(97 + (v % 26));
  return `zorvat${word}`;
}

/** Every `step`-th item is marked, from the first bulk to the last. */
const step = Math.floor(itemCount / markedCount);
const markOf = (i: number): string | null => (i % step === step - 1 && i / step < markedCount ? markWord(i) : null);

const product = (i: number) => loaf(i, KB, { mark: markOf(i) });

const QUESTIONS = [
  'how long does the bread stay fresh',
  'can I freeze a loaf',
  'where do the seeds come from',
  'which allergens are in it',
  'do you slice bread for me',
  'how heavy is a whole loaf',
  'when is the bread baked',
  'what flour do you use',
];

type Marked = { word: string; externalId: string; ackAt: number; pendingAtAck: number; keywordMs?: number; hybridMs?: number };

const server = await startServerChild(tempDir(), { LOCALIQ_WORKERS: values.workers! });
const sampler = new TreeRssSampler(server.child.pid!);
try {
  // The knowledge base exists and the workers' models are loaded before anything is timed.
  await call(server, 'POST', '/ingest/bulk', { items: [{ ...product(itemCount + 1), externalId: 'warm-up' }] });
  await drain(server, KB);
  await call(server, 'POST', `/knowledge-bases/${KB}/search`, { query: 'bread', mode: 'semantic', topK: 5 });

  const marked: Marked[] = [];
  let pushing = true;
  const pushedAt = performance.now();
  const pushes = (async () => {
    for (let start = 0; start < itemCount; start += bulkSize) {
      const items = Array.from({ length: Math.min(bulkSize, itemCount - start) }, (_, k) => product(start + k));
      await call(server, 'POST', '/ingest/bulk', { items });
      const ackAt = performance.now();
      for (const [k, item] of items.entries()) {
        const word = markOf(start + k);
        if (!word) continue;
        const entry: Marked = { word, externalId: item.externalId, ackAt, pendingAtAck: start + k + 1 };
        marked.push(entry);
      }
    }
    pushing = false;
  })();

  // Two finders, one per mode, each one search at a time, so that a hybrid search waiting for its
  // query's vector never delays a keyword search. Each search asks for every word not found yet
  // at once (each marked item holds one of them), so a word is looked for in every search.
  /** How long each of the finders' searches took: a found time includes the search that found it. */
  const finderSearchMs = { keyword: [] as number[], hybrid: [] as number[] };
  const finder = (mode: 'keyword' | 'hybrid') =>
    (async () => {
      const key = mode === 'keyword' ? 'keywordMs' : 'hybridMs';
      const waiting = () => marked.filter((m) => m[key] === undefined);
      while ((pushing || waiting().length > 0) && performance.now() - pushedAt < FIND_TIMEOUT_MS) {
        const entries = waiting();
        if (entries.length === 0) {
          await new Promise((r) => setTimeout(r, 5));
          continue;
        }
        const query = entries.map((e) => e.word).join(' ');
        const asked = performance.now();
        const res = await call(server, 'POST', `/knowledge-bases/${KB}/search`, { query, mode, topK: entries.length + 10 });
        const at = performance.now();
        finderSearchMs[mode].push(at - asked);
        const ids = new Set((res.results as Array<{ externalId: string }>).map((r) => r.externalId));
        for (const entry of entries) if (ids.has(entry.externalId)) entry[key] = at - entry.ackAt;
      }
    })();
  const finders = Promise.all([finder('keyword'), finder('hybrid')]);

  // Semantic searches one at a time while the backlog is embedded (from the first acknowledgement on).
  const duringMs: number[] = [];
  let drained = false;
  const draining = (async () => {
    await pushes;
    await drain(server, KB);
    drained = true;
  })();
  for (let i = 0; !drained; i++) {
    const started = performance.now();
    await call(server, 'POST', `/knowledge-bases/${KB}/search`, { query: QUESTIONS[i % QUESTIONS.length], mode: 'semantic', topK: 10 });
    if (!drained) duringMs.push(performance.now() - started);
  }
  await draining;
  await finders;
  const indexingSeconds = (performance.now() - pushedAt) / 1000;
  const pushSeconds = Math.max(...marked.map((m) => m.ackAt)) - pushedAt;
  const idleMs: number[] = [];
  for (let i = 0; i < Math.max(40, Math.min(duringMs.length, 200)); i++) {
    const started = performance.now();
    await call(server, 'POST', `/knowledge-bases/${KB}/search`, { query: QUESTIONS[i % QUESTIONS.length], mode: 'semantic', topK: 10 });
    idleMs.push(performance.now() - started);
  }
  sampler.stop();
  const summary = (ms: number[]) => ({
    count: ms.length,
    p50: Math.round(percentile(ms, 50)),
    p95: Math.round(percentile(ms, 95)),
    max: Math.round(Math.max(...ms)),
  });
  const missing = marked.filter((m) => m.hybridMs === undefined).length;
  console.log(
    JSON.stringify(
      {
        when: new Date().toISOString(),
        items: itemCount,
        marked: marked.length,
        bulk: bulkSize,
        workers: Number(values.workers),
        pushSeconds: Number((pushSeconds / 1000).toFixed(1)),
        indexingSeconds: Number(indexingSeconds.toFixed(1)),
        notFoundInTime: missing,
        keywordFoundMs: summary(marked.flatMap((m) => (m.keywordMs === undefined ? [] : [m.keywordMs]))),
        hybridFoundMs: summary(marked.flatMap((m) => (m.hybridMs === undefined ? [] : [m.hybridMs]))),
        finderKeywordSearchMs: summary(finderSearchMs.keyword),
        finderHybridSearchMs: summary(finderSearchMs.hybrid),
        semanticSearchWhileEmbeddingMs: summary(duringMs),
        semanticSearchIdleMs: summary(idleMs),
        peakTreeMb: Math.round(sampler.overall()!.totalMb),
        perMarked: marked.map((m) => ({ at: m.pendingAtAck, keywordMs: Math.round(m.keywordMs ?? -1), hybridMs: Math.round(m.hybridMs ?? -1) })),
      },
      null,
      2,
    ),
  );
} finally {
  await stopServerChild(server);
}

/**
 * The weight of a synonym's BM25 share (search.ts SYNONYM_WEIGHT), measured on StackFAQ (and
 * SQuAD when asked) in keyword mode, in process on an index the typo eval built (`--data-dir`).
 * There is no public set of a shop's synonyms, so two synthetic ones bound the choice:
 *
 * - **helpful**: in each question, one content word that its answer holds is replaced by a made-up
 *   word, and a one-way set names the replaced word as its synonym (a visitor's word, "hoodie", that
 *   the shop calls "sweatshirt"). The higher the weight, the more the synonym restores; the question
 *   as written bounds it.
 * - **harmful**: each question as written, and a one-way set adding to that word a random word of
 *   another item (a bad synonym). The lower the weight, the less it costs.
 *
 * Each question's set is the knowledge base's only one while it is searched. Typo tolerance stays on.
 *
 * Usage: node --import tsx bench/synonym-eval.ts --data-dir DIR [--datasets stackfaq,squad] [--weights 0.5,0.8,1] [--limit N]
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../server/config.ts';
import { SearchService } from '../server/retrieval/search.ts';
import { SearchSettings } from '../server/retrieval/search-settings.ts';
import { SynonymStore } from '../server/retrieval/synonyms.ts';
import { searchWords } from '../server/language/query-words.ts';
import { openServices } from '../server/services.ts';
import { SearchRepo } from '../server/storage/search-repo.ts';
import type { SettingsRepo } from '../server/storage/settings-repo.ts';
import { benchEnv } from './lib/server-child.ts';
import { type DatasetName, loadDataset } from './retrieval/datasets.ts';
import { meanScores } from './retrieval/metrics.ts';
import { seeded } from './retrieval/typos.ts';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    datasets: { type: 'string', default: 'stackfaq' },
    weights: { type: 'string', default: '0.5,0.65,0.8,1' },
    limit: { type: 'string' },
    seed: { type: 'string', default: '42' },
  },
});
if (!values['data-dir']) throw new Error('--data-dir: the folder of an index bench/typo-eval.ts built (it prints it)');
const limit = values.limit === undefined ? Infinity : Number(values.limit);
const weights = values.weights.split(',').map(Number);

/** Settings in memory: the eval's sets never reach the index's database. */
class MemorySettings {
  private readonly values = new Map<string, string>();
  get = (key: string) => this.values.get(key) ?? null;
  set = (key: string, value: string) => void this.values.set(key, value);
  delete = (key: string) => void this.values.delete(key);
}

/** A made-up word for query i: letters only (a digit would be taken for an id), in no item. */
const madeUp = (i: number) => `zq${[...i.toString(26)].map((c) => String.fromCharCode(97 + parseInt(c, 26))).join('')}xv`;
const words = (text: string) => searchWords(text).filter((w) => w.length >= 4 && !/\p{N}/u.test(w));

const services = await openServices(loadConfig(benchEnv(values['data-dir'])));
try {
  await services.keywords.load();
  await services.keywords.ready();
  const settings = new MemorySettings() as unknown as SettingsRepo;
  const store = new SynonymStore(settings);
  const searchAt = (weight: number) =>
    new SearchService({ repo: new SearchRepo(services.db), keywords: services.keywords, embedding: services.embedding, queries: services.queryEmbedder, settings: new SearchSettings(settings), synonyms: store, synonymWeight: weight });
  const lines = ['| dataset | queries | synonyms | weight | R@1 | R@5 |', '|---|---|---|---|---|---|'];
  for (const name of values.datasets.split(',') as DatasetName[]) {
    const dataset = loadDataset(name);
    const kb = dataset.knowledgeBaseId;
    const texts = new Map(dataset.items.map((item) => [item.externalId, `${(item.data as { title: string }).title} ${(item.data as { content: string }).content}`.toLowerCase()]));
    const pool = [...new Set([...texts.values()].flatMap(words))];
    const next = seeded(Number(values.seed));
    // Each question with a word its answer holds: the word, the question without it, a bad synonym.
    const cases = dataset.queries.slice(0, limit).flatMap((q, i) => {
      const gold = [...q.relevant].map((id) => texts.get(id) ?? '').join(' ');
      const held = words(q.text).filter((w) => new RegExp(`\\b${w}\\b`, 'u').test(gold));
      if (held.length === 0) return [];
      const word = held[Math.floor(next() * held.length)]!;
      const renamed = q.text.replace(new RegExp(`\\b${word}\\b`, 'giu'), madeUp(i));
      return [{ query: q, word, renamed, fake: madeUp(i), noise: pool[Math.floor(next() * pool.length)]! }];
    });
    const run = (search: SearchService, text: (c: (typeof cases)[number]) => string, sets: (c: (typeof cases)[number]) => unknown[]) =>
      meanScores(
        dataset.metrics,
        cases.map((c) => {
          store.replace(kb, sets(c) as never);
          const outcome = search.searchWithVector(kb, text(c), null, { mode: 'keyword', topK: dataset.topK, sourceTypes: null, passages: 0 });
          return { ranked: outcome.hits.map((h) => h.item.externalId), relevant: c.query.relevant };
        }),
      );
    const row = (label: string, weight: string, scores: Record<string, number>) =>
      lines.push(`| ${name} | ${cases.length} | ${label} | ${weight} | ${Object.values(scores).map((s) => s.toFixed(3)).join(' | ')} |`);
    const plain = searchAt(0.8);
    row('none: questions as written', '—', run(plain, (c) => c.query.text, () => []));
    row('none: a word renamed', '—', run(plain, (c) => c.renamed, () => []));
    for (const weight of weights) {
      const search = searchAt(weight);
      row('helpful: renamed word → its synonym', String(weight), run(search, (c) => c.renamed, (c) => [{ root: c.fake, synonyms: [c.word] }]));
      row('harmful: word → a random word', String(weight), run(search, (c) => c.query.text, (c) => [{ root: c.word, synonyms: [c.noise] }]));
    }
    store.replace(kb, []);
  }
  console.log(lines.join('\n'));
} finally {
  services.close();
}

/**
 * Hybrid fusion sweep on an already-built index: every query is embedded once, then each fusion
 * setting ranks in-process with its own SearchService over the same repo and vectors, so the
 * settings differ in nothing but fusion. Keyword and semantic alone are the reference rows.
 */
import { DEFAULT_HYBRID, type HybridSettings, SearchService, type SearchMode } from '../../server/retrieval/search.ts';
import type { Services } from '../../server/services.ts';
import { SearchRepo } from '../../server/storage/search-repo.ts';
import type { Dataset, EvalQuery } from './datasets.ts';
import { meanScores } from './metrics.ts';

export type SweepVariant = { label: string; mode: SearchMode; hybrid: HybridSettings };

const dense = (w: number) => [1 - w, w].map((x) => Math.round(x * 10) / 10).join('/');
const minmax = (w: number): SweepVariant => ({ label: `min-max ${dense(w)}`, mode: 'hybrid', hybrid: { method: 'minmax', denseWeight: w } });
const keywordFirst = (w: number): SweepVariant => ({
  label: `min-max ${dense(w)} keyword-first`,
  mode: 'hybrid',
  hybrid: { method: 'minmax', denseWeight: w, keywordFirst: true },
});
const rrf = (w: number): SweepVariant => ({ label: `RRF ${dense(w)}`, mode: 'hybrid', hybrid: { method: 'rrf', denseWeight: w } });

/** Labels read "keyword/dense" weights. RRF at equal weights is in BASELINES.md as a known loser; it stays as a reference. */
export const SWEEP_VARIANTS: SweepVariant[] = [
  { label: 'keyword', mode: 'keyword', hybrid: DEFAULT_HYBRID },
  { label: 'semantic', mode: 'semantic', hybrid: DEFAULT_HYBRID },
  ...[0.1, 0.2, 0.3, 0.4, 0.5].map(minmax),
  ...[0.2, 0.3, 0.5].map(keywordFirst),
  ...[0.1, 0.2, 0.3, 0.5].map(rrf),
];

export type SweepRow = { label: string; hybrid: HybridSettings | null; scores: Record<string, number> };

const EMBED_BATCH = 32;

export async function sweepDataset(services: Services, dataset: Dataset, queries: EvalQuery[]): Promise<SweepRow[]> {
  const vectors: Float32Array[] = [];
  for (let i = 0; i < queries.length; i += EMBED_BATCH) {
    vectors.push(...(await services.queryEmbedder.embed(queries.slice(i, i + EMBED_BATCH).map((q) => q.text))));
  }
  const repo = new SearchRepo(services.db);
  return SWEEP_VARIANTS.map((variant) => {
    const service = new SearchService({ repo, keywords: services.keywords, embedding: services.embedding, queries: services.queryEmbedder, hybrid: variant.hybrid });
    const runs = queries.map((query, i) => {
      const outcome = service.searchWithVector(dataset.knowledgeBaseId, query.text, vectors[i]!, {
        mode: variant.mode,
        topK: dataset.topK,
        sourceTypes: null,
        passages: 0,
      });
      return { ranked: outcome.hits.map((h) => h.item.externalId), relevant: query.relevant };
    });
    return { label: variant.label, hybrid: variant.mode === 'hybrid' ? variant.hybrid : null, scores: meanScores(dataset.metrics, runs) };
  });
}

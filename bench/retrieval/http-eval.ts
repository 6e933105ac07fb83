/** Runs a dataset's queries through POST /knowledge-bases/{id}/search, one at a time, and scores them. */
import type { SearchMode } from '../../server/retrieval/search.ts';
import type { Dataset, EvalQuery } from './datasets.ts';
import { type ApiTarget, search } from './http-client.ts';
import { meanScores } from './metrics.ts';

export type Latency = { p50: number; p95: number; max: number; slowest: string };

export type ModeResult = {
  mode: SearchMode;
  queries: number;
  scores: Record<string, number>;
  /** Server-side tookMs (query embedding included), and the client's round trip. */
  tookMs: Latency;
  roundTripMs: Latency;
  /** Answers that came back in another mode than asked (semantic falls back while no model is active). */
  fellBack: number;
};

export async function evaluateOverHttp(target: ApiTarget, dataset: Dataset, queries: EvalQuery[], mode: SearchMode): Promise<ModeResult> {
  const runs: Array<{ ranked: string[]; relevant: Set<string> }> = [];
  const took: Array<{ ms: number; query: string }> = [];
  const roundTrip: Array<{ ms: number; query: string }> = [];
  let fellBack = 0;
  for (const query of queries) {
    const started = performance.now();
    const answer = await search(target, dataset.knowledgeBaseId, { query: query.text, mode, topK: dataset.topK });
    roundTrip.push({ ms: performance.now() - started, query: query.text });
    took.push({ ms: answer.tookMs, query: query.text });
    if (answer.mode !== mode) fellBack++;
    runs.push({ ranked: answer.results.map((r) => r.externalId), relevant: query.relevant });
  }
  return { mode, queries: queries.length, scores: meanScores(dataset.metrics, runs), tookMs: latency(took), roundTripMs: latency(roundTrip), fellBack };
}

function latency(samples: Array<{ ms: number; query: string }>): Latency {
  const sorted = [...samples].sort((a, b) => a.ms - b.ms);
  const at = (p: number) => round1(sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]?.ms ?? 0);
  return { p50: at(0.5), p95: at(0.95), max: round1(sorted.at(-1)?.ms ?? 0), slowest: sorted.at(-1)?.query ?? '' };
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}

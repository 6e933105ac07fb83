/**
 * Ranking metrics over one query: `ranked` is the external ids the search returned, best first;
 * `relevant` the ids judged relevant (binary, as every label in these sets is 1).
 * Definitions follow BEIR / trec_eval so figures compare with published ones.
 */
export type Metric = { name: string; depth: number; score(ranked: string[], relevant: Set<string>): number };

/** nDCG@k with binary gains: Σ 1/log2(rank+1) over relevant hits, over the best possible. */
export function ndcgAt(k: number): Metric {
  return {
    name: `nDCG@${k}`,
    depth: k,
    score(ranked, relevant) {
      let dcg = 0;
      ranked.slice(0, k).forEach((id, i) => {
        if (relevant.has(id)) dcg += 1 / Math.log2(i + 2);
      });
      let ideal = 0;
      for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += 1 / Math.log2(i + 2);
      return ideal > 0 ? dcg / ideal : 0;
    },
  };
}

/** Share of the relevant ids found in the top k (with one relevant id: whether it is there). */
export function recallAt(k: number): Metric {
  return {
    name: `R@${k}`,
    depth: k,
    score(ranked, relevant) {
      if (relevant.size === 0) return 0;
      return ranked.slice(0, k).filter((id) => relevant.has(id)).length / relevant.size;
    },
  };
}

/** Mean of each metric over all queries, to 4 decimals (tables show 3, as the baselines do). */
export function meanScores(metrics: Metric[], runs: Array<{ ranked: string[]; relevant: Set<string> }>): Record<string, number> {
  return Object.fromEntries(
    metrics.map((m) => {
      const total = runs.reduce((sum, run) => sum + m.score(run.ranked, run.relevant), 0);
      return [m.name, Math.round((runs.length ? total / runs.length : 0) * 10_000) / 10_000];
    }),
  );
}

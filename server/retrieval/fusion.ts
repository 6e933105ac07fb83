/** A ranked list of item ids with the retriever's own scores (higher is better). */
export type Ranked = Array<{ id: number; score: number }>;

export type FusionMethod = 'minmax' | 'rrf';

/**
 * Weighted min-max fusion: each list's scores are scaled to [0, 1] and summed with weights; an id
 * missing from a list gets 0 there. Keeps the score gaps a retriever is sure of, which rank-only
 * fusion throws away.
 *
 * `unscorable`: ids some list could not score at all (an item whose text is indexed but whose
 * vectors are still to come, docs/pipeline.md "Two phases"). For them a missing score is unknown,
 * not 0: they get the weighted mean of the lists that did score them (the weights renormalised),
 * so such an item ranks where those lists put it, neither buried under the items every list scored
 * nor lifted above them.
 */
export function minMaxFusion(lists: Ranked[], weights: number[], unscorable: ReadonlySet<number> = NONE): Ranked {
  const fused = new Map<number, number>();
  lists.forEach((list, i) => {
    if (list.length === 0) return;
    const scores = list.map((r) => r.score);
    const min = Math.min(...scores);
    const span = Math.max(...scores) - min;
    for (const r of list) {
      const scaled = span > 0 ? (r.score - min) / span : 1;
      fused.set(r.id, (fused.get(r.id) ?? 0) + (weights[i] ?? 1) * scaled);
    }
  });
  return sortByScore(renormalise(fused, lists, weights, unscorable));
}

const NONE: ReadonlySet<number> = new Set();

/** The fused score of each unscorable id over the weights of the lists that held it, scaled to all weights. */
function renormalise(fused: Map<number, number>, lists: Ranked[], weights: number[], unscorable: ReadonlySet<number>): Map<number, number> {
  if (unscorable.size === 0) return fused;
  const total = lists.reduce((sum, _list, i) => sum + (weights[i] ?? 1), 0);
  for (const id of unscorable) {
    const score = fused.get(id);
    if (score === undefined) continue;
    const held = lists.reduce((sum, list, i) => (list.some((r) => r.id === id) ? sum + (weights[i] ?? 1) : sum), 0);
    if (held > 0 && held < total) fused.set(id, (score / held) * total);
  }
  return fused;
}

/**
 * Keeps the fused order but moves the ids the keyword list did not hold behind all that it did:
 * a list as long as the keyword candidates then holds every one of them, so fusion can reorder
 * keyword matches but never push one out for an item only the semantic side found.
 */
export function keywordCandidatesFirst(fused: Ranked, keyword: Ranked): Ranked {
  const found = new Set(keyword.map((r) => r.id));
  return [...fused.filter((r) => found.has(r.id)), ...fused.filter((r) => !found.has(r.id))];
}

/** Weighted reciprocal-rank fusion: Σ weight / (k + rank); `unscorable` as in minMaxFusion. */
export function reciprocalRankFusion(lists: Ranked[], weights: number[], k = 60, unscorable: ReadonlySet<number> = NONE): Ranked {
  const fused = new Map<number, number>();
  lists.forEach((list, i) => {
    list.forEach((r, rank) => fused.set(r.id, (fused.get(r.id) ?? 0) + (weights[i] ?? 1) / (k + rank + 1)));
  });
  return sortByScore(renormalise(fused, lists, weights, unscorable));
}

function sortByScore(scores: Map<number, number>): Ranked {
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || a.id - b.id);
}

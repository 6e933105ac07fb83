/**
 * When to say "not in the knowledge base". The support of a question is how much of it the best
 * retrieved sentence covers (its words weighted by rarity, see extractive.ts), blended with how
 * close in meaning the best retrieved passage is (cosine of the query and passage vectors). Both
 * weights and thresholds were calibrated on questions with and without an answer in the knowledge
 * base; docs/assistant.md gives the procedure and the figures.
 */
export const SUPPORT_WEIGHTS = { coverage: 0.5, cosine: 0.5 };
export const ABSTAIN_BELOW = 0.45;
/** Without a query vector (keyword mode, or no embedding model active yet) coverage alone decides. */
export const ABSTAIN_BELOW_COVERAGE_ONLY = 0.35;

export type Support = { score: number; threshold: number };

export function support(bestCoverage: number, bestCosine: number | null, threshold = ABSTAIN_BELOW): Support {
  if (bestCosine === null) return { score: bestCoverage, threshold: Math.min(threshold, ABSTAIN_BELOW_COVERAGE_ONLY) };
  return { score: SUPPORT_WEIGHTS.coverage * bestCoverage + SUPPORT_WEIGHTS.cosine * Math.max(0, bestCosine), threshold };
}

export function supportScore(bestCoverage: number, bestCosine: number | null): number {
  return support(bestCoverage, bestCosine).score;
}

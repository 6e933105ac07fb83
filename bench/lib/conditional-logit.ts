/**
 * A learned combiner for the curated-answer bench: a conditional logit (softmax over a question's
 * candidates plus a "matches none" option of learned utility) on per-candidate features, fitted by
 * Adam on the calibration half only. Its probability of the best candidate is the confidence the
 * bench thresholds. Kept in the bench: it ranked barely better than the shipped weighted mix and
 * matched no more at the same bound on wrong answers (docs/benchmarks.md, "Curated answers").
 */

/** One question: its candidates' features (rows), and the index of the right one or -1 for none. */
export type LogitCase = { features: number[][]; gold: number };
export type LogitModel = { weights: number[]; noneUtility: number };

/** Each candidate's probability and that of "none". */
export function probabilities(features: number[][], model: LogitModel): { candidates: number[]; none: number } {
  const utilities = features.map((row) => row.reduce((sum, value, j) => sum + value * model.weights[j]!, 0));
  const top = Math.max(model.noneUtility, ...utilities);
  const exps = utilities.map((u) => Math.exp(u - top));
  const noneExp = Math.exp(model.noneUtility - top);
  const total = exps.reduce((a, b) => a + b, 0) + noneExp;
  return { candidates: exps.map((e) => e / total), none: noneExp / total };
}

/** Maximum likelihood with a small L2 penalty; full-batch Adam, a fixed number of steps (deterministic). */
export function fitConditionalLogit(cases: LogitCase[], steps = 400, l2 = 1e-3, rate = 0.05): LogitModel {
  const dimension = cases[0]?.features[0]?.length ?? 0;
  const params = new Array<number>(dimension + 1).fill(0);
  const m = new Array<number>(dimension + 1).fill(0);
  const v = new Array<number>(dimension + 1).fill(0);
  for (let step = 1; step <= steps; step++) {
    const gradient = new Array<number>(dimension + 1).fill(0);
    const model = { weights: params.slice(0, dimension), noneUtility: params[dimension]! };
    for (const { features, gold } of cases) {
      const p = probabilities(features, model);
      features.forEach((row, e) => {
        const residual = (e === gold ? 1 : 0) - p.candidates[e]!;
        row.forEach((value, j) => (gradient[j]! += residual * value));
      });
      gradient[dimension]! += (gold < 0 ? 1 : 0) - p.none;
    }
    for (let j = 0; j <= dimension; j++) {
      const g = gradient[j]! / cases.length - (j < dimension ? l2 * params[j]! : 0);
      m[j] = 0.9 * m[j]! + 0.1 * g;
      v[j] = 0.999 * v[j]! + 0.001 * g * g;
      params[j]! += (rate * (m[j]! / (1 - 0.9 ** step))) / (Math.sqrt(v[j]! / (1 - 0.999 ** step)) + 1e-8);
    }
  }
  return { weights: params.slice(0, dimension), noneUtility: params[dimension]! };
}

/**
 * A question's features per candidate from its signals (columns: one value per candidate): each
 * signal as is, as a z-score among the question's candidates (scaled down by 5), and as its gap to
 * the question's best value of it: a cosine of 0.5 means more when every other candidate is at 0.1.
 */
export function relativeFeatures(columns: Float64Array[]): number[][] {
  const count = columns[0]?.length ?? 0;
  const stats = columns.map((column) => {
    let mean = 0;
    let best = -Infinity;
    for (const x of column) {
      mean += x / count;
      if (x > best) best = x;
    }
    let variance = 0;
    for (const x of column) variance += (x - mean) ** 2 / count;
    return { mean, sd: Math.sqrt(variance) || 1, best };
  });
  return Array.from({ length: count }, (_, e) =>
    columns.flatMap((column, j) => [column[e]!, (column[e]! - stats[j]!.mean) / stats[j]!.sd / 5, column[e]! - stats[j]!.best]),
  );
}

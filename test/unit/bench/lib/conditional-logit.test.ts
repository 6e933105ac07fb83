/**
 * The curated bench's learned combiner (bench/lib/conditional-logit.ts): the fit learns which
 * feature points to the right candidate and when a question matches none; the relative features
 * are each signal as is, as a scaled z-score among the candidates, and as its gap to the best.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fitConditionalLogit, type LogitCase, probabilities, relativeFeatures } from '../../../../bench/lib/conditional-logit.ts';

describe('conditional logit (curated bench combiner)', () => {
  it('gives relative features: value, z-score over 5, gap to the best', () => {
    const rows = relativeFeatures([Float64Array.from([1, 0, 0, 0])]);
    const sd = Math.sqrt(3 / 16);
    assert.deepEqual(rows[0]!.map((x) => Number(x.toFixed(6))), [1, Number(((1 - 0.25) / sd / 5).toFixed(6)), 0]);
    assert.deepEqual(rows[1]!.map((x) => Number(x.toFixed(6))), [0, Number(((0 - 0.25) / sd / 5).toFixed(6)), -1]);
    assert.deepEqual(relativeFeatures([Float64Array.from([0.3, 0.3])])[0], [0.3, 0, 0], 'equal values: z-score 0, no division by zero');
  });

  it('learns the feature that points to the right candidate, and a "none" for questions near none', () => {
    // Feature 0 is high for the right candidate; feature 1 is noise. None-questions have every feature low.
    const cases: LogitCase[] = [];
    for (let i = 0; i < 40; i++) {
      const gold = i % 3;
      cases.push({ gold, features: [0, 1, 2].map((e) => [e === gold ? 0.9 : 0.2, ((i * 7 + e * 3) % 5) / 5]) });
      cases.push({ gold: -1, features: [0, 1, 2].map((e) => [0.2, ((i + e) % 5) / 5]) });
    }
    const model = fitConditionalLogit(cases);
    assert.ok(model.weights[0]! > Math.abs(model.weights[1]!) * 3, JSON.stringify(model));
    const right = probabilities([[0.2, 0.4], [0.9, 0.4], [0.2, 0.4]], model);
    assert.ok(right.candidates[1]! > 0.8, JSON.stringify(right));
    const none = probabilities([[0.2, 0.4], [0.2, 0.4], [0.2, 0.4]], model);
    assert.ok(none.none > 0.8, JSON.stringify(none));
    const total = right.candidates.reduce((a, b) => a + b, 0) + right.none;
    assert.ok(Math.abs(total - 1) < 1e-9, 'probabilities add up to 1');
  });
});

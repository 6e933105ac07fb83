/**
 * The decision's fit holding weights to their features' signs (bench/answer/decision-fit.ts,
 * `fit-decision.ts --signed`): a feature whose calibration data leans against its meaning gets a
 * weight of 0, not the wrong sign, and features without a given sign stay free.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Example, FEATURE_SIGNS, fitDecision } from '../../../../bench/answer/decision-fit.ts';
import type { DecisionFeatures } from '../../../../server/retrieval/answer/answer-decision.ts';

const FEATURES = ['coverage', 'itemScore', 'novelty'];

/**
 * Answerable questions have higher coverage; in this sample they also happen to have a lower
 * item score (the way a feature overlapping another can lean), and more words of their own.
 */
function examples(): Example[] {
  let seed = 7;
  const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
  return Array.from({ length: 400 }, (_, i) => {
    const answerable = i % 2 === 0;
    const lean = answerable ? 1 : 0;
    const features = {
      coverage: 0.4 + 0.3 * lean + 0.2 * random(),
      itemScore: 0.9 - 0.2 * lean + 0.1 * random(),
      novelty: 0.3 + 0.2 * lean + 0.2 * random(),
    } as unknown as DecisionFeatures;
    return { set: 'squad', answerable, features, gold: answerable, product: null };
  });
}

const weightOf = (model: { features: readonly string[]; weights: number[] }, name: string) => model.weights[model.features.indexOf(name)]!;
const options = { keepShare: 0.9, maxGoldLoss: 1 };

describe('the decision fit held to its features signs', () => {
  it('gives the item score the sign the data leans to when unconstrained', () => {
    const { model } = fitDecision(examples(), FEATURES, options);
    assert.ok(weightOf(model, 'itemScore') < -0.1, `itemScore ${weightOf(model, 'itemScore')}`);
    assert.ok(weightOf(model, 'coverage') > 0.1);
  });

  it('holds a signed feature at 0 rather than the wrong sign, and keeps the others fitted', () => {
    assert.equal(FEATURE_SIGNS.itemScore, 1);
    assert.equal(FEATURE_SIGNS.coverage, 1);
    assert.equal(FEATURE_SIGNS.novelty, undefined, 'novelty has no sign of its own');
    const { model } = fitDecision(examples(), FEATURES, { ...options, signed: true });
    assert.equal(weightOf(model, 'itemScore'), 0);
    assert.ok(weightOf(model, 'coverage') > 0.1);
    assert.ok(weightOf(model, 'novelty') > 0.1, 'a free feature is still fitted');
    for (const [j, name] of model.features.entries()) {
      const sign = FEATURE_SIGNS[name as keyof typeof FEATURE_SIGNS];
      if (sign) assert.ok(model.weights[j]! * sign >= 0, `${name} ${model.weights[j]}`);
    }
  });

  it('still answers the answerable questions it was asked to keep', () => {
    const fitted = fitDecision(examples(), FEATURES, { ...options, signed: true });
    const answerable = examples().filter((e) => e.answerable);
    const kept = answerable.filter((e) => fitted.probability(e) >= fitted.model.threshold).length;
    assert.ok(kept >= 0.9 * answerable.length, `${kept} of ${answerable.length}`);
  });
});

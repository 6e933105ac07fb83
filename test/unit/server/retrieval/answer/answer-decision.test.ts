import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answerProbability, decisionFeatures, FITTED_MODEL, passagesAnswer, thresholdFor } from '../../../../../server/retrieval/answer/answer-decision.ts';
import { type CandidatePassage, questionIntent, scoreSentences } from '../../../../../server/retrieval/answer/extractive.ts';
import { weightedTerms } from '../../../../../server/retrieval/answer/question-terms.ts';

describe('whether the passages answer the question', () => {
  const item = (id: number, title: string) =>
    ({ id, knowledgeBaseId: 'kb', integrationId: 'i', externalId: String(id), sourceType: 'ARTICLE', title, url: null, updatedAt: 0, chunkCount: 1 }) as CandidatePassage['item'];
  const passage = (id: number, text: string, retrieval: number): CandidatePassage => ({
    item: item(id, 'David I of Scotland'), chunkId: id, text, retrieval, itemScore: retrieval / 2, passageScore: retrieval / 2,
  });
  const analysis = (question: string, candidates: CandidatePassage[]) => {
    const terms = weightedTerms(question, [], () => 2);
    return { question, terms, scored: scoreSentences(candidates, terms, questionIntent(question), question), candidates, bestCosine: 0.5 };
  };
  const married = passage(1, 'Six years later David I of Scotland married Maud, Countess of Huntingdon, in 1113.', 1);
  const brother = passage(2, 'His brother Alexander I married Sybilla of Normandy at the English court.', 0.9);
  const youth = passage(3, 'David I of Scotland spent his youth at the court of his brother in England.', 0.8);

  it('reads the answer type, the focus and the question words in or beside the sentence', () => {
    const when = decisionFeatures(analysis('When did King David I of Scotland marry?', [married, brother]))!;
    assert.equal(when.typeFound, 1, 'a year the question does not name answers "when"');
    assert.equal(when.typeMissing, 0);
    const brotherOnly = decisionFeatures(analysis('When did King David I of Scotland marry?', [brother]))!;
    assert.equal(brotherOnly.typeMissing, 1, 'no date in or beside the sentence');
    assert.ok(brotherOnly.pairsFound < when.pairsFound, '"David I" and "of Scotland" stand together only in the answering sentence');
    const which = decisionFeatures(analysis('Which countess did David I marry?', [married]))!;
    assert.equal(which.focusMissing, 0);
    assert.equal(decisionFeatures(analysis('Which abbey did David I found?', [married]))!.focusMissing, 1);
  });

  it('abstains when the fitted probability is under the threshold, and prefers the answering passage', () => {
    const answering = analysis('Who did King David I of Scotland marry?', [married, brother, youth]);
    // The same article without the paragraph that answers: about David, not about his marriage.
    const sameSubject = analysis('Who did King David I of Scotland marry?', [{ ...brother, retrieval: 1 }, youth]);
    const p = answerProbability(decisionFeatures(answering)!);
    const q = answerProbability(decisionFeatures(sameSubject)!);
    assert.ok(p > q, `answering ${p} > same subject ${q}`);
    const between = { ...FITTED_MODEL, threshold: (p + q) / 2 };
    assert.equal(passagesAnswer(answering, between), true);
    assert.equal(passagesAnswer(sameSubject, between), false);
    assert.equal(FITTED_MODEL.features.length, FITTED_MODEL.weights.length, 'the shipped weights name every feature they weigh');
  });

  it('holds questions that ask for no fact to their own threshold when the model has one', () => {
    const how = analysis('How do I find the court where David I of Scotland married?', [married]);
    const who = analysis('Who did King David I of Scotland marry?', [married]);
    const p = answerProbability(decisionFeatures(how)!);
    // The shipped model has a threshold by kind: this one, without it, has one for every question.
    const { otherThreshold: _, ...oneThreshold } = FITTED_MODEL;
    const strict = { ...oneThreshold, threshold: Math.min(1, p + 0.01) };
    assert.equal(passagesAnswer(how, strict), false, 'one threshold for every question: under it');
    const lenient = { ...strict, otherThreshold: p };
    assert.equal(thresholdFor(how.question, lenient), p);
    assert.equal(passagesAnswer(how, lenient), true, 'the how-to question is held to otherThreshold');
    assert.equal(thresholdFor(who.question, lenient), strict.threshold, 'a fact question keeps the threshold');
    assert.equal(thresholdFor(how.question, strict), strict.threshold, 'without otherThreshold every question has the threshold');
  });

  it('reads the vectors: the passage cosine, its lead over other items and the fitted bilinear match', () => {
    const unit = (...v: number[]) => {
      const n = Math.hypot(...v);
      return Float32Array.from(v, (x) => x / n);
    };
    const query = unit(1, 1, 0);
    const base = analysis('When did King David I of Scotland marry?', [married, brother]);
    const vectors = { query, passages: [unit(1, 0, 0), unit(0, 1, 1)] };
    const model = { ...FITTED_MODEL, interaction: { weights: [2, 0, 0], bias: -1 } };
    const f = decisionFeatures({ ...base, vectors }, model)!;
    assert.ok(Math.abs(f.passageCosine - Math.SQRT1_2) < 1e-6, 'cosine of the query and the married passage');
    assert.ok(Math.abs(f.cosineMargin - (Math.SQRT1_2 - 0.5)) < 1e-6, 'lead over the brother passage (cosine 0.5)');
    assert.ok(Math.abs(f.meaningMatch - (-1 + 2 * Math.SQRT1_2)) < 1e-6, 'bias + 2 × q1 × p1');
    assert.equal(f.typeInSentence, 1, 'the year is in the quoted sentence itself');
    const none = decisionFeatures(base, model)!;
    assert.deepEqual([none.passageCosine, none.cosineMargin, none.meaningMatch], [0, 0, 0], 'no vectors (keyword mode): the features of meaning are 0');
    const missingVector = decisionFeatures({ ...base, vectors: { query, passages: [null, unit(0, 1, 1)] } }, model)!;
    assert.equal(missingVector.passageCosine, 0, 'a passage not yet embedded has no cosine');
  });

  it('the answer type must be in the quoted sentence itself for typeInSentence, not only beside it', () => {
    const f = decisionFeatures(analysis('Who did King David I of Scotland marry?', [brother]))!;
    assert.equal(f.typeInSentence, 1, '"Alexander", "Sybilla" and "Normandy" are names the question does not hold');
    const own = passage(4, 'King David I of Scotland married at the court in the spring.', 1);
    assert.equal(decisionFeatures(analysis('Who did King David I of Scotland marry?', [own]))!.typeInSentence, 0, 'only the question\'s own names');
  });

  it('typeNearQuestion: a fresh answer of the expected type beside the question\'s heaviest words', () => {
    const question = 'Who did King David I of Scotland marry?';
    const near = decisionFeatures(analysis(question, [married]))!.typeNearQuestion;
    const far = decisionFeatures(analysis(question, [brother]))!.typeNearQuestion;
    assert.ok(near > 0, `"Maud" four words after "David": ${near}`);
    assert.equal(far, 0, 'the brother sentence names others, not David');
    assert.equal(decisionFeatures(analysis('Did King David I of Scotland marry?', [married]))!.typeNearQuestion, 0, 'no answer type expected');
  });
});


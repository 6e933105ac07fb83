/**
 * The shop set's scoring (bench/answer/shop-set/score.ts) and the set's own consistency
 * (shop-set.ts): the committed businesses load, and each verdict is given where it should be.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatTally, scoreAnswer, tally } from '../../../../../bench/answer/shop-set/score.ts';
import { checkBusiness, factMatcher, loadShopSet, type ShopBusiness } from '../../../../../bench/answer/shop-set/shop-set.ts';

describe('the committed shop set', () => {
  it('has three businesses, at least 100 questions, and every kind the set is meant to test', () => {
    const set = loadShopSet();
    assert.equal(set.length, 3);
    const questions = set.flatMap((b) => b.questions);
    assert.ok(questions.length >= 100, `${questions.length} questions`);
    const kinds = new Set(questions.map((q) => q.kind));
    for (const kind of ['price', 'list', 'lead-time', 'yes-no-missing', 'typo', 'run-together', 'faq', 'follow-up', 'this', 'abstain', 'wholesale']) {
      assert.ok(kinds.has(kind), `no ${kind} question`);
    }
  });
});

describe('checkBusiness', () => {
  const base: ShopBusiness = { knowledgeBaseId: 'kb', name: 'x', faqFile: 'faq.md', items: [{ externalId: 'a', sourceType: 'PRODUCT', title: 'A', content: 'a' }], questions: [] };
  it('refuses a follow-up of a question not asked before it', () => {
    const b = { ...base, questions: [{ id: 'q2', kind: 'follow-up', question: 'and?', expect: ['x'], followUpOf: 'q1' }] };
    assert.throws(() => checkBusiness(b, 'b.json'), /q2 follows q1/);
  });
  it('refuses a context naming no item', () => {
    const b = { ...base, questions: [{ id: 'q1', kind: 'this', question: 'how big?', expect: ['x'], context: { externalId: 'nope' } }] };
    assert.throws(() => checkBusiness(b, 'b.json'), /context names no item/);
  });
});

describe('factMatcher', () => {
  it('matches phrases without regard to case or runs of spaces, and /regex/ as a regular expression', () => {
    assert.equal(factMatcher('6.90 EUR')('Delivery costs 6.90\u00a0eur.'), true);
    assert.equal(factMatcher('6.90 EUR')('Delivery costs 6.9 EUR.'), false);
    assert.equal(factMatcher('/^yes/i')('Yes: cards and PayPal.'), true);
    assert.equal(factMatcher('/^yes/i')('We take cards; yes.'), false);
  });
});

describe('scoreAnswer', () => {
  const q = { expect: ['39 EUR', '69 EUR'], forbid: ['99 EUR'] };
  it('gives right, partial and wrong by the expected facts held', () => {
    assert.equal(scoreAnswer(q, { answered: true, answer: '12 roses 39 EUR, 24 roses 69 EUR [1]' }).verdict, 'right');
    assert.equal(scoreAnswer(q, { answered: true, answer: '12 roses 39 EUR [1]' }).verdict, 'partial');
    assert.equal(scoreAnswer(q, { answered: true, answer: 'Red roses from the Netherlands [1]' }).verdict, 'wrong');
    assert.equal(scoreAnswer(q, { answered: false, answer: 'I could not find that.' }).verdict, 'wrong');
  });
  it('gives confidently wrong for a forbidden fact, even beside the expected ones', () => {
    const scored = scoreAnswer(q, { answered: true, answer: '39 EUR, 69 EUR, or 99 EUR for trade' });
    assert.deepEqual(scored, { verdict: 'confidently wrong', found: ['39 EUR', '69 EUR'], missing: [], forbidden: ['99 EUR'] });
  });
  it('gives right for a silence that was expected and confidently wrong for an answer instead', () => {
    assert.equal(scoreAnswer({ expect: 'abstain' }, { answered: false, answer: '' }).verdict, 'right');
    assert.equal(scoreAnswer({ expect: 'abstain' }, { answered: true, answer: 'Yes: cards.' }).verdict, 'confidently wrong');
  });
});

describe('tally', () => {
  it('counts verdicts per group and over all, with shares', () => {
    const rows = [
      { g: 'a', v: 'right' as const },
      { g: 'a', v: 'confidently wrong' as const },
      { g: 'b', v: 'right' as const },
      { g: 'b', v: 'partial' as const },
    ];
    const t = tally(rows, (r) => r.g, (r) => r.v);
    assert.deepEqual(t.all, { questions: 4, right: 2, partial: 1, wrong: 0, 'confidently wrong': 1, rightShare: 0.5, confidentlyWrongShare: 0.25 });
    assert.equal(t.a!.confidentlyWrongShare, 0.5);
    assert.match(formatTally('business', t).split('\n').at(-1)!, /^all\s+4\s+2\s+1\s+0\s+1\s+50\.0\s+25\.0$/);
  });
});

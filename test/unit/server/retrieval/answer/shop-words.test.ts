import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { missingKeyTerms } from '../../../../../server/retrieval/answer/abstention.ts';
import { type CandidatePassage, questionIntent, scoreSentences, selectSentences } from '../../../../../server/retrieval/answer/extractive.ts';
import { weightedTerms } from '../../../../../server/retrieval/answer/question-terms.ts';
import { saysInOtherWords } from '../../../../../server/retrieval/answer/shop-words.ts';
import { termsMatch } from '../../../../../server/language/content-terms.ts';

const passage = (id: number, title: string, text: string): CandidatePassage => ({
  item: { id, knowledgeBaseId: 'kb', integrationId: 'i', externalId: String(id), sourceType: 'ARTICLE', title, url: null, updatedAt: 0, chunkCount: 1 } as CandidatePassage['item'],
  chunkId: id, text, retrieval: 1, itemScore: 1, passageScore: 1,
});

describe("a shop's other words for a visitor's (shop-words.ts)", () => {
  it('reads "10 % off" as a discount, "Children\'s cut" as kids, a gift card as a voucher', () => {
    assert.equal(saysInOtherWords('discount', 'Trade customers get 10 % off the shelf price.'), true);
    assert.equal(saysInOtherWords('discount', 'Students get a reduced price on Tuesdays.'), true);
    assert.equal(saysInOtherWords('discount', 'Delivery costs 4.95 EUR.'), false);
    assert.equal(saysInOtherWords('kids', "Children's cut"), true);
    assert.equal(saysInOtherWords('kids', "Men's cut"), false);
    assert.equal(saysInOtherWords('voucher', 'Gift cards are available in the shop.'), true);
    // Only the listed words: "off" alone is no discount, "cut" no child.
    assert.equal(saysInOtherWords('off', 'Trade customers get 10 % off.'), false);
  });

  it('covers a visitor\'s word with the shop\'s, so the line saying it answers', () => {
    const trade = passage(1, 'Trade accounts', 'Trade customers pay by invoice within 30 days. Trade customers get 10 % off the shelf price on tools.');
    const question = 'do trade customers get a discount';
    const intent = { ...questionIntent(question) };
    const scored = scoreSentences([trade], weightedTerms(question, [], () => 1), intent, question);
    assert.match(selectSentences(scored, undefined, intent)[0]!.text, /10 % off/);
  });

  it('holds a yes/no question\'s key term said in other words (the quoted stems carry it)', () => {
    const terms = weightedTerms('do trade customers get a discount', [], (w) => (w === 'discount' ? 3 : 1));
    const sentence = 'Trade customers get 10 % off the shelf price on tools.';
    const stems = ['trade', 'customer', 'get', '10', 'off', 'shelf', 'price', 'tool'];
    const withOtherWords = [...stems, ...terms.filter((t) => saysInOtherWords(t.word, sentence)).map((t) => t.stem)];
    const match = (a: string, b: string) => termsMatch(a, b);
    assert.deepEqual(missingKeyTerms('do trade customers get a discount', terms, [{ stems, titleStems: [] }], [stems], match), ['discount']);
    assert.deepEqual(missingKeyTerms('do trade customers get a discount', terms, [{ stems: withOtherWords, titleStems: [] }], [withOtherWords], match), []);
  });
});

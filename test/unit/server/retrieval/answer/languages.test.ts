import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type CandidatePassage, questionIntent, scoreSentences } from '../../../../../server/retrieval/answer/extractive.ts';
import { contextTurns, weightedTerms } from '../../../../../server/retrieval/answer/question-terms.ts';
import { contentTerms, contentWords, termsMatch } from '../../../../../server/language/content-terms.ts';
import type { ItemSummary } from '../../../../../server/domain/item-record.ts';

describe("the assistant's reading of a question in the knowledge base's language", () => {
  it("weighs a German question's words by their Snowball terms, without stop words or question words", () => {
    assert.deepEqual(contentWords('Wie lange leuchtet die Lampe?', 'de'), ['leuchtet', 'lampe']);
    assert.deepEqual(contentWords('Combien de temps éclaire la lampe ?', 'fr'), ['éclaire', 'lampe']);
    const terms = weightedTerms('Was kosten die Socken?', [], () => 2, 'de');
    assert.deepEqual(terms.map((t) => [t.word, t.stem]), [['kosten', 'kost'], ['socken', 'sock']]);
    // English reads the same words otherwise: "die" and "was" are words there, "kosten" is stripped of nothing.
    assert.deepEqual(weightedTerms('Was kosten die Socken?', [], () => 2).map((t) => t.stem), ['kosten', 'die', 'socken']);
  });

  it('reads sentences into the same terms, diacritics folded', () => {
    assert.deepEqual(contentTerms('Öffnungszeiten an Feiertagen', 'de'), contentTerms('Offnungszeiten Feiertag', 'de'));
    assert.deepEqual(contentTerms('Une tente légère', 'fr'), ['tent', 'leger']);
  });

  it('matches a verb ending Snowball keeps and, in compounding languages, a compound by the word it ends with', () => {
    assert.ok(termsMatch('kost', 'kostet', 'de'));
    assert.ok(termsMatch('sock', 'wandersock', 'de'));
    assert.ok(termsMatch('lamp', 'stirnlamp', 'de'));
    assert.ok(!termsMatch('lamp', 'stirnlamp', 'fr'), 'French does not write compounds as one word');
    assert.ok(!termsMatch('reg', 'nieselreg', 'de'), 'three letters are too few');
    // English keeps its rule: five letters of prefix, no suffix.
    assert.ok(!termsMatch('kost', 'kostet'));
    assert.ok(!termsMatch('lamp', 'stirnlamp'));
    assert.ok(termsMatch('locat', 'location'));
  });

  it('applies no English intent (price, duration, lists) to another language', () => {
    assert.deepEqual(questionIntent('Welche Jacken are waterproof? How much is the price?', 'de'), { price: false, duration: false, several: false });
    assert.equal(questionIntent('How much does the loaf cost?').price, true);
  });

  it('leans on the conversation in another language only when the question names almost nothing', () => {
    const conversation = [{ role: 'user' as const, content: 'Was kostet der Schlafsack?' }];
    assert.deepEqual(contextTurns('Und die Lampe?', conversation, 'de'), ['Was kostet der Schlafsack?']);
    assert.deepEqual(contextTurns('Wie lange leuchtet die Stirnlampe?', conversation, 'de'), []);
  });

  it("scores a German sentence by the question's terms: the price sentence of the socks covers what a pair costs", () => {
    const item = { id: 1, title: 'Wandersocken', sourceType: 'PRODUCT' } as ItemSummary;
    const passage: CandidatePassage = {
      item, chunkId: 1, text: 'Socken aus Merinowolle, an den Fersen verstärkt. Ein Paar kostet 14 Euro.', retrieval: 1, itemScore: 1, passageScore: 1,
    };
    const question = 'Was kosten die Socken?';
    const terms = weightedTerms(question, [], () => 2, 'de');
    const scored = scoreSentences([passage], terms, questionIntent(question, 'de'), question, 'de');
    const price = scored.find((s) => s.text === 'Ein Paar kostet 14 Euro.')!;
    assert.equal(price.coverage, 0.75, 'kostet matches kosten (full weight); the title Wandersocken names the socks (half)');
    const english = scoreSentences([passage], weightedTerms(question, [], () => 2), questionIntent(question), question);
    assert.ok(english.find((s) => s.text === 'Ein Paar kostet 14 Euro.')!.coverage < 0.5, 'read as English, the sentence shares almost nothing');
  });
});

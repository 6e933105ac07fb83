import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mainVerb, missingKeyTerms } from '../../../../../server/retrieval/answer/abstention.ts';
import { attributeLines } from '../../../../../server/retrieval/answer/attribute-text.ts';
import { type CandidatePassage, questionIntent, scoreSentences, selectSentences } from '../../../../../server/retrieval/answer/extractive.ts';
import { faqAnswerSentences, faqEntries, matchingFaq, questionSimilarity } from '../../../../../server/retrieval/answer/faq.ts';
import { weightedTerms } from '../../../../../server/retrieval/answer/question-terms.ts';
import { contentTerms, termsMatch } from '../../../../../server/language/content-terms.ts';
import { correctTypos, splitRunTogether, splitTurns } from '../../../../../server/retrieval/answer/typed-words.ts';

const item = (id: number, title: string, sourceType = 'ARTICLE') =>
  ({ id, knowledgeBaseId: 'kb', integrationId: 'i', externalId: String(id), sourceType: sourceType, title, url: null, updatedAt: 0, chunkCount: 1 }) as CandidatePassage['item'];
const passage = (id: number, title: string, text: string, extra: Partial<CandidatePassage> = {}): CandidatePassage => ({
  item: item(id, title), chunkId: id, text, retrieval: 1, itemScore: 1, passageScore: 1, ...extra,
});
/** Rarer words weigh more, as the knowledge base's idf makes them. */
const idf = (rare: string[]) => (word: string) => (rare.includes(word.toLowerCase()) ? 3 : 1);
const answerOf = (question: string, passages: CandidatePassage[], rare: string[] = []) => {
  const terms = weightedTerms(question, [], idf(rare));
  const intent = questionIntent(question);
  return selectSentences(scoreSentences(passages, terms, intent, question), undefined, intent).map((s) => s.text);
};

describe('shop content read as shop content', () => {
  it('matches an FAQ question to the visitor’s and answers with the answer under it', () => {
    const faq = passage(1, 'FAQ', 'Our sourdough, the rye breads and the baguettes are made without milk or butter.', {
      section: 'Frequently asked questions › Do you have dairy-free options?',
    });
    const other = passage(2, 'Payment', 'We accept all debit and credit cards.');
    const pairs = passage(3, 'Customer questions', 'Q: Do you sell gift vouchers?\nA: Gift vouchers from 10 EUR are sold at the counter.');
    const titled = passage(4, 'Can I bring my own container?', 'Yes, bring a clean box or bag and we fill it at the counter.');
    assert.deepEqual(faqEntries([faq, other, pairs, titled]).map((e) => e.question), [
      'Do you have dairy-free options?', 'Do you sell gift vouchers?', 'Can I bring my own container?',
    ]);
    const question = 'Do you have dairy free options?';
    const terms = weightedTerms(question, [], () => 1);
    const entry = matchingFaq([other, faq], terms, question);
    assert.equal(entry?.passage, 1);
    const scored = scoreSentences([other, faq], terms, questionIntent(question), question);
    assert.deepEqual(faqAnswerSentences(entry!, scored, 3).map((s) => s.text), ['Our sourdough, the rye breads and the baguettes are made without milk or butter.']);
    // A question on another subject that shares a word is no match.
    assert.equal(matchingFaq([faq], weightedTerms('Do you have parking options?', [], () => 1), 'Do you have parking options?'), null);
    const vouchers = 'Do you sell gift vouchers?';
    const voucherEntry = matchingFaq([pairs], weightedTerms(vouchers, [], () => 1), vouchers)!;
    const voucherScored = scoreSentences([pairs], weightedTerms(vouchers, [], () => 1), questionIntent(vouchers), vouchers);
    assert.deepEqual(faqAnswerSentences(voucherEntry, voucherScored, 3).map((s) => s.text), ['Gift vouchers from 10 EUR are sold at the counter.']);
  });

  it('matches a visitor naming one of the alternatives an FAQ question lists', () => {
    const faq = passage(7, 'FAQ', 'We do not fit locks ourselves; the locksmiths we work with are listed at the till.', { section: 'FAQ › Can you suggest a locksmith, glazier or roofer?' });
    const asked = 'can you suggest a locksmith';
    const entry = matchingFaq([faq], weightedTerms(asked, [], () => 1), asked);
    assert.equal(entry?.question, 'Can you suggest a locksmith, glazier or roofer?');
    assert.equal(questionSimilarity(weightedTerms(asked, [], () => 1), 'Can you suggest a locksmith, glazier or roofer?', asked), 1);
    // Words listed with "and" are each asked; a question on another subject is still no match.
    assert.ok(questionSimilarity(weightedTerms('do you sell tulips', [], () => 1), 'Do you sell tulips, lilies and orchids?', 'do you sell tulips') < 0.75);
    assert.equal(matchingFaq([faq], weightedTerms('can you suggest a parking space', [], () => 1), 'can you suggest a parking space'), null);
  });

  it('reads product attributes as "Label: value" lines that can be the answer', () => {
    assert.deepEqual(attributeLines("}; { source: 'erp', is_heat_sensitive: { value:false } }"), ['Heat sensitive: no']);
    assert.deepEqual(attributeLines('{"dishwasher_safe": true, "product_id": 5, "colorName": "sand"}'), ['Dishwasher safe: yes', 'Color name: sand']);
    const bowl = passage(1, 'Stoneware bread bowl', 'A hand-glazed stoneware bowl for proving and serving bread.\n\nPrice: 24 EUR\nDishwasher safe: no\nOven safe: yes');
    assert.deepEqual(answerOf('Is the bread bowl dishwasher safe?', [bowl], ['dishwasher'])[0], 'Dishwasher safe: no');
    const tart = passage(2, 'Chocolate tart', "Dark chocolate tart, for eight people. }; { source: 'erp', is_heat_sensitive: { value:false } }");
    assert.equal(answerOf('Is the chocolate tart heat sensitive?', [tart], ['heat', 'sensitive'])[0], 'Heat sensitive: no');
  });

  it('finds the key term of a yes/no question missing from what would be quoted', () => {
    const payment = passage(1, 'Payment', 'We accept all debit and credit cards, Apple Pay and Google Pay.');
    const missing = (question: string, passages: CandidatePassage[], rare: string[]) => {
      const terms = weightedTerms(question, [], idf(rare));
      const intent = questionIntent(question);
      const chosen = selectSentences(scoreSentences(passages, terms, intent, question), undefined, intent);
      const quoted = chosen.map((c) => ({ stems: c.stems, titleStems: contentTerms(passages[c.passage]!.item.title) }));
      const retrieved = passages.map((p) => contentTerms(`${p.item.title}\n${p.text}`));
      return missingKeyTerms(question, terms, quoted, retrieved, (a, b) => termsMatch(a, b));
    };
    assert.deepEqual(missing('Can I pay with Bitcoin?', [payment], ['bitcoin']), ['bitcoin']);
    assert.deepEqual(missing('Can I pay with Apple Pay?', [payment], ['apple']), []);
    // A word another passage holds is the content's own word for the kind ("bread" for "loaves").
    const gluten = passage(4, 'Gluten-free baking', 'Our gluten-free loaves are baked on Tuesdays in a separate oven.');
    const pastries = passage(5, 'Delivery', 'Bread and pastries are delivered by bicycle.');
    assert.deepEqual(missing('Is it possible to get gluten-free bread?', [gluten, pastries], ['gluten', 'bread']), []);
    // In a long question a word the content lacks is mostly phrasing: the decision alone reads it.
    assert.deepEqual(missing('Is it possible to keep more than one Bitcoin wallet on the same phone and laptop?', [payment], ['bitcoin']), []);
    // Words that frame the question are not what it asks about.
    assert.deepEqual(missing('Is it possible to pay by card?', [payment], ['possible']), []);
    const delivery = passage(2, 'Delivery', 'We deliver to postcodes 10115 to 10999 in Berlin from Tuesday to Saturday.');
    assert.deepEqual(missing('Do you deliver to Hamburg?', [delivery], ['hamburg']), ['hamburg']);
    assert.deepEqual(missing('Do you deliver on Sundays?', [delivery], ['sundays']), ['sundays']);
    assert.deepEqual(missing('Do you deliver to 20095?', [delivery], ['20095']), ['20095']);
    // A question asking for a fact too is not a yes/no question; a size is not a key term.
    assert.deepEqual(missing('Do you deliver to 10997 and what is the minimum order?', [delivery], ['10997']), []);
    const liner = passage(3, 'Tin liner', 'The liners fit round tins from 24 to 28 cm.');
    assert.deepEqual(missing('Will the tin liner fit a 26 cm tin?', [liner], []), []);
  });

  it('never counts the main verb of a yes/no question as its key term, and matches verb forms by stem', () => {
    const missing = (question: string, passages: CandidatePassage[], rare: string[]) => {
      const terms = weightedTerms(question, [], idf(rare));
      const intent = questionIntent(question);
      const chosen = selectSentences(scoreSentences(passages, terms, intent, question), undefined, intent);
      const quoted = chosen.map((c) => ({ stems: c.stems, titleStems: contentTerms(passages[c.passage]!.item.title) }));
      const retrieved = passages.map((p) => contentTerms(`${p.item.title}\n${p.text}`));
      return missingKeyTerms(question, terms, quoted, retrieved, (a, b) => termsMatch(a, b));
    };
    const cards = passage(1, 'Paying at the till', 'We take debit cards, credit cards and Google Pay at the till.');
    // "welcome" is the verb: the content says "take"; "google" is there, so nothing is missing.
    assert.equal(mainVerb('Do you welcome Google Pay?'), 'welcome');
    assert.deepEqual(missing('Do you welcome Google Pay?', [cards], ['welcome', 'google']), []);
    // The rule still stops a missing noun after the verb.
    assert.deepEqual(missing('Do you welcome Bitcoin?', [cards], ['welcome', 'bitcoin']), ['bitcoin']);
    // "is it …" is followed by what is said of the subject, not a verb.
    assert.equal(mainVerb('Is it frost proof?'), null);
    const bowl = passage(2, 'Garden bowl', 'Stoneware bowl for the terrace.\n\nFrost proof: no\nHolds: 3 litres');
    assert.deepEqual(missing('Can this hold soup?', [bowl], ['hold', 'soup']), ['soup']);
    // A key term "copy" is held by "copied".
    const labels = passage(3, 'Printing', 'Price labels can be reprinted, and we have copied old labels for many shops.');
    assert.deepEqual(missing('Can you copy labels?', [labels], ['copy', 'labels']), []);
  });

  it('reads run-together and misspelt words as the passages write them', () => {
    const loaf = passage(1, 'Gluten-free loaf', 'Our gluten-free loaf is baked from buckwheat flour.');
    const rye = passage(2, 'Rye bread', 'Contains: rye, barley malt (gluten), sesame.');
    assert.equal(splitRunTogether('do you have glutenfree bread?', [rye, loaf]), 'do you have gluten free bread?');
    assert.equal(splitRunTogether('do you have dairyfree bread?', [rye, loaf]), 'do you have dairyfree bread?');
    const bun = passage(3, 'Cinnamon bun', 'A soft yeast bun rolled with cinnamon sugar.');
    assert.equal(correctTypos('how much is a cinammon bun', [bun]), 'how much is a cinnamon bun');
    // A follow-up's earlier turns are split as the question is: "timbercutting" weighs as "timber" and "cutting".
    const timber = passage(10, 'Timber cutting service', 'We cut timber to your measurements; each further cut costs 0.50 EUR.');
    assert.deepEqual(splitTurns(['do you do timbercutting'], [timber]), ['do you do timber cutting']);
    const terms = weightedTerms('how much does it cost', splitTurns(['do you do timbercutting'], [timber]), () => 1);
    assert.deepEqual(terms.map((t) => t.word), ['cost', 'timber', 'cutting']);
    // An inflected misspelling two edits from the passages' word is one from it by its stem.
    const mixing = passage(9, 'Paint mixing', 'Bring a sample and we match the colour.');
    assert.equal(correctTypos('do you mix paint colurs', [mixing]), 'do you mix paint colour');
    // A form of a word the passages hold is no typo; short words and numbers are left as typed.
    assert.equal(correctTypos('which buns are soft', [bun]), 'which buns are soft');
    assert.equal(correctTypos('is it 10115 or a bag', [bun]), 'is it 10115 or a bag');
    // Question words and stop words are never read as a passage's word ("where" is not "were").
    assert.equal(correctTypos('where were the buns baked', [passage(6, 'Buns', 'The buns were soft.')]), 'where were the buns baked');
    // Read as typed, "glutenfree" picks the sentence that says the bread contains gluten.
    assert.notEqual(answerOf('do you have gluten free bread?', [rye, loaf], ['gluten', 'free'])[0], 'Contains: rye, barley malt (gluten), sesame.');
  });

  it('keeps the number the question asks for, from the same item', () => {
    const cakes = passage(1, 'Birthday cakes', 'Made-to-order layer cakes for birthdays, with your choice of sponge and filling. We bake them with butter and fresh cream from the farm. Please order at least 7 days before the party.');
    assert.equal(questionIntent('Can I order a birthday cake for this Saturday?').duration, true);
    assert.equal(questionIntent('Can I order a birthday cake?').duration, false);
    const answer = answerOf('Can I order a birthday cake for this Saturday?', [cakes], ['birthday', 'saturday']);
    assert.ok(answer.some((s) => /7 days/.test(s)), answer.join(' '));
  });

  it('leaves out the terms of another audience unless the question is theirs', () => {
    const delivery = passage(1, 'Delivery', 'The minimum order for delivery is 20 EUR, and delivery costs 4 EUR.');
    const wholesale = passage(2, 'Wholesale for cafés', 'The minimum wholesale order is 80 EUR per delivery.');
    const retail = answerOf('What is the minimum order for delivery?', [wholesale, delivery], ['minimum']);
    assert.ok(retail.some((s) => /20 EUR/.test(s)) && !retail.some((s) => /80 EUR/.test(s)), retail.join(' '));
    const trade = answerOf('What is the minimum wholesale order?', [wholesale, delivery], ['minimum', 'wholesale']);
    assert.match(trade[0]!, /80 EUR/);
  });

  it('answers with another audience\'s terms a page for everyone names when only they speak to the question', () => {
    const payment = passage(1, 'Payment', 'Private customers pay in cash or by card. Invoices are only available for trade accounts.');
    const trade = passage(2, 'Trade accounts', 'Trade customers pay by invoice within 30 days.');
    const invoice = answerOf('can I pay by invoice?', [trade, payment], ['invoice']);
    assert.match(invoice[0]!, /only available for trade accounts/, invoice.join(' '));
    assert.ok(!invoice.some((s) => /within 30 days/.test(s)), invoice.join(' '));
    // A page for the trade alone still stays out of a customer's answer, though it covers more.
    const retail = passage(3, 'Home delivery', 'Delivery is free for orders over 50 EUR.');
    const tradeDelivery = passage(4, 'Trade accounts', 'Trade deliveries are free from an order value of 250 EUR; below that the minimum order for trade delivery is not met.');
    const free = answerOf('whats the minimum order for free delivery', [tradeDelivery, retail], ['minimum']);
    assert.ok(free.every((s) => !/250 EUR/.test(s)) && free.some((s) => /50 EUR/.test(s)), free.join(' '));
  });

  it('reads a passage under a heading as about the heading, as under its title', () => {
    const faq = passage(1, 'hardware-faq.md', 'Yes. There is a free collection box for used batteries next to the exit.', {
      section: 'Questions we are often asked › Do you take back old batteries and light bulbs?',
    });
    const question = 'do you take old batteries back';
    const [best] = scoreSentences([faq], weightedTerms(question, [], () => 1), questionIntent(question), question);
    // "batteries" in the sentence, "take", "old" and "back" in the heading at the title's half weight.
    assert.equal(best!.coverage, (1 + 3 * 0.5) / 4);
  });
});

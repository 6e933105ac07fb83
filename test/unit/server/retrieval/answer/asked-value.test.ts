import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { askedValue, asksForValue, isValueLine, statesValue } from '../../../../../server/retrieval/answer/asked-value.ts';
import { type CandidatePassage, questionIntent, scoreSentences, selectSentences, valueFirst } from '../../../../../server/retrieval/answer/extractive.ts';
import { weightedTerms } from '../../../../../server/retrieval/answer/question-terms.ts';
import { contentWords } from '../../../../../server/language/content-terms.ts';

const passage = (id: number, title: string, text: string): CandidatePassage => ({
  item: { id, knowledgeBaseId: 'kb', integrationId: 'i', externalId: String(id), sourceType: 'ARTICLE', title, url: null, updatedAt: 0, chunkCount: 1 } as CandidatePassage['item'],
  chunkId: id, text, retrieval: 1, itemScore: 1, passageScore: 1,
});
const scored = (question: string, passages: CandidatePassage[]) =>
  scoreSentences(passages, weightedTerms(question, [], () => 1), questionIntent(question), question);

describe('the value a question asks for (asked-value.ts)', () => {
  it('reads a price, a time of day or a duration from the wording', () => {
    assert.equal(askedValue('how much is a womens haircut'), 'price');
    assert.equal(askedValue('What does balayage cost?'), 'price');
    assert.equal(askedValue('what time do you close on saturday?'), 'clock');
    assert.equal(askedValue('whats your latest appointment on thursday'), 'clock');
    assert.equal(askedValue('when do you open on Mondays'), 'clock');
    assert.equal(askedValue('how long does delivery take'), 'duration');
    assert.equal(askedValue('how much notice do i need to give'), 'duration');
    assert.equal(askedValue('how early do I need to order a cake'), 'duration');
    assert.equal(askedValue('how often do i water this'), 'frequency');
    assert.equal(askedValue('Do you deliver to Hamburg?'), null);
    assert.equal(askedValue('Who founded the company?'), null);
  });

  it('tells whether a sentence states such a value', () => {
    const q = 'how long does delivery take';
    assert.equal(statesValue('duration', 'Parcels arrive in 2 to 3 working days.', q), true);
    assert.equal(statesValue('duration', 'A workshop lasts about 2.5 hours.', q), true);
    assert.equal(statesValue('duration', 'We deliver within 30 km of the store.', q), false);
    assert.equal(statesValue('clock', 'Saturday from 9:00 to 14:00', 'what time do you close'), true);
    assert.equal(statesValue('clock', 'We open at 7 pm', 'what time do you open'), true);
    assert.equal(statesValue('clock', 'We are closed on Sundays.', 'what time do you close'), false);
    assert.equal(statesValue('price', 'Price: 52 EUR', 'how much is it'), true);
    assert.equal(statesValue('price', 'A cut for children under 12.', 'how much is it'), false);
    const often = 'how often do i water this';
    assert.equal(statesValue('frequency', 'Water it once a week by dipping the pot.', often), true);
    assert.equal(statesValue('frequency', 'Change the water every two days.', often), true);
    assert.equal(statesValue('frequency', 'We deliver daily.', often), true);
    assert.equal(statesValue('frequency', 'Water it with rain water.', often), false);
    assert.equal(asksForValue('frequency', 'often'), true);
    assert.equal(asksForValue('clock', 'time'), true);
    assert.equal(asksForValue('duration', 'long'), true);
    assert.equal(asksForValue('price', 'cost'), true);
    assert.equal(asksForValue('price', 'haircut'), false);
  });

  it('lets a line stating the asked value about the subject cover the words that ask for it', () => {
    const hours = passage(1, 'Opening hours', 'On Sundays the shop is closed, except on Mother’s Day, when we open from 10:00 to 13:00. We are open Monday to Friday from 9:00 to 18:30 and on Saturday from 9:00 to 14:00.');
    const question = 'what time do you close on saturday?';
    const best = scored(question, [hours])[0]!;
    assert.match(best.text, /Saturday from 9:00 to 14:00/);
    assert.equal(best.coverage, 1);
    // The value's item names the subject: its title counts in full ("Balayage" for "What does balayage cost?").
    const balayage = passage(2, 'Balayage', 'Price: from 140 EUR');
    const bridal = passage(3, 'Bridal hair', 'The trial costs 75 EUR, styling on the day 160 EUR.');
    const cost = 'What does balayage cost?';
    const [first] = selectSentences(scored(cost, [bridal, balayage]), undefined, questionIntent(cost));
    assert.equal(first?.text, 'Price: from 140 EUR');
    assert.equal(scored(cost, [balayage])[0]!.coverage, 1);
    // A value about another subject covers nothing more: "within a week" says nothing of delivery.
    const faq = passage(4, 'FAQ', 'Special orders are in the store within a week.');
    const delivery = passage(5, 'Home delivery', 'Parcels arrive in 2 to 3 working days.');
    const long = 'how long does delivery take';
    const byText = new Map(scored(long, [faq, delivery]).map((s) => [s.text, s.coverage]));
    assert.equal(byText.get('Parcels arrive in 2 to 3 working days.'), 1);
    assert.equal(byText.get('Special orders are in the store within a week.'), 0);
  });

  it('reads the noun of "latest appointment" as asking for the time, so the day\'s hours answer it', () => {
    const hours = passage(1, 'Opening hours', 'We are open Tuesday, Wednesday and Friday from 9:00 to 18:00, Thursday from 11:00 to 20:00 and Saturday from 9:00 to 15:00.');
    const question = 'whats your latest appointment on thursday';
    const best = scored(question, [hours])[0]!;
    assert.equal(best.coverage, 1);
    assert.equal(isValueLine(best), true);
    assert.equal(asksForValue('clock', 'appointment'), true);
    // Only in a question asking for a time: a booking question's "appointment" is its subject.
    assert.equal(askedValue('can i move my appointment'), null);
  });

  it('takes a line stating the asked value about what the question names as the answer', () => {
    const kids = passage(1, "Children's cut", 'Price: 18 EUR');
    const bridal = passage(2, 'Bridal hair', 'Outside Leipzig we charge 0.60 EUR per km.');
    const question = 'how much do you charge for kids';
    const lines = scored(question, [bridal, kids]);
    assert.equal(lines[0]!.text, 'Price: 18 EUR');
    assert.equal(isValueLine(lines[0]), true);
    // The bridal line states a price and holds "charge", but not the kids it is asked about.
    assert.equal(isValueLine(lines.find((s) => s.text.startsWith('Outside'))), false);
    assert.equal(isValueLine(undefined), false);
    assert.equal(isValueLine({ statesAskedValue: true, coverage: 0.5 }), false);
  });

  it('reads contractions typed without the apostrophe as the stop words they are', () => {
    assert.deepEqual(contentWords('whats your latest appointment on thursday'), ['latest', 'appointment', 'thursday']);
    assert.deepEqual(contentWords('what if im running late'), ['running', 'late']);
    assert.deepEqual(contentWords('I dont know what ill do'), ['ill']);
  });
});

describe('the value asked for leads the answer (extractive.ts valueFirst)', () => {
  // The price line covers less of "rye bread" than the description (the title names neither word),
  // so it scores lower; the answer still starts with it.
  const question = 'How much is the rye bread?';
  const loaf = passage(1, 'Vinschgauer', 'A flat South Tyrolean rye bread with fennel and caraway, baked every morning. Contains: rye, wheat (gluten). Price: 3.60 EUR');

  it('puts the sentence stating the price first', () => {
    const chosen = selectSentences(scored(question, [loaf]), undefined, questionIntent(question));
    assert.equal(chosen.at(-1)?.text, 'Price: 3.60 EUR', 'the selection finds the price last');
    const ordered = valueFirst(chosen, question);
    assert.equal(ordered[0]!.text, 'Price: 3.60 EUR');
    assert.deepEqual(ordered.slice(1), chosen.slice(0, -1));
  });

  it('keeps the order when the first sentence states the value, or nothing is asked for', () => {
    const chosen = selectSentences(scored(question, [loaf]), undefined, questionIntent(question));
    const priced = valueFirst(chosen, question);
    assert.deepEqual(valueFirst(priced, question), priced);
    assert.deepEqual(valueFirst(chosen, 'Is the rye bread vegan?'), chosen);
  });
});

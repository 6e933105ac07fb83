import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildMessages, NOT_FOUND_REPLY } from '../../../../../server/retrieval/answer/prompt.ts';
import { GENERATED_MAX_CHARS, MAX_COPIED_WORDS, PROMPT_ECHO_WORDS, QuoteBudget } from '../../../../../server/retrieval/answer/quote-budget.ts';
import type { CandidatePassage } from '../../../../../server/retrieval/answer/extractive.ts';

const LONG =
  'Our sourdough starts the evening before with a levain of rye and water, rests twelve hours in the cellar, ' +
  'is shaped by hand at four in the morning, proofs in linen baskets for two hours and bakes for fifty minutes ' +
  'in the stone oven until the crust cracks when it cools on the racks by the window.';
const passage = (title: string, text: string) => ({ item: { title }, text }) as unknown as CandidatePassage;
const messages = buildMessages('How is the sourdough made?', [passage('Sourdough', LONG), passage('Hours', 'We open at 7.')]);
const words = (text: string, from: number, n: number) => text.split(/\s+/).slice(from, from + n).join(' ');

describe('QuoteBudget: a generated answer held to the extractive quote budget', () => {
  it('lets a grounded answer through, the not-found reply and a quoted sentence included', () => {
    const budget = new QuoteBudget(messages);
    assert.equal(budget.check('The dough rests twelve hours in the cellar and bakes for fifty minutes [1].'), 'within');
    assert.equal(budget.check(NOT_FOUND_REPLY), 'within');
    assert.equal(budget.check(`${words(LONG, 0, MAX_COPIED_WORDS)} [1]`), 'within', 'a run of the limit itself');
  });

  it('refuses a longer run of a passage, whatever its case, spacing and punctuation', () => {
    const budget = new QuoteBudget(messages);
    assert.equal(budget.check(`As the page says: ${words(LONG, 3, MAX_COPIED_WORDS + 1)}`), 'copies the prompt');
    assert.equal(budget.check(words(LONG, 3, MAX_COPIED_WORDS + 1).toUpperCase().replaceAll(' ', ' ,  ')), 'copies the prompt');
  });

  it("refuses the rules' wording from a few words on", () => {
    const budget = new QuoteBudget(messages);
    const rules = messages[0]!.content;
    assert.equal(budget.check(`Sure! ${words(rules, 0, PROMPT_ECHO_WORDS)}`), 'copies the prompt');
    assert.equal(budget.check(`Sure! ${words(rules, 0, PROMPT_ECHO_WORDS - 1)}`), 'within');
  });

  it('says when an answer outgrows the cap, and cuts it at its last sentence end within it', () => {
    const budget = new QuoteBudget(messages);
    const sentence = (i: number) => `Loaf number ${i} comes out golden and smells of toasted grain [1].`;
    const long = Array.from({ length: 20 }, (_, i) => sentence(i + 1)).join(' ');
    assert.equal(budget.check(long), 'too long');
    const cut = budget.cut(long);
    assert.ok(cut.length <= GENERATED_MAX_CHARS && cut.length > GENERATED_MAX_CHARS - sentence(20).length - 1, `${cut.length}`);
    assert.ok(long.startsWith(cut) && cut.endsWith('[1].'), cut);
    const endless = 'crumb '.repeat(200);
    const cutWords = budget.cut(endless);
    assert.ok(cutWords.length <= GENERATED_MAX_CHARS && cutWords.endsWith('crumb…'), cutWords.slice(-20));
  });
});

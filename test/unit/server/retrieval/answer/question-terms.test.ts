import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contextTurns, leansOnConversation, refersToItem, retrievalQuery } from '../../../../../server/retrieval/answer/question-terms.ts';

describe('questions within a conversation', () => {
  it('tells a question that needs the conversation from one that stands on its own', () => {
    const cases: Array<[string, boolean]> = [
      ['On which day of the week are they baked?', true],
      ['What does it cost?', true],
      ['And on Sundays?', true],
      ['What about delivery to Brussels?', true],
      ['Price?', true],
      ['Who won Super Bowl 50?', false],
      ['How far ahead should I order a wedding cake?', false],
      ['Do you bake gluten-free bread?', false],
    ];
    for (const [question, leans] of cases) assert.equal(leansOnConversation(question), leans, question);
  });

  it('reads a question with the earlier user turns only when it leans on them', () => {
    const conversation = [
      { role: 'user' as const, content: 'Do you sell rye bread?' },
      { role: 'assistant' as const, content: 'Yes, every day [1]' },
      { role: 'user' as const, content: 'Do you bake gluten-free bread?' },
      { role: 'assistant' as const, content: 'Yes, on Tuesdays [1]' },
    ];
    const context = contextTurns('Where are they baked?', conversation);
    assert.deepEqual(context, ['Do you sell rye bread?', 'Do you bake gluten-free bread?']);
    assert.equal(retrievalQuery('Where are they baked?', context), 'Do you sell rye bread?\nDo you bake gluten-free bread?\nWhere are they baked?');
    assert.deepEqual(contextTurns('Who won Super Bowl 50?', conversation), []);
  });
});

describe("questions about the page's item", () => {
  it('reads a question that points at something, or names almost nothing, as about the item the page shows', () => {
    const cases: Array<[string, boolean]> = [
      ['how long is this?', true],
      ['Is it waterproof?', true],
      ['Price?', true],
      ['can I wash these at 40 degrees?', true],
      ['How many working days does delivery take?', false],
      ['Do you open on Sundays?', false],
    ];
    for (const [question, expected] of cases) assert.equal(refersToItem(question), expected, question);
  });

  it('in a language other than English, only a question naming almost nothing', () => {
    assert.equal(refersToItem('Preis?', 'de'), true);
    assert.equal(refersToItem('Wie lange dauert die Lieferung?', 'de'), false);
  });
});

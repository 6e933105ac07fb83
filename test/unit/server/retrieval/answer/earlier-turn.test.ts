import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { citedItem, lastExchange, pointsBack } from '../../../../../server/retrieval/answer/earlier-turn.ts';
import type { CandidatePassage } from '../../../../../server/retrieval/answer/extractive.ts';

const passage = (id: number, title: string, text: string): CandidatePassage => ({
  item: { id, knowledgeBaseId: 'kb', integrationId: 'i', externalId: String(id), sourceType: 'PRODUCT', title, url: null, updatedAt: 0, chunkCount: 1 } as CandidatePassage['item'],
  chunkId: id, text, retrieval: 1, itemScore: 1, passageScore: 1,
});

describe('a follow-up that points back to the previous turn (earlier-turn.ts)', () => {
  it('points back with "they", "it", "them", "that", "those" and no subject of its own', () => {
    assert.equal(pointsBack('How much do they cost?', 'en', false), true);
    assert.equal(pointsBack('how long does it take', 'en', false), true);
    assert.equal(pointsBack('can I freeze them?', 'en', false), true);
    assert.equal(pointsBack('is that vegan', 'en', false), true);
    // A subject of its own is read on its own words.
    assert.equal(pointsBack('is it possible to get gluten-free bread?', 'en', false), false);
    assert.equal(pointsBack('Do you deliver to Hamburg?', 'en', false), false);
    // "this" is the page's item when the asker is on one; without a page it points back too.
    assert.equal(pointsBack('how much is this?', 'en', true), false);
    assert.equal(pointsBack('how much is this?', 'en', false), true);
    assert.equal(pointsBack('how much is it?', 'en', true), true);
    // In another language only the question's words are read.
    assert.equal(pointsBack('was kostet es?', 'de', false), false);
  });

  it('finds the last exchange: the visitor’s question and the answer after it', () => {
    assert.equal(lastExchange([]), null);
    assert.deepEqual(
      lastExchange([
        { role: 'user', content: 'Do you deliver?' },
        { role: 'assistant', content: 'Yes [1]' },
        { role: 'user', content: 'Do you have croissants?' },
        { role: 'assistant', content: 'Butter croissant 1.80 EUR. [1]' },
      ]),
      { question: 'Do you have croissants?', answer: 'Butter croissant 1.80 EUR. [1]' },
    );
    assert.deepEqual(lastExchange([{ role: 'user', content: 'Do you have croissants?' }]), { question: 'Do you have croissants?', answer: null });
  });

  it('finds the item the previous answer quoted first, named or not by its title', () => {
    const candidates = [
      passage(1, 'Delivery', 'Delivery costs 3.50 EUR per order within Berlin.'),
      passage(2, 'Butter croissant', 'Flaky and golden, our breakfast favourite,\nbaked every morning.'),
    ];
    assert.equal(citedItem('Flaky and golden, our breakfast favourite, baked every morning. [1]', candidates)?.id, 2);
    assert.equal(citedItem('Butter croissant: Flaky and golden, our breakfast favourite, baked every morning. [1] Delivery costs 3.50 EUR [2]', candidates)?.id, 2);
    // No marker (the fallback message, a generated answer without one) or a quote no passage holds: no item.
    assert.equal(citedItem('Flaky and golden, our breakfast favourite, baked every morning.', candidates), null);
    assert.equal(citedItem('We bake rye bread on Mondays. [1]', candidates), null);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Bm25Postings } from '../../server/indexes/bm25-postings.ts';
import { editDistance } from '../../server/indexes/edit-distance.ts';
import { TypoVocabulary } from '../../server/indexes/typo-vocabulary.ts';
import type { RunningServer } from '../../server/main.ts';
import { replaceWords, searchWords, typoBudgets } from '../../server/language/query-words.ts';
import { AdminClient } from '../helpers/admin-client.ts';
import { api, startPipelineServer, waitForIdle } from '../helpers/pipeline-app.ts';

const points = (word: string) => [...word].map((c) => c.codePointAt(0)!);
const distance = (a: string, b: string, max = 2) => editDistance(points(a), points(b), max);

describe('edit distance (optimal string alignment)', () => {
  it('counts an insertion, deletion, substitution or swap of neighbouring letters as one edit', () => {
    assert.equal(distance('chocolate', 'chocolate'), 0);
    assert.equal(distance('chocolate', 'chocolte'), 1);
    assert.equal(distance('chocolate', 'chocollate'), 1);
    assert.equal(distance('chocolate', 'chocolata'), 1);
    assert.equal(distance('chocolate', 'chocoalte'), 1, 'a swap is one edit (Damerau)');
    assert.equal(distance('receive', 'recieve'), 1);
    assert.equal(distance('receive', 'reciev'), 2);
  });

  it('stops at the largest distance asked: anything beyond is max + 1', () => {
    assert.equal(distance('kitten', 'sitting', 2), 3);
    assert.equal(distance('kitten', 'sitting', 3), 3);
    assert.equal(distance('lamp', 'lampshades', 2), 3, 'lengths too far apart');
    assert.equal(distance('ca', 'abc', 5), 3, 'no letter is edited twice');
  });
});

describe('typo budgets of query words', () => {
  it('allows none under 5 letters, one for 5 to 8, two from 9', () => {
    const words = searchWords('lamp chair armchair armchairs');
    assert.deepEqual(typoBudgets('lamp chair armchair armchairs', words), [0, 1, 1, 2]);
  });

  it('never fuzzes numbers, ids or any part of a token holding a digit', () => {
    const query = 'sku-42 240337103 ZXQWY-17 widgets';
    const words = searchWords(query);
    assert.deepEqual(words, ['sku', '42', '240337103', 'zxqwy', '17', 'widgets']);
    assert.deepEqual(typoBudgets(query, words), [0, 0, 0, 0, 0, 1]);
  });

  it('replaces words as typed, keeping a capital', () => {
    assert.equal(replaceWords('Expresso machine, expresso cups?', new Map([['expresso', 'espresso']])), 'Espresso machine, espresso cups?');
  });
});

describe('typo vocabulary', () => {
  it('finds shown words within the distance, never words with digits or too short to matter', () => {
    const vocabulary = new TypoVocabulary();
    vocabulary.learn('Chocolate', 1);
    vocabulary.learn('chocolates', 1);
    vocabulary.learn('Café', 2);
    vocabulary.learn('sku4211', 3);
    vocabulary.learn('mug', 4);
    for (const term of [1, 2, 3, 4]) vocabulary.show(term);
    assert.deepEqual(vocabulary.near('chocolte', 1).map((w) => w.word).sort(), ['chocolate']);
    assert.deepEqual(vocabulary.near('chocolatte', 2).map((w) => w.word).sort(), ['chocolate', 'chocolates']);
    assert.deepEqual(vocabulary.near('cafe', 1).map((w) => [w.word, w.term]), [['café', 2]], 'folded to compare, shown as written');
    assert.deepEqual(vocabulary.near('sku4212', 1), [], 'a word with a digit is never a correction');
    assert.deepEqual(vocabulary.near('mugs', 1), [], 'nor a word under 4 letters');
  });

  it('finds a term only once a row holds it, and forgets dead terms when they pile up', () => {
    const vocabulary = new TypoVocabulary();
    vocabulary.learn('rhubarb', 7);
    assert.deepEqual(vocabulary.near('rhubrab', 1), [], 'not shown: no row holds it yet');
    vocabulary.show(7);
    assert.equal(vocabulary.near('rhubrab', 1)[0]?.term, 7);
    // Rebuilt only past a floor of dead terms: many of them die at once.
    for (let term = 100; term < 10_100; term++) {
      vocabulary.learn(`word${String.fromCharCode(97 + (term % 26))}${term.toString(36).replace(/\d/g, 'q')}`, term);
      vocabulary.show(term);
    }
    vocabulary.prune((term) => (term === 7 ? 0 : 1));
    assert.equal(vocabulary.near('rhubrab', 1)[0]?.term, 7, 'one dead term is not worth a rebuild');
    vocabulary.prune((term) => (term === 7 || term >= 100 ? 0 : 1));
    assert.deepEqual(vocabulary.near('rhubrab', 1), [], 'dropped with the rest');
    vocabulary.show(7);
    assert.equal(vocabulary.near('rhubrab', 1)[0]?.term, 7, 'and found again once a row holds it again');
  });
});

describe('BM25 postings with corrections', () => {
  // Terms: 0 "walnut", 1 "walnot", 2 "walnuts" (two corrections of one word), 3 "bread".
  const postings = new Bm25Postings();
  const row = (id: number, terms: number[]) => postings.put({ id, group: 0, kind: 0, length: terms.length, termIds: terms, weights: terms.map(() => 1) });
  row(1, [1, 3]);
  row(2, [0, 2]);
  row(3, [3]);
  // "bread" in most rows: its BM25 share is near 0, so only the every-word-first order puts row 1 first.
  for (let id = 10; id < 20; id++) row(id, [3]);

  it('weighs a correction below the word as typed', () => {
    const typed = postings.searchWeighted([{ term: 1, word: 0, weight: 1 }, { term: 0, word: 0, weight: 0.8 }], 1, 0, null, 10);
    assert.deepEqual(typed.map((r) => r.id), [1, 2]);
    const plain = postings.search([1], 0, null, 10)[0]!;
    assert.equal(typed[0]!.score, plain.score, 'weight 1 is the plain BM25 share');
  });

  it('counts a word once for every-word-first, whichever of its terms a row holds', () => {
    // "walnot bread": row 2 holds two corrections of "walnot" but not "bread"; row 1 holds both words.
    const query = [
      { term: 1, word: 0, weight: 1 },
      { term: 0, word: 0, weight: 0.8 },
      { term: 2, word: 0, weight: 0.8 },
      { term: 3, word: 1, weight: 1 },
    ];
    const ranked = postings.searchWeighted(query, 2, 0, null, 20, true);
    assert.deepEqual(ranked.slice(0, 2).map((r) => r.id), [1, 2]);
    assert.ok(ranked[1]!.score > ranked[0]!.score, 'row 2 scores higher but holds one word of two');
  });
});

type Server = RunningServer & { key: string };
const KB = 'kb-typo-shop';

const PRODUCTS = [
  { externalId: 'espresso', title: 'Espresso machine Barista', content: 'A dual boiler espresso machine with a steam wand for milk drinks.', price: '649 EUR' },
  { externalId: 'headphones', title: 'Wireless headphones', content: 'Over-ear wireless headphones with noise cancelling and a 30 hour battery.', price: '199 EUR' },
  { externalId: 'walnot-bread', title: 'Walnot bread', content: 'A rye loaf baked with nuts, sold by the half.', price: '5 EUR' },
  { externalId: 'walnut-board', title: 'Walnut cutting board', content: 'End grain walnut board, oiled by hand.', price: '89 EUR' },
  { externalId: 'walnut-bowl', title: 'Walnut salad bowl', content: 'A turned walnut bowl for salads.', price: '59 EUR' },
  { externalId: 'part-17', title: 'ZXQWV-17 spare part', content: 'Replacement gasket, part ZXQWV-17.', price: '3 EUR' },
  { externalId: 'mug-4211', title: 'Blue mug SKU-4211', content: 'A blue stoneware mug, SKU-4211.', price: '12 EUR' },
];

describe('typo tolerance through the API (real pipeline, real SQLite)', { timeout: 240_000 }, () => {
  let server: Server;
  let owner: AdminClient;
  before(async () => {
    server = await startPipelineServer();
    const items = PRODUCTS.map((p) => ({
      integrationId: 'shop',
      knowledgeBaseId: KB,
      sourceType: 'PRODUCT',
      externalId: p.externalId,
      data: { title: p.title, content: p.content, sourceData: { price: p.price } },
    }));
    assert.equal((await api(server, 'POST', '/ingest/bulk', { items })).status, 200);
    await waitForIdle(server, 120_000);
    owner = new AdminClient(server.app);
    assert.equal((await owner.post('/setup', { username: 'owner', password: 'owner password 1' })).statusCode, 201);
  });
  after(() => server.stop());

  const search = (query: string, mode = 'keyword') => api(server, 'POST', `/knowledge-bases/${KB}/search`, { query, mode, topK: 5 });
  const ids = (res: { body: any }) => res.body.results.map((r: any) => r.externalId);

  it('finds a misspelt product name, and says how the query was read when nothing matched as typed', async () => {
    const res = await search('hedphones');
    assert.equal(res.status, 200);
    assert.deepEqual(ids(res), ['headphones']);
    assert.equal(res.body.correctedQuery, 'headphones');
    const hybrid = await search('Expresso machine', 'hybrid');
    assert.equal(ids(hybrid)[0], 'espresso');
    assert.equal(hybrid.body.correctedQuery, 'Espresso machine', 'a word in no item was read as another, though "machine" matched');
    const exact = await search('espresso machine');
    assert.equal(ids(exact)[0], 'espresso');
    assert.equal('correctedQuery' in exact.body, false, 'nothing read otherwise: the response is as before');
  });

  it('never fuzzes a SKU or an id, nor corrects a word into one', async () => {
    for (const query of ['ZXQWY-18', 'zxqwy', '4212', 'SKU-4212 mug']) {
      const res = await search(query);
      assert.equal('correctedQuery' in res.body, false, query);
      assert.equal(ids(res).includes('part-17'), false, query);
    }
    assert.deepEqual(ids(await search('SKU-4212 mug')), ['mug-4211'], 'found by "mug" and "sku" as typed only');
    assert.deepEqual(ids(await search('ZXQWV-17')), ['part-17']);
  });

  it('ranks items holding the word as typed above those found through a correction', async () => {
    const res = await search('walnot');
    assert.equal(ids(res)[0], 'walnot-bread');
    assert.deepEqual(ids(res).slice(1).sort(), ['walnut-board', 'walnut-bowl'], 'a rare word also finds its frequent neighbour, below');
    assert.equal('correctedQuery' in res.body, false, 'the word is in the knowledge base: nothing was corrected');
  });

  it('corrects to a word once an item holding it is indexed, and no longer once it is deleted', async () => {
    assert.deepEqual(ids(await search('rhubrab crumble')), []);
    const crumble = { integrationId: 'shop', knowledgeBaseId: KB, sourceType: 'PRODUCT', externalId: 'crumble', data: { title: 'Rhubarb crumble', content: 'Baked on Fridays.' } };
    assert.equal((await api(server, 'POST', '/ingest', crumble)).status, 200);
    await waitForIdle(server, 60_000);
    const found = await search('rhubrab');
    assert.deepEqual(ids(found), ['crumble']);
    assert.equal(found.body.correctedQuery, 'rhubarb');
    assert.equal((await api(server, 'DELETE', `/items/${KB}/shop/crumble`)).status, 200);
    const gone = await search('rhubrab');
    assert.deepEqual(ids(gone), []);
    assert.equal('correctedQuery' in gone.body, false);
  });

  it('is turned off and on per knowledge base in the admin API', async () => {
    const english = { language: 'en', keywordIndex: { language: 'en', reindexing: null } };
    assert.deepEqual((await owner.get(`/knowledge-bases/${KB}/settings`)).json(), { typoTolerance: true, ...english });
    assert.deepEqual((await owner.patch(`/knowledge-bases/${KB}/settings`, { typoTolerance: false })).json(), { typoTolerance: false, ...english });
    const off = await search('hedphones');
    assert.deepEqual(ids(off), []);
    assert.equal('correctedQuery' in off.body, false);
    assert.equal((await owner.patch(`/knowledge-bases/${KB}/settings`, { typo: false })).statusCode, 400);
    assert.equal((await owner.get('/knowledge-bases/kb-nowhere/settings')).statusCode, 404);
    await owner.patch(`/knowledge-bases/${KB}/settings`, { typoTolerance: true });
    assert.deepEqual(ids(await search('hedphones')), ['headphones']);
  });

  it('answers a question that misspells the product name from the right product, saying how it read it', async () => {
    const res = await api(server, 'POST', `/knowledge-bases/${KB}/ask`, { question: 'How much does the expresso machine cost?' });
    assert.equal(res.status, 200);
    assert.equal(res.body.answered, true, res.body.answer);
    assert.equal(res.body.citations[0]?.externalId, 'espresso', res.body.answer);
    assert.match(res.body.answer, /649 EUR/);
    assert.equal(res.body.correctedQuery, 'How much does the espresso machine cost?');
  });
});

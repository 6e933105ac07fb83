import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../server/main.ts';
import { AdminClient, signedInAs } from '../helpers/admin-client.ts';
import { pushedItems, FRENCH_ITEMS, FRENCH_KB, FRENCH_QUERIES, GERMAN_ITEMS, GERMAN_KB, GERMAN_QUERIES } from '../helpers/language-fixtures.ts';
import { api, startPipelineServer, waitForIdle } from '../helpers/pipeline-app.ts';

type Server = RunningServer & { key: string };

describe('knowledge-base languages through the API (real pipeline, model and SQLite)', { timeout: 240_000 }, () => {
  let server: Server;
  let owner: AdminClient;
  /** What the French stop-word query finds while the knowledge base is English. */
  let englishStopWords: string[] = [];
  before(async () => {
    server = await startPipelineServer();
    const items = [...pushedItems(GERMAN_KB, GERMAN_ITEMS), ...pushedItems(FRENCH_KB, FRENCH_ITEMS)];
    assert.equal((await api(server, 'POST', '/ingest/bulk', { items })).status, 200);
    await waitForIdle(server, 120_000);
    owner = new AdminClient(server.app);
    assert.equal((await owner.post('/setup', { username: 'owner', password: 'owner password 1' })).statusCode, 201);
  });
  after(() => server.stop());

  const search = (kb: string, query: string, mode = 'keyword') => api(server, 'POST', `/knowledge-bases/${kb}/search`, { query, mode, topK: 5 });
  const ids = (res: { body: any }) => res.body.results.map((r: any) => r.externalId);
  const settings = (kb: string) => owner.get(`/knowledge-bases/${kb}/settings`);

  /** Polls the settings until no re-index runs (the progress goes up meanwhile), and returns them. */
  async function reindexed(kb: string): Promise<any> {
    const deadline = Date.now() + 30_000;
    let last = -1;
    for (;;) {
      const body = (await settings(kb)).json();
      if (body.keywordIndex.reindexing === null) return body;
      assert.ok(body.keywordIndex.reindexing.done >= last, 'progress never goes back');
      last = body.keywordIndex.reindexing.done;
      if (Date.now() > deadline) throw new Error(`still re-indexing: ${JSON.stringify(body)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  it('starts in English; the Owner sets German and French, and each catalogue is found by inflected forms and without diacritics', async () => {
    const initial = (await settings(GERMAN_KB)).json();
    assert.deepEqual(initial, { typoTolerance: true, language: 'en', keywordIndex: { language: 'en', reindexing: null } });
    englishStopWords = ids(await search(FRENCH_KB, 'les des une et pour'));
    assert.ok(englishStopWords.length >= 3, 'read as English, French stop words match items');

    const changed = await owner.patch(`/knowledge-bases/${GERMAN_KB}/settings`, { language: 'de' });
    assert.equal(changed.statusCode, 200);
    assert.equal(changed.json().language, 'de');
    assert.deepEqual(changed.json().keywordIndex, { language: 'en', reindexing: { language: 'de', done: 0, total: 10 } }, 'the re-index runs in the background');
    assert.equal((await owner.patch(`/knowledge-bases/${FRENCH_KB}/settings`, { language: 'fr' })).statusCode, 200);
    assert.deepEqual((await reindexed(GERMAN_KB)).keywordIndex, { language: 'de', reindexing: null });
    assert.deepEqual((await reindexed(FRENCH_KB)).keywordIndex, { language: 'fr', reindexing: null });

    for (const [query, expected] of GERMAN_QUERIES) {
      assert.equal(ids(await search(GERMAN_KB, query))[0], expected, `keyword: ${query}`);
      assert.equal(ids(await search(GERMAN_KB, query, 'hybrid'))[0], expected, `hybrid: ${query}`);
    }
    for (const [query, expected] of FRENCH_QUERIES) {
      assert.equal(ids(await search(FRENCH_KB, query))[0], expected, `keyword: ${query}`);
      assert.equal(ids(await search(FRENCH_KB, query, 'hybrid'))[0], expected, `hybrid: ${query}`);
    }
    const passages = (await search(GERMAN_KB, 'Offnungszeiten')).body.results[0].passages;
    assert.match(passages[0].text, /Feiertagen/, 'the passage is chosen by the German terms');
  });

  it('forgives a typo in German once its in-memory index has loaded (FTS5 answers as typed before), saying how it read the query', async () => {
    const deadline = Date.now() + 20_000;
    let res = await search(GERMAN_KB, 'Schlafsakc für den Winter');
    while (res.body.correctedQuery === undefined && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      res = await search(GERMAN_KB, 'Schlafsakc für den Winter');
    }
    assert.equal(res.body.correctedQuery, 'Schlafsack für den Winter');
    assert.equal(ids(res)[0], 'schlafsack');
    assert.equal(ids(await search(GERMAN_KB, 'Handschue', 'hybrid'))[0], 'handschuhe');
  });

  it('matches nothing on stop words alone, and a stop word does not widen a search', async () => {
    assert.deepEqual(ids(await search(FRENCH_KB, 'les des une et pour')), []);
    assert.deepEqual(ids(await search(GERMAN_KB, 'der die das und für')), []);
    assert.deepEqual(ids(await search(GERMAN_KB, 'die Jacken')), ['jacke']);
  });

  it('applies synonyms in the language: a word no item holds finds its synonym\'s inflected forms, and a phrase', async () => {
    assert.deepEqual(ids(await search(GERMAN_KB, 'Anorak')), []);
    const sets = [{ root: 'anorak', synonyms: ['jacken'] }, { root: 'penntüte', synonyms: ['schlafsack für den winter'] }];
    assert.equal((await owner.put(`/knowledge-bases/${GERMAN_KB}/synonyms`, { sets })).statusCode, 200);
    assert.deepEqual(ids(await search(GERMAN_KB, 'Anorak')), ['jacke']);
    assert.equal(ids(await search(GERMAN_KB, 'Penntüte'))[0], 'schlafsack');
    assert.equal((await owner.delete(`/knowledge-bases/${GERMAN_KB}/synonyms`)).statusCode, 200);
    assert.deepEqual(ids(await search(GERMAN_KB, 'Anorak')), []);
  });

  it("indexes an item pushed after the change in the knowledge base's language", async () => {
    const item = pushedItems(GERMAN_KB, [{ externalId: 'socken', sourceType: 'PRODUCT', title: 'Wandersocken', content: 'Socken aus Merinowolle, an den Fersen verstärkt. Ein Paar kostet 14 Euro.' }]);
    assert.equal((await api(server, 'POST', '/ingest', item[0])).status, 200);
    await waitForIdle(server, 60_000);
    assert.deepEqual(ids(await search(GERMAN_KB, 'Socke')), ['socken']);
    assert.deepEqual(ids(await search(GERMAN_KB, 'Wandersocken Merinowolle', 'hybrid')).slice(0, 2), ['socken', 'muetze'], 'both words first, then one');
  });

  it('lets only the Owner and Admins change the language, and refuses an unknown one in the error shape', async () => {
    const admin = await signedInAs(owner, server.app, 'admin');
    const member = await signedInAs(owner, server.app, 'member');
    assert.equal((await member.get(`/knowledge-bases/${GERMAN_KB}/settings`)).json().language, 'de');
    const refused = await member.patch(`/knowledge-bases/${GERMAN_KB}/settings`, { language: 'fr' });
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().code, 'forbidden');
    const unknown = await admin.patch(`/knowledge-bases/${GERMAN_KB}/settings`, { language: 'xx' });
    assert.equal(unknown.statusCode, 400);
    assert.equal(unknown.json().code, 'invalid_body');
    assert.equal(unknown.json().details[0].path, 'language');
    assert.equal((await settings(GERMAN_KB)).json().language, 'de', 'nothing changed');
    const missing = await admin.get('/knowledge-bases/kb-nowhere/settings');
    assert.equal(missing.statusCode, 404);
  });

  it('goes back to English, finding the catalogue again as before', async () => {
    assert.equal((await owner.patch(`/knowledge-bases/${FRENCH_KB}/settings`, { language: 'en' })).statusCode, 200);
    assert.deepEqual((await reindexed(FRENCH_KB)).keywordIndex, { language: 'en', reindexing: null });
    // The same items as before; not quite in the same order, as BM25's statistics of the English
    // tables no longer count the German knowledge base.
    assert.deepEqual(ids(await search(FRENCH_KB, 'les des une et pour')).sort(), englishStopWords.sort(), 'as before the change');
  });
});

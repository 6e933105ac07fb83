import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../../../server/config.ts';
import { openServices, type Services } from '../../../../server/services.ts';
import type { Db } from '../../../../server/storage/db.ts';
import { IndexRepo } from '../../../../server/storage/index-repo.ts';
import { knowledgeBaseToken } from '../../../../server/storage/keyword-scope.ts';
import { KnowledgeBaseLanguages } from '../../../../server/storage/knowledge-base-languages.ts';
import { TermStatsRepo } from '../../../../server/storage/term-stats-repo.ts';
import { VectorStore } from '../../../../server/storage/vector-store.ts';
import { type CatalogueItem, FRENCH_ITEMS, FRENCH_KB, FRENCH_QUERIES, GERMAN_ITEMS, GERMAN_KB, GERMAN_QUERIES } from '../../../helpers/language-fixtures.ts';
import { tempDataDir } from '../../../helpers/temp-data.ts';

/** Writes an item as the pipeline does (one chunk, a vector of a test model), in one transaction. */
function write(db: Db, kb: string, item: CatalogueItem, seq = 1): void {
  const index = new IndexRepo(db, new VectorStore(db, 'test-model', 4));
  db.transaction(() =>
    index.writeItem(
      {
        knowledgeBaseId: kb,
        integrationId: 'shop',
        externalId: item.externalId,
        sourceType: item.sourceType,
        title: item.title,
        content: item.content,
        text: item.content,
        url: null,
        sourceData: null,
        contentHash: `${item.externalId}-${seq}`,
        seq,
        embedderId: 'test-model',
        chunks: [{ position: 0, text: item.content, tokenCount: 12, embedHash: `${item.externalId}-${seq}`, vector: new Float32Array([1, 0, 0, 0]) }],
      },
      Date.now(),
    ),
  )();
}

/** Rows of a keyword table scoped to a knowledge base. */
function rows(db: Db, table: string, kb: string): number {
  return db.prepare<[string], { n: number }>(`SELECT count(*) AS n FROM ${table} WHERE ${table} MATCH ?`).get(`scope : ${knowledgeBaseToken(kb)}`)!.n;
}

describe('keyword languages of knowledge bases (real SQLite, FTS5 and the search service)', () => {
  let services: Services;
  let languages: KnowledgeBaseLanguages;
  before(async () => {
    services = await openServices(loadConfig({ LOCALIQ_DATA_DIR: tempDataDir(), LOCALIQ_SECRET_STORE: 'file' }));
    languages = new KnowledgeBaseLanguages(services.db);
    for (const item of GERMAN_ITEMS) write(services.db, GERMAN_KB, item);
    for (const item of FRENCH_ITEMS) write(services.db, FRENCH_KB, item);
    write(services.db, 'kb-english', { externalId: 'jacket', sourceType: 'PRODUCT', title: 'Rain jackets', content: 'Our jackets keep the rain out.' });
  });
  after(() => services.close());

  const search = (kb: string, query: string, mode: 'keyword' | 'hybrid' = 'keyword') =>
    services.search.searchWithVector(kb, query, null, { mode, topK: 5, sourceTypes: null, passages: 1 });
  const ids = (kb: string, query: string) => search(kb, query).hits.map((h) => h.item.externalId);

  it('moves a knowledge base to German in steps while the English index keeps answering, then finds inflected forms and words without umlauts', async () => {
    // English (the default): Porter stems "Jacken" as "jacken", which no item holds.
    assert.deepEqual(ids(GERMAN_KB, 'Jacken'), []);
    assert.deepEqual(ids(GERMAN_KB, 'Jacke'), ['jacke']);
    assert.equal(languages.request(GERMAN_KB, 'de'), true);
    assert.deepEqual(services.search.keywordIndex(GERMAN_KB), { language: 'en', reindexing: { language: 'de', done: 0, total: 10 } });
    assert.equal(services.search.knowledgeBaseSettings(GERMAN_KB).language, 'de', 'the setting is the language asked for');

    assert.equal(languages.reindexStep(GERMAN_KB, 4).reindexing?.done, 4);
    assert.deepEqual(ids(GERMAN_KB, 'Jacke'), ['jacke'], 'halfway, the English rows answer as before');
    assert.equal(rows(services.db, 'items_fts_de', GERMAN_KB), 4);
    // An item the pipeline writes meanwhile gets rows in both languages.
    write(services.db, GERMAN_KB, { externalId: 'socken', sourceType: 'PRODUCT', title: 'Wandersocken', content: 'Socken aus Wolle, die an den Fersen verstärkt sind.' });
    assert.equal(rows(services.db, 'items_fts', GERMAN_KB), 11);
    assert.equal(rows(services.db, 'items_fts_de', GERMAN_KB), 5);

    let state = languages.reindexStep(GERMAN_KB, 4);
    while (state.reindexing) state = languages.reindexStep(GERMAN_KB, 4);
    assert.deepEqual(state, { language: 'de', reindexing: null });
    assert.equal(rows(services.db, 'items_fts', GERMAN_KB), 0, 'the English rows are gone');
    assert.equal(rows(services.db, 'chunks_fts', GERMAN_KB), 0);
    assert.equal(rows(services.db, 'items_fts_de', GERMAN_KB), 11);
    assert.equal(rows(services.db, 'chunks_fts_de', GERMAN_KB), 11);

    const german = services.keywordIndexes.of('de');
    assert.equal(german.loaded, false, 'FTS5 answers until the German in-memory index is loaded');
    for (const [query, expected] of GERMAN_QUERIES) assert.equal(ids(GERMAN_KB, query)[0], expected, query);
    await german.ready();
    for (const [query, expected] of GERMAN_QUERIES) assert.equal(ids(GERMAN_KB, query)[0], expected, `in memory: ${query}`);
    assert.equal(german.search(GERMAN_KB, ['jack'], 10, null)?.length, 1, 'the German postings hold the knowledge base');
    // Typo tolerance reads a misspelt word as a written word of the German items, and says so.
    const misspelt = search(GERMAN_KB, 'warme Handschue');
    assert.equal(misspelt.hits[0]?.item.externalId, 'handschuhe');
    assert.equal(misspelt.correctedQuery, 'warme Handschuhe');
    assert.equal(search(GERMAN_KB, 'Schlafsakc').correctedQuery, 'Schlafsack', 'a swap is one edit');
    assert.equal(search(GERMAN_KB, 'Jacken').correctedQuery, null, 'an inflected form is no typo');
    assert.deepEqual(ids(GERMAN_KB, 'SKU-771'), [], 'an id is never fuzzed');
    services.search.updateKnowledgeBaseSettings(GERMAN_KB, { typoTolerance: false });
    assert.deepEqual(ids(GERMAN_KB, 'Handschue'), [], 'typo tolerance off');
    services.search.updateKnowledgeBaseSettings(GERMAN_KB, { typoTolerance: true });
    assert.deepEqual(ids(GERMAN_KB, 'Socke'), ['socken']);
    const passage = search(GERMAN_KB, 'Jacken').hits[0]!.passages[0]!;
    assert.ok(passage.score > 0, 'the passage was found by its German terms');
    assert.deepEqual(ids(GERMAN_KB, 'der die das und für'), [], 'stop words match nothing');
    assert.deepEqual(ids(GERMAN_KB, 'die Jacken'), ['jacke'], 'a stop word beside a word does not widen the search');
    assert.deepEqual(ids(GERMAN_KB, 'SKU-77 Zelt'), ['zelt']);
    // The in-memory English index let the knowledge base go; the English one is unchanged.
    while (!services.keywords.loaded) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(services.keywords.search(GERMAN_KB, ['jacke'], 10, null), []);
    assert.deepEqual(ids('kb-english', 'jacket'), ['jacket']);
    assert.deepEqual(services.search.keywordIndex('kb-english'), { language: 'en', reindexing: null });
  });

  it('reads a French knowledge base by its stems, without accents, after a change of the setting re-indexes it in the background', async () => {
    assert.ok(ids(FRENCH_KB, 'les des une et pour').length >= 5, 'read as English, French stop words match most items');
    const settings = services.search.updateKnowledgeBaseSettings(FRENCH_KB, { language: 'fr' });
    assert.equal(settings.language, 'fr');
    assert.equal(settings.typoTolerance, true, 'other settings kept');
    await services.keywordReindexer.idle();
    assert.deepEqual(services.search.keywordIndex(FRENCH_KB), { language: 'fr', reindexing: null });
    const french = services.keywordIndexes.of('fr');
    assert.equal(french.loaded, false);
    const ranked = () => FRENCH_QUERIES.map(([query]) => search(FRENCH_KB, query).hits.map((h) => [h.item.externalId, h.score.toFixed(6)]));
    const throughFts5 = ranked();
    for (const [query, expected] of FRENCH_QUERIES) assert.equal(ids(FRENCH_KB, query)[0], expected, query);
    await french.ready();
    // No row of the French tables was ever deleted, so FTS5's statistics are those of the live rows too.
    assert.deepEqual(ranked(), throughFts5, 'the in-memory French postings rank as FTS5 does, scores included');
    assert.deepEqual(ids(FRENCH_KB, 'les des une et pour'), [], 'stop words match nothing');
    // The assistant weighs question words by how many chunks hold them, read in French too.
    const stats = new TermStatsRepo(services.db);
    assert.equal(stats.documentFrequency(FRENCH_KB, 'chaussures'), 1);
    assert.equal(stats.documentFrequency(FRENCH_KB, 'laines'), 2);
    assert.equal(stats.documentFrequency(FRENCH_KB, 'les'), stats.chunkCount(FRENCH_KB), 'a stop word counts as in every chunk');
  });

  it('goes back to English, and stops a re-index when the language asked for is the one answering', async () => {
    assert.equal(languages.request(FRENCH_KB, 'de'), true);
    languages.reindexStep(FRENCH_KB, 3);
    assert.equal(rows(services.db, 'items_fts_de', FRENCH_KB), 3);
    assert.equal(languages.request(FRENCH_KB, 'fr'), false, 'back to the language answering: nothing to re-index');
    assert.equal(rows(services.db, 'items_fts_de', FRENCH_KB), 0, 'the abandoned rows are dropped');
    assert.deepEqual(services.search.keywordIndex(FRENCH_KB), { language: 'fr', reindexing: null });

    services.search.updateKnowledgeBaseSettings(GERMAN_KB, { language: 'en' });
    await services.keywordReindexer.idle();
    assert.deepEqual(services.search.keywordIndex(GERMAN_KB), { language: 'en', reindexing: null });
    assert.equal(rows(services.db, 'items_fts_de', GERMAN_KB), 0);
    assert.ok(ids(GERMAN_KB, 'der die das und für').length >= 3, 'English again: German stop words are words');
    assert.deepEqual(ids(GERMAN_KB, 'Jacke'), ['jacke']);
    assert.equal(services.keywords.search(GERMAN_KB, ['jacke'], 10, null)?.length, 1, 'the in-memory index took the knowledge base back');
    assert.equal(services.db.prepare('SELECT count(*) AS n FROM knowledge_base_languages WHERE knowledge_base_id = ?').pluck().get(GERMAN_KB), 0);
  });
});

describe('a re-index cut short by a stop', () => {
  it('goes on from its cursor when the services open again', async () => {
    const dataDir = tempDataDir();
    const config = loadConfig({ LOCALIQ_DATA_DIR: dataDir, LOCALIQ_SECRET_STORE: 'file' });
    let services = await openServices(config);
    try {
      for (const item of GERMAN_ITEMS) write(services.db, GERMAN_KB, item);
      const languages = new KnowledgeBaseLanguages(services.db);
      languages.request(GERMAN_KB, 'de');
      assert.equal(languages.reindexStep(GERMAN_KB, 3).reindexing?.done, 3);
    } finally {
      services.close();
    }
    services = await openServices(config);
    try {
      assert.deepEqual(services.search.keywordIndex(GERMAN_KB), { language: 'en', reindexing: { language: 'de', done: 3, total: 10 } });
      services.keywordReindexer.start();
      await services.keywordReindexer.idle();
      assert.deepEqual(services.search.keywordIndex(GERMAN_KB), { language: 'de', reindexing: null });
      assert.equal(rows(services.db, 'items_fts_de', GERMAN_KB), 10, 'every item once');
      assert.equal(services.search.searchWithVector(GERMAN_KB, 'Jacken', null, { mode: 'keyword', topK: 5, sourceTypes: null, passages: 0 }).hits[0]?.item.externalId, 'jacke');
    } finally {
      services.close();
    }
  });
});

describe('every language has its keyword tables', () => {
  it('moves one knowledge base through each language in turn, searchable in each', async () => {
    const services = await openServices(loadConfig({ LOCALIQ_DATA_DIR: tempDataDir(), LOCALIQ_SECRET_STORE: 'file' }));
    try {
      const kb = 'kb-many';
      // One product named in each language, the word inflected otherwise in the query.
      const words: Record<string, [written: string, asked: string]> = {
        de: ['Jacke', 'Jacken'],
        fr: ['chaussure', 'chaussures'],
        es: ['zapato', 'zapatos'],
        it: ['scarpa', 'scarpe'],
        nl: ['schoen', 'schoenen'],
        pt: ['sapato', 'sapatos'],
        sv: ['väska', 'väskor'],
      };
      const languages = new KnowledgeBaseLanguages(services.db);
      for (const [language, [written]] of Object.entries(words)) {
        write(services.db, kb, { externalId: language, sourceType: 'PRODUCT', title: written, content: `${written} 42` });
      }
      for (const [language, [, asked]] of Object.entries(words)) {
        languages.request(kb, language as 'de');
        while (languages.reindexStep(kb, 5).reindexing);
        assert.equal(services.search.keywordIndex(kb).language, language);
        const found = services.search.searchWithVector(kb, asked, null, { mode: 'keyword', topK: 5, sourceTypes: null, passages: 1 });
        assert.equal(found.hits[0]?.item.externalId, language, `${language}: ${asked}`);
      }
    } finally {
      services.close();
    }
  });
});

import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { QueryEmbedder } from '../../../../server/embedders/query-embedder.ts';
import type { EmbeddingModel } from '../../../../server/indexes/embedding-model.ts';
import { KeywordIndex } from '../../../../server/indexes/keyword-index.ts';
import { SearchService } from '../../../../server/retrieval/search.ts';
import { SearchSettings } from '../../../../server/retrieval/search-settings.ts';
import { SynonymStore } from '../../../../server/retrieval/synonyms.ts';
import { openDatabase } from '../../../../server/storage/db.ts';
import { IndexRepo } from '../../../../server/storage/index-repo.ts';
import { SearchRepo } from '../../../../server/storage/search-repo.ts';
import { SettingsRepo } from '../../../../server/storage/settings-repo.ts';
import { VectorStore } from '../../../../server/storage/vector-store.ts';
import { tempDataDir } from '../../../helpers/temp-data.ts';

const KB = 'shop';
const ITEMS = [
  ['sofa-1', 'Velvet sofa', 'A green velvet sofa with three seats.'],
  ['sofa-2', 'Linen sofa', 'A linen sofa with washable covers.'],
  ['couch', 'Leather couch', 'A brown leather couch.'],
  ['tshirt', 'Cotton T-shirt', 'An organic cotton T-shirt.'],
  ['flannel', 'Flannel shirt', 'Style T: a checked flannel shirt.'],
] as const;

/** No embedding model here: keyword search only (a fake of the parts keyword mode never calls). */
const NO_MODEL = { vectors: () => null, index: () => null } as unknown as EmbeddingModel;

describe('keyword search with synonyms: the in-memory postings and the FTS5 fallback agree', () => {
  const db = openDatabase(tempDataDir());
  const index = new IndexRepo(db, new VectorStore(db, 'test-model', 4));
  ITEMS.forEach(([externalId, title, text], seq) =>
    db.transaction(() =>
      index.writeItem(
        { knowledgeBaseId: KB, integrationId: 'test', externalId, sourceType: 'PRODUCT', title, content: text, text, url: null, sourceData: null, contentHash: externalId, seq: seq + 1, embedderId: 'test-model', chunks: [] },
        Date.now(),
      ),
    )(),
  );
  const settings = new SettingsRepo(db);
  const synonyms = new SynonymStore(settings);
  synonyms.replace(KB, [{ synonyms: ['sofa', 'couch'] }, { root: 'tee', synonyms: ['t shirt'] }]);
  const service = (keywords: KeywordIndex) =>
    new SearchService({ repo: new SearchRepo(db), keywords, embedding: NO_MODEL, queries: {} as QueryEmbedder, settings: new SearchSettings(settings), synonyms });
  const ids = (s: SearchService, query: string) =>
    s.searchWithVector(KB, query, null, { mode: 'keyword', topK: 10, sourceTypes: null, passages: 0 }).hits.map((h) => h.item.externalId);
  const loading = KeywordIndex.open(db);
  const loaded = KeywordIndex.open(db);
  after(() => {
    loading.close();
    loaded.close();
    db.close();
  });

  it('finds the same items, those holding the word typed first, before and after the index loads', async () => {
    // Not loaded: every search is FTS5's (the load starts in the background and needs turns of the event loop).
    const fts = { couch: ids(service(loading), 'couch'), tee: ids(service(loading), 'tee'), pair: ids(service(loading), 'linen couch') };
    assert.equal(loading.loaded, false, 'those were FTS5 answers');
    await loaded.load();
    const memory = { couch: ids(service(loaded), 'couch'), tee: ids(service(loaded), 'tee'), pair: ids(service(loaded), 'linen couch') };
    assert.equal(fts.couch[0], 'couch');
    assert.deepEqual(fts.couch.slice(1).sort(), ['sofa-1', 'sofa-2']);
    assert.deepEqual(fts.tee, ['tshirt'], 'the phrase, not the flannel shirt with a "T" apart');
    assert.equal(fts.pair[0], 'sofa-2', 'every word first: "linen" as typed, "couch" through "sofa"');
    assert.deepEqual(memory, fts);
  });
});

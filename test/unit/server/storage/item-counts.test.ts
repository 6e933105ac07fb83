import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openDatabase, type Db } from '../../../../server/storage/db.ts';
import { IndexRepo, type IndexedChunk } from '../../../../server/storage/index-repo.ts';
import { ItemReadRepo } from '../../../../server/storage/item-read-repo.ts';
import { ItemRepo } from '../../../../server/storage/item-repo.ts';
import { TermStatsRepo } from '../../../../server/storage/term-stats-repo.ts';
import { VectorStore } from '../../../../server/storage/vector-store.ts';
import { tempDataDir } from '../../../helpers/temp-data.ts';

type Count = { knowledge_base_id: string; items: number; chunks: number };

/** The kept counts (knowledge bases with items), and the same counts read from the items table. */
function counts(db: Db): { kept: Count[]; counted: Count[] } {
  return {
    kept: db.prepare('SELECT * FROM item_counts WHERE items <> 0 ORDER BY 1').all() as Count[],
    counted: db
      .prepare('SELECT knowledge_base_id, count(*) AS items, sum(chunk_count) AS chunks FROM items GROUP BY 1 ORDER BY 1')
      .all() as Count[],
  };
}

function chunks(count: number): IndexedChunk[] {
  return Array.from({ length: count }, (_, position) => ({
    position, text: `chunk ${position}`, tokenCount: 2, embedHash: `e${position}`, vector: new Float32Array([1, 0, 0, 0]),
  }));
}

describe('item counts per knowledge base', () => {
  it('stay equal to the items table as items are indexed, re-indexed and deleted', () => {
    const db = openDatabase(tempDataDir());
    const index = new IndexRepo(db, new VectorStore(db, 'test-model', 4));
    const knowledgeBase = db.prepare('INSERT INTO knowledge_bases (id, created_at) VALUES (?, 0) ON CONFLICT DO NOTHING');
    let seq = 0;
    const write = (knowledgeBaseId: string, externalId: string, chunkCount: number) => {
      knowledgeBase.run(knowledgeBaseId);
      db.transaction(() =>
        index.writeItem(
          {
            knowledgeBaseId, integrationId: 'cms', externalId, sourceType: 'ARTICLE', title: 't', content: 'c', text: 't',
            url: null, sourceData: null, contentHash: `h${seq}`, seq: ++seq, embedderId: 'test-model', chunks: chunks(chunkCount),
          },
          Date.now(),
        ),
      )();
    };
    const check = (step: string) => {
      const { kept, counted } = counts(db);
      assert.deepEqual(kept, counted, step);
    };

    write('kb-a', 'x-1', 3);
    write('kb-a', 'x-2', 2);
    write('kb-b', 'x-1', 4);
    check('indexed');
    write('kb-a', 'x-1', 1);
    check('re-indexed with fewer chunks');
    new ItemRepo(db).delete({ knowledgeBaseId: 'kb-b', integrationId: 'cms', externalId: 'x-1' }, Date.now(), { keyId: 'test-key' });
    check('deleted');

    assert.deepEqual(
      new ItemReadRepo(db).knowledgeBases().map((kb) => [kb.id, kb.itemCount, kb.chunkCount]),
      [['kb-a', 2, 3], ['kb-b', 0, 0]],
    );
    assert.equal(new TermStatsRepo(db).chunkCount('kb-a'), 3);
    assert.equal(new TermStatsRepo(db).chunkCount('kb-none'), 0);
    db.close();
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { QuantizedVectors } from '../../../../server/indexes/quantized-vectors.ts';
import { VectorIndex } from '../../../../server/indexes/vector-index.ts';
import { chunkVectorFeed } from '../../../../server/storage/chunk-vector-feed.ts';
import { openDatabase, openReader, type Db } from '../../../../server/storage/db.ts';
import { IndexCleaner, IndexRepo } from '../../../../server/storage/index-repo.ts';
import { VectorStore } from '../../../../server/storage/vector-store.ts';
import { tempDataDir } from '../../../helpers/temp-data.ts';

// As many dimensions as a small sentence model (all-MiniLM-L6-v2): binary codes of fewer bits are too coarse.
const DIMENSION = 384;

/** A seeded generator, so a failure can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
}

function unit(values: number[]): Float32Array {
  const norm = Math.hypot(...values);
  return Float32Array.from(values, (x) => x / norm);
}

/** Vectors around a few directions, like embeddings of texts on a few topics. */
function clustered(count: number, next: () => number): Float32Array[] {
  const centres = Array.from({ length: 8 }, () => Array.from({ length: DIMENSION }, () => next() * 2 - 1));
  return Array.from({ length: count }, (_, i) => unit(centres[i % 8]!.map((c) => c + (next() * 2 - 1) * 0.8)));
}

function dot(a: Float32Array, b: Float32Array): number {
  return a.reduce((sum, x, i) => sum + x * b[i]!, 0);
}

describe('quantized vectors', () => {
  const next = random(7);
  const vectors = clustered(2000, next);
  const store = new QuantizedVectors(DIMENSION);
  vectors.forEach((v, i) => store.put(i + 1, 1000 + i, i % 2, v));

  it('finds what an exact scan finds, with int8 cosines within 0.01 of the float ones', () => {
    let agreed = 0;
    let total = 0;
    for (let q = 0; q < 30; q++) {
      // A query near one stored text, as a paraphrase would be.
      const query = unit([...vectors[(q * 67) % vectors.length]!].map((x) => x + (next() * 2 - 1) * 0.05));
      const exact = vectors
        .map((v, i) => ({ chunkId: i + 1, similarity: dot(v, query) }))
        .sort((a, b) => b.similarity - a.similarity)
        .slice(0, 20);
      const found = store.nearest(query, 20);
      assert.equal(found.length, 20);
      const ids = new Set(found.map((f) => f.chunkId));
      for (const e of exact) {
        total++;
        if (ids.has(e.chunkId)) agreed++;
      }
      for (const f of found) {
        assert.equal(f.itemId, 1000 + f.chunkId - 1);
        assert.ok(Math.abs(f.similarity - dot(vectors[f.chunkId - 1]!, query)) < 0.01);
      }
      for (let i = 1; i < found.length; i++) assert.ok(found[i - 1]!.similarity >= found[i]!.similarity);
    }
    assert.ok(agreed / total >= 0.95, `agreement with the exact top 20: ${agreed}/${total}`);
  });

  it('restricts to the asked types and forgets removed chunks, keeping the others findable', () => {
    const query = vectors[10]!;
    assert.ok(store.nearest(query, 50, new Set([1])).every((f) => (f.chunkId - 1) % 2 === 1));
    assert.equal(store.nearest(query, 1)[0]!.chunkId, 11);
    store.remove(11);
    assert.equal(store.count, 1999);
    assert.ok(!store.nearest(query, 100).some((f) => f.chunkId === 11));
    assert.equal(store.similarity(11, query), null);
    // The chunk moved into the freed slot is still itself.
    assert.equal(store.nearest(vectors[1999]!, 1)[0]!.chunkId, 2000);
    store.put(11, 1010, 0, vectors[10]!);
    assert.equal(store.nearest(query, 1)[0]!.chunkId, 11);
  });

  it('replaces a chunk put twice instead of holding it twice', () => {
    const small = new QuantizedVectors(DIMENSION);
    small.put(5, 1, 0, vectors[0]!);
    small.put(5, 2, 0, vectors[1]!);
    assert.equal(small.count, 1);
    const [hit] = small.nearest(vectors[1]!, 1);
    assert.equal(hit!.itemId, 2);
    assert.ok(hit!.similarity > 0.99);
  });
});

function writeItem(db: Db, kb: string, externalId: string, vectors: Float32Array[], seq: number): void {
  const index = new IndexRepo(db, new VectorStore(db, 'test-model', DIMENSION));
  db.transaction(() =>
    index.writeItem(
      {
        knowledgeBaseId: kb,
        integrationId: 'test',
        externalId,
        sourceType: 'PAGE',
        title: externalId,
        content: 'text',
        text: 'text',
        url: null,
        sourceData: null,
        contentHash: `${externalId}-${seq}`,
        seq,
        embedderId: 'test-model',
        chunks: vectors.map((vector, position) => ({ position, text: `chunk ${position}`, tokenCount: 2, embedHash: `${externalId}-${seq}-${position}`, vector })),
      },
      Date.now(),
    ),
  )();
}

function itemIdOf(db: Db, externalId: string): number {
  return (db.prepare('SELECT id FROM items WHERE external_id = ?').get(externalId) as { id: number }).id;
}

describe('vector index over the database', () => {
  it('stays current with writes from other connections, including reused chunk ids and a pruned log', () => {
    const dataDir = tempDataDir();
    const reader = openDatabase(dataDir);
    const writer = openDatabase(dataDir);
    const store = new VectorStore(reader, 'test-model', DIMENSION);
    const index = new VectorIndex(chunkVectorFeed(reader, store.table), DIMENSION);
    const vectors = clustered(40, random(11));
    try {
      writeItem(writer, 'kb-a', 'first', vectors.slice(0, 4), 1);
      assert.equal(index.size(), 4);
      assert.equal(index.nearest('kb-a', vectors[2]!, 1, null)[0]!.itemId, itemIdOf(reader, 'first'));
      assert.deepEqual(index.nearest('kb-b', vectors[2]!, 1, null), []);

      // Another connection writes: the next search sees it, in its own knowledge base only.
      writeItem(writer, 'kb-b', 'second', vectors.slice(4, 8), 1);
      assert.equal(index.nearest('kb-b', vectors[5]!, 1, null)[0]!.itemId, itemIdOf(reader, 'second'));
      assert.equal(index.nearest('kb-a', vectors[5]!, 4, null).length, 4);
      assert.deepEqual(index.nearest('kb-b', vectors[5]!, 1, ['ARTICLE']), []);

      // Replacing an item frees its chunk ids; the next chunks written reuse them.
      const before = new Set(index.nearest('kb-b', vectors[5]!, 4, null).map((h) => h.chunkId));
      new IndexCleaner(writer).removeItem({ knowledgeBaseId: 'kb-b', integrationId: 'test', externalId: 'second' });
      assert.deepEqual(index.nearest('kb-b', vectors[5]!, 4, null), []);
      writeItem(writer, 'kb-a', 'third', vectors.slice(8, 12), 1);
      const third = index.nearest('kb-a', vectors[9]!, 1, null)[0]!;
      assert.ok(before.has(third.chunkId), 'the new chunk reuses an id the removed item held');
      assert.equal(third.itemId, itemIdOf(reader, 'third'));
      assert.equal(index.size(), 8);

      // A reader further behind than the log reaches reloads everything.
      writeItem(writer, 'kb-a', 'fourth', vectors.slice(12, 16), 1);
      writer.exec('DELETE FROM chunk_changes');
      writeItem(writer, 'kb-a', 'fifth', vectors.slice(16, 20), 1);
      assert.equal(index.size(), 16);
      assert.equal(index.nearest('kb-a', vectors[13]!, 1, null)[0]!.itemId, itemIdOf(reader, 'fourth'));
    } finally {
      reader.close();
      writer.close();
    }
  });

  it('loads in the background a little at a time, and a search that comes first completes the load', async () => {
    const dataDir = tempDataDir();
    const db = openDatabase(dataDir);
    const readers = [openReader(db), openReader(db)];
    const vectors = clustered(1600, random(5));
    try {
      for (let i = 0; i < 400; i++) writeItem(db, 'kb-a', `item-${i}`, vectors.slice(i * 4, i * 4 + 4), 1);
      const table = new VectorStore(db, 'test-model', DIMENSION).table;
      const background = new VectorIndex(chunkVectorFeed(readers[0]!, table), DIMENSION);
      await background.load();
      assert.equal(background.size(), 1600);

      const index = new VectorIndex(chunkVectorFeed(readers[1]!, table), DIMENSION);
      const loading = index.load();
      // Written while the load is under way: the change log brings it in.
      writeItem(db, 'kb-a', 'late', vectors.slice(0, 2), 1);
      const [hit] = index.nearest('kb-a', vectors[1234]!, 1, null);
      assert.equal(hit!.itemId, itemIdOf(db, 'item-308'));
      assert.equal(index.size(), 1602);
      await loading;
      assert.equal(index.size(), 1602);
    } finally {
      for (const reader of readers) reader.close();
      db.close();
    }
  });

  it('a search awaiting ready() lets the event loop turn while the load goes on', async () => {
    const dataDir = tempDataDir();
    const db = openDatabase(dataDir);
    const reader = openReader(db);
    const vectors = clustered(4000, random(9));
    try {
      for (let i = 0; i < 1000; i++) writeItem(db, 'kb-a', `item-${i}`, vectors.slice(i * 4, i * 4 + 4), 1);
      const index = new VectorIndex(chunkVectorFeed(reader, new VectorStore(db, 'test-model', DIMENSION).table), DIMENSION);
      let turns = 0;
      let waiting = true;
      const ticker = (async () => {
        for (; waiting; turns++) await nextTurn();
      })();
      await index.ready();
      waiting = false;
      await ticker;
      assert.ok(index.loaded);
      assert.ok(turns >= 3, `other work ran in ${turns} turns of the event loop during the load`);
      assert.equal(index.size(), 4000);
      assert.equal(index.nearest('kb-a', vectors[2345]!, 1, null)[0]!.itemId, itemIdOf(db, 'item-586'));
      await index.ready(); // loaded: at once
    } finally {
      reader.close();
      db.close();
    }
  });
});

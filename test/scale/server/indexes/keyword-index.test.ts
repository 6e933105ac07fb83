import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { describe, it } from 'node:test';
import { Bm25Postings, type KeywordRow } from '../../../../server/indexes/bm25-postings.ts';
import { KeywordIndex } from '../../../../server/indexes/keyword-index.ts';
import { ftsQuery } from '../../../../server/language/query-words.ts';
import { loadConfig } from '../../../../server/config.ts';
import { openServices } from '../../../../server/services.ts';
import { openDatabase, openReader, type Db } from '../../../../server/storage/db.ts';
import { IndexCleaner, IndexRepo } from '../../../../server/storage/index-repo.ts';
import { scopedQuery } from '../../../../server/storage/keyword-scope.ts';
import { ITEM_COLUMN_WEIGHTS, SearchRepo } from '../../../../server/storage/search-repo.ts';
import { VectorStore } from '../../../../server/storage/vector-store.ts';
import { tempDataDir } from '../../../helpers/temp-data.ts';

/** A seeded generator, so a failure can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
}

// Words with stems in common, diacritics, case and punctuation, some frequent (in more than half
// of the rows, where FTS5's IDF floor applies) and some rare.
const COMMON = ['the', 'cell', 'cells', 'protein', 'Running', 'runs'];
const RARE = ['café', 'CAFE', 'naïve', 'insulin,', '(IL-6)', 'tumour', 'mitochondrial', 'zebrafish', 'x-ray', 'ångström', '42'];

function text(next: () => number, words: number): string {
  return Array.from({ length: words }, () => {
    const pool = next() < 0.7 ? COMMON : RARE;
    return pool[Math.floor(next() * pool.length)]!;
  }).join(next() < 0.5 ? ' ' : '\n ');
}

type Written = { kb: string; externalId: string; sourceType: string; seq: number };

function writeItem(db: Db, item: Written, next: () => number): void {
  writeText(db, item, text(next, 1 + Math.floor(next() * 4)), text(next, 5 + Math.floor(next() * 60)));
}

function writeText(db: Db, item: Written, title: string, body: string): void {
  const index = new IndexRepo(db, new VectorStore(db, 'test-model', 4));
  db.transaction(() =>
    index.writeItem(
      {
        knowledgeBaseId: item.kb,
        integrationId: 'test',
        externalId: item.externalId,
        sourceType: item.sourceType,
        title,
        content: 'unused',
        text: body,
        url: null,
        sourceData: null,
        contentHash: `${item.externalId}-${item.seq}`,
        seq: item.seq,
        embedderId: 'test-model',
        chunks: [],
      },
      Date.now(),
    ),
  )();
}

const QUERIES = [['cell'], ['running', 'café'], ['naive', 'insulin', 'the'], ['run', 'runs', 'running'], ['angstrom', 'x', 'ray'], ['il', '6', '42'], ['nowhere']];

type Fts5Search = (kb: string, match: string, limit: number, sourceTypes: string[] | null) => Array<{ id: number; score: number }>;

/** FTS5's answer and the in-memory one agree: same items, same order, same scores. */
function assertSameAsFts5(index: KeywordIndex, fts5: Fts5Search, kb: string, sourceTypes: string[] | null): number {
  let compared = 0;
  for (const words of QUERIES) {
    // A limit above the matches, so ties at the cut cannot differ.
    const fts = fts5(kb, ftsQuery(words)!, 10_000, sourceTypes).sort((a, b) => b.score - a.score || a.id - b.id);
    const memory = index.search(kb, words, 10_000, sourceTypes);
    assert.ok(memory, 'the index is loaded and every word is one token');
    assert.deepEqual(
      memory.map((r) => r.id),
      fts.map((r) => r.id),
      `${words.join(' ')} in ${kb}`,
    );
    memory.forEach((r, i) => assert.ok(Math.abs(r.score - fts[i]!.score) < 1e-9, `${r.score} vs ${fts[i]!.score}`));
    compared += memory.length;
  }
  return compared;
}

describe('keyword index', () => {
/**
 * FTS5 over the live items only: a table of items_fts's definition filled afresh. A contentless
 * FTS5 table with deletions does not take deleted rows out of the row and token counts bm25()
 * uses; the in-memory index counts live rows, as a table without deletions does.
 */
function freshFts5(db: Db): Fts5Search {
  const { sql } = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'items_fts'").get() as { sql: string };
  db.exec('DROP TABLE IF EXISTS temp.live_fts');
  db.exec(sql.replace('items_fts', 'temp.live_fts'));
  db.exec(`INSERT INTO live_fts (rowid, title, text, scope)
    SELECT id, title, text, localiq_scope(knowledge_base_id, source_type, NULL) FROM items`);
  const search = db.prepare<[string, number], { id: number; score: number }>(
    `SELECT rowid AS id, -bm25(live_fts, ${ITEM_COLUMN_WEIGHTS.join(', ')}) AS score
     FROM live_fts WHERE live_fts MATCH ? ORDER BY score DESC LIMIT ?`,
  );
  return (kb, match, limit, sourceTypes) => search.all(scopedQuery(match, { knowledgeBaseId: kb, sourceTypes }), limit);
}

  it('ranks exactly as FTS5 bm25() does, through writes, replacements and removals by another connection', async () => {
    const dataDir = tempDataDir();
    const db = openDatabase(dataDir);
    const index = new KeywordIndex(openReader(db));
    const repo = new SearchRepo(db);
    const production: Fts5Search = (kb, match, limit, sourceTypes) => repo.keywordItems(kb, match, limit, sourceTypes);
    const next = random(3);
    const items: Written[] = Array.from({ length: 240 }, (_, i) => ({
      kb: i % 3 === 0 ? 'kb-b' : 'kb-a',
      externalId: `item-${i}`,
      sourceType: i % 2 === 0 ? 'ARTICLE' : 'PRODUCT',
      seq: 1,
    }));
    try {
      for (const item of items) writeItem(db, item, next);
      await index.load();
      let compared = 0;
      for (const kb of ['kb-a', 'kb-b']) {
        for (const types of [null, ['PRODUCT'], ['ARTICLE', 'PRODUCT']]) compared += assertSameAsFts5(index, production, kb, types);
      }
      assert.ok(compared > 500, `results compared: ${compared}`);
      assert.deepEqual(index.search('kb-none', ['cell'], 10, null), []);
      assert.deepEqual(index.search('kb-a', ['cell'], 10, ['EVENT']), []);

      // Replaced and removed items, written after the load, change the statistics of every query.
      for (const item of items.slice(0, 60)) writeItem(db, { ...item, seq: 2 }, next);
      const cleaner = new IndexCleaner(db);
      for (const item of items.slice(60, 120)) {
        cleaner.removeItem({ knowledgeBaseId: item.kb, integrationId: 'test', externalId: item.externalId });
      }
      writeItem(db, { kb: 'kb-c', externalId: 'new', sourceType: 'FAQ', seq: 1 }, next);
      for (const kb of ['kb-a', 'kb-b', 'kb-c']) assertSameAsFts5(index, freshFts5(db), kb, null);

      // Further behind than the change log reaches: it loads again.
      db.exec('DELETE FROM item_changes');
      writeItem(db, { kb: 'kb-c', externalId: 'newer', sourceType: 'FAQ', seq: 1 }, next);
      assert.equal(index.search('kb-c', ['cell'], 10, null)!.length > 0, true);
      assertSameAsFts5(index, freshFts5(db), 'kb-c', null);
      assertSameAsFts5(index, freshFts5(db), 'kb-a', null);
    } finally {
      index.close();
      db.close();
    }
  });

  it('leaves the answer to FTS5 until loaded, and starts loading in the background', async () => {
    const dataDir = tempDataDir();
    const db = openDatabase(dataDir);
    const index = new KeywordIndex(openReader(db));
    try {
      const next = random(9);
      for (let i = 0; i < 500; i++) writeItem(db, { kb: 'kb-a', externalId: `item-${i}`, sourceType: 'PAGE', seq: 1 }, next);
      assert.equal(index.search('kb-a', ['cell'], 10, null), null);
      // The load runs a slice per turn of the event loop.
      assert.equal(index.loaded, false);
      while (!index.loaded) await new Promise((resolve) => setImmediate(resolve));
      assert.notEqual(index.search('kb-a', ['cell'], 10, null), null);

      // Following many changes also goes a slice per turn; a search in between applies the rest.
      for (let i = 0; i < 500; i++) writeItem(db, { kb: 'kb-b', externalId: `late-${i}`, sourceType: 'PAGE', seq: 1 }, next);
      index.follow();
      const fts5 = new SearchRepo(db);
      const all = (kb: string) => index.search(kb, ['the', 'cell', 'protein', 'run'], 10_000, null)!.length;
      assert.equal(all('kb-b'), fts5.keywordItems('kb-b', ftsQuery(['the', 'cell', 'protein', 'run'])!, 10_000, null).length);
      assert.equal(all('kb-b'), 500);
    } finally {
      index.close();
      db.close();
    }
  });
});

describe('FTS5 statistics after deletions (why the postings count rows themselves)', () => {
  it('a contentless FTS5 table keeps deleted rows in the counts bm25() uses; a table without them scores differently', () => {
    const db = new Database(':memory:');
    const score = (table: string) =>
      (db.prepare(`SELECT bm25(${table}) AS s FROM ${table} WHERE ${table} MATCH 'apple' AND rowid = 2`).get() as { s: number }).s;
    for (const table of ['churned', 'fresh']) {
      db.exec(`CREATE VIRTUAL TABLE ${table} USING fts5 (text, content = '', contentless_delete = 1)`);
    }
    const texts = ['pear plum fig kiwi lime', 'apple pear', 'plum fig', 'kiwi lime apple fig', 'fig'];
    texts.forEach((text, i) => db.prepare('INSERT INTO churned (rowid, text) VALUES (?, ?)').run(i + 1, text));
    db.exec('DELETE FROM churned WHERE rowid = 1');
    texts.slice(1).forEach((text, i) => db.prepare('INSERT INTO fresh (rowid, text) VALUES (?, ?)').run(i + 2, text));
    assert.notEqual(score('churned'), score('fresh'));
    // The postings' answer for the live rows is the fresh table's (one column of weight 1; these
    // words are their own terms).
    const termIds = new Map<string, number>();
    const postings = new Bm25Postings();
    texts.slice(1).forEach((text, i) => {
      const words = text.split(' ');
      const ids = words.map((w) => termIds.get(w) ?? termIds.set(w, termIds.size).get(w)!);
      postings.put({ id: i + 2, group: 0, kind: 0, length: words.length, termIds: ids, weights: ids.map(() => 1) });
    });
    const best = postings.search([termIds.get('apple')!], 0, null, 10).find((r) => r.id === 2)!;
    assert.ok(Math.abs(best.score + score('fresh')) <= 1e-12 * best.score, `${best.score} vs ${-score('fresh')}`);
    db.close();
  });
});

/** BM25 as FTS5 computes it, row by row over the live rows: what the postings must equal. */
function referenceSearch(rows: Map<number, KeywordRow>, terms: number[], group: number, limit: number) {
  const live = [...rows.values()];
  const averageLength = live.reduce((sum, row) => sum + row.length, 0) / live.length;
  const scores = new Map<number, number>();
  for (const term of terms) {
    const documents = live.filter((row) => row.termIds.includes(term)).length;
    if (documents === 0) continue;
    let idf = Math.log((live.length - documents + 0.5) / (documents + 0.5));
    if (idf <= 0) idf = 1e-6;
    for (const row of live) {
      const at = row.termIds.indexOf(term);
      if (at < 0 || row.group !== group) continue;
      // Stored as the postings store it, in 32 bits.
      const weight = Math.fround(row.weights[at]!);
      const add = idf * ((weight * (1.2 + 1.0)) / (weight + 1.2 * (1 - 0.75 + (0.75 * row.length) / averageLength)));
      scores.set(row.id, (scores.get(row.id) ?? 0) + add);
    }
  }
  return [...scores]
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score || a.id - b.id)
    .slice(0, limit);
}

describe('BM25 postings', () => {
  it('equals a row-by-row BM25 while growing through many packs, with some words in every row', () => {
    const next = random(7);
    const postings = new Bm25Postings();
    const rows = new Map<number, KeywordRow>();
    // Terms 0 and 1 are in every row (more new postings than a block of the log holds, 4,096,
    // between two packs); the rest are spread out, some rare.
    const makeRow = (id: number): KeywordRow => {
      const termIds = [...new Set([0, 1, ...Array.from({ length: 6 }, () => 2 + Math.floor(next() ** 2 * 5000))])];
      return { id, group: id % 3 === 0 ? 1 : 0, kind: 0, length: 10 + Math.floor(next() * 40), termIds, weights: termIds.map(() => 1 + Math.floor(next() * 3)) };
    };
    const queries = [[0], [1, 2, 3], [4999, 17, 0], [250, 250, 9]];
    for (let id = 0; id < 40_000; id++) {
      const row = makeRow(id);
      postings.put(row);
      rows.set(id, row);
      // Some rows replaced or removed on the way, so packs also drop dead postings.
      if (id % 7 === 0 && id > 0) {
        const replaced = makeRow(id - 1);
        postings.put(replaced);
        rows.set(id - 1, replaced);
      }
      if (id % 11 === 0) {
        postings.remove(id - 5);
        rows.delete(id - 5);
      }
      if (id % 2_500 === 1_234) {
        for (const terms of queries) {
          for (const group of [0, 1]) {
            const expected = referenceSearch(rows, terms, group, 20);
            assert.ok(expected.length > 0);
            assert.deepEqual(postings.search(terms, group, null, 20), expected, `after row ${id}, terms ${terms}, group ${group}`);
          }
        }
      }
    }
    assert.equal(postings.rows, rows.size);
  });

  it('gives the same results after many removals (dead postings swept) as a fresh build of what is left', () => {
    const next = random(21);
    const rows: KeywordRow[] = Array.from({ length: 3000 }, (_, id) => {
      const termIds = [...new Set(Array.from({ length: 20 }, () => Math.floor(next() * 200)))];
      return { id, group: id % 2, kind: id % 3, length: 30, termIds, weights: termIds.map(() => 1 + Math.floor(next() * 4)) };
    });
    const churned = new Bm25Postings();
    for (const row of rows) churned.put(row);
    // Removed and replaced rows: enough dead postings to be swept more than once.
    for (const row of rows.slice(0, 2400)) churned.remove(row.id);
    const replaced = rows.slice(2400, 2700).map((row) => ({ ...row, length: 25, weights: row.weights.map((w) => w + 1) }));
    for (const row of replaced) churned.put(row);
    const fresh = new Bm25Postings();
    for (const row of [...replaced, ...rows.slice(2700)]) fresh.put(row);
    assert.equal(churned.rows, 600);
    for (const terms of [[1], [2, 3, 150], [7, 7], [199, 0, 55, 60]]) {
      for (const group of [0, 1]) {
        const expected = fresh.search(terms, group, new Set([0, 2]), 50);
        assert.ok(expected.length > 0);
        assert.deepEqual(churned.search(terms, group, new Set([0, 2]), 50), expected);
      }
    }
  });
});

describe('keyword mode: items with every word first', () => {
  // "gluten" is in most items (BM25 gives it almost no weight), "free" in few: by BM25 alone the
  // short "Free parking." passes the longer items holding both words.
  const BAKERY = [
    ['parking', 'Parking', 'Free parking.'],
    ['rolls', 'Spelt rolls', 'Our spelt rolls are baked fresh each morning with sourdough. They are gluten free and vegan, made in a gluten free kitchen.'],
    ['cake', 'Almond cake', 'A moist almond cake with orange zest, baked without flour, gluten free, and with a crisp top of flaked almonds and sugar.'],
    ['rye', 'Rye bread', 'Dark rye bread with seeds; it contains gluten.'],
    ['wheat', 'Wheat loaf', 'A white wheat loaf; it contains gluten.'],
    ['baguette', 'Baguette', 'A crisp baguette; it contains gluten.'],
    ['croissant', 'Croissant', 'A butter croissant; it contains gluten.'],
    ...['Brioche', 'Ciabatta', 'Focaccia', 'Pretzel', 'Bagel', 'Challah'].map((name) => [name.toLowerCase(), name, `A ${name.toLowerCase()}; it contains gluten.`] as const),
    [
      'menu',
      'Menu',
      'What we bake through the week, from the first loaf at six in the morning to the last tray in the afternoon: bread of every kind, ' +
        'a cake for the weekend, rolls for breakfast, and on request most of it gluten free, baked in the same ovens as everything else we sell.',
    ],
  ] as const;
  const ALL_WORDS = ['cake', 'menu', 'rolls'];

  it('ranks items holding "gluten" and "free" before one holding only "free", in the index and through FTS5 before it loads; longer queries keep BM25', async () => {
    const dataDir = tempDataDir();
    const services = await openServices(loadConfig({ LOCALIQ_DATA_DIR: dataDir, LOCALIQ_SECRET_STORE: 'file' }));
    try {
      for (const [externalId, title, body] of BAKERY) writeText(services.db, { kb: 'bakery', externalId, sourceType: 'PRODUCT', seq: 1 }, title, body);
      const search = () =>
        services.search.searchWithVector('bakery', 'gluten free', null, { mode: 'keyword', topK: 10, sourceTypes: null, passages: 0 }).hits.map((h) => h.item.externalId);
      assert.equal(services.keywords.loaded, false);
      const throughFts5 = search();
      assert.deepEqual(throughFts5.slice(0, 3).sort(), ALL_WORDS);
      assert.equal(throughFts5[3], 'parking');

      while (!services.keywords.loaded) await new Promise((resolve) => setImmediate(resolve));
      const plainBm25 = services.keywords.search('bakery', ['gluten', 'free'], 10, null)!;
      const external = (id: number) => services.db.prepare<[number], { external_id: string }>('SELECT external_id FROM items WHERE id = ?').get(id)!.external_id;
      assert.equal(external(plainBm25[0]!.id), 'parking', 'by BM25 alone the short "Free parking." comes first');
      const inMemory = search();
      assert.deepEqual(inMemory.slice(0, 3).sort(), ALL_WORDS);
      assert.equal(inMemory[3], 'parking');
      assert.deepEqual(inMemory, throughFts5, 'both paths agree');
      // A question of more words keeps plain BM25, which ranks questions better (docs/retrieval.md):
      // only the long menu holds all five words, and it is not BM25's first.
      const question = ['gluten', 'free', 'bread', 'cake', 'rolls'];
      const byBm25 = services.keywords.search('bakery', question, 10, null)!.map((r) => external(r.id));
      assert.notEqual(byBm25[0], 'menu');
      const asked = services.search.searchWithVector('bakery', question.join(' '), null, { mode: 'keyword', topK: 10, sourceTypes: null, passages: 0 });
      assert.deepEqual(asked.hits.map((h) => h.item.externalId), byBm25);
      assert.equal(services.keywords.search('bakery', question, 10, null, true)![0]!.id, asked.hits.find((h) => h.item.externalId === 'menu')!.item.id, 'all words first would put the menu first');
    } finally {
      services.close();
    }
  });
});

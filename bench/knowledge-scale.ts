/**
 * Reads that summarize a knowledge base's items, with many items indexed: the knowledge-base
 * list (the dashboard's Knowledge screen and `GET /knowledge`) and the chunk total the assistant
 * weighs question words by (every `/ask`). Items are written straight into the items table, in
 * three knowledge bases, with about 600 characters of text each.
 * Usage: node --import tsx bench/knowledge-scale.ts [--items 300000 --repeat 5]
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { openDatabase } from '../server/storage/db.ts';
import { ItemReadRepo } from '../server/storage/item-read-repo.ts';
import { TermStatsRepo } from '../server/storage/term-stats-repo.ts';
import { medianMs, tempDir } from './lib/server-child.ts';

const { values } = parseArgs({
  options: { items: { type: 'string', default: '300000' }, repeat: { type: 'string', default: '5' } },
});
const items = Number(values.items);
const repeat = Number(values.repeat);
const knowledgeBases = ['kb-a', 'kb-b', 'kb-c'];

const dataDir = tempDir();
const db = openDatabase(dataDir);
const insert = db.prepare(
  `INSERT INTO items (knowledge_base_id, integration_id, external_id, source_type, title, content, text, content_hash,
     seq, chunk_count, embedder_id, created_at, updated_at)
   VALUES (?, 'bench', ?, 'ARTICLE', ?, ?, ?, 'h', 1, 3, 'use-lite', 0, 0)`,
);
db.transaction(() => {
  for (const id of knowledgeBases) db.prepare('INSERT INTO knowledge_bases (id, created_at) VALUES (?, 0)').run(id);
  for (let i = 0; i < items; i++) {
    const text = `Item ${i} text `.repeat(40);
    insert.run(knowledgeBases[i % knowledgeBases.length]!, `item-${i}`, `Item ${i}`, text, text);
  }
})();

const time = (run: () => unknown) => medianMs(repeat, run);

const reader = new ItemReadRepo(db);
const termStats = new TermStatsRepo(db);
console.log(
  JSON.stringify(
    {
      when: new Date().toISOString(),
      items,
      medianMs: { knowledgeBaseList: time(() => reader.knowledgeBases()), chunkTotal: time(() => termStats.chunkCount('kb-a')) },
    },
    null,
    2,
  ),
);
db.close();
fs.rmSync(dataDir, { recursive: true, force: true });

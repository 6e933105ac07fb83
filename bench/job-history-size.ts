/**
 * What the job history costs on disk: a catalogue of items pushed, processed, then re-synced
 * unchanged several times (as a nightly sync does), and once more with every item changed. Prints
 * the bytes the jobs table and its indexes take per job (pages, and the jobs' rows alone), from
 * SQLite's dbstat.
 * Processing is stood in for by the repositories the pipeline uses (bench/lib/catalogue.ts).
 * Usage: node --import tsx bench/job-history-size.ts [--items 20000 --resyncs 5]
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { openDatabase } from '../server/storage/db.ts';
import { JobRepo } from '../server/storage/jobs/job-repo.ts';
import { processQueued, pushCatalogue } from './lib/catalogue.ts';
import { tempDir } from './lib/server-child.ts';

const { values } = parseArgs({ options: { items: { type: 'string', default: '20000' }, resyncs: { type: 'string', default: '5' } } });
const itemCount = Number(values.items);
const resyncs = Number(values.resyncs);

const dataDir = tempDir();
const db = openDatabase(dataDir);
const repo = new JobRepo(db);
const push = (version: number) => pushCatalogue(repo, itemCount, version, Date.now());
const processAll = () => processQueued(db, Date.now());

push(1);
processAll();
for (let r = 0; r < resyncs; r++) push(1);
push(2);
processAll();

const jobs = (db.prepare('SELECT count(*) AS n FROM jobs').get() as { n: number }).n;
const trees = db
  .prepare(
    `SELECT name, sum(pgsize) AS bytes, sum(payload) AS payload FROM dbstat
     WHERE name = 'jobs' OR name IN (SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'jobs')
     GROUP BY name ORDER BY bytes DESC`,
  )
  .all() as Array<{ name: string; bytes: number; payload: number }>;
const total = trees.reduce((sum, tree) => sum + tree.bytes, 0);
console.log(
  JSON.stringify(
    {
      when: new Date().toISOString(),
      items: itemCount,
      pushesPerItem: resyncs + 2,
      jobs,
      bytesPerJob: Math.round(total / jobs),
      rowBytesPerJob: Math.round(trees.find((tree) => tree.name === 'jobs')!.payload / jobs),
      bytesPerJobByTree: Object.fromEntries(trees.map((tree) => [tree.name, Math.round(tree.bytes / jobs)])),
    },
    null,
    2,
  ),
);
db.close();
fs.rmSync(dataDir, { recursive: true, force: true });

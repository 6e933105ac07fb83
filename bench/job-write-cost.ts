/**
 * What committing pushed jobs costs the writer: pages written to the write-ahead log per commit,
 * by b-tree (table or index), and CPU per pushed item, for batches of single-item pushes through
 * JobRepo.enqueue (what the ingest writer thread runs). External ids come in two shapes:
 * sequential numbers, and scattered ones (random, as UUIDs or SKUs arrive), which land on a
 * different leaf page of every index on them.
 * `--jobid-index` adds back the separate jobId index that migration 8 folded into jobs_by_item, to
 * compare.
 * Usage: node --import tsx bench/job-write-cost.ts [--batch 20 --commits 300 --before 2000] [--jobid-index]
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase, DB_FILE_NAME } from '../server/storage/db.ts';
import { JobRepo } from '../server/storage/jobs/job-repo.ts';
import { tempDir } from './lib/server-child.ts';

const { values } = parseArgs({
  options: {
    batch: { type: 'string', default: '20' },
    commits: { type: 'string', default: '300' },
    // Commits made before measuring, so the indexes are past their first pages.
    before: { type: 'string', default: '2000' },
    'jobid-index': { type: 'boolean', default: false },
  },
});
const batch = Number(values.batch);
const commits = Number(values.commits);
const WAL_HEADER = 32;
const FRAME_HEADER = 24;

function measure(idShape: 'sequential' | 'scattered') {
  const dataDir = tempDir();
  const db = openDatabase(dataDir);
  if (values['jobid-index']) db.exec('CREATE INDEX jobs_by_job_id ON jobs (job_id, id)');
  const repo = new JobRepo(db);
  let n = 0;
  const externalId = () => (idShape === 'sequential' ? `x-${n++}` : `x-${Math.random().toString(36).slice(2)}-${n++}`);
  const commit = () =>
    repo.enqueue(
      Array.from({ length: batch }, () => ({
        items: [
          {
            integrationId: 'bench',
            knowledgeBaseId: 'kb-bench',
            sourceType: 'ARTICLE' as const,
            externalId: externalId(),
            data: { title: `Item ${n}`, content: `Benchmark item number ${n}. `.repeat(20), url: `https://example.com/items/${n}` },
          },
        ],
        apiKeyId: 'bench-key',
      })),
      { now: Date.now(), maxAttempts: 3, activeModelId: null },
    );
  for (let i = 0; i < Number(values.before); i++) commit();
  // Empty the log and stop checkpoints, so the log holds exactly the measured commits' pages.
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.pragma('wal_autocheckpoint = 0');
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < commits; i++) commit();
  const cpu = process.cpuUsage(cpuBefore);

  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const wal = fs.readFileSync(path.join(dataDir, `${DB_FILE_NAME}-wal`));
  const owner = new Map<number, string>();
  for (const row of db.prepare('SELECT name, pageno FROM dbstat').all() as Array<{ name: string; pageno: number }>) {
    owner.set(row.pageno, row.name);
  }
  const framesByTree = new Map<string, number>();
  let frames = 0;
  for (let at = WAL_HEADER; at + FRAME_HEADER + pageSize <= wal.length; at += FRAME_HEADER + pageSize) {
    const tree = owner.get(wal.readUInt32BE(at)) ?? 'other';
    framesByTree.set(tree, (framesByTree.get(tree) ?? 0) + 1);
    frames++;
  }
  db.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  const perCommit = (count: number) => Number((count / commits).toFixed(1));
  return {
    idShape,
    pagesPerCommit: perCommit(frames),
    pagesPerCommitByTree: Object.fromEntries([...framesByTree].sort((a, b) => b[1] - a[1]).map(([tree, count]) => [tree, perCommit(count)])),
    cpuUsPerItem: Number(((cpu.user + cpu.system) / (commits * batch)).toFixed(1)),
  };
}

console.log(
  JSON.stringify(
    { when: new Date().toISOString(), batch, commits, jobIdIndex: values['jobid-index'], results: [measure('sequential'), measure('scattered')] },
    null,
    2,
  ),
);

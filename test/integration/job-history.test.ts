import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openDatabase } from '../../server/storage/db.ts';
import { history } from '../helpers/job-history.ts';
import { startServerProcess, waitForExit } from '../helpers/server-process.ts';
import { tempDataDir } from '../helpers/temp-data.ts';

describe('job history retention', () => {
  it('runs when the server starts: a data folder of last January keeps the newest job of each item and logs the rest removed', async () => {
    const dataDir = tempDataDir();
    const seeded = history(dataDir);
    seeded.db.close();
    const server = await startServerProcess(dataDir, { LOCALIQ_LOG_LEVEL: 'info' });
    try {
      const db = openDatabase(dataDir);
      const count = () => (db.prepare('SELECT count(*) AS n FROM jobs').get() as { n: number }).n;
      const logged = /"removed":4,"days":30,"msg":"job history: removed finished jobs that newer jobs of their items replaced"/;
      for (const deadline = Date.now() + 10_000; (count() > 5 || !logged.test(server.output())) && Date.now() < deadline; ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const left = db.prepare('SELECT external_id FROM jobs ORDER BY id').all().map((row) => (row as { external_id: string }).external_id);
      assert.deepEqual(left, ['only-once', 'twice-old', 'changed', 'resynced', 'failed-then-queued']);
      db.close();
      assert.match(server.output(), logged);
    } finally {
      server.child.kill('SIGTERM');
      await waitForExit(server.child);
    }
  });
});

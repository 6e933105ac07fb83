import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, startPipelineServer, waitForIdle } from '../helpers/pipeline-app.ts';
import { item } from '../helpers/temp-data.ts';

type Server = Awaited<ReturnType<typeof startPipelineServer>>;

/**
 * A pipeline worker thread that dies in the middle of a batch (server/pipeline/worker-pool.ts):
 * the pool starts a new worker, and the jobs the dead one held go back to the queue, their
 * interrupted attempt in their errors, for the new worker to finish.
 *
 * How the worker dies, for real and with nothing added to the server: two triggers, created by
 * this test in the database, refuse the doomed item's index write and then the write recording
 * that failure. A database error the worker does not expect (not a full disk) ends its thread
 * (pipeline-worker.ts: 'fatal', exit code 1), with the rest of its batch claimed and unsettled.
 */
const REFUSE_WRITES = `
  CREATE TRIGGER test_refuse_doomed_item BEFORE INSERT ON items WHEN NEW.external_id = 'doomed'
  BEGIN SELECT RAISE(ABORT, 'test: the database refuses this item'); END;
  CREATE TRIGGER test_refuse_recording_its_failure BEFORE UPDATE OF status ON jobs
    WHEN OLD.external_id = 'doomed' AND OLD.status = 'processing' AND NEW.errors LIKE '%indexing failed%'
  BEGIN SELECT RAISE(ABORT, 'test: the database refuses this write too'); END;`;
const ALLOW_WRITES = 'DROP TRIGGER test_refuse_doomed_item; DROP TRIGGER test_refuse_recording_its_failure;';

const BATCH = ['first', 'doomed', 'last'];

describe('a pipeline worker thread that dies mid-batch', () => {
  let server: Server;
  before(async () => {
    server = await startPipelineServer({ workers: 1, batchJobs: 8 });
  });
  after(() => server.stop());

  const job = async (externalId: string) => (await api(server, 'GET', `/jobs/cms-${externalId}`)).body;
  /** Its job's status, and `status after attempts` once claimed (attempts count at claim time). */
  const stateOf = (externalId: string) => {
    const row = server.services.db.prepare('SELECT status, attempts FROM jobs WHERE external_id = ? ORDER BY id DESC LIMIT 1').get(externalId) as { status: string; attempts: number };
    return row.attempts === 0 ? row.status : `${row.status} after ${row.attempts}`;
  };

  it('is replaced, and the jobs it held are queued again with the crash in their errors, then finished by the new worker', async () => {
    server.services.db.exec(REFUSE_WRITES);
    // One push, one commit: the only worker claims the three jobs as one batch.
    const pushed = await api(server, 'POST', '/ingest/bulk', {
      items: BATCH.map((externalId) => item({ externalId }, { title: `Page ${externalId}`, content: `The ${externalId} page of the crash test.` })),
    });
    assert.equal(pushed.status, 200);

    // The worker dies at the doomed job's write. Its jobs must not stay `processing` (nothing
    // but a restart of the server would ever look at them again).
    const deadline = Date.now() + 30_000;
    while (stateOf('doomed') !== 'queued after 1') {
      assert.notEqual(stateOf('doomed'), 'succeeded after 1', 'the triggers let the doomed item through');
      if (Date.now() > deadline) {
        assert.fail(`the dead worker's jobs were never given back: ${BATCH.map((id) => `${id} ${stateOf(id)}`).join(', ')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Given back at once; the new worker starts after restartDelayMs (1 s) and a model load.
    server.services.db.exec(ALLOW_WRITES);
    const doomed = await job('doomed');
    assert.equal(doomed.status, 'queued', 'not yet claimed by the replacement');
    assert.deepEqual(
      doomed.errors.map((e: { attempt: number; message: string }) => [e.attempt, e.message]),
      [[1, 'interrupted by a crash']],
    );
    assert.equal(doomed.lastError, 'interrupted by a crash');

    await waitForIdle(server);
    for (const externalId of BATCH) {
      const done = await job(externalId);
      assert.equal(done.status, 'succeeded', `${externalId}: ${JSON.stringify(done)}`);
    }
    const finished = await job('doomed');
    assert.deepEqual([finished.attempts, finished.lastError], [2, null], 'the new worker ran it once more, and it went through');
    assert.deepEqual(
      finished.errors.map((e: { attempt: number; message: string }) => [e.attempt, e.message]),
      [[1, 'interrupted by a crash']],
      'the crash stays in its history',
    );
    // The batch's order is the push's: 'first' was written before the worker died and is not run
    // again; 'last', which it still held, was given back with 'doomed' and ran once more. With the
    // only worker dead, the replacement ran them.
    const first = await job('first');
    assert.deepEqual([first.attempts, first.errors], [1, []]);
    const last = await job('last');
    assert.deepEqual([last.attempts, last.errors.map((e: { message: string }) => e.message)], [2, ['interrupted by a crash']]);
    const found = await api(server, 'POST', '/knowledge-bases/kb-main/search', { query: 'doomed page crash test', mode: 'keyword' });
    assert.ok(found.body.results.some((result: { externalId: string }) => result.externalId === 'doomed'), 'the doomed item is indexed');
    const query = server.pipeline!.pool.embedQuery(['is the new worker ready?']);
    assert.ok(query, 'a ready worker serves search queries again');
    assert.equal((await query).length, 1);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, startPipelineServer, waitForIdle } from '../helpers/pipeline-app.ts';
import { item } from '../helpers/temp-data.ts';

type Server = Awaited<ReturnType<typeof startPipelineServer>>;

/**
 * A pipeline worker thread that dies in the middle of a batch (server/pipeline/worker-pool.ts):
 * the pool starts a new worker, and the jobs the dead one held go back to the queue as suspects
 * (storage/jobs/recover-stale.ts), their interrupted attempt given back. Suspects run one at a
 * time; the job that kills every worker running it alone fails as a poison, with what the worker
 * died of, and the rest of its batch finishes.
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
  const rowOf = (externalId: string) =>
    server.services.db.prepare('SELECT status, attempts, suspect, solo_crashes FROM jobs WHERE external_id = ? ORDER BY id DESC LIMIT 1').get(externalId) as {
      status: string;
      attempts: number;
      suspect: number;
      solo_crashes: number;
    };
  const waitFor = async (what: string, done: () => boolean, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline) assert.fail(`${what}: never happened; ${BATCH.map((id) => `${id} ${JSON.stringify(rowOf(id))}`).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it('is replaced; the jobs it held are queued again as suspects, uncharged; the one that kills every worker fails alone with the reason; the others finish', { timeout: 180_000 }, async () => {
    server.services.db.exec(REFUSE_WRITES);
    // One push, one commit: the only worker claims the three jobs as one batch.
    const pushed = await api(server, 'POST', '/ingest/bulk', {
      items: BATCH.map((externalId) => item({ externalId }, { title: `Page ${externalId}`, content: `The ${externalId} page of the crash test.` })),
    });
    assert.equal(pushed.status, 200);

    // The worker dies at the doomed job's write. Its jobs must not stay `processing` (nothing
    // but a restart of the server would ever look at them again), nor be charged the crash.
    await waitFor('the dead worker\'s jobs given back as suspects', () => rowOf('doomed').suspect === 1);
    const given = await job('doomed');
    assert.deepEqual([given.attempts, given.errors, given.lastError], [0, [], null], 'a crash in a crowd charges nobody');

    // Each replacement runs the doomed job alone and dies of it: the second time, it is a poison.
    await waitFor('the doomed job failed', () => rowOf('doomed').status === 'failed', 150_000);
    await waitForIdle(server);
    const poison = await job('doomed');
    assert.equal(rowOf('doomed').solo_crashes, 2, JSON.stringify(poison));
    assert.match(poison.lastError, /^crashed the pipeline each of the 2 times it ran alone: .*test: the database refuses this write too/);
    assert.deepEqual(poison.errors.map((e: { message: string }) => e.message), [poison.lastError]);
    // The batch's order is the push's: 'first' was written before the worker died and is not run
    // again; 'last', which it still held, ran once more, alone, uncharged for the crash.
    const first = await job('first');
    assert.deepEqual([first.status, first.attempts, first.errors], ['succeeded', 1, []]);
    const last = await job('last');
    assert.deepEqual([last.status, last.attempts, last.errors], ['succeeded', 1, []]);

    // Once what killed it is gone, a retry by hand indexes it.
    server.services.db.exec(ALLOW_WRITES);
    assert.equal((await api(server, 'POST', '/jobs/cms-doomed/retry')).status, 200);
    await waitForIdle(server);
    assert.equal((await job('doomed')).status, 'succeeded');
    const found = await api(server, 'POST', '/knowledge-bases/kb-main/search', { query: 'doomed page crash test', mode: 'keyword' });
    assert.ok(found.body.results.some((result: { externalId: string }) => result.externalId === 'doomed'), 'the doomed item is indexed');
    const query = server.pipeline!.pool.embedQuery(['is the new worker ready?']);
    assert.ok(query, 'a ready worker serves search queries again');
    assert.equal((await query).length, 1);
  });
});

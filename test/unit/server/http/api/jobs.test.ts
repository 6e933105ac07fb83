import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { JobRuns } from '../../../../../server/storage/jobs/job-runs.ts';
import { createTestApp, type TestApp } from '../../../../helpers/test-app.ts';
import { item } from '../../../../helpers/temp-data.ts';

describe('jobs and item deletion', () => {
  let t: TestApp;
  let key: string;
  before(async () => {
    t = await createTestApp({}, undefined, { jobWriter: 'in-process' });
    key = t.key({ scopes: ['iq:import'] });
  });
  after(() => t.close());

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object, apiKey = key) =>
    t.app.inject({ method, url, headers: { 'x-api-key': apiKey }, ...(payload ? { payload } : {}) });

  it('GET /jobs/{jobId} reports state, attempts, errors and timestamps', async () => {
    await call('POST', '/ingest', item({ externalId: 'j-1', options: { priority: 'high' } }));
    const res = await call('GET', '/jobs/cms-j-1');
    assert.equal(res.statusCode, 200);
    const job = res.json();
    assert.equal(job.jobId, 'cms-j-1');
    assert.equal(job.status, 'queued');
    assert.equal(job.priority, 'high');
    assert.equal(job.attempts, 0);
    assert.equal(job.maxAttempts, 5);
    assert.equal(job.lastError, null);
    assert.deepEqual(job.errors, []);
    assert.equal(job.note, null);
    assert.ok(!Number.isNaN(Date.parse(job.createdAt)));
    assert.equal(job.finishedAt, null);
  });

  it('GET /jobs/{jobId} answers 404 not_found for an unknown job', async () => {
    const res = await call('GET', '/jobs/nope-nope');
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().code, 'not_found');
  });

  it('GET /jobs/{jobId} refuses to guess between look-alike items and accepts narrowing', async () => {
    await call('POST', '/ingest', item({ integrationId: 'x-y', externalId: 'z' }));
    await call('POST', '/ingest', item({ integrationId: 'x', externalId: 'y-z' }));
    const ambiguous = await call('GET', '/jobs/x-y-z');
    assert.equal(ambiguous.statusCode, 409);
    assert.equal(ambiguous.json().code, 'ambiguous_job_id');
    assert.equal(ambiguous.json().details.length, 2);
    const narrowed = await call('GET', '/jobs/x-y-z?integrationId=x-y');
    assert.equal(narrowed.statusCode, 200);
    assert.equal(narrowed.json().externalId, 'z');
  });

  it('a key restricted to a knowledge base sees only its jobs', async () => {
    await call('POST', '/ingest', item({ knowledgeBaseId: 'kb-hidden', externalId: 'secret' }));
    const restricted = t.key({ scopes: ['iq:import'], knowledgeBaseIds: ['kb-main'] });
    assert.equal((await call('GET', '/jobs/cms-secret', undefined, restricted)).statusCode, 404);
    const list = (await call('GET', '/jobs?limit=500', undefined, restricted)).json();
    assert.ok(list.data.length > 0);
    assert.ok(list.data.every((j: { knowledgeBaseId: string }) => j.knowledgeBaseId === 'kb-main'));
  });

  it('GET /jobs filters and pages with a cursor, newest first, without gaps or repeats', async () => {
    const items = Array.from({ length: 25 }, (_, i) => item({ integrationId: 'pager', externalId: `p-${i}` }));
    await call('POST', '/ingest/bulk', { items });
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const url: string = `/jobs?integrationId=pager&status=queued&limit=10${cursor ? `&cursor=${cursor}` : ''}`;
      const page = (await call('GET', url)).json();
      seen.push(...page.data.map((j: { externalId: string }) => j.externalId));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    assert.equal(pages, 3);
    assert.deepEqual(seen, items.map((i) => i.externalId).reverse());
  });

  it('GET /jobs rejects bad filters and cursors with invalid_query', async () => {
    for (const url of ['/jobs?status=done', '/jobs?limit=0', '/jobs?limit=abc', '/jobs?cursor=bogus', '/jobs?foo=1']) {
      const res = await call('GET', url);
      assert.equal(res.statusCode, 400, url);
      assert.equal(res.json().code, 'invalid_query', url);
    }
  });

  it('POST /jobs/{jobId}/retry requeues a failed job and refuses other states', async () => {
    await call('POST', '/ingest', item({ externalId: 'r-1' }));
    assert.equal((await call('POST', '/jobs/cms-r-1/retry')).json().code, 'job_not_retryable');
    t.services.db
      .prepare("UPDATE jobs SET status = 'failed', attempts = 5, last_error = 'boom' WHERE external_id = 'r-1'")
      .run();
    const res = await call('POST', '/jobs/cms-r-1/retry');
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().status, 'queued');
    assert.equal(res.json().attempts, 0);
  });

  it('DELETE /items/… cancels the queued job and answers 404 for an unknown item', async () => {
    await call('POST', '/ingest', item({ externalId: 'd-1' }));
    const res = await call('DELETE', '/items/kb-main/cms/d-1');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      deleted: true,
      knowledgeBaseId: 'kb-main',
      integrationId: 'cms',
      externalId: 'd-1',
      cancelledJobs: 1,
    });
    assert.equal((await call('GET', '/jobs/cms-d-1')).json().status, 'cancelled');
    assert.equal((await call('DELETE', '/items/kb-main/cms/d-1')).statusCode, 404);
    assert.equal((await call('DELETE', '/items/kb-main/cms/never-pushed')).statusCode, 404);
    const again = await call('POST', '/ingest', item({ externalId: 'd-1' }));
    assert.equal(again.statusCode, 200);
    assert.equal((await call('GET', '/jobs/cms-d-1')).json().status, 'queued');
  });

  it('DELETE /items/… of an item whose job is running cancels that job and counts it', async () => {
    await call('POST', '/ingest', item({ externalId: 'd-run' }));
    const runs = new JobRuns(t.services.db);
    const [running] = runs.claim(10_000, Date.now()).filter((job) => job.externalId === 'd-run');
    assert.ok(running, 'the job is processing');
    const res = await call('DELETE', '/items/kb-main/cms/d-run');
    assert.equal(res.json().cancelledJobs, 1);
    const job = (await call('GET', '/jobs/cms-d-run')).json();
    assert.equal(job.status, 'cancelled');
    assert.equal(job.note, 'the item was deleted', 'a note, not an error');
    assert.equal(job.lastError, null);
    // The worker that ran it then finishes or fails it: the job stays cancelled.
    runs.finish(running.id, 'succeeded', Date.now());
    assert.equal(runs.recordFailure(running, 'boom', Date.now()), 'cancelled');
    assert.equal((await call('GET', '/jobs/cms-d-run')).json().status, 'cancelled');
  });

  it('DELETE /items/… decodes ids with reserved characters from the path', async () => {
    await call('POST', '/ingest', item({ externalId: 'a/b c?d' }));
    const res = await call('DELETE', `/items/kb-main/cms/${encodeURIComponent('a/b c?d')}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().externalId, 'a/b c?d');
  });
});

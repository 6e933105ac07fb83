import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorAnswer } from '../../../../common/contract/errors.ts';
import type { IngestItem } from '../../../../common/contract/ingest.ts';
import type { JobStatus } from '../../../../common/contract/jobs.ts';
import { LIMITS } from '../../../../common/contract/limits.ts';
import type { ImportApi, Page } from '../../../../common/import/api-client.ts';
import { MAX_BATCH_BYTES } from '../../../../common/import/batches.ts';
import type { CheckpointStore, ResumePoint } from '../../../../common/import/checkpoint-store.ts';
import { dryRunRecords } from '../../../../common/import/dry-run.ts';
import { followJobs, type JobTally } from '../../../../common/import/follow-jobs.ts';
import { httpImportApi } from '../../../../common/import/http-import-api.ts';
import { type ImportTarget, parseMappingSpec } from '../../../../common/import/import-mapping.ts';
import { type ImportOptions, importRecords } from '../../../../common/import/import-records.ts';
import type { RecordSource } from '../../../../common/import/read-rows.ts';
import { deleteItems, findAbsentItems } from '../../../../common/import/sync.ts';

const target: ImportTarget = { integrationId: 'notes', knowledgeBaseId: 'kb', sourceType: 'PAGE' };
const mapping = parseMappingSpec('externalId=id,content=text');

type FakeJob = { jobId: string; knowledgeBaseId: string; integrationId: string; externalId: string; status: JobStatus };

/**
 * Test double: LocalIQ's import routes in memory, so the import core runs without a server. Jobs
 * and items live in arrays; `work()` stands in for the pipeline and moves every open job one
 * state on (queued → processing → succeeded, indexing the item). Lists come in pages of two, so
 * every caller has to follow cursors.
 */
class FakeImportApi implements ImportApi {
  /** The externalIds of each push the fake acknowledged, in order. */
  readonly pushes: string[][] = [];
  /** The UTF-8 size of each item of each acknowledged push. */
  readonly pushedBytes: number[][] = [];
  /** Oldest first; the lists answer newest first, as LocalIQ's do. */
  readonly jobs: FakeJob[] = [];
  readonly items: Array<{ knowledgeBaseId: string; integrationId: string; externalId: string }> = [];
  /** A push with more items is refused as `too_many_items`, as a server with a lower bulk limit does. */
  bulkLimit = Infinity;
  /** The push with this number (1-based) fails like a dropped connection. */
  failPush: number | null = null;
  private pushCalls = 0;
  jobExists?: (target: ImportTarget, jobId: string) => Promise<boolean>;

  constructor(options: { jobLookup?: boolean } = {}) {
    if (options.jobLookup) this.jobExists = async (_target, jobId) => this.jobs.some((j) => j.jobId === jobId);
  }

  async pushBatch(items: IngestItem[]): Promise<{ jobIds: string[] }> {
    if (items.length > this.bulkLimit) throw new ErrorAnswer(400, 'too_many_items', `At most ${this.bulkLimit} items.`);
    if (++this.pushCalls === this.failPush) throw new Error('fetch failed (ECONNRESET)');
    const jobIds = items.map((item) => {
      const jobId = `${item.integrationId}-${item.externalId}`;
      this.jobs.push({ jobId, knowledgeBaseId: item.knowledgeBaseId, integrationId: item.integrationId, externalId: item.externalId, status: 'queued' });
      return jobId;
    });
    this.pushes.push(items.map((i) => i.externalId));
    this.pushedBytes.push(items.map((i) => new TextEncoder().encode(JSON.stringify(i)).length));
    return { jobIds };
  }

  async jobsPage(t: ImportTarget, cursor: string | null, status?: JobStatus): Promise<Page<{ externalId: string; status: JobStatus }>> {
    const mine = this.jobs.filter((j) => j.knowledgeBaseId === t.knowledgeBaseId && j.integrationId === t.integrationId && (!status || j.status === status));
    return page([...mine].reverse().map(({ externalId, status: s }) => ({ externalId, status: s })), cursor);
  }

  async itemsPage(t: ImportTarget, cursor: string | null): Promise<Page<{ externalId: string }>> {
    const mine = this.items.filter((i) => i.knowledgeBaseId === t.knowledgeBaseId && i.integrationId === t.integrationId);
    return page(mine.map(({ externalId }) => ({ externalId })), cursor);
  }

  async deleteItem(t: ImportTarget, externalId: string): Promise<void> {
    const at = this.items.findIndex((i) => i.knowledgeBaseId === t.knowledgeBaseId && i.integrationId === t.integrationId && i.externalId === externalId);
    if (at < 0) throw new ErrorAnswer(404, 'not_found', `No item "${externalId}".`);
    this.items.splice(at, 1);
  }

  work(): void {
    for (const job of this.jobs) {
      if (job.status === 'processing') {
        job.status = 'succeeded';
        this.items.push({ knowledgeBaseId: job.knowledgeBaseId, integrationId: job.integrationId, externalId: job.externalId });
      } else if (job.status === 'queued') {
        job.status = 'processing';
      }
    }
  }
}

function page<T>(all: T[], cursor: string | null, size = 2): Page<T> {
  const start = cursor ? Number(cursor) : 0;
  return { data: all.slice(start, start + size), nextCursor: start + size < all.length ? String(start + size) : null };
}

/** A file's records, numbered from row 1; a string stands for a row the reader could not read. */
function recordsOf(rows: Array<Record<string, unknown> | string>): RecordSource {
  async function* records() {
    for (const [i, r] of rows.entries()) yield typeof r === 'string' ? { row: i + 1, error: r } : { row: i + 1, record: r };
  }
  return { records: records(), bytesRead: () => 0 };
}

const notes = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `n${i + 1}`, text: `Note ${i + 1}.` }));

function memoryCheckpoint(point: ResumePoint | null = null): CheckpointStore & { point: ResumePoint | null; saved: ResumePoint[] } {
  return {
    point,
    saved: [],
    load() {
      return this.point;
    },
    save(p) {
      this.point = { ...p };
      this.saved.push({ ...p });
    },
    clear() {
      this.point = null;
    },
  };
}

function run(api: ImportApi, rows: Array<Record<string, unknown> | string>, extra: Partial<ImportOptions> = {}) {
  return importRecords({ source: recordsOf(rows), totalBytes: 0, mapping, target, keepInvalidRows: 100, api, checkpoint: null, ...extra });
}

describe('import core: batching', () => {
  it('sends the valid rows in batches of the batch size and records each acknowledged row', async () => {
    const api = new FakeImportApi();
    const checkpoint = memoryCheckpoint();
    const rows = [...notes(3), 'not valid JSON', ...notes(7).slice(3)];
    const state = await run(api, rows, { batchSize: 3, checkpoint });
    assert.deepEqual(api.pushes, [['n1', 'n2', 'n3'], ['n4', 'n5', 'n6'], ['n7']]);
    assert.deepEqual([state.rows, state.valid, state.invalid, state.itemsSent, state.batches], [8, 7, 1, 7, 3]);
    assert.deepEqual(state.invalidRows, [{ row: 4, reason: 'not valid JSON' }]);
    assert.deepEqual(
      checkpoint.saved.map((p) => [p.lastRow, p.itemsSent, p.lastJobId]),
      [[3, 3, 'notes-n3'], [7, 6, 'notes-n6'], [8, 7, 'notes-n7']],
    );
    assert.equal(checkpoint.point, null, 'a finished import leaves no resume point');
  });

  it('sends a batch early rather than let it pass MAX_BATCH_BYTES, counting UTF-8 bytes', async () => {
    const api = new FakeImportApi();
    // 30,000 characters of two bytes each: a character count would let batches grow twice as big.
    const rows = Array.from({ length: 150 }, (_, i) => ({ id: `big-${i}`, text: 'é'.repeat(30_000) }));
    await run(api, rows);
    assert.ok(api.pushes.length >= 3, `${api.pushes.length} batches`);
    assert.equal(api.pushes.flat().length, 150);
    for (const [i, sizes] of api.pushedBytes.entries()) {
      // The items and the commas between them.
      const bytes = sizes.reduce((sum, n) => sum + n, 0) + sizes.length - 1;
      assert.ok(bytes <= MAX_BATCH_BYTES, `batch ${i} holds ${bytes} bytes`);
      assert.ok(bytes + 10 < LIMITS.defaultBodyBytes, 'the request body stays under the server limit');
      const next = api.pushedBytes[i + 1]?.[0];
      if (next !== undefined) assert.ok(bytes + 1 + next > MAX_BATCH_BYTES, `batch ${i} had room for the next item`);
    }
  });

  it('sends a batch the server refuses as too large in halves', async () => {
    const api = new FakeImportApi();
    api.bulkLimit = 2;
    const state = await run(api, notes(5), { batchSize: 5 });
    assert.deepEqual(api.pushes, [['n1', 'n2'], ['n3'], ['n4', 'n5']]);
    assert.equal(state.batches, 3);
    assert.equal(state.itemsSent, 5);
  });

  it('waits for beforeBatch and stops at the next batch once aborted', async () => {
    const api = new FakeImportApi();
    const controller = new AbortController();
    let asked = 0;
    const beforeBatch = async () => {
      if (++asked === 2) controller.abort(new Error('cancelled by the user'));
    };
    await assert.rejects(run(api, notes(6), { batchSize: 2, beforeBatch, signal: controller.signal }), /cancelled by the user/);
    assert.deepEqual(api.pushes, [['n1', 'n2']]);
  });
});

describe('import core: resume', () => {
  it('after an interruption, sends only the rows after the last acknowledged batch', async () => {
    const api = new FakeImportApi({ jobLookup: true });
    const checkpoint = memoryCheckpoint();
    api.failPush = 3;
    await assert.rejects(run(api, notes(10), { batchSize: 3, checkpoint }), /ECONNRESET/);
    assert.deepEqual(checkpoint.point, { lastRow: 6, itemsSent: 6, lastJobId: 'notes-n6' });

    const notesSeen: string[] = [];
    const state = await run(api, notes(10), { batchSize: 3, checkpoint, note: (text) => notesSeen.push(text) });
    assert.deepEqual(api.pushes.slice(2), [['n7', 'n8', 'n9'], ['n10']]);
    assert.equal(state.resumedFrom?.lastRow, 6);
    assert.equal(state.itemsSent, 4, 'this run sent four');
    assert.equal(state.pushedIds.size, 10, 'every item is followed, also those sent before the interruption');
    assert.deepEqual(notesSeen, ['Resuming: rows up to 6 were already sent (6 items).']);
    assert.equal(checkpoint.point, null);
    const everyPush = api.pushes.flat();
    assert.equal(new Set(everyPush).size, everyPush.length, 'no row was sent twice');
  });

  it('starts over when LocalIQ no longer has the last job the resume point records', async () => {
    const api = new FakeImportApi({ jobLookup: true });
    const notesSeen: string[] = [];
    const checkpoint = memoryCheckpoint({ lastRow: 6, itemsSent: 6, lastJobId: 'notes-n6' });
    const state = await run(api, notes(8), { batchSize: 5, checkpoint, note: (text) => notesSeen.push(text) });
    assert.equal(state.resumedFrom, null);
    assert.equal(state.itemsSent, 8);
    assert.match(notesSeen[0]!, /^Starting over: LocalIQ no longer has job notes-n6/);
  });

  it('takes the resume point as it is where the API cannot look a job up', async () => {
    const api = new FakeImportApi();
    const state = await run(api, notes(8), { batchSize: 5, checkpoint: memoryCheckpoint({ lastRow: 6, itemsSent: 6 }) });
    assert.deepEqual(api.pushes, [['n7', 'n8']]);
    assert.equal(state.resumedFrom?.itemsSent, 6);
  });
});

describe('import core: following jobs', () => {
  it('polls until every pushed item is final, counting states on the way', async () => {
    const api = new FakeImportApi();
    const state = await run(api, notes(5));
    const tallies: JobTally[] = [];
    const result = await followJobs(api, target, state.pushedIds, { onTally: (t) => tallies.push(t), sleep: async () => api.work() });
    assert.deepEqual(
      tallies.map((t) => [t.queued, t.processing, t.succeeded, t.done, t.total]),
      [[5, 0, 0, 0, 5], [0, 5, 0, 0, 5], [0, 0, 5, 5, 5]],
    );
    assert.equal(result.timedOut, false);
    assert.equal(result.succeeded, 5);
  });

  it('counts only the latest job of an item pushed twice, and stops at the wait limit', async () => {
    const api = new FakeImportApi();
    await run(api, notes(3));
    api.work();
    api.work();
    await run(api, notes(1));
    const result = await followJobs(api, target, new Set(['n1', 'n2', 'n3']), { waitMs: 0, sleep: async () => assert.fail('no wait left') });
    assert.deepEqual([result.queued, result.succeeded, result.done, result.total, result.timedOut], [1, 2, 2, 3, true]);
  });
});

describe('import core: sync', () => {
  it('finds what the file no longer holds, indexed or still queued, and deletes it; one already gone counts', async () => {
    const api = new FakeImportApi();
    for (const externalId of ['a', 'b', 'c']) api.items.push({ knowledgeBaseId: 'kb', integrationId: 'notes', externalId });
    api.items.push({ knowledgeBaseId: 'kb', integrationId: 'cms', externalId: 'x' });
    api.jobs.push({ jobId: 'notes-d', knowledgeBaseId: 'kb', integrationId: 'notes', externalId: 'd', status: 'queued' });
    api.jobs.push({ jobId: 'notes-e', knowledgeBaseId: 'kb', integrationId: 'notes', externalId: 'e', status: 'processing' });
    api.jobs.push({ jobId: 'notes-f', knowledgeBaseId: 'kb', integrationId: 'notes', externalId: 'f', status: 'failed' });

    const absent = await findAbsentItems(api, target, new Set(['a', 'c', 'd']));
    assert.deepEqual(absent, ['b', 'e']);
    assert.equal(await deleteItems(api, target, absent), 2, 'e was never indexed: its 404 counts as deleted');
    assert.deepEqual(api.items.map((i) => `${i.integrationId}/${i.externalId}`).sort(), ['cms/x', 'notes/a', 'notes/c']);
  });

  it('does not miss an item whose job ends while the lists are read', async () => {
    // The pipeline finishes the job at every read: whichever list is read first, the item is in
    // one of them only if the jobs are read before the items.
    const api = new FakeImportApi();
    api.jobs.push({ jobId: 'notes-g', knowledgeBaseId: 'kb', integrationId: 'notes', externalId: 'g', status: 'processing' });
    for (const method of ['jobsPage', 'itemsPage'] as const) {
      const read = api[method].bind(api) as (...args: unknown[]) => Promise<unknown>;
      (api as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
        const answer = await read(...args);
        api.work();
        return answer;
      };
    }
    assert.deepEqual(await findAbsentItems(api, target, new Set()), ['g']);
  });
});

describe('import core: dry run', () => {
  it('maps every row and keeps the first items and invalid rows, sending nothing', async () => {
    const report = await dryRunRecords({
      source: recordsOf([...notes(4), { id: 'empty', text: '' }, 'not valid JSON', 'is not a JSON object']),
      totalBytes: 0,
      mapping,
      target,
      keepInvalidRows: 2,
      previewCount: 2,
    });
    assert.deepEqual(report.preview.map((i) => i.externalId), ['n1', 'n2']);
    assert.deepEqual([report.rows, report.valid, report.invalid, report.invalidRows.length], [7, 4, 3, 2]);
    assert.deepEqual([...report.idsInFile].sort(), ['empty', 'n1', 'n2', 'n3', 'n4']);
  });
});

describe('import core over HTTP routes', () => {
  const recorder = (answer: (path: string) => unknown = () => ({ data: [], nextCursor: null })) => {
    const calls: string[] = [];
    const request = async (method: string, path: string) => {
      calls.push(`${method} ${path}`);
      return answer(path);
    };
    return { calls, request };
  };

  it('the public API and the admin API share paths except where an item is deleted', async () => {
    for (const routes of ['public', 'admin'] as const) {
      const { calls, request } = recorder();
      const api = httpImportApi(request, routes);
      await api.jobsPage(target, 'c1', 'queued');
      await api.itemsPage(target, null);
      await api.deleteItem({ ...target, knowledgeBaseId: 'k b' }, 'a/1');
      assert.deepEqual(calls, [
        'GET /jobs?knowledgeBaseId=kb&integrationId=notes&limit=500&status=queued&cursor=c1',
        'GET /knowledge-bases/kb/items?integrationId=notes&limit=200',
        routes === 'public' ? 'DELETE /items/k%20b/notes/a%2F1' : 'DELETE /knowledge-bases/k%20b/items/notes/a%2F1',
      ]);
      assert.equal(api.jobExists === undefined, routes === 'admin', 'only the public API looks a job up by id');
    }
  });

  it('a job lookup answered 404 means the job is gone', async () => {
    const { calls, request } = recorder((path) => {
      if (path.startsWith('/jobs/notes-gone')) throw new ErrorAnswer(404, 'not_found', 'No job.');
      return {};
    });
    const api = httpImportApi(request, 'public');
    assert.equal(await api.jobExists!(target, 'notes-gone'), false);
    assert.equal(await api.jobExists!(target, 'notes-here'), true);
    assert.deepEqual(calls, ['GET /jobs/notes-gone?knowledgeBaseId=kb', 'GET /jobs/notes-here?knowledgeBaseId=kb']);
  });
});

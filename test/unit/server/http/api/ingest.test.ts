import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../../../../server/storage/db.ts';
import { countRows, createTestApp, type TestApp } from '../../../../helpers/test-app.ts';
import { item } from '../../../../helpers/temp-data.ts';

describe('POST /ingest', () => {
  let t: TestApp;
  let key: string;
  before(async () => {
    t = await createTestApp({}, undefined, { jobWriter: 'in-process' });
    key = t.key({ scopes: ['iq:import'] });
  });
  after(() => t.close());

  const push = (body: unknown, url = '/ingest') =>
    t.app.inject({ method: 'POST', url, headers: { 'x-api-key': key }, payload: body as object });

  it('accepts every seed field and answers exactly {status, jobId}', async () => {
    const res = await push(
      item(
        { sourceType: 'PRODUCT', externalId: 'sku-42', options: { forceRefresh: true, priority: 'high' } },
        { url: 'https://shop.example/p/42', sourceData: { price: 19.9, sku: 'SKU-42' }, hash: 'v1' },
      ),
    );
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'queued', jobId: 'cms-sku-42' });
    const row = t.services.db.prepare("SELECT * FROM jobs WHERE external_id = 'sku-42'").get() as Record<string, unknown>;
    assert.equal(row.status, 'queued');
    assert.equal(row.source_type, 'PRODUCT');
    assert.equal(row.priority, 0);
    assert.equal(row.force_refresh, 1);
    assert.equal(row.content_hash, 'v1');
    assert.deepEqual(JSON.parse(row.data as string), {
      title: 'Opening hours',
      content: 'We are open Monday to Friday from 9 to 17.',
      url: 'https://shop.example/p/42',
      sourceData: { price: 19.9, sku: 'SKU-42' },
      hash: 'v1',
    });
  });

  it('accepts each source type', async () => {
    for (const sourceType of ['PRODUCT', 'ARTICLE', 'PAGE', 'SERVICE', 'PERSON']) {
      const res = await push(item({ sourceType, externalId: `type-${sourceType}` }));
      assert.equal(res.statusCode, 200, sourceType);
    }
  });

  it('builds jobId as integrationId-externalId, keeping hyphens inside the ids', async () => {
    const res = await push(item({ integrationId: 'shop-eu', externalId: 'cat-7-item-9' }));
    assert.equal(res.json().jobId, 'shop-eu-cat-7-item-9');
  });

  it('never merges look-alike jobIds of different items', async () => {
    const a = await push(item({ integrationId: 'a-b', externalId: 'c' }));
    const b = await push(item({ integrationId: 'a', externalId: 'b-c' }));
    assert.equal(a.json().jobId, 'a-b-c');
    assert.equal(b.json().jobId, 'a-b-c');
    const rows = t.services.db.prepare("SELECT integration_id, external_id FROM jobs WHERE job_id = 'a-b-c' ORDER BY id").all();
    assert.deepEqual(rows, [
      { integration_id: 'a-b', external_id: 'c' },
      { integration_id: 'a', external_id: 'b-c' },
    ]);
  });

  it('replaces the payload of a job that is still queued (one job, newest wins)', async () => {
    await push(item({ externalId: 'upsert-1' }, { title: 'First' }));
    const before = countRows(t.services, 'jobs');
    const res = await push(item({ externalId: 'upsert-1', options: { priority: 'low' } }, { title: 'Second' }));
    assert.equal(res.statusCode, 200);
    assert.equal(countRows(t.services, 'jobs'), before);
    const row = t.services.db.prepare("SELECT data, priority FROM jobs WHERE external_id = 'upsert-1'").get() as {
      data: string;
      priority: number;
    };
    assert.equal(JSON.parse(row.data).title, 'Second');
    assert.equal(row.priority, 2);
  });

  it('keeps the same external id in two knowledge bases apart', async () => {
    await push(item({ externalId: 'shared', knowledgeBaseId: 'kb-a' }));
    await push(item({ externalId: 'shared', knowledgeBaseId: 'kb-b' }));
    const n = t.services.db.prepare("SELECT count(*) AS n FROM jobs WHERE external_id = 'shared'").get() as { n: number };
    assert.equal(n.n, 2);
    const kbs = t.services.db.prepare("SELECT id FROM knowledge_bases WHERE id IN ('kb-a','kb-b') ORDER BY id").all();
    assert.deepEqual(kbs, [{ id: 'kb-a' }, { id: 'kb-b' }]);
  });

  it('computes a SHA-256 content hash when none is given, stable under key order', async () => {
    await push(item({ externalId: 'h1' }, { sourceData: { b: 1, a: 2 } }));
    await push(item({ externalId: 'h2' }, { sourceData: { a: 2, b: 1 } }));
    const [h1, h2] = t.services.db
      .prepare("SELECT content_hash AS h FROM jobs WHERE external_id IN ('h1','h2') ORDER BY external_id")
      .all() as Array<{ h: string }>;
    assert.match(h1!.h, /^sha256:[0-9a-f]{64}$/);
    assert.equal(h1!.h, h2!.h);
  });
  // Pushes are written by the ingest writer thread.
  it('every acknowledged push is already committed: another connection reads it the moment the 200 arrives', async () => {
    const other = openDatabase(t.dataDir);
    try {
      const find = other.prepare("SELECT count(*) AS n FROM jobs WHERE external_id = ? AND status = 'queued'");
      const missing: string[] = [];
      await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          push(item({ externalId: `seen-${i}` })).then((res) => {
            assert.equal(res.statusCode, 200);
            if ((find.get(`seen-${i}`) as { n: number }).n !== 1) missing.push(`seen-${i}`);
          }),
        ),
      );
      assert.deepEqual(missing, []);
    } finally {
      other.close();
    }
  });

  it('two pushes of one item sent together make one queued job holding the later payload', async () => {
    const [first, second] = await Promise.all([
      push(item({ externalId: 'twice' }, { title: 'first' })),
      push(item({ externalId: 'twice' }, { title: 'second' })),
    ]);
    assert.equal(first!.statusCode, 200);
    assert.equal(second!.statusCode, 200);
    const rows = t.services.db.prepare("SELECT data FROM jobs WHERE external_id = 'twice'").all() as Array<{ data: string }>;
    assert.equal(rows.length, 1);
    assert.equal(JSON.parse(rows[0]!.data).title, 'second');
  });

  it('counts every pushed item once in the usage report', async () => {
    await Promise.all(Array.from({ length: 12 }, (_, i) => push(item({ externalId: `usage-${i}`, knowledgeBaseId: 'kb-usage' }))));
    t.services.usage.flush();
    const pushed = t.services.db
      .prepare("SELECT sum(value) AS n FROM usage_counts WHERE metric = 'items_pushed' AND knowledge_base_id = 'kb-usage'")
      .get() as { n: number };
    assert.equal(pushed.n, 12);
  });
});

describe('POST /ingest/bulk', () => {
  let t: TestApp;
  let key: string;
  before(async () => {
    t = await createTestApp({}, undefined, { jobWriter: 'in-process' });
    key = t.key({ scopes: ['iq:import'] });
  });
  after(() => t.close());

  const bulk = (items: unknown[]) =>
    t.app.inject({ method: 'POST', url: '/ingest/bulk', headers: { 'x-api-key': key }, payload: { items } });

  it('answers {status, jobCount, estimatedTime, jobIds} with one jobId per item in order', async () => {
    const items = [1, 2, 3].map((n) => item({ externalId: `b-${n}` }));
    const res = await bulk(items);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['estimatedTime', 'jobCount', 'jobIds', 'status']);
    assert.equal(body.status, 'queued');
    assert.equal(body.jobCount, 3);
    assert.deepEqual(body.jobIds, ['cms-b-1', 'cms-b-2', 'cms-b-3']);
    assert.match(body.estimatedTime, /^\d+s$/);
  });

  it('counts distinct jobs and lets the later of two items with one identity win', async () => {
    const res = await bulk([
      item({ externalId: 'dup' }, { title: 'old' }),
      item({ externalId: 'other' }),
      item({ externalId: 'dup' }, { title: 'new' }),
    ]);
    assert.equal(res.json().jobCount, 2);
    assert.deepEqual(res.json().jobIds, ['cms-dup', 'cms-other', 'cms-dup']);
    const row = t.services.db.prepare("SELECT data FROM jobs WHERE external_id = 'dup' AND status = 'queued'").get() as {
      data: string;
    };
    assert.equal(JSON.parse(row.data).title, 'new');
  });

  it('estimates more time when more work is queued ahead', async () => {
    const first = await bulk(Array.from({ length: 10 }, (_, i) => item({ externalId: `e1-${i}` })));
    const second = await bulk(Array.from({ length: 200 }, (_, i) => item({ externalId: `e2-${i}` })));
    assert.ok(parseInt(second.json().estimatedTime) > parseInt(first.json().estimatedTime));
  });

  it('accepts 1,000 items and refuses 1,001 with too_many_items, storing nothing', async () => {
    const ok = await bulk(Array.from({ length: 1000 }, (_, i) => item({ externalId: `k-${i}` })));
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.json().jobCount, 1000);
    const before = countRows(t.services, 'jobs');
    const tooMany = await bulk(Array.from({ length: 1001 }, (_, i) => item({ externalId: `m-${i}` })));
    assert.equal(tooMany.statusCode, 400);
    assert.equal(tooMany.json().code, 'too_many_items');
    assert.equal(countRows(t.services, 'jobs'), before);
  });

  it('validates the whole bulk first and names every bad index', async () => {
    const before = countRows(t.services, 'jobs');
    const res = await bulk([
      item({ externalId: 'fine-1' }),
      item({ externalId: '' }),
      item({ externalId: 'fine-2' }),
      { ...item({ externalId: 'bad-3' }), data: { title: 'x' } },
    ]);
    assert.equal(res.statusCode, 400);
    const body = res.json();
    assert.equal(body.code, 'invalid_body');
    const paths = body.details.map((d: { path: string }) => d.path);
    assert.ok(paths.includes('items.1.externalId'), paths.join());
    assert.ok(paths.includes('items.3.data.content'), paths.join());
    assert.ok(!paths.some((p: string) => p.startsWith('items.0') || p.startsWith('items.2')));
    assert.equal(countRows(t.services, 'jobs'), before);
  });
});

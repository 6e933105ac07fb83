import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, startPipelineServer, waitForIdle } from '../helpers/pipeline-app.ts';
import { item } from '../helpers/temp-data.ts';

type Server = Awaited<ReturnType<typeof startPipelineServer>>;

describe('processing pipeline (real model, worker threads)', () => {
  let server: Server;
  before(async () => {
    server = await startPipelineServer();
  });
  after(() => server.stop());

  const job = async (jobId: string) => (await api(server, 'GET', `/jobs/${jobId}`)).body;

  it('an item pushed over HTTP becomes findable by keyword and by a paraphrase', async () => {
    const pushed = await api(server, 'POST', '/ingest/bulk', {
      items: [
        item({ externalId: 'hours' }, { title: 'Opening hours', content: '<p>The shop is open <b>Monday to Friday</b> from 9:00 to 17:00.</p><p>On Saturdays we open from 10:00 to 14:00.</p>' }),
        item({ externalId: 'returns' }, { title: 'Returns', content: 'You can return any product within 30 days for a full refund.' }),
        item({ externalId: 'shipping' }, { title: 'Shipping', content: 'Parcels are delivered by courier within two working days.' }),
      ],
    });
    assert.equal(pushed.status, 200);
    await waitForIdle(server);
    assert.equal((await job('cms-hours')).status, 'succeeded');

    const keyword = await api(server, 'POST', '/knowledge-bases/kb-main/search', { query: 'refund', mode: 'keyword' });
    assert.equal(keyword.body.results[0].externalId, 'returns');

    const semantic = await api(server, 'POST', '/knowledge-bases/kb-main/search', {
      query: 'when can I visit your store?',
      mode: 'semantic',
    });
    assert.equal(semantic.status, 200);
    assert.equal(semantic.body.mode, 'semantic');
    assert.equal(semantic.body.results[0].externalId, 'hours', JSON.stringify(semantic.body.results.map((r: any) => r.externalId)));
    assert.match(semantic.body.results[0].passages[0].text, /Monday to Friday/);
    assert.ok(!semantic.body.results[0].passages[0].text.includes('<b>'), 'HTML is normalized away');
  });

  it('an unchanged re-push is skipped; forceRefresh reprocesses', async () => {
    const body = item({ externalId: 'hours' }, { title: 'Opening hours', content: '<p>The shop is open <b>Monday to Friday</b> from 9:00 to 17:00.</p><p>On Saturdays we open from 10:00 to 14:00.</p>' });
    const ack = await api(server, 'POST', '/ingest', body);
    assert.deepEqual(ack.body, { status: 'queued', jobId: 'cms-hours' });
    assert.equal((await job('cms-hours')).status, 'skipped', 'settled at once, without a trip through the queue');
    await api(server, 'POST', '/ingest', { ...body, options: { forceRefresh: true } });
    await waitForIdle(server);
    assert.equal((await job('cms-hours')).status, 'succeeded');
  });

  it('a changed item replaces its chunks; reading it shows chunks and job state', async () => {
    await api(server, 'POST', '/ingest', item({ externalId: 'returns' }, { title: 'Returns', content: 'Returns are accepted within 60 days.' }));
    await waitForIdle(server);
    const read = await api(server, 'GET', '/knowledge-bases/kb-main/items/cms/returns');
    assert.equal(read.status, 200);
    assert.equal(read.body.chunks.length, 1);
    assert.match(read.body.chunks[0].text, /60 days/);
    assert.equal(read.body.latestJob.status, 'succeeded');
    const old = await api(server, 'POST', '/knowledge-bases/kb-main/search', { query: 'refund', mode: 'keyword' });
    assert.ok(!old.body.results.some((r: any) => r.externalId === 'returns'), 'old chunks are gone');
  });

  it('deleting an item removes it from search', async () => {
    assert.equal((await api(server, 'DELETE', '/items/kb-main/cms/shipping')).status, 200);
    const res = await api(server, 'POST', '/knowledge-bases/kb-main/search', { query: 'courier parcels delivered', mode: 'hybrid' });
    assert.ok(!res.body.results.some((r: any) => r.externalId === 'shipping'));
    assert.equal((await api(server, 'GET', '/knowledge-bases/kb-main/items/cms/shipping')).status, 404);
  });

  it('lists knowledge bases and items with counts', async () => {
    const kbs = await api(server, 'GET', '/knowledge-bases');
    const main = kbs.body.data.find((kb: any) => kb.id === 'kb-main');
    assert.equal(main.itemCount, 2);
    const items = await api(server, 'GET', '/knowledge-bases/kb-main/items?limit=1');
    assert.equal(items.body.data.length, 1);
    assert.ok(items.body.nextCursor);
    const next = await api(server, 'GET', `/knowledge-bases/kb-main/items?limit=1&cursor=${items.body.nextCursor}`);
    assert.notEqual(next.body.data[0].externalId, items.body.data[0].externalId);
  });

  it('filters by source type and refuses bad search requests in the error shape', async () => {
    await api(server, 'POST', '/ingest', item({ externalId: 'jacket', sourceType: 'PRODUCT' }, {
      title: 'Rain jacket',
      content: 'Waterproof jacket with taped seams.',
      sourceData: { price: 89, currency: 'EUR', color: 'navy' },
    }));
    await waitForIdle(server);
    const products = await api(server, 'POST', '/knowledge-bases/kb-main/search', { query: 'navy jacket price', sourceTypes: ['PRODUCT'] });
    assert.deepEqual(products.body.results.map((r: any) => r.externalId), ['jacket']);
    assert.match(products.body.results[0].passages[0].text, /89/, 'sourceData fields are searchable text');
    const none = await api(server, 'POST', '/knowledge-bases/kb-main/search', { query: 'navy jacket', sourceTypes: ['PERSON'] });
    assert.deepEqual(none.body.results, []);
    for (const body of [{}, { query: '' }, { query: 'x', mode: 'fuzzy' }, { query: 'x', topK: 0 }, { query: 'x', extra: 1 }]) {
      const res = await api(server, 'POST', '/knowledge-bases/kb-main/search', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, 'invalid_body');
    }
  });

  it('read routes need iq:read and respect knowledge-base restrictions', async () => {
    const importOnly = server.services.keys.create({ name: 'import only', scopes: ['iq:import'] }).value;
    const otherKb = server.services.keys.create({ name: 'other kb', scopes: ['iq:read'], knowledgeBaseIds: ['kb-other'] }).value;
    const call = (key: string, method: string, path: string, body?: unknown) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      }).then(async (r) => ({ status: r.status, code: ((await r.json()) as { code?: string }).code }));
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/knowledge-bases/kb-main/items'],
      ['GET', '/knowledge-bases/kb-main/items/cms/hours'],
      ['POST', '/knowledge-bases/kb-main/search', { query: 'hours' }],
    ];
    for (const [method, path, body] of routes) {
      assert.deepEqual(await call(importOnly, method, path, body), { status: 403, code: 'insufficient_scope' }, path);
      assert.deepEqual(await call(otherKb, method, path, body), { status: 403, code: 'knowledge_base_forbidden' }, path);
    }
    const listed = await fetch(`${server.url}/knowledge-bases`, { headers: { 'x-api-key': otherKb } }).then((r) => r.json()) as { data: unknown[] };
    assert.deepEqual(listed.data, [], 'a restricted key sees only its knowledge bases');
  });
});

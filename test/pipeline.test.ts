import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, startPipelineServer, waitForIdle } from './helpers/pipeline-app.ts';
import { item } from './helpers/test-app.ts';

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
    await api(server, 'POST', '/ingest', body);
    await waitForIdle(server);
    assert.equal((await job('cms-hours')).status, 'skipped');
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
});

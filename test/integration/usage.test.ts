import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../server/main.ts';
import { startPipelineServer, waitForIdle } from '../helpers/pipeline-app.ts';

type Server = RunningServer & { key: string };

describe('GET /usage', { timeout: 120_000 }, () => {
  let server: Server;
  let shop: string;
  let shopId: string;
  let site: string;
  let siteId: string;
  let analyst: string;

  const call = async (key: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const item = (externalId: string, kb = 'kb-shop') => ({
    integrationId: 'shop',
    knowledgeBaseId: kb,
    sourceType: 'PRODUCT',
    externalId,
    data: { title: `Product ${externalId}`, content: `Handmade ${externalId} from oak, sanded and oiled.` },
  });

  before(async () => {
    server = await startPipelineServer();
    const a = server.services.keys.create({ name: 'shop', scopes: ['iq:import', 'iq:read'] });
    const b = server.services.keys.create({ name: 'site', scopes: ['articles:read', 'iq:read'] });
    [shop, shopId, site, siteId] = [a.value, a.key.id, b.value, b.key.id];
    analyst = server.services.keys.create({ name: 'analyst', scopes: ['usage:read'] }).value;

    assert.equal((await call(shop, 'POST', '/ingest', item('chair'))).status, 200);
    assert.equal((await call(shop, 'POST', '/ingest/bulk', { items: [item('table'), item('shelf'), item('lamp', 'kb-other')] })).status, 200);
    await waitForIdle(server, 60_000);
    // Pushing unchanged content again ends "skipped": no new chunk is embedded.
    assert.equal((await call(shop, 'POST', '/ingest', item('chair'))).status, 200);
    await waitForIdle(server, 60_000);
    for (const query of ['oak chair', 'oiled table']) {
      assert.equal((await call(shop, 'POST', '/knowledge-bases/kb-shop/search', { query })).status, 200);
    }
    assert.equal((await call(site, 'POST', '/knowledge-bases/kb-shop/ask', { question: 'What is the chair made of?' })).status, 200);
    const streamed = await fetch(`${server.url}/knowledge-bases/kb-shop/ask`, {
      method: 'POST',
      headers: { 'x-api-key': site, 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'Is the table oiled?', stream: true }),
    });
    assert.match(await streamed.text(), /event: done/);
    assert.equal((await call(site, 'GET', '/articles')).status, 200);
    assert.equal((await call(site, 'POST', '/knowledge-bases/kb-shop/search', { query: '' })).status, 400);
  });
  after(() => server.stop());

  it('counts requests per key and route, items pushed, jobs by outcome, chunks embedded, searches and questions', async () => {
    const res = await call(analyst, 'GET', '/usage');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const byKey = new Map(res.body.byKey.map((k: any) => [k.keyId, k.totals]));
    const shopTotals = byKey.get(shopId) as any;
    assert.equal(shopTotals.requests, 5);
    assert.equal(shopTotals.itemsPushed, 5);
    assert.deepEqual(shopTotals.jobs, { succeeded: 4, skipped: 1, failed: 0, cancelled: 0 });
    assert.equal(shopTotals.chunksEmbedded, 4);
    assert.equal(shopTotals.searches, 2);
    assert.equal(shopTotals.questions, 0);

    const siteTotals = byKey.get(siteId) as any;
    assert.equal(siteTotals.requests, 4, 'a rejected request still counts as a request');
    assert.equal(siteTotals.searches, 0, 'a rejected search is not a search');
    assert.equal(siteTotals.questions, 2, 'streamed answers count too');
    assert.ok(siteTotals.answerLatencyMs.median > 0);
    assert.ok(siteTotals.answerLatencyMs.p95 >= siteTotals.answerLatencyMs.median);

    const routes = new Map(res.body.byRoute.map((r: any) => [r.route, r.requests]));
    assert.equal(routes.get('POST /ingest'), 2);
    assert.equal(routes.get('POST /ingest/bulk'), 1);
    assert.equal(routes.get('POST /knowledge-bases/:knowledgeBaseId/search'), 3);
    assert.equal(routes.get('POST /knowledge-bases/:knowledgeBaseId/ask'), 2);
    assert.equal(routes.get('GET /articles'), 1);

    const kbs = new Map(res.body.byKnowledgeBase.map((k: any) => [k.knowledgeBaseId, k.totals]));
    assert.equal((kbs.get('kb-other') as any).itemsPushed, 1);
    assert.equal((kbs.get('kb-shop') as any).itemsPushed, 4);
    assert.equal((kbs.get('kb-shop') as any).questions, 2);
  });

  it('gives a chartable series whose buckets add up to the totals, filtered by key or knowledge base', async () => {
    const res = await call(analyst, 'GET', `/usage?granularity=hour&keyId=${shopId}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.series.length, 48);
    const sum = res.body.series.reduce((n: number, b: any) => n + b.requests, 0);
    assert.equal(sum, res.body.totals.requests);
    assert.equal(res.body.totals.requests, 5);
    const day = await call(analyst, 'GET', '/usage?knowledgeBaseId=kb-other');
    assert.equal(day.body.series.length, 30);
    assert.equal(day.body.totals.itemsPushed, 1);
    assert.equal(day.body.totals.jobs.succeeded, 1);
    const bad = await call(analyst, 'GET', '/usage?from=2026-01-02&to=2026-01-01');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'invalid_query');
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../server/main.ts';
import { api, startPipelineServer, waitForIdle } from '../helpers/pipeline-app.ts';

type Server = RunningServer & { key: string };

describe('GET /articles and GET /articles/{id}', { timeout: 120_000 }, () => {
  let server: Server;
  let reader: string;
  before(async () => {
    server = await startPipelineServer();
    reader = server.services.keys.create({ name: 'site', scopes: ['articles:read'] }).value;
    const items = [
      ...['a1', 'a2', 'a3'].map((id, i) => ({
        integrationId: 'cms',
        knowledgeBaseId: 'kb-blog',
        sourceType: 'ARTICLE',
        externalId: id,
        data: { title: `Post ${i + 1}`, content: `Body of post ${i + 1}.`, url: `https://blog.example/${id}` },
      })),
      { integrationId: 'cms', knowledgeBaseId: 'kb-blog', sourceType: 'PRODUCT', externalId: 'p1', data: { title: 'Mug', content: 'A mug.' } },
      { integrationId: 'cms', knowledgeBaseId: 'kb-other', sourceType: 'ARTICLE', externalId: 'o1', data: { title: 'Other', content: 'Elsewhere.' } },
    ];
    assert.equal((await api(server, 'POST', '/ingest/bulk', { items })).status, 200);
    await waitForIdle(server, 60_000);
  });
  after(() => server.stop());

  const get = (path: string, key = reader) =>
    fetch(`${server.url}${path}`, { headers: { 'x-api-key': key } }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

  it('lists published ARTICLE items only, newest first, filtered by knowledge base, with cursor pagination', async () => {
    const first = await get('/articles?knowledgeBaseId=kb-blog&limit=2');
    assert.equal(first.status, 200);
    assert.deepEqual(first.body.data.map((a: any) => a.externalId), ['a3', 'a2']);
    assert.ok(first.body.nextCursor);
    const second = await get(`/articles?knowledgeBaseId=kb-blog&limit=2&cursor=${first.body.nextCursor}`);
    assert.deepEqual(second.body.data.map((a: any) => a.externalId), ['a1']);
    assert.equal(second.body.nextCursor, null);
    const all = await get('/articles');
    assert.deepEqual(all.body.data.map((a: any) => a.externalId).sort(), ['a1', 'a2', 'a3', 'o1']);
    const bad = await get('/articles?cursor=nonsense');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'invalid_query');
  });

  it('reads one article with title, content, url and updated time', async () => {
    const list = await get('/articles?knowledgeBaseId=kb-blog&limit=1');
    const id = list.body.data[0].id as string;
    assert.match(id, /^art_\d+$/);
    const res = await get(`/articles/${id}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.title, 'Post 3');
    assert.equal(res.body.content, 'Body of post 3.');
    assert.equal(res.body.url, 'https://blog.example/a3');
    assert.ok(!Number.isNaN(Date.parse(res.body.updatedAt)));
    assert.equal((await get('/articles/art_999999')).status, 404);
    assert.equal((await get('/articles/42')).status, 400);
  });

  it('hides products and the knowledge bases a restricted key may not read', async () => {
    const products = await api(server, 'GET', '/knowledge-bases/kb-blog/items?sourceType=PRODUCT');
    const product = products.body.data[0];
    assert.equal(product.externalId, 'p1');
    const restricted = server.services.keys.create({ name: 'blog only', scopes: ['articles:read'], knowledgeBaseIds: ['kb-blog'] }).value;
    const list = await get('/articles', restricted);
    assert.deepEqual(list.body.data.map((a: any) => a.knowledgeBaseId), ['kb-blog', 'kb-blog', 'kb-blog']);
    const other = (await get('/articles?knowledgeBaseId=kb-other')).body.data[0].id;
    assert.equal((await get(`/articles/${other}`, restricted)).status, 404);
    const forbidden = await get('/articles?knowledgeBaseId=kb-other', restricted);
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.body.code, 'knowledge_base_forbidden');
  });
});

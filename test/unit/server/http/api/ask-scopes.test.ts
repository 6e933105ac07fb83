import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Scope } from '../../../../../common/contract/scopes.ts';
import { createTestApp, type TestApp } from '../../../../helpers/test-app.ts';

/** Every route added for the assistant, articles and usage, against keys with each scope. */
const ROUTES: Array<{ method: 'GET' | 'POST'; url: string; scope: Scope; payload?: object }> = [
  { method: 'POST', url: '/knowledge-bases/kb-main/ask', scope: 'iq:read', payload: { question: 'When do you open?' } },
  { method: 'GET', url: '/articles', scope: 'articles:read' },
  { method: 'GET', url: '/articles/art_1', scope: 'articles:read' },
  { method: 'GET', url: '/usage', scope: 'usage:read' },
];
const ALL: Scope[] = ['iq:import', 'iq:read', 'usage:read', 'articles:read'];

describe('scopes of the assistant, articles and usage routes', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({}, undefined, { jobWriter: 'in-process' });
  });
  after(() => t.close());

  for (const route of ROUTES) {
    it(`${route.method} ${route.url} needs ${route.scope}`, async () => {
      const send = (headers: Record<string, string>) =>
        t.app.inject({ method: route.method, url: route.url, headers, ...(route.payload ? { payload: route.payload } : {}) });
      const missing = await send({});
      assert.equal(missing.statusCode, 401);
      assert.equal(missing.json().code, 'missing_api_key');
      const others = t.key({ scopes: ALL.filter((s) => s !== route.scope) });
      const denied = await send({ 'x-api-key': others });
      assert.equal(denied.statusCode, 403);
      assert.equal(denied.json().code, 'insufficient_scope');
      assert.match(denied.json().message, new RegExp(route.scope));
      const allowed = await send({ 'x-api-key': t.key({ scopes: [route.scope] }) });
      assert.ok([200, 404].includes(allowed.statusCode), `${allowed.statusCode} ${allowed.body}`);
    });
  }

  it('a key restricted to other knowledge bases cannot ask this one', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/knowledge-bases/kb-main/ask',
      headers: { 'x-api-key': t.key({ scopes: ['iq:read'], knowledgeBaseIds: ['kb-other'] }) },
      payload: { question: 'When do you open?' },
    });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().code, 'knowledge_base_forbidden');
  });
});

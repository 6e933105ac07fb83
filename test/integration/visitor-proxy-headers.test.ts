import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../server/config.ts';
import { SESSIONS_PER_ADDRESS_PER_MINUTE } from '../../server/domain/visitor-limits.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

describe('forwarded headers: believed from LOCALIQ_TRUSTED_PROXY only', () => {
  let t: TestApp;
  let widgetId: string;
  const PROXY = '10.0.0.1';
  before(async () => {
    t = await createTestApp({ trustedProxies: [PROXY] });
    widgetId = t.services.widgets.create({ name: 'Shop', knowledgeBaseIds: ['kb'], allowedOrigins: ['https://shop.example'] }).id;
  });
  after(() => t.close());

  const startSession = (remoteAddress: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: `/v1/widget/${widgetId}/sessions`, remoteAddress, headers: { origin: 'https://shop.example', ...headers } });
  const sessionOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).s as string;

  it('from an untrusted peer, X-Forwarded-For is ignored: the per-address limit counts the peer', async () => {
    for (let i = 0; i < SESSIONS_PER_ADDRESS_PER_MINUTE; i++) {
      assert.equal((await startSession('203.0.113.5', { 'x-forwarded-for': `198.51.100.${i}` })).statusCode, 201);
    }
    const refused = await startSession('203.0.113.5', { 'x-forwarded-for': '198.51.100.250' });
    assert.equal(refused.statusCode, 429);
    assert.ok(Number(refused.headers['retry-after']) >= 1);
  });

  it('from a trusted proxy, the nearest untrusted address of X-Forwarded-For is the visitor', async () => {
    for (let i = 0; i < SESSIONS_PER_ADDRESS_PER_MINUTE + 5; i++) {
      assert.equal((await startSession(PROXY, { 'x-forwarded-for': `192.0.2.${i}` })).statusCode, 201, `visitor ${i}`);
    }
    // What the client wrote left of the proxy's own entry is not believed over the nearest one.
    const first = await startSession(PROXY, { 'x-forwarded-for': `1.2.3.4, 198.51.100.77, ${PROXY}` });
    const stored = t.services.visitorConversations.session(sessionOf(first.json().token))!;
    assert.equal(stored.ipHash, t.services.visitorSessions.hashAddress('198.51.100.77'));
  });

  it("X-Forwarded-Proto makes LocalIQ's own origin https only when a trusted proxy sends it", async () => {
    const headers = { host: 'assistant.shop.example', origin: 'https://assistant.shop.example', 'x-forwarded-proto': 'https' };
    const viaProxy = await t.app.inject({ method: 'GET', url: `/v1/widget/${widgetId}/config`, remoteAddress: PROXY, headers });
    assert.equal(viaProxy.statusCode, 200);
    const direct = await t.app.inject({ method: 'GET', url: `/v1/widget/${widgetId}/config`, remoteAddress: '203.0.113.9', headers });
    assert.equal(direct.statusCode, 403);
    assert.equal(direct.json().code, 'origin_not_allowed');
  });
});

describe('public listener and trusted proxy settings', () => {
  it('are off and empty by default, and read from the environment', () => {
    const off = loadConfig({});
    assert.equal(off.publicListener, null);
    assert.deepEqual(off.trustedProxies, []);
    const on = loadConfig({ LOCALIQ_PUBLIC_PORT: '7411', LOCALIQ_TRUSTED_PROXY: '127.0.0.1, ::1,10.0.0.2' });
    assert.deepEqual(on.publicListener, { host: '127.0.0.1', port: 7411 });
    assert.deepEqual(on.trustedProxies, ['127.0.0.1', '::1', '10.0.0.2']);
    assert.deepEqual(loadConfig({ LOCALIQ_PUBLIC_PORT: '8080', LOCALIQ_PUBLIC_HOST: '0.0.0.0' }).publicListener, { host: '0.0.0.0', port: 8080 });
  });

  it('refuse what is not a port or an address list', () => {
    assert.throws(() => loadConfig({ LOCALIQ_PUBLIC_PORT: 'x' }), /LOCALIQ_PUBLIC_PORT/);
    assert.throws(() => loadConfig({ LOCALIQ_TRUSTED_PROXY: 'proxy.local' }), /LOCALIQ_TRUSTED_PROXY/);
    assert.throws(() => loadConfig({ LOCALIQ_TRUSTED_PROXY: '10.0.0.0/8' }), /LOCALIQ_TRUSTED_PROXY/);
  });
});

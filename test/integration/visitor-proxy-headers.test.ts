import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../server/config.ts';
import { SESSIONS_PER_ADDRESS_PER_MINUTE, WIDGET_SESSIONS_FACTOR } from '../../server/domain/visitor-limits.ts';
import { countRows, createTestApp, type TestApp } from '../helpers/test-app.ts';
import { checkErrorShape } from './reliability/helpers/fixture.ts';

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
  const ask = (token: string, remoteAddress: string, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST', url: `/v1/widget/${widgetId}/ask`, remoteAddress,
      headers: { origin: 'https://shop.example', authorization: `Bearer ${token}`, ...headers }, payload: { question: 'When do you open?' },
    });

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
    const forwarded = { 'x-forwarded-for': `1.2.3.4, 198.51.100.77, ${PROXY}` };
    const first = await startSession(PROXY, forwarded);
    const token = first.json().token as string;
    assert.equal((await ask(token, PROXY, forwarded)).statusCode, 200);
    const stored = t.services.visitorConversations.session(sessionOf(token))!;
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

describe('visitor limits behind a trusted proxy', () => {
  let t: TestApp;
  const PROXY = '10.0.0.1';
  const ORIGIN = 'https://shop.example';
  before(async () => {
    t = await createTestApp({ trustedProxies: [PROXY] });
  });
  after(() => t.close());

  const newWidget = (widgetQuestionsPerMinute = 60) =>
    t.services.widgets.create({
      name: 'Shop', knowledgeBaseIds: ['kb'], allowedOrigins: [ORIGIN],
      limits: { visitorQuestionsPerMinute: 6, widgetQuestionsPerMinute, dailyQuestions: 10_000 },
    }).id;
  const startSession = (widgetId: string, visitor: string) =>
    t.app.inject({ method: 'POST', url: `/v1/widget/${widgetId}/sessions`, remoteAddress: PROXY, headers: { origin: ORIGIN, 'x-forwarded-for': visitor } });
  const ask = (widgetId: string, token: string, visitor: string) =>
    t.app.inject({
      method: 'POST', url: `/v1/widget/${widgetId}/ask`, remoteAddress: PROXY,
      headers: { origin: ORIGIN, 'x-forwarded-for': visitor, authorization: `Bearer ${token}` }, payload: { question: 'When do you open?' },
    });
  const sessionOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).s as string;
  function assertRateLimited(res: { statusCode: number; headers: Record<string, string | string[] | number | undefined>; body: string }, limit: string) {
    assert.equal(res.statusCode, 429, res.body);
    const shape = checkErrorShape(429, res.headers as Record<string, string>, res.body);
    assert.ok(shape.ok, shape.ok ? '' : shape.problem);
    assert.equal(JSON.parse(res.body).code, 'rate_limited');
    assert.match(JSON.parse(res.body).message, new RegExp(`\\(${limit} limit\\)`));
    assert.ok(Number(res.headers['retry-after']) >= 1, 'Retry-After');
  }

  it('an IPv6 visitor taking a new address of one /64 for each session is one address', async () => {
    const widgetId = newWidget();
    for (let i = 1; i <= SESSIONS_PER_ADDRESS_PER_MINUTE; i++) {
      assert.equal((await startSession(widgetId, `2001:db8:77:1:${i.toString(16)}::${i.toString(16)}`)).statusCode, 201, `session ${i}`);
    }
    assertRateLimited(await startSession(widgetId, '2001:db8:77:1:abcd:ef01:2345:6789'), 'sessions');
    assert.equal((await startSession(widgetId, '2001:db8:77:2::1')).statusCode, 201, 'the next /64 is another visitor');
  });

  it("caps the sessions a widget starts, all visitors together, without taking other widgets'", async () => {
    const widgetId = newWidget(10);
    const cap = 10 * WIDGET_SESSIONS_FACTOR;
    for (let i = 0; i < cap; i++) assert.equal((await startSession(widgetId, `198.51.100.${i}`)).statusCode, 201, `session ${i}`);
    assertRateLimited(await startSession(widgetId, '198.51.100.250'), 'widget sessions');
    assert.equal((await startSession(newWidget(10), '198.51.100.250')).statusCode, 201, 'another widget');
  });

  it('stores nothing for a session until its first question, which stores it', async () => {
    const widgetId = newWidget();
    const before = countRows(t.services, 'visitor_sessions');
    const tokens: string[] = [];
    for (let i = 0; i < 15; i++) {
      const res = await startSession(widgetId, `192.0.2.${i}`);
      assert.equal(res.statusCode, 201);
      tokens.push(res.json().token);
    }
    assert.equal(countRows(t.services, 'visitor_sessions'), before, 'no row for a session that asked nothing');
    assert.equal(t.services.visitorConversations.session(sessionOf(tokens[0]!)), null);

    const answered = await ask(widgetId, tokens[0]!, '192.0.2.200');
    assert.equal(answered.statusCode, 200, answered.body);
    assert.match(answered.body, /event: done/);
    const stored = t.services.visitorConversations.conversation(sessionOf(tokens[0]!))!;
    assert.equal(stored.session.widgetId, widgetId);
    assert.equal(stored.session.origin, ORIGIN);
    assert.equal(stored.session.ipHash, t.services.visitorSessions.hashAddress('192.0.2.200'), 'the address of the first question');
    assert.equal(stored.turns.length, 1);
    assert.equal(countRows(t.services, 'visitor_sessions'), before + 1);
    assert.equal((await ask(widgetId, tokens[0]!, '192.0.2.200')).statusCode, 200, 'a second question goes on in the stored session');
    assert.equal(t.services.visitorConversations.conversation(sessionOf(tokens[0]!))!.turns.length, 2);
  });

  it("a deleted conversation's session stays refused, though nothing else stores it", async () => {
    const widgetId = newWidget();
    const token = (await startSession(widgetId, '192.0.2.50')).json().token as string;
    assert.equal((await ask(widgetId, token, '192.0.2.50')).statusCode, 200);
    assert.equal(t.services.visitorConversations.deleteConversation(sessionOf(token)), true);
    const refused = await ask(widgetId, token, '192.0.2.50');
    assert.equal(refused.statusCode, 401, refused.body);
    assert.equal(refused.json().code, 'session_invalid');
    assert.equal(t.services.visitorConversations.session(sessionOf(token)), null, 'not stored again');

    // "Delete everything older than" a moment ago takes the sessions in use too.
    const other = (await startSession(widgetId, '192.0.2.51')).json().token as string;
    assert.equal((await ask(widgetId, other, '192.0.2.51')).statusCode, 200);
    const lastSeen = t.services.visitorConversations.conversation(sessionOf(other))!.session.lastSeenAt;
    // "Older than" is strictly before: the cutoff must be past the session's last question, which
    // on a fast machine can fall in the same millisecond as the next line.
    while (Date.now() <= lastSeen) await new Promise((resolve) => setTimeout(resolve, 1));
    assert.ok((await t.services.visitorConversations.deleteOlderThan(Date.now())) >= 1);
    assert.equal((await ask(widgetId, other, '192.0.2.51')).statusCode, 401);
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

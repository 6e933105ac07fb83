/**
 * The attack table for the dashboard's admin API, over every route of ADMIN_ROUTES: API keys are
 * refused (even valid ones, even beside a valid session), no session → 401, state-changing routes
 * need the session's own CSRF token and the same origin, Members cannot do what only Owner/Admin
 * may, nor Admins what only the Owner may, a session id planted before sign-in is never accepted after it, and a signed-out session is
 * dead. Every refusal has the contract's error shape and changes nothing stored.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { AdminClient } from '../../helpers/admin-client.ts';
import { createTestApp, type TestApp } from '../../helpers/test-app.ts';
import { FIXTURE, checkErrorShape, storedDigest } from './helpers/fixture.ts';
import { ADMIN_ROUTES, routeBody, routeUrl, type AdminRouteSpec } from './helpers/routes.ts';

const OWNER = { username: 'owner', password: 'owner password 1' };
const MEMBER = { username: 'member', password: 'member password 1' };
const ADMIN = { username: 'admin', password: 'admin password 1' };
const CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const name = (r: AdminRouteSpec) => `${r.method} /admin/api${r.path}`;

describe('attack table: the admin API', () => {
  let t: TestApp;
  let owner: AdminClient;
  let member: AdminClient;
  let admin: AdminClient;
  let apiKey: string;
  /** Everything stored, users and sessions included (last-seen times left out). */
  let digest: () => string;

  before(async () => {
    t = await createTestApp({ rateLimit: { perSecond: 1_000_000, burst: 1_000_000 } });
    apiKey = t.key();
    const push = await t.app.inject({ method: 'POST', url: '/ingest', headers: { 'x-api-key': apiKey }, payload: FIXTURE.item() });
    assert.equal(push.statusCode, 200);
    owner = new AdminClient(t.app);
    assert.equal((await owner.post('/setup', OWNER)).statusCode, 201);
    assert.equal((await owner.post('/users', { ...MEMBER, role: 'member' })).statusCode, 201);
    member = new AdminClient(t.app);
    assert.equal((await member.post('/session', MEMBER)).statusCode, 200);
    assert.equal((await owner.post('/users', { ...ADMIN, role: 'admin' })).statusCode, 201);
    admin = new AdminClient(t.app);
    assert.equal((await admin.post('/session', ADMIN)).statusCode, 200);
    digest = () => {
      const h = createHash('sha256').update(storedDigest(t.services.db));
      for (const row of t.services.db.prepare('SELECT id, username, role, password_hash FROM users ORDER BY id').iterate()) h.update(JSON.stringify(row));
      for (const row of t.services.db.prepare('SELECT hex(token_hash) AS h, user_id, expires_at FROM sessions ORDER BY 1').iterate()) h.update(JSON.stringify(row));
      return h.digest('hex');
    };
  });
  after(() => t.close());

  function send(route: AdminRouteSpec, headers: Record<string, string>): Promise<LightMyRequestResponse> {
    const sent = routeBody(route);
    return t.app.inject({
      method: route.method,
      url: `/admin/api${routeUrl({ path: route.path, params: route.params ?? {} })}${route.query ?? ''}`,
      headers: { ...headers, ...(sent ? { 'content-type': sent.contentType } : {}) },
      ...(sent ? { payload: sent.payload } : {}),
    });
  }

  function refused(res: LightMyRequestResponse, status: number, code: string, label: string) {
    assert.equal(res.statusCode, status, `${label}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    const shape = checkErrorShape(res.statusCode, res.headers as Record<string, string>, res.body);
    assert.ok(shape.ok, `${label}: ${shape.ok ? '' : shape.problem}`);
    assert.equal(res.json().code, code, label);
  }

  const session = (c: AdminClient) => ({ cookie: c.cookie!, 'x-localiq-csrf': c.csrf! });

  for (const route of ADMIN_ROUTES) {
    it(`${name(route)}: an API key is refused, alone or beside a valid session`, async () => {
      const before = digest();
      refused(await send(route, { 'x-api-key': apiKey }), 403, 'forbidden', 'API key alone');
      refused(await send(route, { 'x-api-key': apiKey, ...session(owner) }), 403, 'forbidden', 'API key with an Owner session');
      assert.equal(digest(), before, 'stored data changed');
    });

    if (route.access !== 'public') {
      it(`${name(route)}: no session, a forged session or a signed-out one → 401`, async () => {
        const before = digest();
        refused(await send(route, { 'x-localiq-csrf': 'x' }), 401, 'not_signed_in', 'no cookie');
        refused(await send(route, { cookie: `localiq_session=${'A'.repeat(43)}`, 'x-localiq-csrf': 'x' }), 401, 'not_signed_in', 'forged cookie');
        refused(await send(route, { cookie: 'localiq_session=', 'x-localiq-csrf': 'x' }), 401, 'not_signed_in', 'empty cookie');
        assert.equal(digest(), before, 'stored data changed');
      });
    }

    if (CHANGING.has(route.method)) {
      it(`${name(route)}: CSRF — no token, a wrong one, another session's, another origin, a cross-site fetch → 403`, async () => {
        const before = digest();
        const own = session(owner);
        const cases: Array<[string, Record<string, string>]> = [
          ['no CSRF header', { cookie: own.cookie }],
          ['wrong CSRF token', { cookie: own.cookie, 'x-localiq-csrf': 'x'.repeat(own['x-localiq-csrf'].length) }],
          ["another session's CSRF token", { cookie: own.cookie, 'x-localiq-csrf': member.csrf! }],
          ['another origin', { ...own, origin: 'http://evil.example' }],
          ['an origin that only starts like ours', { ...own, origin: 'http://localhost.evil.example' }],
          ['a cross-site fetch', { ...own, 'sec-fetch-site': 'cross-site' }],
        ];
        for (const [label, headers] of cases) {
          if (route.access === 'public' && label !== 'no CSRF header' && !headers.origin && !headers['sec-fetch-site']) continue; // public routes take any token
          refused(await send(route, headers), 403, 'forbidden', label);
        }
        assert.equal(digest(), before, 'stored data changed');
        assert.equal((await owner.get('/session')).statusCode, 200, 'the Owner is still signed in');
      });
    }

    if (route.access === 'manager' || route.access === 'owner') {
      it(`${name(route)}: a Member with a valid session and CSRF token → 403`, async () => {
        const before = digest();
        refused(await send(route, session(member)), 403, 'forbidden', 'Member');
        assert.equal(digest(), before, 'stored data changed');
      });
    }

    if (route.access === 'owner') {
      it(`${name(route)}: an Admin with a valid session and CSRF token → 403`, async () => {
        const before = digest();
        refused(await send(route, session(admin)), 403, 'forbidden', 'Admin');
        assert.equal(digest(), before, 'stored data changed');
      });
    }
  }

  it('every read-only route answers a signed-in Member, an Admin where only the Owner and Admins may read (webhooks), or the Owner where only the Owner may (the table is live, not only refusals)', async () => {
    for (const route of ADMIN_ROUTES.filter((r) => r.method === 'GET' && r.access !== 'public' && r.path !== '/events')) {
      const reader = route.access === 'owner' ? owner : route.access === 'manager' ? admin : member;
      const res = await send(route, session(reader));
      assert.ok(res.statusCode === 200 || res.statusCode === 404, `${name(route)}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    }
  });

  it('session fixation: a session id planted before sign-in is not accepted after it', async () => {
    const planted = `localiq_session=${'P'.repeat(43)}`;
    const victim = new AdminClient(t.app);
    victim.cookie = planted;
    const res = await victim.post('/session', OWNER);
    assert.equal(res.statusCode, 200);
    assert.notEqual(victim.cookie, planted, 'a new session id is issued');
    const replay = await t.app.inject({ method: 'GET', url: '/admin/api/session', headers: { cookie: planted } });
    refused(replay, 401, 'not_signed_in', 'planted id after sign-in');
  });

  it("session fixation: an attacker's own valid session planted in a victim's browser ends when the victim signs in", async () => {
    const attacker = new AdminClient(t.app);
    assert.equal((await attacker.post('/session', MEMBER)).statusCode, 200);
    const attackerCookie = attacker.cookie!;
    const victim = new AdminClient(t.app);
    victim.cookie = attackerCookie;
    assert.equal((await victim.post('/session', OWNER)).statusCode, 200);
    assert.notEqual(victim.cookie, attackerCookie);
    refused(await t.app.inject({ method: 'GET', url: '/admin/api/session', headers: { cookie: attackerCookie } }), 401, 'not_signed_in', 'planted session after sign-in');
    const who = await t.app.inject({ method: 'GET', url: '/admin/api/session', headers: { cookie: victim.cookie! } });
    assert.equal(who.json().user.username, OWNER.username, 'the victim is signed in as themself, in a session the attacker does not know');
  });

  it('the session cookie is HttpOnly and SameSite=Strict; signing out kills the session id', async () => {
    const c = new AdminClient(t.app);
    const res = await c.post('/session', OWNER);
    const cookie = String(res.headers['set-cookie']);
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /SameSite=Strict/i);
    const old = c.cookie!;
    assert.equal((await c.delete('/session')).statusCode, 204);
    refused(await t.app.inject({ method: 'GET', url: '/admin/api/keys', headers: { cookie: old } }), 401, 'not_signed_in', 'after sign-out');
  });

  it('an integration route does not accept a dashboard session instead of an API key', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/jobs', headers: { cookie: owner.cookie! } });
    refused(res, 401, 'missing_api_key', 'session on /jobs');
  });
});

import assert from 'node:assert/strict';
import os from 'node:os';
import { after, before, describe, it } from 'node:test';
import { AdminClient } from '../../../../helpers/admin-client.ts';
import { createTestApp, type TestApp } from '../../../../helpers/test-app.ts';

const OWNER = { username: 'olivia', password: 'correct horse battery' };
const DESKTOP_TOKEN = 'd'.repeat(43);

describe('admin API: first run, sign-in, sessions, CSRF', () => {
  let t: TestApp;
  // The app's clock: the wall clock, held still while a test counts sign-in delays, so that a slow
  // machine hashing the guesses cannot let the one-second delay after the fifth pass.
  let heldAt: number | undefined;
  const holdClock = () => (heldAt = Date.now());
  const releaseClock = () => (heldAt = undefined);
  before(async () => {
    t = await createTestApp({ desktopSignInToken: DESKTOP_TOKEN }, undefined, { jobWriter: 'in-process', clock: () => heldAt ?? Date.now() });
  });
  after(() => t.close());

  it('asks for the Owner on first run, and the desktop link leads to setup', async () => {
    const c = new AdminClient(t.app);
    assert.deepEqual((await c.get('/setup')).json(), { needsOwner: true });
    const desktop = await c.get(`/session/desktop?token=${DESKTOP_TOKEN}`);
    assert.equal(desktop.statusCode, 303);
    assert.equal(desktop.headers.location, '/#/setup');
    assert.equal((await c.get('/session')).statusCode, 401);
  });

  it('refuses a weak password and a setup without the CSRF header', async () => {
    const c = new AdminClient(t.app);
    const weak = await c.post('/setup', { username: 'x', password: 'short' });
    assert.equal(weak.statusCode, 400);
    assert.equal(weak.json().code, 'invalid_body');
    const noHeader = await t.app.inject({
      method: 'POST',
      url: '/admin/api/setup',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(OWNER),
    });
    assert.equal(noHeader.statusCode, 403);
    assert.equal(noHeader.json().code, 'forbidden');
    assert.equal((await c.get('/setup')).json().needsOwner, true);
  });

  it('accepts the first-run setup only from this machine', async () => {
    const remote = await t.app.inject({
      method: 'POST',
      url: '/admin/api/setup',
      remoteAddress: '192.168.1.50',
      headers: { 'content-type': 'application/json', 'x-localiq-csrf': 'setup' },
      payload: JSON.stringify(OWNER),
    });
    assert.equal(remote.statusCode, 403);
    assert.match(remote.json().message, /from the machine LocalIQ runs on/);
    assert.equal((await new AdminClient(t.app).get('/setup')).json().needsOwner, true);
  });

  it('creates the Owner once, signed in with an httpOnly SameSite=Strict cookie; the hash is scrypt', async () => {
    const c = new AdminClient(t.app);
    const res = await c.post('/setup', OWNER);
    assert.equal(res.statusCode, 201);
    assert.equal(res.json().user.role, 'owner');
    const cookie = String(res.headers['set-cookie']);
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Strict/);
    assert.match(cookie, /Path=\//);
    const me = await c.get('/session');
    assert.equal(me.json().user.username, 'olivia');
    const stored = t.services.db.prepare('SELECT password_hash FROM users').get() as { password_hash: string };
    assert.match(stored.password_hash, /^scrypt\$32768\$8\$1\$/);
    assert.ok(!stored.password_hash.includes(OWNER.password));
    const again = await new AdminClient(t.app).post('/setup', { username: 'mallory', password: 'another long password' });
    assert.equal(again.statusCode, 409);
  });

  it('stores only hashes of session tokens', async () => {
    const c = new AdminClient(t.app);
    await c.post('/session', OWNER);
    const token = c.cookie!.split('=')[1]!;
    const rows = t.services.db.prepare('SELECT token_hash FROM sessions').all() as Array<{ token_hash: Buffer }>;
    assert.ok(rows.length >= 1);
    for (const row of rows) assert.ok(!row.token_hash.toString('base64url').includes(token));
  });

  it('signs in with a new session each time (no fixation) and signs out', async () => {
    const c = new AdminClient(t.app);
    const wrong = await c.post('/session', { ...OWNER, password: 'wrong password!' });
    assert.equal(wrong.statusCode, 401);
    assert.equal(wrong.json().code, 'not_signed_in');
    assert.equal((await c.post('/session', OWNER)).statusCode, 200);
    const first = c.cookie;
    assert.equal((await c.post('/session', OWNER)).statusCode, 200);
    assert.notEqual(c.cookie, first);
    // The replaced session no longer works.
    const old = await t.app.inject({ method: 'GET', url: '/admin/api/session', headers: { cookie: first! } });
    assert.equal(old.statusCode, 401);
    const out = await c.delete('/session');
    assert.equal(out.statusCode, 204);
    const after = await t.app.inject({ method: 'GET', url: '/admin/api/keys', headers: { cookie: c.cookie ?? '' } });
    assert.equal(after.statusCode, 401);
  });

  it('requires the session CSRF token on state-changing requests and refuses other origins', async () => {
    const c = new AdminClient(t.app);
    await c.post('/session', OWNER);
    const body = { name: 'k', scopes: ['iq:read'] };
    const noCsrf = await c.post('/keys', body, { 'x-localiq-csrf': '' });
    assert.equal(noCsrf.statusCode, 403);
    const wrongCsrf = await c.post('/keys', body, { 'x-localiq-csrf': 'x'.repeat(43) });
    assert.equal(wrongCsrf.statusCode, 403);
    assert.equal(wrongCsrf.json().code, 'forbidden');
    const otherOrigin = await c.post('/keys', body, { origin: 'http://evil.example', host: '127.0.0.1:7410' });
    assert.equal(otherOrigin.statusCode, 403);
    const crossSite = await c.get('/keys', { 'sec-fetch-site': 'cross-site' });
    assert.equal(crossSite.statusCode, 403);
    const sameOrigin = await c.post('/keys', body, { origin: 'http://127.0.0.1:7410', host: '127.0.0.1:7410' });
    assert.equal(sameOrigin.statusCode, 201);
  });

  it('never accepts an API key, even a valid one alongside a session', async () => {
    const value = t.key();
    const alone = await t.app.inject({ method: 'GET', url: '/admin/api/keys', headers: { 'x-api-key': value } });
    assert.equal(alone.statusCode, 403);
    assert.equal(alone.json().code, 'forbidden');
    assert.match(alone.json().requestId, /^req_/);
    const c = new AdminClient(t.app);
    await c.post('/session', OWNER);
    const both = await c.get('/keys', { 'x-api-key': value });
    assert.equal(both.statusCode, 403);
  });

  it('throttles repeated failed sign-ins with 429 and Retry-After', async (ctx) => {
    holdClock();
    ctx.after(releaseClock);
    const c = new AdminClient(t.app);
    for (let i = 0; i < 5; i++) assert.equal((await c.post('/session', { username: 'nobody', password: `guess number ${i}` })).statusCode, 401);
    const limited = await c.post('/session', { username: 'nobody', password: 'guess number 6' });
    assert.equal(limited.statusCode, 429);
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assert.match(limited.json().message, /try again in \d+ (seconds?|minutes?)\./);
  });

  it('answers only under an IP address, localhost or the machine name, not a name a web page points at it', async () => {
    const rebound = await t.app.inject({
      method: 'POST', url: '/admin/api/setup',
      headers: { host: 'attacker-rebind.example:7410', origin: 'http://attacker-rebind.example:7410', 'content-type': 'application/json', 'x-localiq-csrf': '1' },
      payload: JSON.stringify({ username: 'attacker', password: 'a long enough password' }),
    });
    assert.equal(rebound.statusCode, 403, rebound.body);
    assert.match(rebound.json().message, /answers at an IP address, localhost or this machine's name/);
    for (const host of ['127.0.0.1:7410', '[::1]:7410', 'localhost', `${os.hostname()}:7410`, '192.168.1.20']) {
      const res = await t.app.inject({ method: 'GET', url: '/admin/api/session', headers: { host } });
      assert.equal(res.statusCode, 401, `${host}: not signed in, but let through`);
    }
  });

  it('moves the cookie\'s expiry along with the session when the dashboard is used', async () => {
    const c = new AdminClient(t.app);
    await c.post('/session', OWNER);
    const fresh = await c.get('/session');
    assert.equal(fresh.headers['set-cookie'], undefined, 'used again within the minute: nothing to move');
    // Two days pass with the dashboard unused.
    const twoDays = 2 * 86_400_000;
    t.services.db.prepare('UPDATE sessions SET created_at = created_at - ?, last_seen_at = last_seen_at - ?, expires_at = expires_at - ?').run(twoDays, twoDays, twoDays);
    const used = await c.get('/session');
    const cookie = String(used.headers['set-cookie']);
    assert.match(cookie, /^localiq_session=/);
    const expires = Date.parse(/Expires=([^;]+)/.exec(cookie)![1]!);
    assert.ok(Math.abs(expires - (Date.now() + 7 * 86_400_000)) < 60_000, `the cookie now ends ${new Date(expires).toISOString()}`);
  });

  it('counts guesses sent all at once: no more than five are checked', async (ctx) => {
    holdClock();
    ctx.after(releaseClock);
    const guesses = await Promise.all(
      Array.from({ length: 40 }, (_, i) => new AdminClient(t.app).post('/session', { username: 'racer', password: `parallel guess ${i}` })),
    );
    const statuses = guesses.map((res) => res.statusCode);
    assert.equal(statuses.filter((s) => s === 401).length, 5, statuses.join());
    assert.equal(statuses.filter((s) => s === 429).length, 35);
  });

  it('the desktop link signs in as the Owner exactly once, with a redirect to the dashboard', async () => {
    const wrong = await new AdminClient(t.app).get(`/session/desktop?token=${'e'.repeat(43)}`);
    assert.equal(wrong.statusCode, 401);
    const c = new AdminClient(t.app);
    const res = await c.get(`/session/desktop?token=${DESKTOP_TOKEN}`);
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/');
    assert.ok(c.cookie);
    assert.equal((await c.get('/session')).json().user.role, 'owner');
    const reused = await new AdminClient(t.app).get(`/session/desktop?token=${DESKTOP_TOKEN}`);
    assert.equal(reused.statusCode, 401);
  });

  it('keeps the admin API out of the integration API document', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json() as { paths: Record<string, unknown> };
    assert.ok(Object.keys(doc.paths).length > 5);
    assert.deepEqual(Object.keys(doc.paths).filter((p) => p.startsWith('/admin')), []);
  });

  it('serves the dashboard page with a strict CSP, and API 404s keep their shape', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/' });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /text\/html/);
    assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);
    const missing = await t.app.inject({ method: 'GET', url: '/nope' });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().code, 'not_found');
  });
});

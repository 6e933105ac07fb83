import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, item, type TestApp } from './helpers/test-app.ts';

describe('API key authentication', () => {
  let t: TestApp;
  const DAY = 86_400_000;
  before(async () => {
    t = await createTestApp({ rateLimit: { perSecond: 1, burst: 3 } });
  });
  after(() => t.close());

  const push = (headers: Record<string, string>, body: object = item()) =>
    t.app.inject({ method: 'POST', url: '/ingest', headers, payload: body });

  const cases: Array<{ name: string; header: () => Record<string, string>; status: number; code: string }> = [
    { name: 'missing key', header: () => ({}), status: 401, code: 'missing_api_key' },
    { name: 'empty key', header: () => ({ 'x-api-key': '' }), status: 401, code: 'missing_api_key' },
    { name: 'malformed key', header: () => ({ 'x-api-key': 'not-a-key' }), status: 401, code: 'invalid_api_key' },
    {
      name: 'unknown key of the right form',
      header: () => ({ 'x-api-key': `liq_${'A'.repeat(12)}_${'b'.repeat(43)}` }),
      status: 401,
      code: 'invalid_api_key',
    },
    {
      name: 'known id with a wrong secret',
      header: () => {
        const value = t.key();
        return { 'x-api-key': `${value.slice(0, -1)}${value.endsWith('a') ? 'b' : 'a'}` };
      },
      status: 401,
      code: 'invalid_api_key',
    },
    {
      name: 'revoked key',
      header: () => {
        const value = t.key();
        const id = value.split('_')[1]!;
        t.services.keys.revoke(id);
        return { 'x-api-key': value };
      },
      status: 401,
      code: 'invalid_api_key',
    },
    {
      name: 'expired key',
      header: () => ({ 'x-api-key': t.key({ expiresAt: Date.now() - DAY }) }),
      status: 401,
      code: 'api_key_expired',
    },
    {
      name: 'key without iq:import',
      header: () => ({ 'x-api-key': t.key({ scopes: ['iq:read', 'usage:read', 'articles:read'] }) }),
      status: 403,
      code: 'insufficient_scope',
    },
    {
      name: 'key restricted to another knowledge base',
      header: () => ({ 'x-api-key': t.key({ scopes: ['iq:import'], knowledgeBaseIds: ['kb-other'] }) }),
      status: 403,
      code: 'knowledge_base_forbidden',
    },
    {
      name: 'key restricted to this knowledge base',
      header: () => ({ 'x-api-key': t.key({ scopes: ['iq:import'], knowledgeBaseIds: ['kb-main'] }) }),
      status: 200,
      code: '',
    },
    {
      name: 'key that expires tomorrow',
      header: () => ({ 'x-api-key': t.key({ scopes: ['iq:import'], expiresAt: Date.now() + DAY }) }),
      status: 200,
      code: '',
    },
  ];

  for (const c of cases) {
    it(`${c.name} → ${c.status}${c.code ? ` ${c.code}` : ''}`, async () => {
      const before = (t.services.db.prepare('SELECT count(*) AS n FROM jobs').get() as { n: number }).n;
      const res = await push(c.header(), item({ externalId: `case ${c.name}` }));
      assert.equal(res.statusCode, c.status, res.body);
      const after = (t.services.db.prepare('SELECT count(*) AS n FROM jobs').get() as { n: number }).n;
      if (c.code) {
        const body = res.json();
        assert.equal(body.code, c.code);
        assert.equal(body.statusCode, c.status);
        assert.match(body.requestId, /^req_/);
        assert.equal(after, before, 'a refused request stores nothing');
      } else {
        assert.equal(after, before + 1);
      }
    });
  }

  it('names the missing scope', async () => {
    const res = await push({ 'x-api-key': t.key({ scopes: ['iq:read'] }) });
    assert.match(res.json().message, /iq:import/);
  });

  it('refuses a bulk when any item targets a knowledge base outside the restriction, naming it', async () => {
    const key = t.key({ scopes: ['iq:import'], knowledgeBaseIds: ['kb-main'] });
    const res = await t.app.inject({
      method: 'POST',
      url: '/ingest/bulk',
      headers: { 'x-api-key': key },
      payload: { items: [item(), item({ knowledgeBaseId: 'kb-secret', externalId: 'x' })] },
    });
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json().details, [
      { path: 'items.1.knowledgeBaseId', message: 'knowledge base "kb-secret" is not allowed for this key' },
    ]);
  });

  it('revocation takes effect immediately', async () => {
    const key = t.key({ scopes: ['iq:import'] });
    assert.equal((await push({ 'x-api-key': key }, item({ externalId: 'rv' }))).statusCode, 200);
    t.services.keys.revoke(key.split('_')[1]!);
    assert.equal((await push({ 'x-api-key': key }, item({ externalId: 'rv' }))).statusCode, 401);
  });

  it('rotation keeps the old value working during the grace period only', async () => {
    const old = t.key({ scopes: ['iq:import'] });
    const rotated = t.services.keys.rotate(old.split('_')[1]!, 60_000)!;
    assert.equal((await push({ 'x-api-key': old }, item({ externalId: 'rot' }))).statusCode, 200);
    assert.equal((await push({ 'x-api-key': rotated.value }, item({ externalId: 'rot' }))).statusCode, 200);
    const immediate = t.services.keys.rotate(rotated.key.id, 0)!;
    assert.equal((await push({ 'x-api-key': rotated.value }, item({ externalId: 'rot' }))).statusCode, 401);
    assert.equal((await push({ 'x-api-key': immediate.value }, item({ externalId: 'rot' }))).statusCode, 200);
  });

  it('records when a key was last used', async () => {
    const key = t.key({ scopes: ['iq:import'] });
    const id = key.split('_')[1]!;
    assert.equal(t.services.keys.find(id)!.lastUsedAt, null);
    await push({ 'x-api-key': key }, item({ externalId: 'lu' }));
    assert.ok(t.services.keys.find(id)!.lastUsedAt! > Date.now() - 10_000);
  });

  it('rate-limits each key on its own with 429 and Retry-After', async () => {
    const busy = t.key({ scopes: ['iq:import'] });
    const calm = t.key({ scopes: ['iq:import'] });
    const statuses: number[] = [];
    let limited;
    for (let i = 0; i < 5; i++) {
      const res = await push({ 'x-api-key': busy }, item({ externalId: `rl-${i}` }));
      statuses.push(res.statusCode);
      if (res.statusCode === 429) limited = res;
    }
    assert.deepEqual(statuses.slice(0, 3), [200, 200, 200]);
    assert.ok(limited, `expected a 429 among ${statuses.join()}`);
    assert.equal(limited.json().code, 'rate_limited');
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.equal((await push({ 'x-api-key': calm }, item({ externalId: 'calm' }))).statusCode, 200);
  });

  it('stores only a keyed hash: the value appears nowhere in the database file', async () => {
    const key = t.key();
    const secret = key.split('_')[2]!;
    const rows = t.services.db.prepare('SELECT * FROM api_keys').all();
    assert.ok(!JSON.stringify(rows).includes(secret));
    const { readFileSync } = await import('node:fs');
    t.services.db.pragma('wal_checkpoint(TRUNCATE)');
    const file = readFileSync(`${t.dataDir}/localiq.db`);
    assert.equal(file.includes(Buffer.from(secret)), false);
  });
});

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../server/storage/db.ts';
import { CLI, cliEnv } from '../helpers/server-process.ts';
import { countRows, createTestApp, type TestApp } from '../helpers/test-app.ts';
import { item } from '../helpers/temp-data.ts';

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

describe('API keys cached in memory by the server', () => {
  let t: TestApp;
  /** How far the server's clock runs ahead of the real one: a test moves it instead of waiting. */
  let ahead = 0;
  before(async () => {
    t = await createTestApp({}, undefined, { clock: () => Date.now() + ahead });
  });
  after(() => t.close());

  const push = (key: string, externalId: string) =>
    t.app.inject({ method: 'POST', url: '/ingest', headers: { 'x-api-key': key }, payload: item({ externalId }) });
  const idOf = (key: string) => key.split('_')[1]!;

  it('a key revoked by this process is refused at once, even when nothing else was written since it was checked', async () => {
    const key = t.key({ scopes: ['iq:import'] });
    const readOnly = t.key({ scopes: ['iq:read'] });
    assert.equal((await push(key, 'own-1')).statusCode, 200);
    // A refused request writes no job: the last thing read before the revocation is this check.
    assert.equal((await push(readOnly, 'own-2')).statusCode, 403);
    t.services.keys.revoke(idOf(key));
    assert.equal((await push(key, 'own-3')).statusCode, 401);
  });

  it('a key revoked by the CLI, another process, is refused on the very next request although it was cached', async () => {
    const key = t.key({ scopes: ['iq:import'] });
    assert.equal((await push(key, 'cli-1')).statusCode, 200);
    assert.equal((await push(key, 'cli-2')).statusCode, 200, 'answered from the cache');
    execFileSync(process.execPath, [CLI, 'keys', 'revoke', idOf(key)], { env: cliEnv(t.dataDir) });
    const res = await push(key, 'cli-3');
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().code, 'invalid_api_key');
    assert.equal(countRows(t.services, "jobs WHERE external_id = 'cli-3'"), 0);
  });

  it('any change made through another connection counts at once, e.g. a scope taken away', async () => {
    const key = t.key({ scopes: ['iq:import', 'iq:read'] });
    assert.equal((await push(key, 'scope-1')).statusCode, 200);
    const other = openDatabase(t.dataDir);
    try {
      other.prepare("UPDATE api_keys SET scopes = '[\"iq:read\"]' WHERE id = ?").run(idOf(key));
    } finally {
      other.close();
    }
    const res = await push(key, 'scope-2');
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().code, 'insufficient_scope');
  });

  it('a cached key past its expiry is refused as expired', async () => {
    const key = t.key({ scopes: ['iq:import'], expiresAt: Date.now() + 1_000 });
    assert.equal((await push(key, 'exp-1')).statusCode, 200);
    ahead += 1_100;
    const res = await push(key, 'exp-2');
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().code, 'api_key_expired');
  });

  it('a cached key id with a wrong secret is refused, and the right secret still works', async () => {
    const key = t.key({ scopes: ['iq:import'] });
    assert.equal((await push(key, 'wrong-1')).statusCode, 200);
    const wrong = `${key.slice(0, -1)}${key.endsWith('a') ? 'b' : 'a'}`;
    assert.equal((await push(wrong, 'wrong-2')).statusCode, 401);
    assert.equal((await push(key, 'wrong-3')).statusCode, 200);
  });

  it('requests checked together each get their own answer', async () => {
    const good = t.key({ scopes: ['iq:import'] });
    const revoked = t.key({ scopes: ['iq:import'] });
    const readOnly = t.key({ scopes: ['iq:read'] });
    await push(good, 'together-0');
    await push(revoked, 'together-0b');
    t.services.keys.revoke(idOf(revoked));
    const headers: Array<Record<string, string>> = [
      { 'x-api-key': good },
      {},
      { 'x-api-key': revoked },
      { 'x-api-key': 'not-a-key' },
      { 'x-api-key': readOnly },
      { 'x-api-key': good },
    ];
    const answers = await Promise.all(
      headers.map((h, i) => t.app.inject({ method: 'POST', url: '/ingest', headers: h, payload: item({ externalId: `together-${i + 1}` }) })),
    );
    assert.deepEqual(
      answers.map((res) => [res.statusCode, res.statusCode === 200 ? '' : res.json().code]),
      [
        [200, ''],
        [401, 'missing_api_key'],
        [401, 'invalid_api_key'],
        [401, 'invalid_api_key'],
        [403, 'insufficient_scope'],
        [200, ''],
      ],
    );
  });
});

/**
 * CI part of the fuzz suite: a few hundred generated requests over every route of
 * helpers/routes.ts, in-process. Never a 5xx, always the contract's error shape, and a refused
 * request changes nothing stored. The long run (10,000+ cases over real HTTP) is
 * bench/reliability/fuzz-long.ts. FUZZ_SEED and FUZZ_RUNS reproduce or widen a run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { createTestApp, type TestApp } from '../../helpers/test-app.ts';
import { FIXTURE, storedDigest } from './helpers/fixture.ts';
import { AdminClient } from '../../helpers/admin-client.ts';
import { adminFuzzRequestArb, describeRequest, fuzzRequestArb, judge, newStats, record, type FuzzRequest } from './helpers/fuzz.ts';
import { ADMIN_ROUTES, ROUTES } from './helpers/routes.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 600);
const ADMIN_RUNS = Math.round(RUNS / 2);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

describe('fuzzing every public route (in-process)', () => {
  let t: TestApp;
  let key: string;
  before(async () => {
    t = await createTestApp({ rateLimit: { perSecond: 1_000_000, burst: 1_000_000 } });
    key = t.key();
    for (const body of [FIXTURE.item(), FIXTURE.item({ knowledgeBaseId: FIXTURE.otherKb, externalId: 'other-1' })]) {
      assert.equal((await t.app.inject({ method: 'POST', url: '/ingest', headers: { 'x-api-key': key }, payload: body })).statusCode, 200);
    }
  });
  after(() => t.close());

  /** Sends one generated request in-process and asserts the properties; returns nothing on success. */
  async function check(req: FuzzRequest, stats: ReturnType<typeof newStats>, digest: () => string) {
    const before = digest();
    const res = await t.app.inject({
      method: req.method as 'GET',
      url: req.url,
      headers: req.headers,
      ...(req.body === undefined ? {} : { payload: req.body }),
    });
    const response = { status: res.statusCode, headers: res.headers as Record<string, string>, body: res.body };
    record(stats, req, response);
    const problem = judge(req, response, before, digest());
    assert.equal(problem, null, `${problem}\n${describeRequest(req)}`);
  }

  it(`${RUNS} generated requests over ${ROUTES.length} routes (seed ${SEED}): no 5xx, contract error shape, refusals change nothing`, async () => {
    const stats = newStats();
    await fc.assert(
      fc.asyncProperty(fuzzRequestArb(key), (req) => check(req, stats, () => storedDigest(t.services.db))),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    console.log(`fuzz: ${JSON.stringify(stats)}`);
    // The generator must reach past validation, not only bounce off it.
    assert.ok((stats.byStatus['200'] ?? 0) > RUNS * 0.05, 'too few requests were accepted');
    assert.ok((stats.byStatus['400'] ?? 0) > RUNS * 0.1, 'too few requests were refused as invalid');
    const health = await t.app.inject({ method: 'GET', url: '/health' });
    assert.equal(health.statusCode, 200);
  });

  it(`${ADMIN_RUNS} generated requests over the admin API, signed in as the Owner (seed ${SEED}): the same properties`, async () => {
    const owner = new AdminClient(t.app);
    assert.equal((await owner.post('/setup', { username: 'owner', password: 'owner password 1' })).statusCode, 201);
    const digest = () => {
      const h = [storedDigest(t.services.db)];
      for (const sql of ['SELECT id, username, role, password_hash FROM users ORDER BY id', 'SELECT * FROM settings ORDER BY key']) {
        h.push(JSON.stringify(t.services.db.prepare(sql).all()));
      }
      return h.join('|');
    };
    const stats = newStats();
    await fc.assert(
      fc.asyncProperty(adminFuzzRequestArb({ cookie: owner.cookie!, csrf: owner.csrf! }, key), (req) => check(req, stats, digest)),
      { numRuns: ADMIN_RUNS, seed: SEED, endOnFailure: true },
    );
    console.log(`admin fuzz: ${JSON.stringify(stats)}`);
    assert.ok((stats.byStatus['200'] ?? 0) + (stats.byStatus['201'] ?? 0) > ADMIN_RUNS * 0.05, 'too few requests got through the gate');
    assert.equal((await owner.get('/session')).statusCode, 200, 'the session survived');
    assert.ok(ADMIN_ROUTES.length > 20);
  });

  // Found by this fuzzer: the router refused path parameters over 100 characters (valid ids go to
  // 256, jobIds to 513) and answered bad percent-encoding, both outside the contract's error shape.
  it('an item with a 256-character id, or a multi-byte one, can be followed and deleted through its path', async () => {
    for (const externalId of ['x'.repeat(256), 'é'.repeat(256), '𝔘'.repeat(128)]) {
      const push = await t.app.inject({ method: 'POST', url: '/ingest', headers: { 'x-api-key': key }, payload: FIXTURE.item({ externalId }) });
      assert.equal(push.statusCode, 200, push.body);
      const id = encodeURIComponent(externalId);
      const job = await t.app.inject({ method: 'GET', url: `/jobs/cms-${id}?knowledgeBaseId=kb-main`, headers: { 'x-api-key': key } });
      assert.equal(job.statusCode, 200, job.body.slice(0, 300));
      const del = await t.app.inject({ method: 'DELETE', url: `/items/kb-main/cms/${id}`, headers: { 'x-api-key': key } });
      assert.equal(del.statusCode, 200, del.body.slice(0, 300));
      assert.equal(del.json().externalId, externalId);
      assert.equal(del.json().cancelledJobs, 1, 'its queued job is cancelled');
    }
  });

  it('a path that is not valid percent-encoding, or a parameter longer than any id, gets the contract error', async () => {
    for (const url of ['/jobs/%E0%A4%A', '/jobs/%ZZ/retry', `/jobs/${'j'.repeat(6_000)}`]) {
      const res = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
      assert.equal(res.statusCode, 400, res.body.slice(0, 200));
      assert.equal(res.json().code, 'invalid_query');
      assert.match(res.json().requestId, /^req_/);
    }
  });
});

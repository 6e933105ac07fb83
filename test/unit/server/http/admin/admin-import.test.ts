import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AdminClient, signedInAs } from '../../../../helpers/admin-client.ts';
import { countRows, createTestApp, type TestApp } from '../../../../helpers/test-app.ts';
import { item } from '../../../../helpers/temp-data.ts';

const OWNER = { username: 'owner', password: 'owner password 1' };

describe('admin API: the dashboard import pushes with the session', () => {
  let t: TestApp;
  let owner: AdminClient;
  before(async () => {
    t = await createTestApp({ bulkLimit: 3 }, undefined, { jobWriter: 'in-process' });
    owner = new AdminClient(t.app);
    assert.equal((await owner.post('/setup', OWNER)).statusCode, 201);
  });
  after(() => t.close());

  it('queues a bulk push as POST /ingest/bulk does, with no API key', async () => {
    const items = [item({ externalId: 'a' }), item({ externalId: 'b' })];
    const res = await owner.post('/ingest/bulk', { items });
    assert.equal(res.statusCode, 200, res.body);
    const ack = res.json();
    assert.deepEqual({ ...ack, estimatedTime: 'x' }, { status: 'queued', jobCount: 2, estimatedTime: 'x', jobIds: ['cms-a', 'cms-b'] });
    // The same answer a key gets from the public route.
    const pub = await t.app.inject({ method: 'POST', url: '/ingest/bulk', headers: { 'x-api-key': t.key() }, payload: { items: [item({ externalId: 'c' })] } });
    assert.deepEqual(Object.keys(pub.json()), Object.keys(ack));
    const jobs = (await owner.get('/jobs?knowledgeBaseId=kb-main&integrationId=cms&status=queued')).json().data;
    assert.deepEqual(jobs.map((j: { externalId: string }) => j.externalId).sort(), ['a', 'b', 'c']);
  });

  it('refuses what the public route refuses, and stores nothing of a refused request', async () => {
    const before = countRows(t.services, 'jobs');
    const invalid = await owner.post('/ingest/bulk', { items: [item({ externalId: 'd' }), item({ externalId: 'e' }, { content: '' })] });
    assert.equal(invalid.statusCode, 400);
    assert.equal(invalid.json().code, 'invalid_body');
    assert.ok(invalid.json().details.some((d: { path: string }) => d.path === 'items.1.data.content'), invalid.body);
    const tooMany = await owner.post('/ingest/bulk', { items: ['w', 'x', 'y', 'z'].map((externalId) => item({ externalId })) });
    assert.equal(tooMany.statusCode, 400);
    assert.equal(tooMany.json().code, 'too_many_items');
    assert.equal(countRows(t.services, 'jobs'), before);
  });

  it('is for the Owner and Admins, with the CSRF header, never with an API key', async () => {
    const member = await signedInAs(owner, t.app, 'member');
    const body = { items: [item({ externalId: 'm' })] };
    const refused = await member.post('/ingest/bulk', body);
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().code, 'forbidden');
    const admin = await signedInAs(owner, t.app, 'admin');
    assert.equal((await admin.post('/ingest/bulk', body)).statusCode, 200);
    assert.equal((await owner.post('/ingest/bulk', body, { 'x-localiq-csrf': 'wrong' })).statusCode, 403);
    assert.equal((await owner.post('/ingest/bulk', body, { 'x-api-key': t.key() })).statusCode, 403);
    assert.equal((await new AdminClient(t.app).post('/ingest/bulk', body)).statusCode, 401);
  });
});

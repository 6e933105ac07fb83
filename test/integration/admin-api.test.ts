import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AdminClient } from '../helpers/admin-client.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { item } from '../helpers/temp-data.ts';

const OWNER = { username: 'owner', password: 'owner password 1' };

describe('admin API: keys, users, knowledge, monitor', () => {
  let t: TestApp;
  let owner: AdminClient;
  before(async () => {
    t = await createTestApp();
    owner = new AdminClient(t.app);
    assert.equal((await owner.post('/setup', OWNER)).statusCode, 201);
  });
  after(() => t.close());

  it('creates a key whose value works once shown, lists it without the value, revokes it', async () => {
    const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const res = await owner.post('/keys', {
      name: 'Shop sync',
      description: 'nightly catalogue',
      scopes: ['iq:import', 'iq:read'],
      knowledgeBaseIds: ['kb-main'],
      expiresAt,
    });
    assert.equal(res.statusCode, 201);
    const { key, value } = res.json();
    assert.match(value, /^liq_[0-9A-Za-z]{12}_[0-9A-Za-z]{43}$/);
    assert.equal(key.createdBy, 'owner');
    assert.equal(key.prefix, `liq_${key.id}`);
    const push = await t.app.inject({ method: 'POST', url: '/ingest', headers: { 'x-api-key': value }, payload: item() });
    assert.equal(push.statusCode, 200);
    const list = await owner.get('/keys');
    assert.ok(!list.body.includes(value.split('_')[2]));
    const listed = list.json().data.find((k: { id: string }) => k.id === key.id);
    assert.deepEqual(listed.scopes, ['iq:import', 'iq:read']);
    assert.deepEqual(listed.knowledgeBaseIds, ['kb-main']);
    assert.equal(listed.state, 'active');
    const revoked = await owner.post(`/keys/${key.id}/revoke`);
    assert.equal(revoked.json().state, 'revoked');
    const refused = await t.app.inject({ method: 'POST', url: '/ingest', headers: { 'x-api-key': value }, payload: item() });
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.json().code, 'invalid_api_key');
  });

  it('rotates a key: a new value, the old one kept for the grace period', async () => {
    const { key, value } = (await owner.post('/keys', { name: 'rot', scopes: ['iq:read'] })).json();
    const rotated = await owner.post(`/keys/${key.id}/rotate`, { graceHours: 1 });
    assert.equal(rotated.statusCode, 201);
    assert.notEqual(rotated.json().value, value);
    assert.equal(rotated.json().key.rotatedFrom, key.id);
    for (const v of [value, rotated.json().value]) {
      const res = await t.app.inject({ method: 'GET', url: '/knowledge-bases', headers: { 'x-api-key': v } });
      assert.equal(res.statusCode, 200);
    }
    const again = await owner.post(`/keys/${key.id}/rotate`, { graceHours: 1 });
    assert.equal(again.statusCode, 409, 'the old key has its replacement already');
  });

  it('validates key input and refuses a past expiry', async () => {
    const none = await owner.post('/keys', { name: 'x', scopes: [] });
    assert.equal(none.statusCode, 400);
    assert.equal(none.json().details[0].path, 'scopes');
    const past = await owner.post('/keys', { name: 'x', scopes: ['iq:read'], expiresAt: '2020-01-01T00:00:00Z' });
    assert.equal(past.statusCode, 400);
    const unknownScope = await owner.post('/keys', { name: 'x', scopes: ['admin'] });
    assert.equal(unknownScope.statusCode, 400);
  });

  it('a Member sees keys and items but cannot change keys, users or items', async () => {
    const created = await owner.post('/users', { username: 'mia', password: 'member password', role: 'member' });
    assert.equal(created.statusCode, 201);
    const member = new AdminClient(t.app);
    assert.equal((await member.post('/session', { username: 'mia', password: 'member password' })).json().canManage, false);
    assert.equal((await member.get('/keys')).statusCode, 200);
    const keyId = (await owner.get('/keys')).json().data[0].id;
    for (const res of [
      await member.post('/keys', { name: 'm', scopes: ['iq:read'] }),
      await member.post(`/keys/${keyId}/revoke`),
      await member.post(`/keys/${keyId}/rotate`, {}),
      await member.post('/users', { username: 'x', password: 'long enough pw', role: 'member' }),
      await member.delete('/knowledge-bases/kb-main/items/cms/post-1'),
    ]) {
      assert.equal(res.statusCode, 403);
      assert.equal(res.json().code, 'forbidden');
    }
  });

  it('an Admin manages Members but not the Owner or other Admins', async () => {
    const adminUser = (await owner.post('/users', { username: 'ada', password: 'admin password', role: 'admin' })).json();
    const admin = new AdminClient(t.app);
    await admin.post('/session', { username: 'ada', password: 'admin password' });
    const ownerId = (await admin.get('/users')).json().data.find((u: { role: string }) => u.role === 'owner').id;
    assert.equal((await admin.delete(`/users/${ownerId}`)).statusCode, 403);
    assert.equal((await admin.post('/users', { username: 'ad2', password: 'admin password', role: 'admin' })).statusCode, 403);
    const m = (await admin.post('/users', { username: 'max', password: 'member password', role: 'member' })).json();
    assert.equal((await admin.delete(`/users/${m.id}`)).statusCode, 204);
    // A role change signs the user out at once.
    assert.equal((await owner.patch(`/users/${adminUser.id}`, { role: 'member' })).json().role, 'member');
    assert.equal((await admin.get('/session')).statusCode, 401);
  });

  it('shows knowledge bases, queued items with their job history, jobs and the monitor snapshot', async () => {
    const value = t.key();
    await t.app.inject({
      method: 'POST',
      url: '/ingest',
      headers: { 'x-api-key': value },
      payload: item({ externalId: 'post-2', options: { priority: 'high' } }),
    });
    const kbs = (await owner.get('/knowledge-bases')).json().data;
    const kb = kbs.find((k: { id: string }) => k.id === 'kb-main');
    assert.ok(kb.pendingJobs >= 2);
    const detail = await owner.get('/knowledge-bases/kb-main/items/cms/post-2');
    assert.equal(detail.json().indexed, false);
    assert.equal(detail.json().jobs[0].status, 'queued');
    const jobs = await owner.get('/jobs?status=queued');
    assert.ok(jobs.json().data.some((j: { externalId: string }) => j.externalId === 'post-2'));
    const snap = (await owner.get('/monitor')).json();
    assert.ok(snap.counts.queued >= 2);
    assert.equal(snap.queuedByPriority.high, 1);
    assert.ok(snap.progress.pending >= 2);
    assert.equal((await owner.get('/knowledge-bases/kb-main/items/cms/nope')).statusCode, 404);
  });

  it('deletes an item: its queued job is cancelled', async () => {
    const value = t.key();
    await t.app.inject({ method: 'POST', url: '/ingest', headers: { 'x-api-key': value }, payload: item({ externalId: 'gone' }) });
    const res = await owner.delete('/knowledge-bases/kb-main/items/cms/gone');
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().cancelledJobs, 1);
    const detail = (await owner.get('/knowledge-bases/kb-main/items/cms/gone')).json();
    assert.equal(detail.jobs[0].status, 'cancelled');
    assert.equal((await owner.delete('/knowledge-bases/kb-main/items/cms/never')).statusCode, 404);
  });

  it('shows an item deleted through the API as deleted, when and by which key, until it is pushed again', async () => {
    const { key, value } = (await owner.post('/keys', { name: 'shop sync', scopes: ['iq:import'] })).json();
    const push = () => t.app.inject({ method: 'POST', url: '/ingest', headers: { 'x-api-key': value }, payload: item({ externalId: 'api-gone' }) });
    await push();
    const before = Date.now();
    const deleted = await t.app.inject({ method: 'DELETE', url: '/items/kb-main/cms/api-gone', headers: { 'x-api-key': value } });
    assert.equal(deleted.statusCode, 200);
    const detail = (await owner.get('/knowledge-bases/kb-main/items/cms/api-gone')).json();
    assert.equal(detail.indexed, false);
    assert.equal(detail.deleted.byKey.id, key.id);
    assert.equal(detail.deleted.byKey.name, 'shop sync');
    assert.equal(detail.deleted.byUser, null);
    assert.ok(Date.parse(detail.deleted.at) >= before - 1000);
    await push();
    assert.equal((await owner.get('/knowledge-bases/kb-main/items/cms/api-gone')).json().deleted, null, 'pushed again: pending, not deleted');
    await owner.delete('/knowledge-bases/kb-main/items/cms/api-gone');
    const byOwner = (await owner.get('/knowledge-bases/kb-main/items/cms/api-gone')).json().deleted;
    assert.equal(byOwner.byUser, 'owner');
    assert.equal(byOwner.byKey, null);
  });

  it('retries a failed job from the dashboard', async () => {
    const value = t.key();
    await t.app.inject({ method: 'POST', url: '/ingest', headers: { 'x-api-key': value }, payload: item({ externalId: 'bad' }) });
    t.services.db
      .prepare("UPDATE jobs SET status = 'failed', last_error = 'model crashed' WHERE external_id = 'bad'")
      .run();
    const snap = (await owner.get('/monitor')).json();
    assert.equal(snap.failures[0].lastError, 'model crashed');
    const res = await owner.post('/jobs/retry', { knowledgeBaseId: 'kb-main', integrationId: 'cms', externalId: 'bad' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().status, 'queued');
    const again = await owner.post('/jobs/retry', { knowledgeBaseId: 'kb-main', integrationId: 'cms', externalId: 'bad' });
    assert.equal(again.statusCode, 409);
  });

  it('streams monitor snapshots over SSE when jobs are pushed, coalesced', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    const controller = new AbortController();
    const res = await fetch(`${base}/admin/api/events`, { headers: { cookie: owner.cookie! }, signal: controller.signal });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /text\/event-stream/);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const events = () => text.split('\n\n').filter((e) => e.includes('event: snapshot'));
    const readUntil = async (n: number) => {
      while (events().length < n) text += decoder.decode((await reader.read()).value);
    };
    await readUntil(1);
    const value = t.key();
    const started = Date.now();
    for (let i = 0; i < 20; i++) {
      await fetch(`${base}/ingest`, {
        method: 'POST',
        headers: { 'x-api-key': value, 'content-type': 'application/json' },
        body: JSON.stringify(item({ externalId: `sse-${i}` })),
      });
    }
    const lastSnapshot = () => JSON.parse(events().at(-1)!.split('data: ')[1]!);
    const pushedAt = Date.now();
    const before = t.services.jobs.countByStatus().queued;
    // Every push is committed by now; the stream reports all of them soon, without any polling.
    while (lastSnapshot().counts.queued < before) text += decoder.decode((await reader.read()).value);
    const lag = Date.now() - pushedAt;
    const elapsed = Date.now() - started;
    controller.abort();
    // 20 pushes produced far fewer messages than pushes: at most one per 400 ms (plus the first).
    assert.ok(events().length <= 2 + Math.ceil(elapsed / 400), `${events().length} messages in ${elapsed} ms`);
    assert.ok(lag < 1_400, `the last push reached the stream after ${lag} ms`);
  });

  it('ends a snapshot stream once its user is removed, sending nothing more', async () => {
    const base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    const created = (await owner.post('/users', { username: 'sam', password: 'member password', role: 'member' })).json();
    const sam = new AdminClient(t.app);
    await sam.post('/session', { username: 'sam', password: 'member password' });
    const res = await fetch(`${base}/admin/api/events`, { headers: { cookie: sam.cookie! } });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('event: snapshot')) text += decoder.decode((await reader.read()).value);
    assert.equal((await owner.delete(`/users/${created.id}`)).statusCode, 204);
    const seen = text.length;
    await t.app.inject({ method: 'POST', url: '/ingest', headers: { 'x-api-key': t.key() }, payload: item({ externalId: 'after-removal' }) });
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    assert.doesNotMatch(text.slice(seen), /after-removal|event: snapshot/, 'nothing reached a removed user');
  });
});

describe('admin API: chat, usage and language model settings', () => {
  let t: TestApp;
  let owner: AdminClient;
  let member: AdminClient;
  before(async () => {
    t = await createTestApp();
    owner = new AdminClient(t.app);
    await owner.post('/setup', OWNER);
    await owner.post('/users', { username: 'mia', password: 'member password', role: 'member' });
    member = new AdminClient(t.app);
    await member.post('/session', { username: 'mia', password: 'member password' });
  });
  after(() => t.close());

  it('answers through the session, never with an API key, and counts the question', async () => {
    const res = await member.post('/knowledge-bases/kb-main/ask', { question: 'When are you open?' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().answered, false, 'an empty knowledge base has no answer');
    const withKey = await t.app.inject({
      method: 'POST',
      url: '/admin/api/knowledge-bases/kb-main/ask',
      headers: { 'x-api-key': t.key(), 'content-type': 'application/json' },
      payload: { question: 'When are you open?' },
    });
    assert.equal(withKey.statusCode, 403);
    const usage = await member.get('/usage?granularity=day');
    assert.equal(usage.statusCode, 200);
    assert.equal(usage.json().totals.questions, 1);
  });

  it('streams the answer as Server-Sent Events when asked', async () => {
    const res = await member.post('/knowledge-bases/kb-main/ask', { question: 'When are you open?', stream: true });
    assert.match(String(res.headers['content-type']), /text\/event-stream/);
    assert.match(res.body, /event: answer/);
    assert.match(res.body, /event: done/);
  });

  it('shows the language model settings to everyone; only managers change them, the API key never comes back', async () => {
    assert.equal((await member.get('/settings/llm')).json().baseUrl, null);
    const denied = await member.request('PUT', '/settings/llm', { baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3' });
    assert.equal(denied.statusCode, 403);
    const saved = await owner.request('PUT', '/settings/llm', { baseUrl: 'http://127.0.0.1:11434/v1/', model: 'llama3', apiKey: 'sk-local-secret' });
    assert.equal(saved.statusCode, 200);
    const { test, ...settings } = saved.json();
    assert.deepEqual(settings, { baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3', hasApiKey: true, timeoutMs: 30_000, apiKeyRemoved: false });
    assert.equal(test.ok, false, 'nothing listens there: saving says so');
    assert.ok(!(await member.get('/settings/llm')).body.includes('sk-local-secret'));
    const bad = await owner.request('PUT', '/settings/llm', { baseUrl: 'ftp://x', model: 'm' });
    assert.equal(bad.statusCode, 400);
    const cleared = await owner.request('PUT', '/settings/llm', { baseUrl: null, model: null, apiKey: null });
    assert.equal(cleared.json().hasApiKey, false);
  });

  it('reports the server settings read-only, with how to turn on LAN access', async () => {
    const res = (await member.get('/settings')).json();
    assert.equal(res.dataDir, t.dataDir);
    assert.equal(res.lanAccess, false);
    assert.match(res.lanAccessHelp, /LOCALIQ_HOST=0\.0\.0\.0/);
  });
});

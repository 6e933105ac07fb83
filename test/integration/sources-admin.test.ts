import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AdminWebsiteSource, AdminWebsiteSync } from '../../common/contract/sources.ts';
import { AdminClient, signedInAs } from '../helpers/admin-client.ts';
import { pdfFile } from '../helpers/document-fixtures.ts';
import { type ShopSite, startShopSite } from '../helpers/shop-site.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

const OWNER = { username: 'owner', password: 'owner password 1' };

describe('admin API: website sources', () => {
  let t: TestApp;
  let site: ShopSite;
  let owner: AdminClient;
  let admin: AdminClient;
  let member: AdminClient;

  before(async () => {
    site = await startShopSite(await pdfFile([['Catalogue']]));
    t = await createTestApp();
    owner = new AdminClient(t.app);
    assert.equal((await owner.post('/setup', OWNER)).statusCode, 201);
    admin = await signedInAs(owner, t.app, 'admin');
    member = await signedInAs(owner, t.app, 'member');
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  const input = () => ({ startUrl: `${site.url}/`, knowledgeBaseId: 'shop', every: '24h', exclude: ['/*.pdf'], allowPrivateNetwork: true });

  it('lets only the Owner reach the private network, and Members only look', async () => {
    assert.equal((await member.post('/sources', input())).statusCode, 403);
    const byAdmin = await admin.post('/sources', input());
    assert.equal(byAdmin.statusCode, 403);
    assert.match(byAdmin.json().message, /Only the Owner/);
    assert.equal((await member.get('/sources')).statusCode, 200);
  });

  it('refuses bad input with the field to fix, and a change without the CSRF header', async () => {
    const badEvery = await owner.post('/sources', { ...input(), every: 'often' });
    assert.equal(badEvery.statusCode, 400);
    assert.equal(badEvery.json().details[0].path, 'every');
    const badUrl = await owner.post('/sources', { ...input(), startUrl: 'ftp://shop.example/' });
    assert.equal(badUrl.statusCode, 400);
    assert.equal(badUrl.json().details[0].path, 'startUrl');
    const tooOften = await owner.post('/sources', { ...input(), every: '10m' });
    assert.equal(tooOften.json().details[0].path, 'every');
    const noCsrf = await owner.post('/sources', input(), { 'x-localiq-csrf': 'wrong' });
    assert.equal(noCsrf.statusCode, 403);
  });

  it('adds a source, syncs it at once with progress to read, syncs again on demand, and removes it', async () => {
    const created = await owner.post('/sources', input());
    assert.equal(created.statusCode, 201, created.body);
    const source = created.json() as AdminWebsiteSource;
    assert.equal(source.everyHours, 24);
    assert.equal(source.lastSync?.state, 'running');
    const finished = async (syncId: string) => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const sync = (await member.get(`/sources/${source.id}/syncs/${syncId}`)).json() as AdminWebsiteSync;
        if (sync.state !== 'running') return sync;
        if (Date.now() > deadline) throw new Error('the sync did not finish');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const first = await finished(source.lastSync!.id);
    assert.equal(first.state, 'succeeded', first.error ?? '');
    assert.equal(first.added, 7, 'eight public pages but the excluded PDF');
    assert.ok(first.skipped.some((skip) => skip.reason === 'disallowed by robots.txt'));
    const listed = (await member.get('/sources')).json() as { sources: AdminWebsiteSource[] };
    assert.equal(listed.sources.find((s) => s.id === source.id)?.lastSync?.added, 7);
    const again = await admin.post(`/sources/${source.id}/sync`);
    assert.equal(again.statusCode, 202);
    const second = await finished((again.json() as AdminWebsiteSync).id);
    assert.deepEqual([second.added, second.updated, second.unchanged], [0, 0, 7]);
    assert.equal((await member.delete(`/sources/${source.id}`)).statusCode, 403);
    assert.equal((await admin.delete(`/sources/${source.id}`)).statusCode, 204);
    assert.equal((await member.get(`/sources/${source.id}`)).statusCode, 404);
    assert.equal((await admin.post('/sources/nope/sync')).statusCode, 404);
  });
});

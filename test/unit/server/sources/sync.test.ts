import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { IngestItem } from '../../../../common/contract/ingest.ts';
import type { Fetch } from '../../../../server/sources/crawl.ts';
import { WebsiteSources } from '../../../../server/sources/sync.ts';
import { openDatabase } from '../../../../server/storage/db.ts';
import { Originals } from '../../../../server/storage/originals.ts';
import { WebsiteSourceRepo } from '../../../../server/storage/website-source-repo.ts';
import { tempDataDir } from '../../../helpers/temp-data.ts';

const HOUR = 3_600_000;
const page = (title: string) => `<html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${`${title} explained in a sentence long enough to count. `.repeat(4)}</p></main></body></html>`;

const fetch: Fetch = async (url) => {
  const path = new URL(url).pathname;
  if (path === '/') return { url, status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from(page('Home') .replace('</main>', '<a href="/a">A</a></main>')), redirects: [] };
  if (path === '/a') return { url, status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from(page('A')), redirects: [] };
  return { url, status: 404, headers: {}, body: Buffer.alloc(0), redirects: [] };
};

function setup(now: { t: number }) {
  const dataDir = tempDataDir();
  const db = openDatabase(dataDir);
  const store = new WebsiteSourceRepo(db);
  const pushed: IngestItem[] = [];
  const deleted: string[] = [];
  const make = () =>
    new WebsiteSources({
      store,
      push: async (items) => void pushed.push(...items),
      originals: new Originals(dataDir),
      deleteItem: (identity) => void deleted.push(identity.externalId),
      clock: () => now.t,
      fetch,
    });
  return { db, store, pushed, deleted, make };
}

describe('WebsiteSources', () => {
  const dbs: Array<{ close(): void }> = [];
  after(() => dbs.forEach((db) => db.close()));

  it('pushes each page as a PAGE file item whose external id and url are the page address', async () => {
    const now = { t: 1_000 * HOUR };
    const { db, pushed, make } = setup(now);
    dbs.push(db);
    const sources = make();
    const source = sources.create({ knowledgeBaseId: 'kb', startUrl: 'https://shop.test/' });
    const sync = await sources.sync(source.id).done;
    assert.equal(sync.state, 'succeeded');
    assert.deepEqual(pushed.map((item) => [item.sourceType, item.externalId, item.data.url, item.integrationId]).sort(), [
      ['PAGE', 'https://shop.test/', 'https://shop.test/', `website-${source.id}`],
      ['PAGE', 'https://shop.test/a', 'https://shop.test/a', `website-${source.id}`],
    ]);
    assert.equal(pushed.find((item) => item.externalId.endsWith('/a'))?.data.title, 'A');
  });

  it('continues a sync a stopped server left running, under the same id', async () => {
    const now = { t: 1_000 * HOUR };
    const { db, store, pushed, make } = setup(now);
    dbs.push(db);
    const source = make().create({ knowledgeBaseId: 'kb', startUrl: 'https://shop.test/' });
    const summary = { added: 0, updated: 0, unchanged: 0, removed: 0, skipped: [], requests: 0, bytes: 0 };
    store.insertSync({ id: 'left-running', sourceId: source.id, state: 'running', startedAt: now.t, finishedAt: null, summary, error: null });
    const restarted = make();
    restarted.run();
    await restarted.settled();
    await restarted.stop();
    const sync = store.getSync('left-running')!;
    assert.equal(sync.state, 'succeeded');
    assert.equal(sync.summary.added, 2);
    assert.equal(pushed.length, 2);
  });

  it('leaves a sync stopped with the server as running, for the next start', async () => {
    const now = { t: 1_000 * HOUR };
    const { db, store, make } = setup(now);
    dbs.push(db);
    let asked!: () => void;
    const reached = new Promise<void>((resolve) => (asked = resolve));
    // A site that answers only once the request is given up: the sync is under way when the server stops.
    const hanging: Fetch = (_url, options) => {
      asked();
      return new Promise((_resolve, reject) => options.signal!.addEventListener('abort', () => reject(options.signal!.reason)));
    };
    const sources = new WebsiteSources({ store, push: async () => {}, originals: new Originals(tempDataDir()), deleteItem: () => {}, clock: () => now.t, fetch: hanging });
    const source = sources.create({ knowledgeBaseId: 'kb', startUrl: 'https://shop.test/' });
    const { sync } = sources.sync(source.id);
    await reached;
    await sources.stop();
    assert.equal(store.getSync(sync.id)!.state, 'running');
    assert.deepEqual(store.runningSyncs().map((s) => s.id), [sync.id]);
  });

  it('runs a scheduled sync when due, and one missed while LocalIQ was stopped at start', async () => {
    const now = { t: 1_000 * HOUR };
    const { db, store, make } = setup(now);
    dbs.push(db);
    const sources = make();
    const source = sources.create({ knowledgeBaseId: 'kb', startUrl: 'https://shop.test/', everyMs: 24 * HOUR });
    const first = await sources.sync(source.id).done;
    now.t += 23 * HOUR;
    assert.deepEqual(sources.tick(), [], 'not yet due');
    // LocalIQ stopped for two days: the next start catches up at once.
    now.t += 48 * HOUR;
    const restarted = make();
    restarted.run();
    await restarted.settled();
    await restarted.stop();
    const caughtUp = store.lastSync(source.id)!;
    assert.notEqual(caughtUp.id, first.id);
    assert.equal(caughtUp.startedAt, now.t);
    assert.equal(caughtUp.summary.unchanged, 2);
  });

  it('deletes the item of a page that turned noindex at the next sync', async () => {
    const now = { t: 1_000 * HOUR };
    const { db, store, deleted } = setup(now);
    dbs.push(db);
    let hidden = false;
    const toggling: Fetch = async (url, options) => {
      const answer = await fetch(url, options);
      if (hidden && url.endsWith('/a')) return { ...answer, headers: { ...answer.headers, 'x-robots-tag': 'noindex' } };
      return answer;
    };
    const sources = new WebsiteSources({ store, push: async () => {}, originals: new Originals(tempDataDir()), deleteItem: (identity) => void deleted.push(identity.externalId), clock: () => now.t, fetch: toggling });
    const source = sources.create({ knowledgeBaseId: 'kb', startUrl: 'https://shop.test/' });
    await sources.sync(source.id).done;
    hidden = true;
    const second = await sources.sync(source.id).done;
    assert.equal(second.summary.removed, 1);
    assert.deepEqual(deleted, ['https://shop.test/a']);
    assert.deepEqual(store.pages(source.id).map((page) => page.url), ['https://shop.test/']);
  });

  it('refuses a source it cannot crawl, naming the field', () => {
    const { db, make } = setup({ t: 0 });
    dbs.push(db);
    const sources = make();
    assert.throws(() => sources.create({ knowledgeBaseId: 'kb', startUrl: 'file:///etc/passwd' }), { field: 'startUrl' });
    assert.throws(() => sources.create({ knowledgeBaseId: 'kb', startUrl: 'https://shop.test/', everyMs: 60_000 }), { field: 'every' });
    assert.throws(() => sources.create({ knowledgeBaseId: 'kb', startUrl: 'https://shop.test/', maxPages: 0 }), { field: 'maxPages' });
    assert.throws(() => sources.create({ knowledgeBaseId: 'kb', startUrl: 'https://shop.test/', include: ['blog/*'] }), { field: 'include' });
  });
});

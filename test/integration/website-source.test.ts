import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../server/main.ts';
import { sourceIntegrationId, type WebsiteSync } from '../../server/domain/website-sources.ts';
import { pdfFile } from '../helpers/document-fixtures.ts';
import { startPipelineServer, waitForIdle } from '../helpers/pipeline-app.ts';
import { BOILERPLATE, type ShopSite, startShopSite } from '../helpers/shop-site.ts';

/**
 * A shop's website crawled into a knowledge base by the real server (pipeline, model, SQLite):
 * everything public indexed once, nothing disallowed ever asked for, no boilerplate in the items,
 * and a re-sync that re-embeds exactly the pages that changed.
 */
let site: ShopSite;
let server: RunningServer & { key: string; dataDir: string };

const count = (sql: string, ...params: unknown[]) => (server.services.db.prepare(sql).get(...params) as { n: number }).n;

describe('a website source on loopback', () => {
  before(async () => {
    site = await startShopSite(await pdfFile([['Corner Candle Co. catalogue 2024', 'Beeswax-free pillar candles in six colours.']]));
    server = await startPipelineServer();
  });
  after(async () => {
    await server?.stop();
    await site?.close();
  });

  let sourceId = '';
  let integrationId = '';
  const sync = async (): Promise<WebsiteSync> => {
    const finished = await server.services.websiteSources.sync(sourceId).done;
    await waitForIdle(server, 120_000);
    assert.equal(finished.state, 'succeeded', finished.error ?? '');
    return finished;
  };
  const jobs = () => count('SELECT count(*) AS n FROM jobs WHERE integration_id = ?', integrationId);
  const items = () =>
    server.services.db.prepare('SELECT external_id AS url, title, text FROM items WHERE integration_id = ? ORDER BY external_id').all(integrationId) as Array<{ url: string; title: string; text: string }>;

  it('indexes every public page once, never asks for what robots.txt disallows, and keeps boilerplate out', async () => {
    const source = server.services.websiteSources.create({ knowledgeBaseId: 'shop', startUrl: `${site.url}/`, allowPrivateNetwork: true });
    sourceId = source.id;
    integrationId = sourceIntegrationId(source.id);
    const first = await sync();
    const expected = ['/', '/about', '/catalogue.pdf', '/faq', '/products/fig-candle', '/products/lavender-candle', '/returns', '/shipping'].map((p) => `${site.url}${p}`).sort();
    assert.deepEqual(items().map((item) => item.url), expected);
    assert.equal(first.summary.added, 8);
    assert.equal(jobs(), 8);
    assert.ok(!site.requests.some((path) => path.startsWith('/account')), 'a disallowed page is never requested');
    const reasons = Object.fromEntries(first.summary.skipped.map((skip) => [skip.url.replace(site.url, ''), skip.reason]));
    assert.equal(reasons['/account/orders'], 'disallowed by robots.txt');
    assert.equal(reasons['/draft-sale'], 'noindex (robots meta tag)');
    assert.equal(reasons['/contact'], 'noindex (X-Robots-Tag)');
    assert.match(reasons['/returns?utm_source=mail'] ?? '', /canonical/);
    for (const item of items()) for (const phrase of BOILERPLATE) assert.ok(!item.text.includes(phrase), `${item.url} holds "${phrase}"`);
    const faq = items().find((item) => item.url.endsWith('/faq'))!;
    assert.match(faq.text, /45 hours/);
    const pdf = items().find((item) => item.url.endsWith('/catalogue.pdf'))!;
    assert.match(pdf.text, /pillar candles/);
    // Headings are kept for citations, as an uploaded document's are.
    const sections = server.services.db
      .prepare('SELECT c.section AS section FROM chunks c JOIN items i ON i.id = c.item_id WHERE i.external_id = ?')
      .all(`${site.url}/returns`) as Array<{ section: string | null }>;
    assert.ok(sections.some((row) => row.section?.includes('Damaged goods')), JSON.stringify(sections));
  });

  it('re-syncs an unchanged site without pushing a page again, with conditional requests', async () => {
    const before = jobs();
    const requestsBefore = site.requests.length;
    const second = await sync();
    assert.equal(jobs(), before);
    assert.equal(second.summary.unchanged, 8, JSON.stringify(second.summary));
    assert.equal(second.summary.added + second.summary.updated + second.summary.removed, 0);
    assert.ok(site.requests.length > requestsBefore);
  });

  it('re-embeds exactly the 2 changed and 1 added pages and deletes the removed one', async () => {
    const chunksBefore = count('SELECT count(*) AS n FROM chunks c JOIN items i ON i.id = c.item_id WHERE i.integration_id = ?', integrationId);
    const embedded = new Map(
      (server.services.db.prepare('SELECT external_id AS url, updated_at AS at FROM items WHERE integration_id = ?').all(integrationId) as Array<{ url: string; at: number }>).map((r) => [r.url, r.at]),
    );
    site.pages.get('/about')!.body += '<p>In 2024 we moved to a bigger workshop on Milsom Street.</p>';
    site.pages.get('/shipping')!.body = '<p>Orders placed before 1 pm ship the same working day; delivery takes one to two days.</p>';
    site.pages.delete('/products/fig-candle');
    site.sitemap.delete('/products/fig-candle');
    site.pages.set('/products/cedar-candle', { title: 'Cedar candle', body: '<p>A woody cedar and vetiver candle in a 200 g jar, £20.</p>' });
    site.sitemap.add('/products/cedar-candle');
    const jobsBefore = jobs();
    const third = await sync();
    assert.deepEqual([third.summary.added, third.summary.updated, third.summary.removed, third.summary.unchanged], [1, 2, 1, 5]);
    assert.equal(jobs() - jobsBefore, 3, 'three pages pushed, no other');
    const after = new Map(
      (server.services.db.prepare('SELECT external_id AS url, updated_at AS at FROM items WHERE integration_id = ?').all(integrationId) as Array<{ url: string; at: number }>).map((r) => [r.url, r.at]),
    );
    const changed = [...after].filter(([url, at]) => embedded.get(url) !== at).map(([url]) => url.replace(site.url, '')).sort();
    assert.deepEqual(changed, ['/about', '/products/cedar-candle', '/shipping']);
    assert.ok(!after.has(`${site.url}/products/fig-candle`));
    assert.match(items().find((item) => item.url.endsWith('/shipping'))!.text, /before 1 pm/);
    assert.ok(chunksBefore > 0);
  });

  it('deletes a page no longer linked nor in the sitemap only on the second sync in a row', async () => {
    // /faq is reachable only by a link from /about; the link goes, the page stays up.
    site.pages.get('/about')!.body = '<p>Ann started pouring candles in her kitchen in 2015.</p>';
    const fourth = await sync();
    assert.equal(fourth.summary.removed, 0);
    assert.ok(items().some((item) => item.url.endsWith('/faq')));
    const fifth = await sync();
    assert.equal(fifth.summary.removed, 1);
    assert.ok(!items().some((item) => item.url.endsWith('/faq')));
  });

  it('refuses the loopback site without allowPrivateNetwork, asking it nothing', async () => {
    const source = server.services.websiteSources.create({ knowledgeBaseId: 'shop', startUrl: `${site.url}/` });
    const requestsBefore = site.requests.length;
    const finished = await server.services.websiteSources.sync(source.id).done;
    assert.equal(site.requests.length, requestsBefore);
    assert.equal(finished.state, 'failed');
    assert.match(finished.error ?? '', /private or loopback address/);
  });

  it('removes a source with its items', async () => {
    assert.ok(items().length > 0);
    assert.equal(await server.services.websiteSources.remove(sourceId), true);
    await waitForIdle(server);
    assert.equal(items().length, 0);
    assert.equal(server.services.websiteSourceStore.get(sourceId), null);
  });
});

import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { ENGLISH_WIDGET_TEXTS } from '../../common/contract/widget-texts.ts';
import { isFinalJobStatus, type JobStatus } from '../../common/contract/jobs.ts';
import { WIDGET_BUNDLE } from '../helpers/fake-widget-api.ts';
import { runCli, type ServerProcess, startServerProcess, waitForExit } from '../helpers/server-process.ts';
import { tempDataDir } from '../helpers/temp-data.ts';
import { launchChromium } from './browser.ts';
import { serveShop, type Site } from './loopback.ts';
import { until } from './until.ts';

/**
 * The widget on a shop's product pages, against a real `localiq serve`: two scarves of different
 * lengths, "how long is this?" asked on each one's page is answered about that scarf, with its
 * product card (title, price, link); on a page whose address no item has, the snippet's
 * `data-external-id` and `LocalIQ.setContext` name the item.
 */

const SHOTS = '/tmp/widget-product-shots';
const KB = 'scarves';
const S = ENGLISH_WIDGET_TEXTS;

/** A shop on its own port: every path is a page with the snippet; `/lookbook` names an item by its id. */
const startShop = (snippet: (path: string) => string) =>
  serveShop(
    (path) =>
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
      `<title>Scarves</title></head><body><main><h1>Scarves</h1><p>${path}</p></main>${snippet(path)}</body></html>`,
  );

describe('the widget on a product page (Chromium, real server)', { timeout: 300_000 }, () => {
  let dataDir = '';
  let server: ServerProcess;
  let apiKey = '';
  let widgetId = '';
  let shop: Site;
  let browser: Browser;
  const pageErrors: string[] = [];

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, { ...init, headers: { 'x-api-key': apiKey, 'content-type': 'application/json', ...init.headers } });

  before(async () => {
    assert.ok(fs.existsSync(WIDGET_BUNDLE), 'out/widget/widget.js exists: run `npm run build` first');
    fs.mkdirSync(SHOTS, { recursive: true });
    dataDir = tempDataDir();
    server = await startServerProcess(dataDir, { LOCALIQ_WORKERS: '1' });
    apiKey = JSON.parse(runCli(dataDir, ['keys', 'create', '--name', 'Shop sync', '--scopes', 'iq:import,iq:read', '--json'])).value;
    shop = await startShop((path) => {
      const named = path === '/lookbook' ? ' data-external-id="alpine-scarf"' : '';
      return `<script src="${server.url}/widget.js" data-widget="${widgetId}"${named} async></script>`;
    });

    // The products' pages are the shop's own: their items' data.url is where the visitor stands.
    const items = [
      {
        externalId: 'alpine-scarf', title: 'Alpine wool scarf', url: `${shop.url}/products/alpine-scarf`, sourceData: { price: 49, currency: 'EUR' },
        content: 'A warm merino scarf knitted in the Alps, with fringed ends. It is 180 cm long and 30 cm wide.',
      },
      {
        externalId: 'coastal-scarf', title: 'Coastal linen scarf', url: `${shop.url}/products/coastal-scarf`, sourceData: { price: '29.00 EUR' },
        content: 'A light linen scarf for summer evenings by the sea. It is 150 cm long and 45 cm wide.',
      },
    ];
    const jobIds: string[] = [];
    for (const { externalId, ...data } of items) {
      const pushed = await api('/ingest', { method: 'POST', body: JSON.stringify({ integrationId: 'shop', knowledgeBaseId: KB, sourceType: 'PRODUCT', externalId, data }) });
      assert.equal(pushed.status, 200, await pushed.clone().text());
      jobIds.push(((await pushed.json()) as { jobId: string }).jobId);
    }
    await until(async () => {
      const statuses = await Promise.all(jobIds.map(async (id) => ((await (await api(`/jobs/${id}`)).json()) as { status: JobStatus }).status));
      if (!statuses.every(isFinalJobStatus)) return false;
      assert.deepEqual(statuses, ['succeeded', 'succeeded']);
      return true;
    }, 'the products are indexed', { ms: 120_000 });
    const created = runCli(dataDir, ['widgets', 'create', '--name', 'Scarf shop', '--knowledge-base', KB, '--origin', shop.url, '--json']);
    widgetId = (JSON.parse(created) as { id: string }).id;
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await shop?.close();
    if (server) {
      server.child.kill('SIGTERM');
      await waitForExit(server.child);
    }
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    assert.deepEqual(pageErrors, [], 'no uncaught script errors in any page');
  });

  async function visit(path: string, viewport = { width: 1280, height: 800 }): Promise<Page> {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${shop.url}${path}`);
    await page.getByRole('button', { name: S.launcherLabel }).click();
    await page.getByRole('dialog', { name: S.title }).waitFor();
    return page;
  }

  const input = (page: Page) => page.getByRole('textbox', { name: S.inputLabel });
  const lastAnswer = (page: Page) => page.locator('localiq-widget .msg.bot').last();

  /** Asks in the open panel; resolves with the request's body once the answer is complete. */
  async function ask(page: Page, question: string): Promise<{ question: string; context?: { url?: string; externalId?: string } }> {
    const request = page.waitForRequest((req) => req.url().endsWith(`/v1/widget/${widgetId}/ask`));
    await input(page).fill(question);
    await input(page).press('Enter');
    const body = JSON.parse((await request).postData() ?? '{}');
    await until(async () => !(await page.getByRole('button', { name: S.send, exact: true }).isDisabled()) && (await input(page).inputValue()) === '', 'the answer is complete', { ms: 60_000, page, failureShot: `${SHOTS}/stuck.png` });
    return body;
  }

  it('answers "how long is this?" about the product whose page the visitor is on, with its card', async () => {
    for (const [path, title, length, other, price] of [
      ['/products/coastal-scarf', 'Coastal linen scarf', /150 cm/, /180 cm/, '29.00 EUR'],
      ['/products/alpine-scarf/', 'Alpine wool scarf', /180 cm/, /150 cm/, '49.00 EUR'],
    ] as const) {
      const page = await visit(`${path}?utm_source=newsletter#reviews`);
      const sent = await ask(page, 'how long is this?');
      assert.deepEqual(sent.context, { url: `${shop.url}${path}` }, 'the page is sent without its query or fragment');
      const answer = lastAnswer(page);
      const text = await answer.innerText();
      assert.match(text, length, `${path} → ${text}`);
      assert.doesNotMatch(text, other, 'the other scarf is not mixed in');
      const card = answer.getByRole('group', { name: title });
      assert.equal(await card.getByRole('link', { name: title }).getAttribute('href'), `${shop.url}${path.replace(/\/$/, '')}`);
      assert.match(await card.innerText(), new RegExp(price.replace('.', '\\.')));
      await page.screenshot({ path: `${SHOTS}/${title.split(' ')[0]!.toLowerCase()}-1280.png` });
      await page.context().close();
    }
  });

  it('at 320 px the card wraps inside the answer, and nothing in it fails an accessibility check', async () => {
    const page = await visit('/products/coastal-scarf', { width: 320, height: 640 });
    await ask(page, 'how long is this?');
    const card = lastAnswer(page).getByRole('group', { name: 'Coastal linen scarf' });
    const [cardBox, bubbleBox] = [await card.boundingBox(), await lastAnswer(page).boundingBox()];
    assert.ok(cardBox && bubbleBox && cardBox.x >= bubbleBox.x && cardBox.x + cardBox.width <= bubbleBox.x + bubbleBox.width + 0.5, 'the card stays inside its bubble');
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true, 'no sideways scrolling');
    const results = await new AxeBuilder({ page }).include('localiq-widget').analyze();
    const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), []);
    await page.screenshot({ path: `${SHOTS}/coastal-320.png` });
    await page.context().close();
  });

  it('on a page no item has, answers about the item the snippet names, then the one LocalIQ.setContext names', async () => {
    const page = await visit('/lookbook');
    const sent = await ask(page, 'how long is this?');
    assert.equal(sent.context?.externalId, 'alpine-scarf');
    assert.match(await lastAnswer(page).innerText(), /180 cm/);
    await page.evaluate(() => (window as unknown as { LocalIQ: { setContext(c: { externalId: string }): void } }).LocalIQ.setContext({ externalId: 'coastal-scarf' }));
    await ask(page, 'and how wide is it?');
    const text = await lastAnswer(page).innerText();
    assert.match(text, /45 cm wide/, text);
    assert.doesNotMatch(text, /30 cm/);
    await page.context().close();
  });
});

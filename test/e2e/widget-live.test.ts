import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { ENGLISH_WIDGET_TEXTS, WIDGET_MESSAGES, WIDGET_TEXTS } from '../../common/contract/widget-texts.ts';
import { isFinalJobStatus, type JobStatus } from '../../common/contract/jobs.ts';
import { pdfFile } from '../helpers/document-fixtures.ts';
import { WIDGET_BUNDLE } from '../helpers/fake-widget-api.ts';
import { runCli, type ServerProcess, startServerProcess, waitForExit } from '../helpers/server-process.ts';
import { tempDataDir } from '../helpers/temp-data.ts';
import { launchChromium } from './browser.ts';
import { serveShop, type Site } from './loopback.ts';
import { until } from './until.ts';
import { widgetOverflow } from './widget-overflow.ts';

/**
 * The visitor assistant end to end, as a shop uses it: a real `localiq serve` with its pipeline
 * worker, items pushed with an API key and indexed, a widget made with `localiq widgets create`,
 * and the one-line snippet on a shop's page served from another origin, driven in Chromium.
 * (test/e2e/widget.test.ts covers the widget's every state against a fake API.)
 */

const SHOTS = '/tmp/widget-live-shots';
const KB = 'bakery';
const S = ENGLISH_WIDGET_TEXTS;
const FALLBACK = 'I could not find that in our information. Please call us at 040 123 456.';
const ITEMS = [
  {
    externalId: 'hours', sourceType: 'ARTICLE', title: 'Opening hours', url: 'https://bakery.example/hours',
    content: 'We open at 7 am Monday to Saturday and close at 6 pm. On Sundays the bakery is closed.',
  },
  {
    externalId: 'delivery', sourceType: 'ARTICLE', title: 'Delivery', url: 'https://bakery.example/delivery',
    content: 'We deliver bread and cakes within 10 km of the bakery. Delivery costs 3 EUR per order and arrives before noon.',
  },
  {
    externalId: 'rye', sourceType: 'PRODUCT', title: 'Sourdough rye loaf', url: 'https://bakery.example/products/rye',
    content: 'A sourdough rye loaf with caraway, baked every morning. It weighs 1 kg and costs 4.20 EUR.',
  },
] as const;

/** A two-page PDF uploaded as a file: the answer about vouchers is on its second page. */
const PRICE_LIST_PAGES = [
  ['Price list of the Rye & Co. bakery.', 'All prices include VAT.'],
  ['Gift vouchers are sold in steps of 25 EUR and never expire.'],
];

/** A shop's page on its own port, embedding the snippet a shop pastes (written once the widget exists). */
const startShopSite = (snippet: () => string) =>
  serveShop(
    () =>
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
      '<title>Rye &amp; Co.</title></head><body><main><h1>Rye &amp; Co. bakery</h1><p>Fresh bread every morning.</p></main>' +
      `${snippet()}</body></html>`,
  );

describe('visitor widget against the real server (Chromium, shop page on another origin)', { timeout: 300_000 }, () => {
  let dataDir = '';
  let server: ServerProcess;
  let apiKey = '';
  let widgetId = '';
  let shop: Site;
  let stranger: Site;
  let browser: Browser;
  const pageErrors: string[] = [];

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, { ...init, headers: { 'x-api-key': apiKey, 'content-type': 'application/json', ...init.headers } });

  before(async () => {
    assert.ok(fs.existsSync(WIDGET_BUNDLE), 'out/widget/widget.js exists: run `npm run build` first');
    fs.mkdirSync(SHOTS, { recursive: true });
    dataDir = tempDataDir();
    server = await startServerProcess(dataDir, { LOCALIQ_WORKERS: '1' });
    apiKey = JSON.parse(runCli(dataDir, ['keys', 'create', '--name', 'Shop sync', '--scopes', 'iq:import,iq:read,usage:read', '--json'])).value;

    const jobIds: string[] = [];
    for (const { externalId, sourceType, ...data } of ITEMS) {
      const pushed = await api('/ingest', { method: 'POST', body: JSON.stringify({ integrationId: 'shop', knowledgeBaseId: KB, sourceType, externalId, data }) });
      assert.equal(pushed.status, 200, await pushed.clone().text());
      jobIds.push(((await pushed.json()) as { jobId: string }).jobId);
    }
    await until(async () => {
      const statuses = await Promise.all(jobIds.map(async (id) => ((await (await api(`/jobs/${id}`)).json()) as { status: JobStatus }).status));
      if (!statuses.every(isFinalJobStatus)) return false;
      assert.deepEqual(statuses, ITEMS.map(() => 'succeeded'));
      return true;
    }, 'the pushed items are indexed', { ms: 120_000 });

    // The sites listen first: the widget is made for the shop's origin, with its port.
    const snippet = () => `<script src="${server.url}/widget.js" data-widget="${widgetId}" async></script>`;
    shop = await startShopSite(snippet);
    stranger = await startShopSite(snippet);
    const created = runCli(dataDir, ['widgets', 'create', '--name', 'Rye & Co. assistant', '--knowledge-base', KB, '--origin', shop.url, '--fallback', FALLBACK, '--json']);
    widgetId = (JSON.parse(created) as { id: string }).id;
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await shop?.close();
    await stranger?.close();
    if (server) {
      server.child.kill('SIGTERM');
      await waitForExit(server.child);
    }
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    assert.deepEqual(pageErrors, [], 'no uncaught script errors in any page');
  });

  async function visit(site: Site, viewport = { width: 1280, height: 800 }): Promise<{ page: Page; console: Array<{ type: string; text: string }> }> {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    const messages: Array<{ type: string; text: string }> = [];
    page.on('console', (message) => messages.push({ type: message.type(), text: message.text() }));
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(site.url);
    return { page, console: messages };
  }

  const launcher = (page: Page) => page.getByRole('button', { name: S.launcherLabel });
  const panel = (page: Page) => page.getByRole('dialog', { name: S.title });
  const input = (page: Page) => page.getByRole('textbox', { name: S.inputLabel });
  const lastAnswer = (page: Page) => page.locator('localiq-widget .msg.bot').last();

  /** Asks in the open panel and resolves once the answer is complete (the send button is back). */
  async function ask(page: Page, question: string): Promise<void> {
    const answered = page.waitForResponse((res) => res.url().endsWith(`/v1/widget/${widgetId}/ask`));
    await input(page).fill(question);
    await input(page).press('Enter');
    const response = await answered;
    assert.equal(response.status(), 200);
    assert.match(response.headers()['content-type'] ?? '', /^text\/event-stream/, 'the answer is streamed');
    await until(async () => !(await page.getByRole('button', { name: S.send, exact: true }).isDisabled()) && (await input(page).inputValue()) === '', 'the answer is complete', { ms: 60_000 });
  }

  async function open(page: Page): Promise<void> {
    await launcher(page).click();
    await panel(page).waitFor();
  }

  it('answers from the pushed items with a working source link, falls back when it cannot, and records a thumbs down', async () => {
    const { page } = await visit(shop);
    await open(page);
    await ask(page, 'When do you open?');
    const answer = lastAnswer(page);
    assert.match(await answer.innerText(), /7 am/, 'the answer holds the opening hour');
    const link = answer.getByRole('link', { name: 'Opening hours' });
    assert.equal(await link.getAttribute('href'), 'https://bakery.example/hours');
    assert.equal(await link.getAttribute('rel'), 'noopener noreferrer nofollow');
    await until(async () => (await page.locator('localiq-widget [aria-live=polite]').textContent())?.includes('7 am') ?? false, 'the answer is announced', { ms: 10_000 });
    await page.screenshot({ path: `${SHOTS}/desktop-1280.png` });

    const results = await new AxeBuilder({ page }).include('localiq-widget').analyze();
    const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), []);
    assert.ok(results.passes.some((p) => p.id === 'color-contrast'), 'contrast was checked inside the shadow root');

    const feedback = page.waitForResponse((res) => res.url().endsWith(`/v1/widget/${widgetId}/feedback`));
    await answer.getByRole('button', { name: S.notHelpful }).click();
    assert.equal((await feedback).status(), 204);
    await answer.getByText(S.thanks).waitFor();
    const usage = (await (await api('/usage')).json()) as { visitors: { totals: { questions: number; answered: number; feedbackDown: number } } };
    assert.deepEqual(usage.visitors.totals, { questions: 1, answered: 1, feedbackUp: 0, feedbackDown: 1 });

    await ask(page, 'Do you sell car insurance?');
    assert.equal((await lastAnswer(page).innerText()).split('\n')[0], FALLBACK);
    assert.equal(await lastAnswer(page).getByRole('link').count(), 0, 'no sources under the fallback');
    await page.context().close();
  });

  it('fills the screen at 390 px with the real answer', async () => {
    const { page } = await visit(shop, { width: 390, height: 844 });
    await open(page);
    await ask(page, 'Do you deliver?');
    assert.match(await lastAnswer(page).innerText(), /10 km/);
    assert.equal(await lastAnswer(page).getByRole('link', { name: 'Delivery' }).getAttribute('href'), 'https://bakery.example/delivery');
    assert.deepEqual(await panel(page).boundingBox(), { x: 0, y: 0, width: 390, height: 844 });
    await page.screenshot({ path: `${SHOTS}/mobile-390.png` });
    await page.context().close();
  });

  it('answers a question that misspells the product name from the right product, and says how it read it', async () => {
    const { page } = await visit(shop);
    await open(page);
    await ask(page, 'How much is the sourdogh rye loaf?');
    const answer = lastAnswer(page);
    assert.match(await answer.innerText(), /4\.20 EUR/, 'the answer holds the price');
    // The source's link (the product card above it links the same page).
    assert.equal(await answer.getByRole('listitem').getByRole('link', { name: 'Sourdough rye loaf' }).getAttribute('href'), 'https://bakery.example/products/rye');
    assert.equal((await answer.locator('.read-as').innerText()).trim(), `${S.showingResultsFor} How much is the sourdough rye loaf?`);
    await ask(page, 'Is the rye loaf baked every morning?');
    assert.equal(await lastAnswer(page).locator('.read-as').count(), 0, 'nothing was corrected: no note');
    await page.reload();
    await open(page);
    assert.equal(await page.locator('localiq-widget .read-as').count(), 1, 'the note is kept with the conversation');
    await page.context().close();
  });

  it("names the page of an uploaded PDF's passage under the answer", async () => {
    const form = new FormData();
    form.append('externalId', 'price-list');
    form.append('file', new Blob([new Uint8Array(await pdfFile(PRICE_LIST_PAGES, { title: 'Price list' }))]), 'price-list.pdf');
    const uploaded = await fetch(`${server.url}/knowledge-bases/${KB}/files`, { method: 'POST', headers: { 'x-api-key': apiKey }, body: form });
    assert.equal(uploaded.status, 200, await uploaded.clone().text());
    await until(async () => {
      const { status, error } = (await (await api('/jobs/files-price-list')).json()) as { status: JobStatus; error?: unknown };
      if (isFinalJobStatus(status)) assert.equal(status, 'succeeded', JSON.stringify(error));
      return status === 'succeeded';
    }, 'the PDF is indexed', { ms: 120_000 });

    const { page } = await visit(shop);
    await open(page);
    await ask(page, 'Do gift vouchers expire?');
    const answer = lastAnswer(page);
    assert.match(await answer.innerText(), /never expire/);
    const sources = await answer.locator('.sources li').allInnerTexts();
    assert.ok(sources.includes('Price list, page 2'), `the source names its page: ${JSON.stringify(sources)}`);
    await page.context().close();
  });

  it('speaks German when set to, an own text in place of one built-in text, and shows hostile own text as text', async () => {
    const DE = WIDGET_TEXTS.de;
    const HOSTILE_TITLE = '<img src=x onerror="window.__owned=1"><b>Fragen?</b>';
    let germanId = '';
    const germanShop = await startShopSite(() => `<script src="${server.url}/widget.js" data-widget="${germanId}" async></script>`);
    try {
      const created = runCli(dataDir, [
        'widgets', 'create', '--name', 'Roggen & Co.', '--knowledge-base', KB, '--origin', germanShop.url,
        '--language', 'de', '--text', 'send=Ab damit', '--text', `title=${HOSTILE_TITLE}`, '--json',
      ]);
      germanId = (JSON.parse(created) as { id: string }).id;
      for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
        const { page } = await visit(germanShop, viewport);
        const germanLauncher = page.getByRole('button', { name: DE.launcherLabel });
        await germanLauncher.click();
        const dialog = page.getByRole('dialog', { name: HOSTILE_TITLE });
        await dialog.waitFor();
        const root = await page.locator('localiq-widget').evaluate((host) => {
          const shadow = host.shadowRoot!;
          return {
            lang: shadow.querySelector('.root')!.getAttribute('lang'),
            title: shadow.querySelector('.head h2')!.textContent,
            markup: shadow.querySelectorAll('img, b').length,
            owned: 'owned' in window || '__owned' in window,
          };
        });
        assert.deepEqual(root, { lang: 'de', title: HOSTILE_TITLE, markup: 0, owned: false }, 'the own title is text, not markup');
        const box = page.getByRole('textbox', { name: DE.inputLabel });
        assert.equal(await box.getAttribute('placeholder'), DE.placeholder);
        assert.ok(await dialog.getByRole('button', { name: 'Ab damit', exact: true }).isVisible(), 'the own send text replaces the built-in one');
        assert.ok(await dialog.getByRole('button', { name: DE.newConversation }).isVisible());
        if (viewport.width > 480) assert.ok(await dialog.getByRole('button', { name: DE.close }).isVisible(), 'the close button is labelled in German');
        assert.equal((await page.locator('localiq-widget .msg.bot').first().innerText()).trim(), WIDGET_MESSAGES.de.greeting);

        const answered = page.waitForResponse((res) => res.url().endsWith(`/v1/widget/${germanId}/ask`));
        await box.fill('Do you sell car insurance?');
        await box.press('Enter');
        assert.equal((await answered).status(), 200);
        // The fallback message comes first; the offer to ask the team follows it.
        await until(async () => (await lastAnswer(page).innerText()).trim().startsWith(WIDGET_MESSAGES.de.fallbackMessage), 'the German fallback message', { ms: 60_000 });
        await lastAnswer(page).getByRole('button', { name: DE.helpful, exact: true }).waitFor();

        // German texts are long: nothing in the widget may stick out of its box or the screen.
        const overflowing = await widgetOverflow(page);
        assert.deepEqual(overflowing, [], `at ${viewport.width} px`);
        await page.screenshot({ path: `${SHOTS}/german-${viewport.width}.png` });
        await page.context().close();
      }
      const hosted = await fetch(`${server.url}/w/${germanId}`);
      assert.match(await hosted.text(), /<html lang="de">/);
    } finally {
      await germanShop.close();
    }
  });

  it('shows no launcher on an origin the widget does not allow, and says why in the console', async () => {
    const { page, console } = await visit(stranger);
    await until(async () => console.some((m) => m.type === 'warning'), 'the widget warns', { ms: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const warnings = console.filter((m) => m.type === 'warning').map((m) => m.text);
    assert.deepEqual(warnings, [`LocalIQ widget: this site's origin ${stranger.url} is not allowed for widget ${widgetId}; add it in LocalIQ's Widgets screen.`]);
    assert.equal(await page.locator('localiq-widget').count(), 0);
    assert.equal(await launcher(page).count(), 0);
    await page.context().close();
  });
});

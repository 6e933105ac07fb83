import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { BrowserContext, Page } from 'playwright-core';
import { ENGLISH_WIDGET_TEXTS } from '../../common/contract/widget-texts.ts';
import { BAKERY } from '../helpers/ask-fixtures.ts';
import { runCli } from '../helpers/server-process.ts';
import { useDashboardSession } from './dashboard-session.ts';
import { serveShop, type Site } from './loopback.ts';
import { until } from './until.ts';
import { widgetOverflow } from './widget-overflow.ts';

/**
 * "Did you mean …?" and learning from use, end to end: a real `localiq serve` with its pipeline
 * and model, the widget on a shop's page of another origin and the dashboard, both in Chromium.
 * A visitor asks a rewording of one of the owner's answers that is not matched: the fallback comes
 * with the closest curated questions as buttons; choosing one (by keyboard) gets the curated
 * answer. The owner links an unanswered question in Content gaps to a curated answer; the next
 * visitor asking it so gets that answer.
 */

const SHOTS = process.env.LOCALIQ_SCREENSHOTS ?? '/tmp/did-you-mean-shots';
const failureShot = `${SHOTS}/failure.png`;
const S = ENGLISH_WIDGET_TEXTS;
const KB = 'bakery';
const FALLBACK = 'I could not find that in our information.';
const PARKING = { question: 'Where can I park?', answer: 'Park for free in the yard behind the shop.' };
const CURATED = [
  { question: 'Do you sell sourdough bread?', answer: 'Yes. Our sourdough loaves are baked on Fridays and cost 6 euros.' },
  PARKING,
  { question: 'Can I pay by card?', answer: 'Yes, we take debit and credit cards, and contactless payment.' },
];
/** Close to "Where can I park?" but not matched, and nothing in the content answers it. */
const NEAR_PARKING = 'where do I leave my car';
/** Not close enough to be offered anything; the owner links it in Content gaps. */
const CAMPER = 'Is there somewhere my camper van can stand while I shop?';

const startShopSite = (snippet: () => string) =>
  serveShop(() => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Rye &amp; Co.</title></head><body><h1>Rye &amp; Co.</h1>${snippet()}</body></html>`);

describe('"Did you mean" in the widget, and a content gap linked to a curated answer (real server, Chromium)', { timeout: 300_000 }, () => {
  const app = useDashboardSession({ signInOwner: true, apiKey: { name: 'Shop', scopes: 'iq:import,iq:read' } });
  let shop: Site;
  let widgetId = '';
  const contexts: BrowserContext[] = [];
  const visitorErrors: string[] = [];

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    const items = BAKERY.map((a) => ({ integrationId: 'cms', knowledgeBaseId: KB, sourceType: 'ARTICLE', externalId: a.externalId, data: { title: a.title, content: a.content } }));
    const api = (path: string, init: RequestInit = {}) => fetch(`${app.server.url}${path}`, { ...init, headers: { 'x-api-key': app.apiKey, 'content-type': 'application/json' } });
    const pushed = await api('/ingest/bulk', { method: 'POST', body: JSON.stringify({ items }) });
    assert.equal(pushed.status, 200, await pushed.clone().text());
    await until(async () => {
      const list = (await (await api('/knowledge-bases')).json()) as { data: Array<{ id: string; itemCount: number }> };
      return list.data.some((k) => k.id === KB && k.itemCount === BAKERY.length);
    }, 'the items are indexed', { ms: 120_000 });
    for (const { question, answer } of CURATED) runCli(app.dataDir, ['answers', 'add', '--knowledge-base', KB, '--question', question, '--answer', answer]);
    shop = await startShopSite(() => `<script src="${app.server.url}/widget.js" data-widget="${widgetId}" async></script>`);
    widgetId = (JSON.parse(runCli(app.dataDir, ['widgets', 'create', '--name', 'Rye & Co.', '--knowledge-base', KB, '--origin', shop.url, '--fallback', FALLBACK, '--json'])) as { id: string }).id;
  });

  after(async () => {
    for (const context of contexts) await context.close();
    await shop?.close();
    assert.deepEqual([...app.pageErrors, ...visitorErrors], [], 'no uncaught script errors');
  });

  /** A new visitor (a context of its own) on the shop's page, the panel open. */
  async function visit(width: number): Promise<Page> {
    const context = await app.browser.newContext({ viewport: { width, height: 800 } });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    page.on('pageerror', (error) => visitorErrors.push(error.message));
    await page.goto(shop.url);
    await page.getByRole('button', { name: S.launcherLabel }).click();
    await page.getByRole('dialog', { name: S.title }).waitFor();
    return page;
  }

  /** Asks through the box (or by `submit`, a click), waits for the whole answer; returns its first line. */
  async function ask(page: Page, question: string, submit?: () => Promise<void>): Promise<string> {
    const answered = page.waitForResponse((res) => res.url().endsWith(`/v1/widget/${widgetId}/ask`));
    const input = page.getByRole('textbox', { name: S.inputLabel });
    if (submit) await submit();
    else {
      await input.fill(question);
      await input.press('Enter');
    }
    assert.equal((await answered).status(), 200);
    await until(async () => !(await page.getByRole('button', { name: S.send, exact: true }).isDisabled()) && (await input.inputValue()) === '', 'the answer is complete', { ms: 60_000 });
    return (await page.locator('localiq-widget .msg.bot').last().innerText()).split('\n')[0]!;
  }

  it('offers the closest of the owner\'s questions after a fallback; choosing one by keyboard gets its answer', async () => {
    for (const width of [360, 1280]) {
      const page = await visit(width);
      assert.equal(await ask(page, NEAR_PARKING), FALLBACK);
      const offer = page.locator('localiq-widget .msg.bot').last().getByRole('group', { name: S.didYouMean });
      await offer.waitFor();
      const choices = offer.getByRole('button');
      assert.ok((await choices.count()) >= 1 && (await choices.count()) <= 3, `${await choices.count()} offered`);
      assert.equal(await choices.first().innerText(), PARKING.question, 'the closest first');
      assert.deepEqual(await widgetOverflow(page), [], `nothing sticks out at ${width} px`);
      await page.screenshot({ path: `${SHOTS}/did-you-mean-${width}.png` });
      if (width === 1280) {
        const axe = await new AxeBuilder({ page }).include('localiq-widget').analyze();
        const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
        assert.deepEqual(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), [], 'the offer is labelled and readable');
      }
      const answer = await ask(page, PARKING.question, async () => {
        await choices.first().focus();
        await page.keyboard.press('Enter');
      });
      assert.equal(answer, PARKING.answer, 'the curated answer, as written');
      const asked = page.locator('localiq-widget .msg.user').last();
      assert.equal(await asked.innerText(), PARKING.question, 'the choice is asked as a question of the conversation');
      await page.screenshot({ path: `${SHOTS}/did-you-mean-answered-${width}.png` });
    }
  });

  it('shows the offer in the dashboard chat too', async () => {
    const { page } = app;
    await page.goto(`${app.server.url}/#/chat`);
    await page.getByLabel('Your question').fill(NEAR_PARKING);
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    const offer = page.getByRole('group', { name: 'Did you mean:' });
    await offer.getByRole('button', { name: PARKING.question }).click();
    await page.getByText(PARKING.answer).waitFor();
  });

  it('lets the owner link a content gap to a curated answer; the next visitor asking it so gets that answer', async () => {
    const first = await visit(1280);
    assert.equal(await ask(first, CAMPER), FALLBACK);

    const { page } = app;
    await page.goto(`${app.server.url}/#/content-gaps`);
    const gap = page.locator('.gap-list > li', { hasText: CAMPER });
    await until(async () => (await gap.count()) === 1 || (await page.reload(), false), 'the question shows up as a content gap', { page, failureShot, ms: 60_000 });
    await gap.getByRole('button', { name: 'Answered by one of your answers' }).click();
    const dialog = page.getByRole('dialog', { name: 'Answered by one of your answers' });
    await dialog.getByLabel('Your answer').selectOption({ label: PARKING.question });
    await page.screenshot({ path: `${SHOTS}/link-answer.png` });
    await dialog.getByRole('button', { name: 'Link the answer' }).click();
    await page.getByRole('status').filter({ hasText: `Linked to your answer "${PARKING.question}"` }).waitFor();
    // The list is read again after the link: the group leaves it once that read is back.
    await until(async () => (await page.locator('.gap-list > li', { hasText: CAMPER }).count()) === 0, 'the group left the unanswered ones', { page, failureShot, ms: 15_000 });

    const later = await visit(1280);
    assert.equal(await ask(later, CAMPER), PARKING.answer);
  });
});

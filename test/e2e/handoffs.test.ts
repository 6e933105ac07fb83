import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { BrowserContext, Page } from 'playwright-core';
import { isFinalJobStatus, type JobStatus } from '../../common/contract/jobs.ts';
import { ENGLISH_WIDGET_TEXTS, WIDGET_MESSAGES, WIDGET_TEXTS } from '../../common/contract/widget-texts.ts';
import { verifySignature } from '../../server/webhooks/signing.ts';
import { runCli } from '../helpers/server-process.ts';
import { useDashboardSession } from './dashboard-session.ts';
import { serveShop, type Site, startWebhookReceiver } from './loopback.ts';
import { until } from './until.ts';
import { widgetOverflow } from './widget-overflow.ts';

/**
 * A visitor handed to a person, end to end: a real `localiq serve` with its pipeline, the widget on
 * a shop's page of another origin and the dashboard, both in Chromium, and a webhook receiver on
 * loopback. The assistant cannot answer; the visitor leaves the question with an e-mail address;
 * the receiver hears handoff.created, signed; the owner replies in the Inbox and keeps the reply
 * as a curated answer; the visitor reads the reply on a later visit; another visitor asking the
 * same in other words gets the saved answer at once.
 */

const SHOTS = '/tmp/handoffs-shots';
const failureShot = `${SHOTS}/failure.png`;
const S = ENGLISH_WIDGET_TEXTS;
const KB = 'bakery';
const FALLBACK = 'I could not find that in our information.';
const QUESTION = 'Do you bake wedding cakes?';
const REPLY = 'Yes: we bake wedding cakes to order, with two weeks notice. Call us to talk it through.';
// A name that would run script if it were ever rendered as markup.
const NAME = '<img src=x onerror="window.__handoffXss=1">Grete';
const EMAIL = 'grete@example.org';

const startShopSite = (snippet: () => string) =>
  serveShop(() => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Rye &amp; Co.</title></head><body><h1>Rye &amp; Co.</h1>${snippet()}</body></html>`);

describe('handoffs: a visitor the assistant cannot answer is answered by the shop (real server, Chromium, webhook on loopback)', { timeout: 300_000 }, () => {
  const app = useDashboardSession({ signInOwner: true, apiKey: { name: 'Shop', scopes: 'iq:import,iq:read' } });
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>> | undefined;
  let shop: Site;
  let widgetId = '';
  let secret = '';
  let visitor: BrowserContext;
  const visitorErrors: string[] = [];

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    receiver = await startWebhookReceiver();
    const receiverUrl = `${receiver.url}/hooks`;
    secret = (JSON.parse(runCli(app.dataDir, ['webhooks', 'create', '--url', receiverUrl, '--events', 'handoff.created', '--json'])) as { secret: string }).secret;

    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${app.server.url}${path}`, { ...init, headers: { 'x-api-key': app.apiKey, 'content-type': 'application/json', ...init.headers } });
    const pushed = await api('/ingest', {
      method: 'POST',
      body: JSON.stringify({
        integrationId: 'shop', knowledgeBaseId: KB, sourceType: 'ARTICLE', externalId: 'hours',
        data: { title: 'Opening hours', content: 'We open at 7 am Monday to Saturday and close at 6 pm. On Sundays the bakery is closed.' },
      }),
    });
    assert.equal(pushed.status, 200, await pushed.clone().text());
    const { jobId } = (await pushed.json()) as { jobId: string };
    await until(async () => {
      const { status } = (await (await api(`/jobs/${jobId}`)).json()) as { status: JobStatus };
      if (isFinalJobStatus(status)) assert.equal(status, 'succeeded');
      return status === 'succeeded';
    }, 'the item is indexed', { ms: 120_000 });

    shop = await startShopSite(() => `<script src="${app.server.url}/widget.js" data-widget="${widgetId}" async></script>`);
    widgetId = (JSON.parse(runCli(app.dataDir, ['widgets', 'create', '--name', 'Rye & Co.', '--knowledge-base', KB, '--origin', shop.url, '--fallback', FALLBACK, '--json'])) as { id: string }).id;
    visitor = await app.browser.newContext({ viewport: { width: 1280, height: 800 } });
  });

  after(async () => {
    await visitor?.close();
    await shop?.close();
    await receiver?.close();
    assert.deepEqual([...app.pageErrors, ...visitorErrors], [], 'no uncaught script errors');
  });

  async function visit(context: BrowserContext): Promise<Page> {
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    page.on('pageerror', (error) => visitorErrors.push(error.message));
    await page.goto(shop.url);
    await page.getByRole('button', { name: S.launcherLabel }).click();
    await page.getByRole('dialog', { name: S.title }).waitFor();
    return page;
  }

  async function ask(page: Page, question: string): Promise<string> {
    const answered = page.waitForResponse((res) => res.url().endsWith(`/v1/widget/${widgetId}/ask`));
    const input = page.getByRole('textbox', { name: S.inputLabel });
    await input.fill(question);
    await input.press('Enter');
    assert.equal((await answered).status(), 200);
    await until(async () => !(await page.getByRole('button', { name: S.send, exact: true }).isDisabled()) && (await input.inputValue()) === '', 'the answer is complete', { ms: 60_000 });
    return (await page.locator('localiq-widget .msg.bot').last().innerText()).split('\n')[0]!;
  }

  let handoffId = '';

  it('offers the team after a fallback; the form needs a contact and consent; the receiver hears handoff.created, signed', async () => {
    const page = await visit(visitor);
    assert.equal(await ask(page, QUESTION), FALLBACK);
    await page.locator('localiq-widget .msg.bot').last().getByRole('button', { name: S.handoffOffer }).click();
    const form = page.getByRole('form', { name: S.handoffOffer });
    assert.equal(await form.getByLabel(S.handoffQuestion).inputValue(), QUESTION, 'the form holds the question the assistant could not answer');
    const axe = await new AxeBuilder({ page }).include('localiq-widget').analyze();
    const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), [], 'the form is labelled and readable');
    await page.screenshot({ path: `${SHOTS}/handoff-form.png` });
    await form.getByLabel(S.handoffName).fill(NAME);
    await form.getByRole('button', { name: S.handoffSend }).click();
    assert.equal(await form.getByRole('alert').innerText(), S.handoffNeedContact);
    await form.getByLabel(S.handoffEmail).fill(EMAIL);
    await form.getByRole('button', { name: S.handoffSend }).click();
    assert.equal(await form.getByRole('alert').innerText(), S.handoffNeedConsent);
    await form.getByRole('checkbox', { name: S.handoffConsent }).check();
    const sent = page.waitForResponse((res) => res.url().endsWith(`/v1/widget/${widgetId}/handoffs`) && res.request().method() === 'POST');
    await form.getByRole('button', { name: S.handoffSend }).click();
    const response = await sent;
    assert.equal(response.status(), 201);
    handoffId = ((await response.json()) as { id: string }).id;
    await page.locator('localiq-widget').getByText(S.handoffSent).waitFor();
    await page.screenshot({ path: `${SHOTS}/handoff-sent.png` });
    await page.close();

    await until(async () => receiver!.received.length > 0, 'the webhook receiver had a delivery', { ms: 30_000 });
    const delivery = receiver!.received[0]!;
    assert.ok(verifySignature(delivery.body, secret, delivery.signature), 'the signature checks out against the raw body');
    const [event] = (JSON.parse(delivery.body) as { events: Array<{ type: string; data: Record<string, unknown> }> }).events;
    assert.equal(event!.type, 'handoff.created');
    assert.deepEqual({ handoffId: event!.data.handoffId, widgetId: event!.data.widgetId, question: event!.data.question, contactGiven: event!.data.contactGiven }, { handoffId, widgetId, question: QUESTION, contactGiven: true });
    assert.ok(!delivery.body.includes(EMAIL), 'the contact details stay on the machine');
  });

  it("shows the owner the handoff in the Inbox, as text, and takes the reply with saveAsAnswer", async () => {
    const { page } = app;
    await page.goto(`${app.server.url}/#/knowledge`);
    // The page has been open since sign-in: loaded again, it counts at once rather than at its next poll.
    await page.reload();
    const inboxLink = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /^Inbox/ });
    await until(async () => /1\s*open/.test(await inboxLink.innerText()), 'the navigation counts one open handoff', { page, failureShot });
    await inboxLink.click();
    const card = page.locator(`[data-handoff="${handoffId}"]`);
    await card.getByRole('heading', { name: QUESTION }).waitFor();
    assert.ok((await card.innerText()).includes(NAME), 'the name is shown exactly as typed');
    assert.equal(await card.locator('img').count(), 0, 'nothing a visitor typed becomes markup');
    assert.equal(await page.evaluate(() => (window as unknown as { __handoffXss?: number }).__handoffXss), undefined);
    assert.ok((await card.innerText()).includes(EMAIL));
    await card.getByText(/What the visitor asked before/).click();
    assert.ok((await card.innerText()).includes(`Not answered: ${FALLBACK}`), 'the conversation that led to it');
    await page.screenshot({ path: `${SHOTS}/inbox.png`, fullPage: true });

    await card.getByLabel('Reply', { exact: true }).fill(REPLY);
    await card.getByRole('checkbox', { name: /Also save as the answer/ }).check();
    await card.getByRole('button', { name: 'Send the reply' }).click();
    await card.getByText('Saved as a curated answer.').waitFor();
    await until(async () => !/open/.test(await inboxLink.innerText()), 'the navigation count went', { page, failureShot });
  });

  it('shows the same visitor the reply on a later visit', async () => {
    const page = await visit(visitor);
    const reply = page.locator('localiq-widget .reply');
    await reply.waitFor();
    assert.equal(await reply.locator('.replied').innerText(), S.handoffReplied.replace('{question}', QUESTION));
    assert.ok((await reply.innerText()).includes(REPLY));
    await page.screenshot({ path: `${SHOTS}/reply-seen.png` });
    await page.close();
  });

  it('offers the form, without asking the assistant, when a visitor asks for a person', async () => {
    const other = await app.browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await visit(other);
      const asks: string[] = [];
      page.on('request', (request) => void (request.url().endsWith('/ask') && asks.push(request.url())));
      const input = page.getByRole('textbox', { name: S.inputLabel });
      await input.fill('Can I talk to someone?');
      await input.press('Enter');
      const form = page.getByRole('form', { name: S.handoffOffer });
      await form.waitFor();
      assert.equal(await form.getByLabel(S.handoffQuestion).inputValue(), '', 'nothing went unanswered yet: the visitor writes the question');
      await form.getByRole('button', { name: S.handoffCancel }).click();
      assert.equal(await form.count(), 0);
      assert.deepEqual(asks, [], 'the assistant was not asked');
    } finally {
      await other.close();
    }
  });

  it("answers another visitor's rephrased question with the saved answer", async () => {
    const other = await app.browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await visit(other);
      assert.equal(await page.locator('localiq-widget .reply').count(), 0, "another visitor sees no one else's reply");
      assert.equal(await ask(page, 'Can I order a wedding cake from you?'), REPLY);
    } finally {
      await other.close();
    }
  });

  it("speaks a German widget's language in the whole handoff: the offer, the form, the consent, what it says back", async () => {
    const DE = WIDGET_TEXTS.de;
    let germanId = '';
    const germanShop = await startShopSite(() => `<script src="${app.server.url}/widget.js" data-widget="${germanId}" async></script>`);
    const other = await app.browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    try {
      germanId = (JSON.parse(runCli(app.dataDir, ['widgets', 'create', '--name', 'Roggen & Co.', '--knowledge-base', KB, '--origin', germanShop.url, '--language', 'de', '--json'])) as { id: string }).id;
      const page = await other.newPage();
      page.setDefaultTimeout(30_000);
      page.on('pageerror', (error) => visitorErrors.push(error.message));
      await page.goto(germanShop.url);
      await page.getByRole('button', { name: DE.launcherLabel }).click();
      const dialog = page.getByRole('dialog', { name: DE.title });
      await dialog.waitFor();
      assert.equal(await page.locator('localiq-widget .root').getAttribute('lang'), 'de');
      await dialog.getByRole('button', { name: DE.handoffOffer, exact: true }).waitFor();
      assert.ok((await page.locator('localiq-widget .msg.bot').first().innerText()).includes(WIDGET_MESSAGES.de.greeting));

      // Asked for a person in German: the form, without asking the assistant.
      const asks: string[] = [];
      page.on('request', (request) => void (request.url().endsWith('/ask') && asks.push(request.url())));
      const input = page.getByRole('textbox', { name: DE.inputLabel });
      await input.fill('Kann ich bitte mit jemandem sprechen?');
      await input.press('Enter');
      const form = page.getByRole('form', { name: DE.handoffOffer });
      await form.waitFor();
      assert.deepEqual(asks, [], 'the assistant was not asked');
      assert.equal(await form.locator('.title').innerText(), DE.handoffOffer);
      await form.getByLabel(DE.handoffQuestion).fill('Backen Sie auch glutenfreie Hochzeitstorten?');
      await form.getByLabel(DE.handoffName).fill('Grete');
      await form.getByLabel(DE.handoffPhone).waitFor();
      await form.getByText(DE.handoffContactHint).waitFor();
      await form.getByRole('button', { name: DE.handoffCancel }).waitFor();
      await form.getByRole('button', { name: DE.handoffSend }).click();
      assert.equal(await form.getByRole('alert').innerText(), DE.handoffNeedContact);
      await form.getByLabel(DE.handoffEmail).fill(EMAIL);
      await form.getByRole('button', { name: DE.handoffSend }).click();
      assert.equal(await form.getByRole('alert').innerText(), DE.handoffNeedConsent);
      const consent = form.getByRole('checkbox', { name: DE.handoffConsent });
      await consent.waitFor();

      for (const viewport of [{ width: 390, height: 844 }, { width: 1280, height: 800 }]) {
        await page.setViewportSize(viewport);
        assert.deepEqual(await widgetOverflow(page), [], `the German form at ${viewport.width} px`);
        await page.screenshot({ path: `${SHOTS}/handoff-form-de-${viewport.width}.png` });
      }
      const axe = await new AxeBuilder({ page }).include('localiq-widget').analyze();
      const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      assert.deepEqual(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), [], 'the German form is labelled and readable');

      await consent.check();
      const sent = page.waitForResponse((res) => res.url().endsWith(`/v1/widget/${germanId}/handoffs`) && res.request().method() === 'POST');
      await form.getByRole('button', { name: DE.handoffSend }).click();
      assert.equal((await sent).status(), 201);
      await page.locator('localiq-widget').getByText(DE.handoffSent).waitFor();
      await page.setViewportSize({ width: 390, height: 844 });
      assert.deepEqual(await widgetOverflow(page), [], 'the German thanks at 390 px');
      await page.screenshot({ path: `${SHOTS}/handoff-sent-de-390.png` });
    } finally {
      await other.close();
      await germanShop.close();
    }
  });
});

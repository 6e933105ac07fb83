import assert from 'node:assert/strict';
import fs from 'node:fs';
import { before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { WIDGET_TEXTS } from '../../common/contract/widget-texts.ts';
import { WIDGET_BUNDLE } from '../helpers/fake-widget-api.ts';
import { OWNER, useDashboardSession } from './dashboard-session.ts';
import { until } from './until.ts';

const SHOTS = '/tmp/widgets-shots';
const KB = 'bakery';
const MEMBER = { username: 'milo', password: 'member password 1' };

/** The preview's shadow root, read in the page: what a visitor would see. */
async function previewLook(page: Page): Promise<{ launcher: string; greeting: string; starters: string[]; left: boolean }> {
  return page.locator('[data-testid="widget-preview"]').evaluate((host) => {
    const root = host.shadowRoot!;
    const launcher = root.querySelector<HTMLElement>('.launcher')!;
    return {
      launcher: getComputedStyle(launcher).backgroundColor,
      greeting: root.querySelector('.log')?.firstElementChild?.textContent ?? '',
      starters: Array.from(root.querySelectorAll('.starters button')).map((b) => b.textContent ?? ''),
      left: root.querySelector('.root')!.classList.contains('left'),
    };
  });
}

/** Signs in through the admin API as a browser would (cookie and CSRF header), for setting up users. */
async function adminSession(url: string, credentials: { username: string; password: string }) {
  const res = await fetch(`${url}/admin/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-localiq-csrf': 'sign-in' },
    body: JSON.stringify(credentials),
  });
  assert.equal(res.status, 200, await res.clone().text());
  const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
  const { csrfToken } = (await res.json()) as { csrfToken: string };
  return (method: string, path: string, body: unknown) =>
    fetch(`${url}/admin/api${path}`, {
      method,
      headers: { cookie, 'x-localiq-csrf': csrfToken, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
}

describe('Widgets screen (real server, real Chromium)', { timeout: 240_000 }, () => {
  const app = useDashboardSession({ signInOwner: true, apiKey: { name: 'Bakery shop', scopes: 'iq:import,iq:read' } });
  const shot = async (name: string, width: number) => {
    await app.page.setViewportSize({ width, height: 900 });
    // From the top, so the sticky menu and preview are where a visitor of the page first sees them.
    await app.page.evaluate(() => window.scrollTo(0, 0));
    await app.page.screenshot({ path: `${SHOTS}/${name}-${width}.png`, fullPage: true });
  };
  let widgetId = '';

  before(async () => {
    assert.ok(fs.existsSync(WIDGET_BUNDLE), 'out/widget/widget.js exists: run `npm run build:widget` first');
    fs.mkdirSync(SHOTS, { recursive: true });
    await app.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.server.url });
    const item = { integrationId: 'web', knowledgeBaseId: KB, sourceType: 'ARTICLE', externalId: 'hours', data: { title: 'Opening hours', content: 'Open daily from 7 to 18.' } };
    const pushed = await fetch(`${app.server.url}/ingest`, { method: 'POST', headers: { 'x-api-key': app.apiKey, 'content-type': 'application/json' }, body: JSON.stringify(item) });
    assert.equal(pushed.status, 200, await pushed.text());
    await until(async () => {
      const list = await fetch(`${app.server.url}/knowledge-bases`, { headers: { 'x-api-key': app.apiKey } });
      return ((await list.json()) as { data: Array<{ id: string }> }).data.some((kb) => kb.id === KB);
    }, 'the knowledge base exists once its item is processed', { ms: 60_000 });
  });

  it('creates a widget in the form, the preview following the colour, greeting, starters and position', async () => {
    const { page } = app;
    await page.goto(`${app.server.url}/#/widgets`);
    await page.getByRole('heading', { name: 'No widgets yet' }).waitFor();
    await shot('list-empty', 1440);
    await page.getByRole('button', { name: 'Create widget' }).click();
    await page.getByRole('heading', { name: 'New widget' }).waitFor();
    await until(async () => (await page.locator('[data-testid="widget-preview"]').evaluate((h) => Boolean(h.shadowRoot?.querySelector('.launcher')))), 'the preview draws', { ms: 10_000 });
    const first = await previewLook(page);
    assert.equal(first.launcher, 'rgb(31, 95, 191)', 'the default theme colour, #1f5fbf');
    assert.match(first.greeting, /Hello! Ask me anything/);

    await page.getByLabel('Name', { exact: true }).fill('Bakery assistant');
    await page.getByRole('checkbox', { name: KB }).check();
    const origins = page.getByLabel('Allowed origins, one per line');
    await origins.fill('https://Shop.example/path');
    await page.getByText('"https://Shop.example/path": an origin is a scheme, a host').waitFor();
    assert.equal(await origins.getAttribute('aria-invalid'), 'true', 'checked as it is typed, before any submit');
    await origins.fill('https://shop.example\nhttps://*.shop.example');
    await until(async () => (await origins.getAttribute('aria-invalid')) === null, 'the fixed origins clear their error', { ms: 10_000 });

    await page.getByLabel('Theme colour', { exact: true }).fill('#aa3300');
    await page.getByLabel('Greeting').fill('Moin! Fresh bread today.');
    await page.getByLabel('Starter question 1').fill('When are you open?');
    await page.getByRole('radio', { name: 'Bottom left' }).check();
    await until(async () => (await previewLook(page)).launcher === 'rgb(170, 51, 0)', 'the preview takes the new colour', { ms: 10_000 });
    const changed = await previewLook(page);
    assert.equal(changed.greeting, 'Moin! Fresh bread today.');
    assert.deepEqual(changed.starters, ['When are you open?']);
    assert.equal(changed.left, true);

    await page.getByText('Texts', { exact: true }).click();
    assert.equal(await page.getByLabel('Send button', { exact: true }).getAttribute('placeholder'), 'Send');
    // The language picker: the built-in texts shown as placeholders and the preview follow it.
    const previewText = (selector: string) =>
      page.locator('[data-testid="widget-preview"]').evaluate((h, s) => h.shadowRoot!.querySelector(s)?.textContent ?? '', selector);
    await page.getByLabel('Language').selectOption('de');
    await until(async () => (await previewText('.launcher span')) === 'Frage stellen', 'the preview speaks German', { ms: 10_000 });
    assert.equal(await page.getByLabel('Send button', { exact: true }).getAttribute('placeholder'), 'Senden');
    assert.equal(await page.locator('[data-testid="widget-preview"]').evaluate((h) => h.shadowRoot!.querySelector('.root')!.getAttribute('lang')), 'de');
    assert.equal(await page.getByLabel('Greeting').inputValue(), 'Moin! Fresh bread today.', "the owner's own greeting stays");
    await page.getByLabel('Send button', { exact: true }).fill('Abschicken');
    await until(async () => (await previewText('form.ask button')) === 'Abschicken', 'the preview takes a changed text', { ms: 10_000 });
    // The consent wording is one of the widget's texts, its own field outside the folded ones.
    const consent = page.getByLabel('Consent for being contacted');
    assert.equal(await consent.getAttribute('placeholder'), WIDGET_TEXTS.de.handoffConsent, "the German built-in wording, in grey");
    await consent.fill('Der Laden darf mich\nzu meiner Frage anrufen.');
    assert.equal(await consent.inputValue(), 'Der Laden darf mich zu meiner Frage anrufen.', 'one line, as every text of the widget');
    await page.getByLabel('Per day (UTC)').fill('0');
    await page.getByRole('button', { name: 'Create widget' }).click();
    const limitError = page.locator('#widget-limits-dailyQuestions-error');
    await limitError.waitFor();
    await page.getByLabel('Per day (UTC)').fill('500');
    await until(async () => (await limitError.count()) === 0, 'a fixed limit clears its error', { ms: 10_000 });
    await shot('new', 1440);
    await shot('new', 720);
    await page.setViewportSize({ width: 1280, height: 900 });

    await page.getByRole('button', { name: 'Create widget' }).click();
    await page.getByText('Widget created. Paste this line').waitFor();
    widgetId = /#\/widgets\/(wgt_\w+)/.exec(page.url())?.[1] ?? '';
    assert.match(widgetId, /^wgt_[A-Za-z0-9]{20}$/);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Bakery assistant');
    assert.deepEqual(app.pageErrors, []);
  });

  it('shows the snippet to copy and the hosted page', async () => {
    const { page } = app;
    const snippet = await page.getByLabel('snippet', { exact: true }).textContent();
    assert.equal(snippet, `<script src="${app.server.url}/widget.js" data-widget="${widgetId}" async></script>`);
    await page.getByRole('button', { name: 'Copy snippet' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), snippet);
    assert.equal(await page.getByTestId('hosted-page').getAttribute('href'), `${app.server.url}/w/${widgetId}`);
    await shot('edit', 1440);
    await shot('edit', 720);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('edits the widget, keeping what the form showed', async () => {
    const { page } = app;
    assert.equal(await page.getByLabel('Greeting').inputValue(), 'Moin! Fresh bread today.');
    assert.equal(await page.getByLabel('Theme colour', { exact: true }).inputValue(), '#aa3300');
    assert.equal(await page.getByLabel('Per day (UTC)').inputValue(), '500');
    assert.equal(await page.getByLabel('Language').inputValue(), 'de', 'the language picked is saved');
    assert.equal(await page.getByLabel('Send button', { exact: true }).inputValue(), 'Abschicken');
    assert.equal(await page.getByLabel('Consent for being contacted').inputValue(), 'Der Laden darf mich zu meiner Frage anrufen.', 'saved as the widget\'s handoffConsent text');
    await page.getByLabel('Name', { exact: true }).fill('Bakery helper');
    await page.getByLabel('Allowed origins, one per line').fill('https://shop.example');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.getByRole('heading', { name: 'Bakery helper', level: 1 }).waitFor();
    await page.goto(`${app.server.url}/#/widgets`);
    const row = page.locator(`tr[data-widget-id="${widgetId}"]`);
    await row.getByText('Bakery helper').waitFor();
    assert.match((await row.textContent()) ?? '', /^Bakery helper onwgt_\w{20}bakeryhttps:\/\/shop\.example0 of 500Edit$/);
    await shot('list', 1440);
    await shot('list', 720);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('shows a Member the widget read-only', async () => {
    const owner = await adminSession(app.server.url, OWNER);
    assert.equal((await owner('POST', '/users', { ...MEMBER, role: 'member' })).status, 201);
    const context = await app.browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    await page.goto(`${app.server.url}/#/widgets/${widgetId}`);
    await page.getByLabel('Username').fill(MEMBER.username);
    await page.getByLabel('Password').fill(MEMBER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('You can see this widget; only the Owner and Admins can change it.').waitFor();
    assert.equal(await page.getByLabel('Name', { exact: true }).isDisabled(), true);
    for (const name of ['Save changes', 'Disable', 'Delete']) assert.equal(await page.getByRole('button', { name }).count(), 0, name);
    assert.ok(await page.getByLabel('snippet', { exact: true }).isVisible());
    await context.close();
  });

  it('disables and enables the widget, then deletes it after confirmation', async () => {
    const { page } = app;
    await page.goto(`${app.server.url}/#/widgets/${widgetId}`);
    await page.getByRole('button', { name: 'Disable' }).click();
    const disable = page.getByRole('dialog', { name: 'Disable this widget?' });
    await disable.getByText('https://shop.example').waitFor();
    await disable.getByRole('button', { name: 'Disable widget' }).click();
    await page.getByRole('button', { name: 'Enable' }).waitFor();
    assert.equal(await page.getByRole('checkbox', { name: /^Enabled/ }).isChecked(), false, 'the form follows');
    await page.goto(`${app.server.url}/#/widgets`);
    await page.locator(`tr[data-widget-id="${widgetId}"] .badge`).filter({ hasText: 'off' }).waitFor();
    await page.getByRole('link', { name: 'Edit Bakery helper' }).click();
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByRole('button', { name: 'Disable' }).waitFor();

    await page.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this widget?' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await fetch(`${app.server.url}/admin/api/widgets/${widgetId}`, { headers: { cookie: (await app.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ') } })).status, 200, 'cancel keeps it');
    await page.getByRole('button', { name: 'Delete' }).click();
    await confirm.getByRole('button', { name: 'Delete widget' }).click();
    await page.getByRole('heading', { name: 'No widgets yet' }).waitFor();
    assert.equal(page.url(), `${app.server.url}/#/widgets`);
    assert.deepEqual(app.pageErrors, []);
  });
});

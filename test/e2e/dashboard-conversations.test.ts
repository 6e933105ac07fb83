/**
 * A chat in the dashboard shows up on the Conversations screen, in Debian's Chromium against a
 * real `localiq serve`: the Owner asks two questions in the Chat screen (one the knowledge base
 * answers, one it does not, rated "Not helpful"), a visitor asks through the widget API; the
 * Conversations screen lists both with who asked, the Source filter narrows to the dashboard's,
 * and the reading view shows the user and both turns. "New conversation" starts another.
 * Screenshots at 1280 and 390 px go to /tmp/dashboard-conversations-shots.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { OWNER, useDashboardSession } from './dashboard-session.ts';
import { createBakeryWidget, KB, ORIGIN, pushBakery } from './bakery.ts';
import { shootWidths } from './screenshots.ts';
import { until } from './until.ts';

const SHOTS = '/tmp/dashboard-conversations-shots';

const failureShot = `${SHOTS}/failure.png`;

describe('Dashboard chat on the Conversations screen (real server, real Chromium)', { timeout: 300_000 }, () => {
  const app = useDashboardSession({ signInOwner: true, apiKey: { name: 'Bakery shop', scopes: 'iq:import,iq:read' }, env: { LOCALIQ_TRUSTED_PROXY: '127.0.0.1' } });
  const onFailure = () => ({ page: app.page, failureShot });
  const shot = (name: string) => shootWidths(app.page, `${SHOTS}/${name}`, [1280, 390]);

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    await pushBakery(app.server.url, app.apiKey);
    // A visitor asks through a widget, so the list holds both sources.
    const widgetId = await createBakeryWidget(app.page);
    const headers = { origin: ORIGIN, 'x-forwarded-for': '10.8.0.1', 'content-type': 'application/json' };
    const session = await fetch(`${app.server.url}/v1/widget/${widgetId}/sessions`, { method: 'POST', headers });
    assert.equal(session.status, 201);
    const { token } = (await session.json()) as { token: string };
    const asked = await fetch(`${app.server.url}/v1/widget/${widgetId}/ask`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${token}` },
      body: JSON.stringify({ question: 'Is delivery free?' }),
    });
    assert.match(await asked.text(), /event: done/);
  });

  it('a chat in the dashboard is listed with its user, found by the Source filter, and read with its turns', async () => {
    const { page } = app;
    await page.goto(`${app.server.url}/#/chat`);
    await page.getByLabel('Knowledge base').selectOption(KB);
    await page.getByLabel('Your question').fill('When does the bakery open on Sundays?');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.getByTestId('citation').filter({ hasText: 'Opening hours' }).first().waitFor({ timeout: 60_000 });
    await page.getByLabel('Your question').fill('Do you sell gift cards?');
    await page.getByRole('button', { name: 'Ask' }).click();
    const second = page.getByTestId('answer').nth(1);
    await second.getByText('Try other words, or choose another knowledge base above.').waitFor({ timeout: 60_000 });
    const notHelpful = second.getByRole('button', { name: 'Not helpful' });
    await notHelpful.click();
    await until(async () => (await notHelpful.getAttribute('aria-pressed')) === 'true', 'the rating is kept', onFailure());
    await shot('chat');

    await page.goto(`${app.server.url}/#/conversations`);
    const rows = page.locator('tr[data-conversation-id]');
    await until(async () => (await rows.count()) === 2, 'the dashboard chat and the visitor\'s conversation', onFailure());
    const staffRow = rows.filter({ hasText: 'When does the bakery open on Sundays?' });
    assert.match((await staffRow.innerText()).replace(/\s+/g, ' '), new RegExp(`dashboard ${OWNER.username}`, 'i'));
    assert.match(await staffRow.innerText(), /1 thumbs down/i);
    assert.match((await rows.filter({ hasText: 'Is delivery free?' }).innerText()).replace(/\s+/g, ' '), /visitor Bakery shop/i);
    await shot('conversations-both');

    await page.getByLabel('Source').selectOption('dashboard');
    await page.getByRole('button', { name: 'Apply' }).click();
    await until(async () => (await rows.count()) === 1, 'only the dashboard chat', onFailure());
    const csv = await page.evaluate(async (href) => (await fetch(href)).text(), (await page.getByTestId('export-csv').getAttribute('href'))!);
    const lines = csv.replace(/^\uFEFF/, '').trim().split('\r\n');
    assert.equal(lines.length, 1 + 2, 'a header and the chat\'s two questions');
    assert.ok(lines.slice(1).every((l) => l.includes('"dashboard"') && l.includes(`"${OWNER.username}"`)));
    await shot('conversations-dashboard');

    await rows.first().getByRole('link', { name: /Read/ }).click();
    await page.getByRole('heading', { name: 'Conversation' }).waitFor();
    const turns = page.getByTestId('conversation-turn');
    await until(async () => (await turns.count()) === 2, 'the chat\'s two turns', onFailure());
    const meta = (await page.locator('dl.meta').innerText()).replace(/\s+/g, ' ');
    assert.match(meta, /Source Dashboard chat/);
    assert.match(meta, new RegExp(`User ${OWNER.username}`));
    assert.match(await turns.nth(0).innerText(), /Opening hours/);
    assert.match(await turns.nth(1).innerText(), /not in the knowledge base · rated not helpful/);
    await shot('conversation-dashboard');

    // A new conversation in the chat is a second conversation on the screen.
    await page.goto(`${app.server.url}/#/chat`);
    await page.getByRole('button', { name: 'New conversation' }).click();
    await page.getByLabel('Your question').fill('Is delivery free?');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.getByTestId('citation').filter({ hasText: 'Delivery' }).first().waitFor({ timeout: 60_000 });
    await page.goto(`${app.server.url}/#/conversations`);
    await until(async () => (await rows.count()) === 2, 'two dashboard conversations (the Source filter is kept)', onFailure());
    assert.deepEqual(app.pageErrors, []);
  });

  it('asks as a visitor on an item\'s page: "is it free?" is answered from that item', async () => {
    const { page } = app;
    await page.goto(`${app.server.url}/#/chat`);
    await page.getByRole('button', { name: 'New conversation' }).click();
    await page.getByText('Ask as a visitor on a page').click();
    await page.getByLabel('Item external ID').fill('delivery');
    await page.getByLabel('Your question').fill('is it free?');
    await page.getByRole('button', { name: 'Ask' }).click();
    const answer = page.getByTestId('answer').last();
    await answer.getByTestId('citation').first().waitFor({ timeout: 60_000 });
    assert.match(await answer.getByTestId('citation').first().innerText(), /Delivery/);
    assert.match(await answer.innerText(), /free for orders above 30 euros/);
    assert.equal(await page.getByTestId('asked-on').last().innerText(), 'Asked on item delivery');
    await shot('chat-page-context');
    assert.deepEqual(app.pageErrors, []);
  });
});

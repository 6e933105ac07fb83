/**
 * The owner's screens on what visitors asked, in Debian's Chromium against a real `localiq serve`:
 * conversations seeded by visitors asking through the public widget API (several addresses,
 * through the trusted proxy header), then the Conversations screen (filters, reading view, export,
 * delete with confirmation), Content gaps (grouped questions, write the answer) and Usage (the
 * visitor charts). Screenshots at 390, 720, 1024 and 1440 px go to /tmp/visitor-insights-shots.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { useDashboardSession } from './dashboard-session.ts';
import { createBakeryWidget, KB, ORIGIN, pushBakery } from './bakery.ts';
import { shootWidths } from './screenshots.ts';
import { until } from './until.ts';

const SHOTS = '/tmp/visitor-insights-shots';

const failureShot = `${SHOTS}/failure.png`;

describe('Conversations, Content gaps and Usage screens (real server, real Chromium)', { timeout: 300_000 }, () => {
  const app = useDashboardSession({ signInOwner: true, apiKey: { name: 'Bakery shop', scopes: 'iq:import,iq:read' }, env: { LOCALIQ_TRUSTED_PROXY: '127.0.0.1' } });
  const onFailure = () => ({ page: app.page, failureShot });
  const shot = (name: string) => shootWidths(app.page, `${SHOTS}/${name}`, [390, 720, 1024, 1440]);
  let widgetId = '';
  let visitors = 0;

  /** A visitor from an address of its own asks questions in one session; returns the answers' `done` events. */
  async function visitor(questions: string[], rateDown = false): Promise<void> {
    const headers = { origin: ORIGIN, 'x-forwarded-for': `10.9.0.${++visitors}`, 'content-type': 'application/json' };
    const session = await fetch(`${app.server.url}/v1/widget/${widgetId}/sessions`, { method: 'POST', headers });
    assert.equal(session.status, 201, await session.clone().text());
    const { token } = (await session.json()) as { token: string };
    for (const question of questions) {
      const res = await fetch(`${app.server.url}/v1/widget/${widgetId}/ask`, {
        method: 'POST',
        headers: { ...headers, authorization: `Bearer ${token}` },
        body: JSON.stringify({ question }),
      });
      const text = await res.text();
      const done = JSON.parse(/event: done\ndata: (.*)/.exec(text)![1]!) as { answerId: string };
      if (rateDown) {
        const rated = await fetch(`${app.server.url}/v1/widget/${widgetId}/feedback`, {
          method: 'POST',
          headers: { ...headers, authorization: `Bearer ${token}` },
          body: JSON.stringify({ answerId: done.answerId, rating: 'down' }),
        });
        assert.equal(rated.status, 204);
      }
    }
  }

  const consoleErrors: string[] = [];
  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    app.page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    await pushBakery(app.server.url, app.apiKey);
    // The widget, through the dashboard's own API in the signed-in page.
    widgetId = await createBakeryWidget(app.page, { visitorQuestionsPerMinute: 600, widgetQuestionsPerMinute: 6000 });
    await visitor(['When do you open on Sundays?', 'Do you sell gift cards?']);
    await visitor(['Can I buy a gift card for my friend?']);
    await visitor(['do you sell gift cards']);
    await visitor(['Is delivery free?'], true);
    await visitor(['Where can I park my car?']);
  });

  it('Conversations: lists, filters, opens one, exports, and deletes with confirmation', async () => {
    const { page } = app;
    await page.goto(`${app.server.url}/#/conversations`);
    const rows = page.locator('tr[data-conversation-id]');
    await until(async () => (await rows.count()) === 5, 'five conversations listed');
    await shot('conversations');
    await page.getByLabel('Only unanswered').check();
    await page.getByRole('button', { name: 'Apply' }).click();
    await until(async () => (await rows.count()) === 4, 'four conversations with an unanswered question');
    await page.getByLabel('Only unanswered').uncheck();
    await page.getByLabel('Question contains').fill('gift');
    await page.getByRole('button', { name: 'Apply' }).click();
    await until(async () => (await rows.count()) === 3, 'three conversations ask about gift cards');
    const csv = await page.evaluate(async (href) => (await fetch(href)).text(), (await page.getByTestId('export-csv').getAttribute('href'))!);
    assert.equal(csv.trim().split('\r\n').length, 1 + 4, 'the export holds the filtered conversations: a header and four questions');
    assert.ok(!csv.includes('10.9.0.'), 'no address in the export');
    await page.getByRole('button', { name: 'Clear' }).click();
    await until(async () => (await rows.count()) === 5, 'all again');

    await rows.filter({ hasText: 'When do you open on Sundays?' }).getByRole('link', { name: /Read/ }).click();
    await page.getByRole('heading', { name: 'Conversation' }).waitFor();
    const turns = page.getByTestId('conversation-turn');
    // The heading shows before the turns have loaded.
    await until(async () => (await turns.count()) === 2, 'the conversation\'s two turns');
    assert.match((await turns.nth(0).textContent()) ?? '', /Opening hours/);
    assert.match((await turns.nth(1).textContent()) ?? '', /not in the knowledge base/);
    await shot('conversation');

    await page.goto(`${app.server.url}/#/conversations`);
    await rows.filter({ hasText: 'Where can I park my car?' }).getByRole('link', { name: /Read/ }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete conversation' }).click();
    await until(async () => (await rows.count()) === 4, 'the deleted conversation is gone');
  });

  it('Content gaps: one group for three wordings, most visitors first; the answer written in the form', async () => {
    const { page } = app;
    await page.goto(`${app.server.url}/#/content-gaps`);
    const gaps = page.locator('li[data-gap-id]');
    await until(async () => (await gaps.count()) >= 2, `the gift-card and delivery gaps (page errors: ${app.pageErrors.join('; ')}; console: ${consoleErrors.join('; ').slice(0, 1500)}; at ${app.page.url()})`, onFailure());
    const gift = gaps.first();
    assert.match((await gift.locator('h2').textContent()) ?? '', /gift card/i);
    assert.equal(await gift.locator('.stats dd').first().textContent(), '3', 'three visitors');
    assert.equal(await gift.getByRole('region', { name: 'How visitors asked it' }).locator('li').count(), 3);
    assert.ok((await gaps.filter({ hasText: 'Is delivery free?' }).count()) === 1, 'a thumbs-down answer is a gap');
    await shot('content-gaps');

    const giftId = await gift.getAttribute('data-gap-id');
    await gift.getByRole('button', { name: 'Write the answer' }).click();
    const dialog = page.getByRole('dialog');
    // The page id is filled in and says what it is and what the integration "dashboard" is.
    const pageId = dialog.getByLabel('Page id');
    assert.equal(await pageId.inputValue(), `answer-${giftId}`);
    const described = await pageId.evaluate((input) => document.getElementById(input.getAttribute('aria-describedby') ?? '')?.textContent ?? '');
    assert.match(described, /already filled in for this question/);
    assert.match(described, /integration\s+"dashboard", apart from what your shop or CMS\s+pushes/);
    await dialog.getByLabel('Title').fill('Gift cards');
    await dialog.getByRole('textbox', { name: 'Answer' }).fill('Yes, we sell gift cards in the shop for any amount from 10 euros. They are valid for two years.');
    await shot('content-gaps-answer');
    await dialog.getByRole('button', { name: 'Save the answer' }).click();
    await page.getByRole('status').filter({ hasText: 'Answer saved' }).waitFor();
    await until(async () => (await gaps.filter({ has: page.getByRole('heading', { name: /gift card/i }) }).count()) === 0, 'the group leaves the open gaps', onFailure());
    await until(async () => {
      const job = await fetch(`${app.server.url}/jobs/dashboard-answer-${giftId}?knowledgeBaseId=${KB}`, { headers: { 'x-api-key': app.apiKey } });
      return job.ok && ((await job.json()) as { status: string }).status === 'succeeded';
    }, 'the answer is indexed', { ms: 120_000 });
    await page.getByLabel('Show').selectOption('answered');
    await until(async () => (await gaps.count()) === 1, 'the answered group');
  });

  it('Usage: the visitor totals, charts and tables', async () => {
    const { page } = app;
    await page.goto(`${app.server.url}/#/usage`);
    const section = page.getByRole('region', { name: 'Website visitors' });
    await until(async () => (await section.count()) === 1, 'the visitor section', onFailure());
    const stats = section.getByRole('definition');
    await until(async () => (await stats.count()) === 7, 'the visitor totals');
    assert.equal(await stats.nth(1).textContent(), '6', 'six questions');
    await section.getByRole('figure', { name: 'Visitor sessions and questions' }).locator('svg').first().waitFor();
    await shot('usage');
    // At the narrowest supported window every table of the screen fits its card: no sideways
    // scrolling, no header cut off, no row made tall by a note in one cell.
    await page.setViewportSize({ width: 720, height: 900 });
    const cramped = await page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLElement>('main .table-wrap')).flatMap((wrap) => {
        const caption = wrap.querySelector('caption')?.textContent ?? '?';
        const problems: string[] = [];
        if (wrap.scrollWidth > wrap.clientWidth + 1) problems.push(`${caption}: ${wrap.scrollWidth - wrap.clientWidth} px hidden to the right`);
        for (const th of Array.from(wrap.querySelectorAll('th'))) if (th.scrollWidth > th.clientWidth + 1) problems.push(`${caption}: "${th.textContent}" cut off`);
        for (const row of Array.from(wrap.querySelectorAll('tbody tr'))) {
          const height = row.getBoundingClientRect().height;
          if (height > 100) problems.push(`${caption}: a row ${Math.round(height)} px tall (${row.textContent?.slice(0, 30)})`);
        }
        return problems;
      }),
    );
    await page.setViewportSize({ width: 1280, height: 900 });
    assert.deepEqual(cramped, []);
    const top = await section.getByRole('table', { name: 'Top visitor questions' }).locator('tbody tr').allInnerTexts();
    assert.ok(top.length >= 3, top.join(' / '));
    assert.deepEqual(app.pageErrors, []);
  });
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { CLI, cliEnv } from '../helpers/server-process.ts';
import { useDashboardSession } from './dashboard-session.ts';

/**
 * The narrowest window LocalIQ supports, a tablet held upright (the narrowest page beside the
 * side menu), a small laptop, and a large screen.
 */
const WIDTHS = [720, 768, 1024, 1440];
/** Screenshots of the dialogs checked here, at each width, to look at. */
const SHOTS = '/tmp/screen-widths-shots';
const KB = 'bakery-and-pastry-shop';

/** Long names and many columns, as a real shop has them: what pushes a page wider than its window. */
const ITEMS = Array.from({ length: 6 }, (_, i) => ({
  integrationId: 'webshop-catalogue-synchronisation',
  knowledgeBaseId: KB,
  sourceType: 'PRODUCT',
  externalId: `sourdough-rye-loaf-with-sunflower-seeds-${i}`,
  data: {
    title: `Sourdough rye loaf with sunflower seeds and a very long product name number ${i}`,
    content: `Baked every morning with organic rye flour. Price: 4.${i}0 EUR.`,
    url: `https://shop.example.com/products/sourdough-rye-loaf-with-sunflower-seeds-and-a-long-slug-${i}`,
  },
}));

/**
 * What a window of `width` shows wrong on the current page: a page wider than the window, a
 * button that is off-screen or cut off at the side (tables must scroll inside their card or fit),
 * or a table's date broken over several lines.
 */
async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const width = window.innerWidth;
    if (document.documentElement.scrollWidth > width) problems.push(`page is ${document.documentElement.scrollWidth} px wide`);
    for (const button of Array.from(document.querySelectorAll<HTMLElement>('main button, main a.button'))) {
      const box = button.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue; // not rendered (a closed dialog)
      // Hidden by a scrolling box it sits in: its visible part is narrower than the button.
      let visibleLeft = box.left;
      let visibleRight = box.right;
      for (let el = button.parentElement; el; el = el.parentElement) {
        if (getComputedStyle(el).overflowX === 'visible') continue;
        const clip = el.getBoundingClientRect();
        visibleLeft = Math.max(visibleLeft, clip.left);
        visibleRight = Math.min(visibleRight, clip.right);
      }
      visibleLeft = Math.max(visibleLeft, 0);
      visibleRight = Math.min(visibleRight, width);
      if (visibleRight - visibleLeft < box.width - 1) problems.push(`button "${button.textContent?.trim()}" is not fully visible`);
    }
    // A table cell that is just a date and time reads on one line ("Nov 29, 2026, 12:09 AM"), not
    // a word a line down a squeezed column: the table scrolls instead.
    for (const cell of Array.from(document.querySelectorAll<HTMLElement>('main td'))) {
      const text = cell.innerText.trim();
      if (!/^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}\s[AP]M$/.test(text)) continue;
      const lineHeight = parseFloat(getComputedStyle(cell).lineHeight) || 20;
      const range = document.createRange();
      range.selectNodeContents(cell);
      const lines = new Set(Array.from(range.getClientRects()).map((rect) => Math.round(rect.top))).size;
      if (lines > 1 || range.getBoundingClientRect().height > lineHeight * 1.5) problems.push(`the date "${text}" wraps onto ${lines} lines`);
    }
    return problems;
  });
}

/** A widget with long names and several origins, made with the CLI as an operator would. */
function createWidget(dataDir: string): string {
  const origins = ['https://www.bakery-and-pastry-shop.example', 'https://*.bakery-and-pastry-shop.example', 'http://localhost:8080'];
  const created = spawnSync(
    process.execPath,
    [CLI, 'widgets', 'create', '--name', 'Bakery and pastry shop assistant for the webshop', '--knowledge-base', KB, ...origins.flatMap((o) => ['--origin', o]), '--json'],
    { env: cliEnv(dataDir), encoding: 'utf8' },
  );
  assert.equal(created.status, 0, created.stderr);
  return JSON.parse(created.stdout).id as string;
}

describe('every screen fits windows from 720 px up (real server, real Chromium)', { timeout: 240_000 }, () => {
  const app = useDashboardSession({
    signInOwner: true,
    apiKey: { name: 'Bakery webshop nightly catalogue synchronisation', scopes: 'iq:import,iq:read,usage:read,articles:read' },
  });

  it('pushes a catalogue so every table has long rows', async () => {
    const res = await fetch(`${app.server.url}/ingest/bulk`, {
      method: 'POST',
      headers: { 'x-api-key': app.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ items: ITEMS }),
    });
    assert.equal(res.status, 200, await res.text());
    // Indexed items are what the knowledge-base screens list: wait until the pipeline has them all.
    for (let tries = 0; ; tries++) {
      const list = await fetch(`${app.server.url}/knowledge-bases/${KB}/items`, { headers: { 'x-api-key': app.apiKey } });
      if (list.ok && ((await list.json()) as { data: unknown[] }).data.length === ITEMS.length) break;
      assert.ok(tries < 120, 'the pipeline indexes the items within a minute');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  });

  it('shows each screen at 720, 768, 1024 and 1440 px with no page wider than the window and every button in view', async () => {
    const nav = app.page.getByRole('navigation', { name: 'Main' }).getByRole('link');
    const routes = [
      ...(await nav.evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).hash))),
      `#/knowledge/${KB}`,
      `#/knowledge/${KB}/items/${ITEMS[0]!.integrationId}/${ITEMS[0]!.externalId}`,
      '#/widgets/new',
      `#/widgets/${createWidget(app.dataDir)}`,
    ];
    assert.ok(routes.length >= 10, `every screen of the menu: ${routes.join(' ')}`);
    const problems: string[] = [];
    for (const width of WIDTHS) {
      await app.page.setViewportSize({ width, height: 800 });
      for (const route of routes) {
        await app.page.goto(`${app.server.url}/${route}`);
        // The screen of this route, not the one before: the menu marks it once it has rendered.
        await app.page.locator(`nav a[aria-current="page"][href="#/${route.split('/')[1]}"]`).waitFor();
        await app.page.locator('main h1').first().waitFor();
        await app.page.waitForLoadState('networkidle');
        // Every primary action is shown (layoutProblems checks that it is also within the window).
        for (const primary of await app.page.locator('main button.primary:not(dialog *)').all()) {
          if (!(await primary.isVisible())) problems.push(`${route} at ${width} px: "${await primary.textContent()}" is hidden`);
        }
        problems.push(...(await layoutProblems(app.page)).map((p) => `${route} at ${width} px: ${p}`));
      }
    }
    assert.deepEqual(problems, []);
    assert.deepEqual(app.pageErrors, []);
  });

  it('keeps a widget\'s page within a phone\'s width: its long hosted-page address wraps', async () => {
    // Owners open the widget's page on a phone to get its snippet and hosted page.
    await app.page.setViewportSize({ width: 390, height: 800 });
    await app.page.goto(`${app.server.url}/#/widgets/${createWidget(app.dataDir)}`);
    const hosted = app.page.getByTestId('hosted-page');
    await hosted.waitFor();
    assert.equal(await app.page.evaluate(() => document.documentElement.scrollWidth), 390, 'the page is no wider than the phone');
    const box = (await hosted.boundingBox())!;
    assert.ok(box.x >= 0 && box.x + box.width <= 390, `the address ends within the window (${box.x + box.width} px)`);
  });

  it('shows the create-key dialog whole at each width, with its knowledge-base picker open', async () => {
    const problems: string[] = [];
    for (const width of WIDTHS) {
      await app.page.setViewportSize({ width, height: 800 });
      await app.page.goto(`${app.server.url}/#/keys`);
      await app.page.getByRole('button', { name: 'Create key' }).click();
      const dialog = app.page.getByRole('dialog', { name: 'Create an API key' });
      await dialog.getByRole('radio', { name: 'Only the ones I choose' }).check();
      const dialogProblems = await layoutProblems(app.page);
      const create = dialog.getByRole('button', { name: 'Create key' });
      await create.scrollIntoViewIfNeeded();
      const box = (await create.boundingBox())!;
      if (box.x < 0 || box.x + box.width > width) dialogProblems.push('"Create key" is off-screen');
      problems.push(...dialogProblems.map((p) => `create-key dialog at ${width} px: ${p}`));
      await dialog.getByRole('button', { name: 'Cancel' }).click();
    }
    assert.deepEqual(problems, []);
    assert.deepEqual(app.pageErrors, []);
  });

  it('shows a created key and its curl whole at each width: the command wraps rather than running off the dialog', async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    const problems: string[] = [];
    for (const width of WIDTHS) {
      await app.page.setViewportSize({ width, height: 800 });
      await app.page.goto(`${app.server.url}/#/keys`);
      await app.page.locator('.page-header').getByRole('button', { name: 'Create key' }).click();
      const form = app.page.getByRole('dialog', { name: 'Create an API key' });
      await form.getByLabel('Name').fill(`Webshop catalogue synchronisation at ${width} px`);
      await form.getByRole('button', { name: 'Create key' }).click();
      const shown = app.page.getByRole('dialog', { name: `Key "Webshop catalogue synchronisation at ${width} px" created` });
      const curl = shown.getByLabel('curl example');
      await curl.waitFor();
      const hidden = await curl.evaluate((pre) => pre.scrollWidth - pre.clientWidth);
      if (hidden > 1) problems.push(`the curl at ${width} px hides ${hidden} px on the right`);
      const box = (await shown.boundingBox())!;
      if (box.x < 0 || box.x + box.width > width) problems.push(`the dialog at ${width} px runs off the window`);
      if (!(await shown.getByRole('button', { name: 'Copy curl example' }).isVisible())) problems.push(`no copy button for the curl at ${width} px`);
      await app.page.screenshot({ path: `${SHOTS}/created-key-${width}.png` });
      await shown.getByRole('button', { name: 'I have stored the key' }).click();
    }
    assert.deepEqual(problems, []);
    assert.deepEqual(app.pageErrors, []);
  });
});

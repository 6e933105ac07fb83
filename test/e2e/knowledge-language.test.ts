import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { GERMAN_ITEMS, GERMAN_KB } from '../helpers/language-fixtures.ts';
import { useDashboardSession } from './dashboard-session.ts';
import { until } from './until.ts';

const MEMBER = { username: 'milo', password: 'member password 1' };

describe("a knowledge base's language in the dashboard (real server, real Chromium)", { timeout: 240_000 }, () => {
  const app = useDashboardSession({ signInOwner: true, apiKey: { name: 'Laden', scopes: 'iq:import,iq:read' } });

  before(async () => {
    const items = GERMAN_ITEMS.map((item) => ({
      integrationId: 'web',
      knowledgeBaseId: GERMAN_KB,
      sourceType: item.sourceType,
      externalId: item.externalId,
      data: { title: item.title, content: item.content },
    }));
    const pushed = await fetch(`${app.server.url}/ingest/bulk`, {
      method: 'POST',
      headers: { 'x-api-key': app.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ items }),
    });
    assert.equal(pushed.status, 200, await pushed.text());
    await until(async () => {
      const list = await fetch(`${app.server.url}/knowledge-bases`, { headers: { 'x-api-key': app.apiKey } });
      const kb = ((await list.json()) as { data: Array<{ id: string; itemCount: number }> }).data.find((k) => k.id === GERMAN_KB);
      return kb?.itemCount === GERMAN_ITEMS.length;
    }, 'every item is indexed', { ms: 120_000 });
  });

  const searchItems = async (words: string) => {
    const { page } = app;
    await page.getByLabel('Search').fill(words);
    await page.getByRole('button', { name: 'Apply' }).click();
  };

  it('the Owner sets German; the page shows the re-index end and the item search then finds inflected forms', async () => {
    const { page } = app;
    await page.goto(`${app.server.url}/#/knowledge/${GERMAN_KB}`);
    await page.getByRole('heading', { name: 'Language' }).waitFor();
    const language = page.getByLabel('Language of its texts');
    assert.equal(await language.inputValue(), 'en');
    assert.deepEqual(await language.locator('option').allInnerTexts(), ['English', 'Deutsch', 'Français', 'Español', 'Italiano', 'Nederlands', 'Português', 'Svenska']);
    await page.getByTestId('kb-language-progress').filter({ hasText: 'reads this knowledge base in English' }).waitFor();
    // Read as English, the item search works as it always did.
    await searchItems('Rucksäcke Trinkblase');
    await page.getByRole('link', { name: 'Rucksack mit 30 Litern' }).waitFor();

    await language.selectOption('de');
    await page.getByRole('button', { name: 'Save language' }).click();
    await page.getByTestId('kb-language-progress').filter({ hasText: 'reads this knowledge base in Deutsch' }).waitFor();
    assert.equal(await language.inputValue(), 'de');
    await searchItems('Jacken');
    await page.getByRole('link', { name: 'Wasserdichte Jacke' }).waitFor();
    await searchItems('Offnungszeiten');
    await page.getByRole('link', { name: 'Öffnungszeiten an Feiertagen' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Wasserdichte Jacke' }).count(), 0);
  });

  it('a Member sees the language but cannot change it', async () => {
    const { page } = app;
    await page.goto(`${app.server.url}/#/settings`);
    await page.getByLabel('Username').fill(MEMBER.username);
    await page.getByLabel('Initial password').fill(MEMBER.password);
    await page.getByLabel('Role', { exact: true }).selectOption('member');
    await page.getByRole('button', { name: 'Add user' }).click();
    await page.getByRole('cell', { name: MEMBER.username, exact: true }).waitFor();

    const context = await app.browser.newContext();
    try {
      const member = await context.newPage();
      member.setDefaultTimeout(20_000);
      await member.goto(`${app.server.url}/#/knowledge/${GERMAN_KB}`);
      await member.getByLabel('Username').fill(MEMBER.username);
      await member.getByLabel('Password').fill(MEMBER.password);
      await member.getByRole('button', { name: 'Sign in' }).click();
      const language = member.getByLabel('Language of its texts');
      await member.getByText('Only the Owner and Admins can change the language.').waitFor();
      assert.equal(await language.inputValue(), 'de');
      assert.equal(await language.isDisabled(), true);
      assert.equal(await member.getByRole('button', { name: 'Save language' }).count(), 0);
    } finally {
      await context.close();
    }
  });

  it('had no script errors', () => {
    assert.deepEqual(app.pageErrors, []);
  });
});

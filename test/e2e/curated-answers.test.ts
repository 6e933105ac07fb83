import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { useDashboardSession } from './dashboard-session.ts';
import { shootWidths } from './screenshots.ts';
import { until } from './until.ts';

const KB = 'kb-shop';

describe('curated answers in the dashboard (real server, real Chromium)', { timeout: 240_000 }, () => {
  const app = useDashboardSession({ signInOwner: true, apiKey: { name: 'Shop', scopes: 'iq:import,iq:read' } });

  before(async () => {
    const pushed = await fetch(`${app.server.url}/ingest`, {
      method: 'POST',
      headers: { 'x-api-key': app.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ integrationId: 'web', knowledgeBaseId: KB, sourceType: 'PAGE', externalId: 'hours', data: { title: 'Opening hours', content: 'We open at 9 from Monday to Saturday.' } }),
    });
    assert.ok(pushed.status < 300, await pushed.text());
    await until(async () => {
      const list = await fetch(`${app.server.url}/knowledge-bases`, { headers: { 'x-api-key': app.apiKey } });
      return ((await list.json()) as { data: Array<{ id: string; itemCount: number }> }).data.some((k) => k.id === KB && k.itemCount === 1);
    }, 'the item is indexed', { ms: 120_000 });
  });

  const ask = async (question: string) => {
    const res = await fetch(`${app.server.url}/knowledge-bases/${KB}/ask`, {
      method: 'POST',
      headers: { 'x-api-key': app.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ question }),
    });
    return (await res.json()) as { answer: string; source?: string };
  };

  it('the Owner adds, edits and deletes a curated answer; the assistant gives it to a rewording', async () => {
    const { page } = app;
    await page.goto(`${app.server.url}/#/knowledge/${KB}`);
    await page.getByRole('heading', { name: 'Curated answers' }).waitFor();
    await page.getByText('No curated answers yet.').waitFor();

    await page.getByRole('button', { name: 'Add a curated answer' }).click();
    await page.getByLabel('Question', { exact: true }).fill('Do you repair bikes?');
    await page.getByLabel('Answer', { exact: true }).fill('Yes, bring it in any weekday; most repairs take a day.');
    await page.getByLabel(/Also asked as/).fill('Can you fix my bicycle?\nDo you do bike repairs?');
    await page.getByRole('button', { name: 'Add the answer' }).click();
    await page.getByRole('cell', { name: /^Do you repair bikes\?/ }).waitFor();
    await page.getByText('Also asked as: Can you fix my bicycle? · Do you do bike repairs?').waitFor();
    assert.equal((await ask('could you fix my bicycle')).answer, 'Yes, bring it in any weekday; most repairs take a day.');

    await page.getByRole('button', { name: 'Edit the answer to Do you repair bikes?' }).click();
    await page.getByLabel('Answer', { exact: true }).fill('Yes: most repairs take a day.');
    await page.getByRole('button', { name: 'Save the answer' }).click();
    await page.getByRole('cell', { name: 'Yes: most repairs take a day.' }).waitFor();
    const edited = await ask('could you fix my bicycle');
    assert.deepEqual({ answer: edited.answer, source: edited.source }, { answer: 'Yes: most repairs take a day.', source: 'owner' });

    await page.getByRole('button', { name: 'Add a curated answer' }).click();
    await page.getByLabel('Question', { exact: true }).fill('Is there parking?');
    await page.getByLabel('Answer', { exact: true }).fill('Free parking in the yard behind the shop.');
    await page.getByRole('button', { name: 'Add the answer' }).click();
    await page.getByRole('cell', { name: 'Free parking in the yard behind the shop.' }).waitFor();
    await shootWidths(page, path.join(process.env.LOCALIQ_SCREENSHOTS ?? os.tmpdir(), 'curated-answers'), [720, 1440]);

    await page.getByRole('button', { name: 'Delete the answer to Is there parking?' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await until(async () => (await page.getByRole('cell', { name: 'Free parking in the yard behind the shop.' }).count()) === 0, 'the row is gone');
    const listed = await fetch(`${app.server.url}/knowledge-bases/${KB}/ask`, {
      method: 'POST',
      headers: { 'x-api-key': app.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'is there somewhere to park?' }),
    });
    assert.equal(((await listed.json()) as { source?: string }).source, undefined, 'deleted: no longer given');
    assert.deepEqual(app.pageErrors, []);
  });
});

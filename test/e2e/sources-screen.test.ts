import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { pdfFile } from '../helpers/document-fixtures.ts';
import { type ShopSite, startShopSite } from '../helpers/shop-site.ts';
import { shootWidths } from './screenshots.ts';
import { useDashboardSession } from './dashboard-session.ts';
import { until } from './until.ts';

const SHOTS = '/tmp/sources-shots';

describe('dashboard: website sources', () => {
  const app = useDashboardSession({ signInOwner: true });
  let site: ShopSite;
  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    site = await startShopSite(await pdfFile([['Corner Candle Co. catalogue']]));
  });
  after(async () => site?.close());

  it('adds a website, shows its sync as it ends with what was skipped, syncs again and removes it', async () => {
    const { page } = app;
    await page.goto(`${app.server.url}/#/sources`);
    await page.getByRole('heading', { name: 'No website sources yet' }).waitFor();
    await page.getByRole('button', { name: 'Add a website' }).click();
    await page.getByLabel('Website address').fill(`${site.url}/`);
    await page.getByLabel('Knowledge base').fill('shop');
    await page.getByLabel(/The site is on this network/).check();
    await page.getByRole('button', { name: 'Add and sync' }).click();
    const row = page.locator('tr[data-source-id]');
    await until(async () => (await row.textContent())?.includes('8 added, 0 updated, 0 unchanged, 0 removed') ?? false, 'the first sync ends', {
      page,
      failureShot: `${SHOTS}/failure.png`,
    });
    assert.match((await row.textContent()) ?? '', /succeeded/);
    await row.getByText(/\d+ skipped/).click();
    assert.match((await row.textContent()) ?? '', /account\/orders: disallowed by robots\.txt/);
    await shootWidths(page, `${SHOTS}/sources`, [720, 1440]);
    await page.getByRole('button', { name: `Sync ${site.url}/ now` }).click();
    await until(async () => (await row.textContent())?.includes('0 added, 0 updated, 8 unchanged') ?? false, 'the second sync ends', { page });
    await page.getByRole('button', { name: `Remove ${site.url}/` }).click();
    await page.getByRole('button', { name: 'Remove website' }).click();
    await page.getByRole('heading', { name: 'No website sources yet' }).waitFor();
    assert.deepEqual(app.pageErrors, []);
  });
});

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '../helpers/server-process.ts';
import { useDashboardSession } from './dashboard-session.ts';
import { until } from './until.ts';

const FIXTURE = path.join(REPO_ROOT, 'test/fixtures/e2e/faq-import.csv');
const KB = 'support';
const INTEGRATION = 'helpdesk';

describe('file import end to end (real server, real Chromium)', { timeout: 400_000 }, () => {
  const app = useDashboardSession({ apiKey: { name: 'import', scopes: 'iq:import,iq:read' }, signInOwner: true });

  const nav = (name: string) => app.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();

  const api = async <T,>(method: string, pathAndQuery: string, body?: unknown): Promise<{ status: number; body: T }> => {
    const res = await fetch(`${app.server.url}${pathAndQuery}`, {
      method,
      headers: { 'x-api-key': app.apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as T };
  };
  const itemIds = async () =>
    (await api<{ data: Array<{ externalId: string }> }>('GET', `/knowledge-bases/${KB}/items?integrationId=${INTEGRATION}&limit=100`)).body.data
      .map((i) => i.externalId)
      .sort();

  /** Chooses a file and maps it the way a user would: guessed columns checked, the rest set. */
  const chooseAndMap = async (file: string) => {
    await app.page.getByLabel('File (CSV, JSON or JSONL)').setInputFiles(file);
    await app.page.getByTestId('file-summary').filter({ hasText: '5 columns' }).waitFor();
    assert.equal(await app.page.getByLabel('externalId (required)').inputValue(), 'id');
    assert.equal(await app.page.getByLabel('content (required)').inputValue(), 'answer');
    await app.page.getByLabel('title', { exact: true }).selectOption('question');
    await app.page.getByLabel('url', { exact: true }).selectOption('link');
    await app.page.getByLabel('sourceType').selectOption('ARTICLE');
    await app.page.getByLabel('Knowledge base', { exact: true }).fill(KB);
    await app.page.getByLabel('Integration', { exact: true }).fill(INTEGRATION);
    await app.page.getByRole('button', { name: 'Add the 1 unmapped column' }).click();
    assert.equal(await app.page.getByLabel('Key 1').inputValue(), 'category');
  };

  it('a dry run of a CSV with a bad row shows the row and its reason, the first items, and sends nothing', async () => {
    await nav('Import');
    await app.page.getByRole('heading', { name: 'Import a file' }).waitFor();
    await chooseAndMap(FIXTURE);
    // The signed-in Owner imports as such: no key to paste.
    assert.equal(await app.page.getByLabel('API key').count(), 0);
    assert.equal(await app.page.getByRole('button', { name: 'Import', exact: true }).isDisabled(), false);
    await app.page.getByRole('button', { name: 'Dry run' }).click();
    await app.page.getByText('5 rows: 4 valid, 1 invalid. Nothing was sent.').waitFor();
    const invalid = app.page.getByRole('table', { name: 'Invalid rows' });
    const bad = invalid.getByRole('row').filter({ hasText: 'faq-zips' });
    assert.match(await bad.innerText(), /^4\s+faq-zips\s+content: column "answer" is empty or missing$/);
    assert.equal(await invalid.locator('tbody tr').count(), 1);
    const preview = app.page.getByRole('table', { name: 'First items' });
    assert.equal(await preview.locator('tbody tr').count(), 4);
    assert.match(await preview.getByRole('row').filter({ hasText: 'faq-care' }).innerText(), /How do I wash the rain jacket\?.*https:\/\/www\.example\.com\/faq\/care.*"category":"care"/s);
    const jobs = await api<{ data: unknown[] }>('GET', `/jobs?knowledgeBaseId=${KB}`);
    assert.deepEqual(jobs.body.data, [], 'a dry run sends nothing');
    // Every control is labelled.
    const unlabelled = await app.page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLInputElement>('input, select, textarea'))
        .filter((el) => el.type !== 'hidden' && el.labels?.length === 0 && !el.getAttribute('aria-label'))
        .map((el) => el.outerHTML),
    );
    assert.deepEqual(unlabelled, []);
  });

  it('imports the valid rows through the bulk API and follows every job to its final state', async () => {
    const bulkBodies: Array<{ items: Array<{ externalId: string }> }> = [];
    const bulkRequests: Array<{ url: string; apiKey: string | undefined }> = [];
    app.page.on('request', (r) => {
      if (!r.url().endsWith('/ingest/bulk') || r.method() !== 'POST') return;
      bulkBodies.push(r.postDataJSON());
      bulkRequests.push({ url: new URL(r.url()).pathname, apiKey: r.headers()['x-api-key'] });
    });
    await app.page.getByRole('button', { name: 'Import', exact: true }).click();
    await app.page.getByTestId('jobs-summary').filter({ hasText: 'All 4 jobs final: 4 succeeded, 0 skipped (unchanged).' }).waitFor({ timeout: 180_000 });
    await app.page.getByTestId('import-phase').filter({ hasText: 'Import finished.' }).waitFor();
    assert.equal(await app.page.getByTestId('items-sent').innerText(), '4');
    assert.equal(await app.page.getByTestId('batches').innerText(), '1');
    assert.equal(bulkBodies.length, 1);
    assert.deepEqual(bulkRequests, [{ url: '/admin/api/ingest/bulk', apiKey: undefined }], 'pushed with the session, no API key');
    assert.deepEqual(bulkBodies[0]!.items.map((i) => i.externalId), ['faq-delivery', 'faq-returns', 'faq-shop', 'faq-care']);
    assert.deepEqual(await itemIds(), ['faq-care', 'faq-delivery', 'faq-returns', 'faq-shop']);
    const item = await api<{ title: string; url: string; sourceData: unknown; sourceType: string }>('GET', `/knowledge-bases/${KB}/items/${INTEGRATION}/faq-care`);
    assert.equal(item.body.title, 'How do I wash the rain jacket?');
    assert.deepEqual(item.body.sourceData, { category: 'care' });
    assert.equal(item.body.sourceType, 'ARTICLE');
    // Done: no resume point is left behind, and the key was never stored.
    assert.equal(await app.page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })), '{}{}');
  });

  it('importing the unchanged file again skips every item by hash', async () => {
    await app.page.getByRole('button', { name: 'Import', exact: true }).click();
    await app.page.getByTestId('jobs-summary').filter({ hasText: 'All 4 items skipped: unchanged since the last import.' }).waitFor({ timeout: 120_000 });
    assert.equal(await app.page.getByTestId('jobs-skipped').innerText(), '4');
  });

  it('sync deletes the items the file no longer holds, after a confirmation that says how many', async () => {
    // An item of this integration that the export does not hold (a product removed at the source).
    const pushed = await api('POST', '/ingest', {
      integrationId: INTEGRATION,
      knowledgeBaseId: KB,
      sourceType: 'ARTICLE',
      externalId: 'faq-discontinued',
      data: { title: 'Gift wrapping', content: 'We no longer offer gift wrapping.' },
    });
    assert.equal(pushed.status, 200);
    // Another integration's item in the same knowledge base is not touched.
    await api('POST', '/ingest', {
      integrationId: 'cms',
      knowledgeBaseId: KB,
      sourceType: 'PAGE',
      externalId: 'about',
      data: { title: 'About us', content: 'A small shop in Utrecht.' },
    });
    await app.page.getByLabel(/^Sync: this file is a full export/).check();
    await app.page.getByRole('button', { name: 'Dry run' }).click();
    await app.page.getByText('Sync would delete 1 item not in this file.').waitFor();
    await app.page.getByRole('button', { name: 'Import', exact: true }).click();
    const dialog = app.page.getByRole('dialog', { name: 'Delete items missing from the file?' });
    await dialog.waitFor({ timeout: 120_000 });
    assert.match(await dialog.getByTestId('sync-confirm').innerText(), /^1 item of integration helpdesk in knowledge base support is not in this file and will be deleted\.$/);
    await dialog.getByRole('button', { name: 'Delete 1 items' }).click();
    await app.page.getByText('Sync: deleted 1 item no longer in the file.').waitFor();
    assert.deepEqual(await itemIds(), ['faq-care', 'faq-delivery', 'faq-returns', 'faq-shop']);
    const gone = await api('GET', `/knowledge-bases/${KB}/items/${INTEGRATION}/faq-discontinued`);
    assert.equal(gone.status, 404);
    // The other integration's item was not deleted: its job ends succeeded, not cancelled. The
    // pipeline runs in the server process: the test looks at once, then every 50 ms.
    const otherJob = async () => (await api<{ status: string }>('GET', `/jobs/cms-about?knowledgeBaseId=${KB}`)).body;
    let other = await otherJob();
    for (const deadline = Date.now() + 120_000; (other.status === 'queued' || other.status === 'processing') && Date.now() < deadline; other = await otherJob()) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(other.status, 'succeeded');
    assert.equal((await api('GET', `/knowledge-bases/${KB}/items/cms/about`)).status, 200);
    await app.page.getByLabel(/^Sync: this file is a full export/).uncheck();
  });

  it('a products CSV starts as PRODUCT in the one knowledge base, under an integration named after the file; rows without a title get one', async () => {
    const products = path.join(app.dataDir, 'products-2026-11.csv');
    fs.writeFileSync(products, 'sku,name,description,price\nrye-1,Rye bread,Dark rye bread with seeds.,3.20\nspelt-2,,Spelt rolls baked fresh each morning. Gluten free.,0.90\n');
    await app.page.getByLabel('File (CSV, JSON or JSONL)').setInputFiles(products);
    await app.page.getByTestId('file-summary').filter({ hasText: 'products-2026-11.csv' }).waitFor();
    // The form fills in its guesses for the new file after showing it: wait for them, then read.
    await until(async () => (await app.page.getByLabel('sourceType').inputValue()) === 'PRODUCT', 'the source type guessed from the file', { page: app.page });
    assert.equal(await app.page.getByLabel('Knowledge base', { exact: true }).inputValue(), KB, 'the only knowledge base there is');
    assert.equal(await app.page.getByLabel('Integration', { exact: true }).inputValue(), 'products', 'named after the file, without its date');
    await app.page.getByText('New integration in this knowledge base: the import creates "products".').waitFor();
    await app.page.getByLabel('Knowledge base', { exact: true }).fill('bakery');
    await app.page.getByText('New knowledge base: the import creates "bakery".').waitFor();
    await app.page.getByLabel('Knowledge base', { exact: true }).fill(KB);
    await app.page.getByRole('button', { name: 'Dry run' }).click();
    await app.page.getByText('2 rows: 2 valid, 0 invalid. Nothing was sent.').waitFor();
    assert.match(await app.page.getByTestId('titles-from-content').innerText(), /^1 valid row has no title: the item's title is the\s+first line of its content/);
    const preview = app.page.getByRole('table', { name: 'First items' });
    assert.equal(await preview.getByRole('row').filter({ hasText: 'spelt-2' }).getByRole('cell').nth(1).innerText(), 'Spelt rolls baked fresh each morning. Gluten free.');
  });

  it('reads a JSON array file in the browser with nested keys, and names its bad elements', async () => {
    await app.page.getByLabel('File (CSV, JSON or JSONL)').setInputFiles(path.join(REPO_ROOT, 'test/fixtures/import/products.json'));
    await app.page.getByTestId('file-summary').filter({ hasText: 'products.json: JSON' }).waitFor();
    assert.equal(await app.page.getByLabel('externalId (required)').inputValue(), 'sku');
    assert.equal(await app.page.getByLabel('content (required)').inputValue(), 'description');
    await app.page.getByLabel('url', { exact: true }).selectOption('meta.link');
    await app.page.getByRole('button', { name: 'Dry run' }).click();
    await app.page.getByText('4 rows: 2 valid, 2 invalid. Nothing was sent.').waitFor();
    const invalid = app.page.getByRole('table', { name: 'Invalid rows' });
    assert.match(await invalid.getByRole('row').filter({ hasText: 'is not a JSON object' }).innerText(), /^3\s/);
    assert.match(await invalid.getByRole('row').filter({ hasText: 'A-4' }).innerText(), /content: column "description" is empty or missing/);
    const preview = app.page.getByRole('table', { name: 'First items' });
    assert.match(await preview.getByRole('row').filter({ hasText: 'A-1' }).innerText(), /Waterproof, with \[taped\] seams.*https:\/\/shop\.example\.com\/a-1/s);
    assert.match(await preview.getByRole('row').filter({ hasText: 'A-2' }).innerText(), /Warm merino hat\.\s+Hand wash\./);
  });

  it('an interrupted import resumes after the last acknowledged row and does not send earlier rows again', async () => {
    const big = path.join(app.dataDir, 'catalogue.csv');
    const lines = ['id,question,answer,category,link'];
    for (let i = 1; i <= 1_200; i++) lines.push(`p-${i},Part ${i},Spare part number ${i} for the workshop.,parts,https://www.example.com/parts/${i}`);
    fs.writeFileSync(big, `${lines.join('\n')}\n`);
    await app.page.getByLabel('File (CSV, JSON or JSONL)').setInputFiles(big);
    await app.page.getByTestId('file-summary').filter({ hasText: 'catalogue.csv' }).waitFor();
    await app.page.getByLabel('title', { exact: true }).selectOption('question');
    await app.page.getByLabel('Knowledge base', { exact: true }).fill('parts');
    await app.page.getByLabel('Integration', { exact: true }).fill('workshop');

    // The second batch is refused once, as a server would refuse a request it cannot take.
    const sent: number[][] = [];
    let calls = 0;
    await app.page.route('**/ingest/bulk', async (route) => {
      calls++;
      if (calls === 2) return route.fulfill({ status: 400, contentType: 'application/json', body: JSON.stringify({ code: 'validation_failed', message: 'Refused for the test.' }) });
      const items = (route.request().postDataJSON() as { items: Array<{ externalId: string }> }).items;
      sent.push(items.map((i) => Number(i.externalId.slice(2))));
      return route.continue();
    });
    await app.page.getByRole('button', { name: 'Import', exact: true }).click();
    await app.page.getByRole('alert').filter({ hasText: 'Import stopped: Refused for the test.' }).waitFor();
    await app.page.getByText('stopped after row 501 (500 items sent)').waitFor();
    assert.ok(await app.page.evaluate(() => Object.keys(localStorage).some((k) => k.startsWith('localiq.import:catalogue.csv:'))));

    await app.page.getByRole('button', { name: 'Resume from row 502' }).click();
    await app.page.getByTestId('import-phase').filter({ hasText: /Waiting for the jobs|Import finished/ }).waitFor({ timeout: 60_000 });
    assert.equal(await app.page.getByTestId('items-sent').innerText(), '1,200');
    await app.page.unroute('**/ingest/bulk');
    // 500 before the interruption, then rows 502–1201 (items 501–1200) in two batches: nothing twice.
    assert.deepEqual(sent.map((b) => [b[0], b.at(-1), b.length]), [[1, 500, 500], [501, 1000, 500], [1001, 1200, 200]]);
    assert.equal(await app.page.evaluate(() => Object.keys(localStorage).length), 0, 'the resume point is cleared when done');
    // Following 1,200 jobs is not the point here: stop watching.
    await app.page.getByRole('button', { name: 'Cancel' }).click().catch(() => undefined);
    assert.deepEqual(app.pageErrors, []);
  });
});

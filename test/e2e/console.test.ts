import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { CLI, cliEnv, REPO_ROOT, type ServerProcess, startServerProcess, waitForExit } from '../helpers/server-process.ts';
import { tempDataDir } from '../helpers/test-app.ts';
import { launchChromium } from './browser.ts';

const OWNER = { username: 'olivia', password: 'correct horse battery' };

describe('API console end to end (real server, real Chromium)', { timeout: 300_000 }, () => {
  let dataDir: string;
  let server: ServerProcess;
  let browser: Browser;
  let page: Page;
  let keyValue = '';
  const pageErrors: string[] = [];

  before(async () => {
    assert.ok(fs.existsSync(path.join(REPO_ROOT, 'out/renderer/index.html')), 'build the dashboard first: npx electron-vite build');
    dataDir = tempDataDir();
    server = await startServerProcess(dataDir, { LOCALIQ_WORKERS: '1' });
    const created = spawnSync(process.execPath, [CLI, 'keys', 'create', '--name', 'console', '--scopes', 'iq:import,iq:read', '--json'], {
      env: cliEnv(dataDir),
      encoding: 'utf8',
    });
    assert.equal(created.status, 0, created.stderr);
    keyValue = JSON.parse(created.stdout).value as string;
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.setDefaultTimeout(20_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    // First run: create the Owner, which signs in.
    await page.goto(server.url);
    await page.getByRole('heading', { name: 'Create the Owner account' }).waitFor();
    await page.getByLabel('Username').fill(OWNER.username);
    await page.getByLabel(/^Password/).fill(OWNER.password);
    await page.getByLabel('Repeat the password').fill(OWNER.password);
    await page.getByRole('button', { name: 'Create Owner and sign in' }).click();
    await page.getByRole('heading', { name: 'Knowledge bases' }).waitFor();
  });

  after(async () => {
    await browser?.close();
    if (server) {
      server.child.kill('SIGTERM');
      await waitForExit(server.child);
    }
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const nav = (name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
  const body = () => page.getByLabel('Request body (JSON)');
  const send = () => page.getByRole('button', { name: 'Send', exact: true });

  it('validates the body as it is typed, with the server schema and the paths of the issues', async () => {
    await nav('API console');
    await page.getByRole('heading', { name: 'API console' }).waitFor();
    await page.getByLabel('Sample sourceType').selectOption('PRODUCT');
    await page.getByRole('button', { name: 'Load sample' }).click();
    await page.getByText('Valid for POST /ingest').waitFor();
    assert.equal(await send().isDisabled(), true, 'no key yet');

    const sample = JSON.parse(await body().inputValue());
    assert.equal(sample.sourceType, 'PRODUCT');
    await body().fill(JSON.stringify({ ...sample, data: { ...sample.data, content: '', url: 'ftp://example.com/x' } }, null, 2));
    const issues = page.getByRole('list', { name: 'Validation issues' });
    await issues.getByText('data.content').waitFor();
    await issues.getByText('data.url').waitFor();
    await body().fill('{ "integrationId": ');
    await issues.getByText('(JSON)').waitFor();

    await page.getByLabel('API key').fill(keyValue);
    assert.equal(await send().isDisabled(), true, 'an invalid body is not sent');
    await page.getByLabel('Sample sourceType').selectOption('ARTICLE');
    await page.getByRole('button', { name: 'Load sample' }).click();
    await page.getByText('Valid for POST /ingest').waitFor();
    assert.equal(JSON.parse(await body().inputValue()).sourceType, 'ARTICLE');
    assert.equal(await page.getByLabel('API key').getAttribute('type'), 'password', 'the key is masked');
  });

  it('shows the request as curl without the key, sends it, shows the raw response and follows the job to its final state', async () => {
    await page.getByLabel('Sample sourceType').selectOption('PRODUCT');
    await page.getByRole('button', { name: 'Load sample' }).click();
    const curl = await page.getByLabel('curl command', { exact: true }).innerText();
    assert.match(curl, /curl -s -X POST 'http:\/\/127\.0\.0\.1:\d+\/ingest'/);
    assert.match(curl, /x-api-key: \$LOCALIQ_API_KEY/);
    assert.ok(!curl.includes(keyValue), 'the key never appears in the curl command');
    assert.match(curl, /"externalId": "sku-42"/);

    await send().click();
    await page.getByTestId('response-status').filter({ hasText: 'HTTP 200' }).waitFor();
    assert.match(await page.getByLabel('Response body').innerText(), /"jobId": "shop-sku-42"/);
    await page.getByText(/^Headers \(\d+\)$/).click();
    assert.match(await page.getByLabel('Response headers').innerText(), /content-type: application\/json/);

    const job = page.getByTestId('job-shop-sku-42');
    await job.waitFor();
    await job.getByText('succeeded').waitFor({ timeout: 180_000 });
    await page.getByText('All 1 final.').waitFor();

    // The item is really there, read back over HTTP with the same key.
    const res = await fetch(`${server.url}/knowledge-bases/main/items/shop/sku-42`, { headers: { 'x-api-key': keyValue } });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { title: string }).title, 'Rain jacket');
  });

  it('sends a bulk request and follows each of its jobs', async () => {
    await page.getByLabel('Endpoint').selectOption({ label: 'POST /ingest/bulk' });
    await page.getByLabel('Sample sourceType').selectOption('PERSON');
    await page.getByRole('button', { name: 'Load sample' }).click();
    await page.getByText('Valid for POST /ingest/bulk').waitFor();
    await send().click();
    await page.getByTestId('response-status').filter({ hasText: 'HTTP 200' }).waitFor();
    assert.deepEqual(JSON.parse(await page.getByLabel('Response body').innerText()).jobIds, ['team-emp-7', 'team-emp-7-b']);
    await page.getByTestId('job-team-emp-7').getByText('succeeded').waitFor({ timeout: 180_000 });
    await page.getByTestId('job-team-emp-7-b').getByText('succeeded').waitFor({ timeout: 180_000 });
    await page.getByText('All 2 final.').waitFor();
    // Every control is labelled.
    const unlabelled = await page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLInputElement>('input, select, textarea'))
        .filter((el) => el.type !== 'hidden' && el.labels?.length === 0 && !el.getAttribute('aria-label'))
        .map((el) => el.outerHTML),
    );
    assert.deepEqual(unlabelled, []);
  });

  it('reads the job and searches through the other endpoints', async () => {
    await page.getByLabel('Endpoint').selectOption({ label: 'GET /jobs/{jobId}' });
    await page.getByLabel('jobId').fill('shop-sku-42');
    await page.getByLabel('knowledgeBaseId (optional)').fill('main');
    assert.match(await page.getByLabel('curl command', { exact: true }).innerText(), /-X GET '.*\/jobs\/shop-sku-42\?knowledgeBaseId=main'/);
    await send().click();
    await page.getByTestId('response-status').filter({ hasText: 'HTTP 200' }).waitFor();
    assert.equal(JSON.parse(await page.getByLabel('Response body').innerText()).status, 'succeeded');

    await page.getByLabel('Endpoint').selectOption({ label: 'POST /knowledge-bases/{id}/search' });
    await page.getByLabel('Knowledge base id').fill('main');
    await body().fill(JSON.stringify({ query: 'waterproof jacket', mode: 'keyword', topK: 3 }));
    await page.getByText('Valid for POST /knowledge-bases/{id}/search').waitFor();
    await send().click();
    await page.getByTestId('response-status').filter({ hasText: 'HTTP 200' }).waitFor();
    const found = JSON.parse(await page.getByLabel('Response body').innerText()) as { results: Array<{ externalId: string }> };
    assert.deepEqual(found.results.map((r) => r.externalId), ['sku-42']);
  });

  it('shows an error answer as it is, and keeps the key out of storage and the URL', async () => {
    await page.getByLabel('API key').fill(`${keyValue.slice(0, -4)}AAAA`);
    await send().click();
    await page.getByTestId('response-status').filter({ hasText: 'HTTP 401' }).waitFor();
    assert.equal(JSON.parse(await page.getByLabel('Response body').innerText()).code, 'invalid_api_key');
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + location.href);
    assert.ok(!stored.includes(keyValue.split('_')[2]!.slice(0, 20)));
    assert.deepEqual(pageErrors, []);
  });
});

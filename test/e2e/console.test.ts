import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useDashboardSession } from './dashboard-session.ts';


describe('API console end to end (real server, real Chromium)', { timeout: 300_000 }, () => {
  const app = useDashboardSession({ apiKey: { name: 'console', scopes: 'iq:import,iq:read' }, signInOwner: true });

  const nav = (name: string) => app.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
  const body = () => app.page.getByLabel('Request body (JSON)');
  const send = () => app.page.getByRole('button', { name: 'Send', exact: true });

  it('validates the body as it is typed, with the server schema and the paths of the issues', async () => {
    await nav('API console');
    await app.page.getByRole('heading', { name: 'API console' }).waitFor();
    await app.page.getByLabel('Sample sourceType').selectOption('PRODUCT');
    await app.page.getByRole('button', { name: 'Load sample' }).click();
    await app.page.getByText('Valid for POST /ingest').waitFor();
    assert.equal(await send().isDisabled(), true, 'no key yet');

    const sample = JSON.parse(await body().inputValue());
    assert.equal(sample.sourceType, 'PRODUCT');
    await body().fill(JSON.stringify({ ...sample, data: { ...sample.data, content: '', url: 'ftp://example.com/x' } }, null, 2));
    const issues = app.page.getByRole('list', { name: 'Validation issues' });
    await issues.getByText('data.content').waitFor();
    await issues.getByText('data.url').waitFor();
    await body().fill('{ "integrationId": ');
    await issues.getByText('(JSON)').waitFor();

    await app.page.getByLabel('API key').fill(app.apiKey);
    assert.equal(await send().isDisabled(), true, 'an invalid body is not sent');
    await app.page.getByLabel('Sample sourceType').selectOption('ARTICLE');
    await app.page.getByRole('button', { name: 'Load sample' }).click();
    await app.page.getByText('Valid for POST /ingest').waitFor();
    assert.equal(JSON.parse(await body().inputValue()).sourceType, 'ARTICLE');
    assert.equal(await app.page.getByLabel('API key').getAttribute('type'), 'password', 'the key is masked');
  });

  it('shows the request as curl without the key, sends it, shows the raw response and follows the job to its final state', async () => {
    await app.page.getByLabel('Sample sourceType').selectOption('PRODUCT');
    await app.page.getByRole('button', { name: 'Load sample' }).click();
    const curl = await app.page.getByLabel('curl command', { exact: true }).innerText();
    assert.match(curl, /curl -s -X POST 'http:\/\/127\.0\.0\.1:\d+\/ingest'/);
    assert.match(curl, /x-api-key: \$LOCALIQ_API_KEY/);
    assert.ok(!curl.includes(app.apiKey), 'the key never appears in the curl command');
    assert.match(curl, /"externalId": "sku-42"/);

    await send().click();
    await app.page.getByTestId('response-status').filter({ hasText: 'HTTP 200' }).waitFor();
    assert.match(await app.page.getByLabel('Response body').innerText(), /"jobId": "shop-sku-42"/);
    await app.page.getByText(/^Headers \(\d+\)$/).click();
    assert.match(await app.page.getByLabel('Response headers').innerText(), /content-type: application\/json/);

    const job = app.page.getByTestId('job-shop-sku-42');
    await job.waitFor();
    await job.getByText('succeeded').waitFor({ timeout: 180_000 });
    await app.page.getByText('All 1 final.').waitFor();

    // The item is really there, read back over HTTP with the same key.
    const res = await fetch(`${app.server.url}/knowledge-bases/main/items/shop/sku-42`, { headers: { 'x-api-key': app.apiKey } });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { title: string }).title, 'Rain jacket');
  });

  it('sends a bulk request and follows each of its jobs', async () => {
    await app.page.getByLabel('Endpoint').selectOption({ label: 'POST /ingest/bulk' });
    await app.page.getByLabel('Sample sourceType').selectOption('PERSON');
    await app.page.getByRole('button', { name: 'Load sample' }).click();
    await app.page.getByText('Valid for POST /ingest/bulk').waitFor();
    await send().click();
    await app.page.getByTestId('response-status').filter({ hasText: 'HTTP 200' }).waitFor();
    assert.deepEqual(JSON.parse(await app.page.getByLabel('Response body').innerText()).jobIds, ['team-emp-7', 'team-emp-7-b']);
    await app.page.getByTestId('job-team-emp-7').getByText('succeeded').waitFor({ timeout: 180_000 });
    await app.page.getByTestId('job-team-emp-7-b').getByText('succeeded').waitFor({ timeout: 180_000 });
    await app.page.getByText('All 2 final.').waitFor();
    // Every control is labelled.
    const unlabelled = await app.page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLInputElement>('input, select, textarea'))
        .filter((el) => el.type !== 'hidden' && el.labels?.length === 0 && !el.getAttribute('aria-label'))
        .map((el) => el.outerHTML),
    );
    assert.deepEqual(unlabelled, []);
  });

  it('reads the job and searches through the other endpoints', async () => {
    await app.page.getByLabel('Endpoint').selectOption({ label: 'GET /jobs/{jobId}' });
    await app.page.getByLabel('jobId').fill('shop-sku-42');
    await app.page.getByLabel('knowledgeBaseId (optional)').fill('main');
    assert.match(await app.page.getByLabel('curl command', { exact: true }).innerText(), /-X GET '.*\/jobs\/shop-sku-42\?knowledgeBaseId=main'/);
    await send().click();
    await app.page.getByTestId('response-status').filter({ hasText: 'HTTP 200' }).waitFor();
    assert.equal(JSON.parse(await app.page.getByLabel('Response body').innerText()).status, 'succeeded');

    await app.page.getByLabel('Endpoint').selectOption({ label: 'POST /knowledge-bases/{id}/search' });
    await app.page.getByLabel('Knowledge base id').fill('main');
    await body().fill(JSON.stringify({ query: 'waterproof jacket', mode: 'keyword', topK: 3 }));
    await app.page.getByText('Valid for POST /knowledge-bases/{id}/search').waitFor();
    await send().click();
    await app.page.getByTestId('response-status').filter({ hasText: 'HTTP 200' }).waitFor();
    const found = JSON.parse(await app.page.getByLabel('Response body').innerText()) as { results: Array<{ externalId: string }> };
    assert.deepEqual(found.results.map((r) => r.externalId), ['sku-42']);
  });

  it('shows an error answer as it is, and keeps the key out of storage and the URL', async () => {
    await app.page.getByLabel('API key').fill(`${app.apiKey.slice(0, -4)}AAAA`);
    await send().click();
    await app.page.getByTestId('response-status').filter({ hasText: 'HTTP 401' }).waitFor();
    assert.equal(JSON.parse(await app.page.getByLabel('Response body').innerText()).code, 'invalid_api_key');
    const stored = await app.page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + location.href);
    assert.ok(!stored.includes(app.apiKey.split('_')[2]!.slice(0, 20)));
    assert.deepEqual(app.pageErrors, []);
  });
});

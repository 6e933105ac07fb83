import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Locator } from 'playwright-core';
import { useDashboardSession } from './dashboard-session.ts';

/**
 * Runs the "Try it" command of the created-key dialog as curl would: its URL, its key header and
 * its body, so the test shows the key may really make that request.
 */
async function runTryIt(curl: string): Promise<Response> {
  const url = /curl -s '?(http[^\s']+)'?/.exec(curl)![1]!;
  const key = /x-api-key: ([^"]+)"/.exec(curl)![1]!;
  const body = /-d '([\s\S]*)'$/.exec(curl)?.[1];
  return fetch(url, {
    method: body ? 'POST' : 'GET',
    headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body } : {}),
  });
}

describe('the create-key form (real server, real Chromium)', { timeout: 180_000 }, () => {
  const app = useDashboardSession({ signInOwner: true, apiKey: { name: 'Setup', scopes: 'iq:import' } });
  let dialog: Locator;
  const errorBeside = (label: string) => dialog.getByLabel(label).locator('xpath=ancestor::*[self::div or self::fieldset][1]').locator('.error-text');

  it('a knowledge base exists once an item is pushed to it', async () => {
    const res = await fetch(`${app.server.url}/ingest`, {
      method: 'POST',
      headers: { 'x-api-key': app.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ integrationId: 'shop', knowledgeBaseId: 'bakery', sourceType: 'PRODUCT', externalId: 'rye', data: { title: 'Rye bread', content: 'Dark rye bread.' } }),
    });
    assert.equal(res.status, 200, await res.text());
  });

  it('shows each error beside its field and clears it once the field is fixed', async () => {
    await app.page.goto(`${app.server.url}/#/keys`);
    await app.page.getByRole('button', { name: 'Create key' }).click();
    dialog = app.page.getByRole('dialog', { name: 'Create an API key' });
    await dialog.getByRole('checkbox', { name: /iq:import/ }).uncheck();
    await dialog.getByRole('radio', { name: 'Custom date' }).check();
    await dialog.getByLabel('Expiry date').fill('2020-01-01');
    await dialog.getByRole('button', { name: 'Create key' }).click();

    const nameError = dialog.locator('#key-name-error');
    const scopesError = dialog.locator('#key-scopes-error');
    const expiryError = dialog.locator('#key-expiryDate-error');
    assert.equal(await nameError.innerText(), 'Give the key a name.');
    assert.equal(await scopesError.innerText(), 'Choose at least one scope.');
    assert.equal(await expiryError.innerText(), 'The expiry date must be after today.');
    // Beside its own field, and the field says so to a screen reader.
    assert.equal(await dialog.getByLabel('Name').getAttribute('aria-describedby'), 'key-name-error');
    assert.equal(await errorBeside('Expiry date').innerText(), 'The expiry date must be after today.');

    await dialog.getByRole('checkbox', { name: /iq:read/ }).check();
    await scopesError.waitFor({ state: 'detached' });
    assert.equal(await nameError.innerText(), 'Give the key a name.', 'other errors stay until fixed');
    await dialog.getByLabel('Name').fill('Bakery search');
    await nameError.waitFor({ state: 'detached' });
    await dialog.getByLabel('Expiry date').fill('2999-12-31');
    await expiryError.waitFor({ state: 'detached' });
    assert.equal(await dialog.locator('.error-text').count(), 0);
  });

  it('restricts a key by picking existing knowledge bases; a new one is marked as created on first push', async () => {
    await dialog.getByRole('radio', { name: 'Only the ones I choose' }).check();
    await dialog.getByRole('button', { name: 'Create key' }).click();
    assert.equal(await dialog.locator('#key-knowledgeBases-error').innerText(), 'Choose at least one knowledge base, or allow all.');
    // The existing one is offered; nothing else is, so a misspelt name cannot slip in unnoticed.
    const offered = await dialog.locator('.kb-picker input[type=checkbox]').evaluateAll((boxes) => boxes.map((b) => b.parentElement!.textContent!.trim()));
    assert.deepEqual(offered, ['bakery']);
    await dialog.getByLabel('Add a knowledge base that does not exist yet').fill('bakry');
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await dialog.getByText('new: will be created on the first push to it').waitFor();
    await dialog.locator('#key-knowledgeBases-error').waitFor({ state: 'detached' });
    // Thought better of it: untick the new one, pick the existing one.
    await dialog.getByRole('checkbox', { name: /bakry/ }).uncheck();
    await dialog.getByRole('checkbox', { name: 'bakery' }).check();
    await dialog.getByRole('button', { name: 'Create key' }).click();

    const shown = app.page.getByRole('dialog', { name: 'Key "Bakery search" created' });
    await shown.getByText('Try it: search "bakery".').waitFor();
    const curl = await shown.getByLabel('curl example').innerText();
    assert.match(curl, /\/knowledge-bases\/bakery\/search/);
    const res = await runTryIt(curl);
    assert.equal(res.status, 200, `the key may run its own Try it: ${await res.text()}`);
    await shown.getByRole('button', { name: 'I have stored the key' }).click();
    const row = app.page.getByRole('row').filter({ hasText: 'Bakery search' });
    assert.match(await row.innerText(), /bakery/);
    assert.doesNotMatch(await row.innerText(), /bakry/);
  });

  it("a push key's Try it pushes into the key's own knowledge base", async () => {
    await app.page.locator('.page-header').getByRole('button', { name: 'Create key' }).click();
    await dialog.getByLabel('Name').fill('Seasonal push');
    await dialog.getByRole('radio', { name: 'Only the ones I choose' }).check();
    await dialog.getByLabel('Add a knowledge base that does not exist yet').fill('seasonal');
    await dialog.getByLabel('Add a knowledge base that does not exist yet').press('Enter');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const shown = app.page.getByRole('dialog', { name: 'Key "Seasonal push" created' });
    await shown.getByText('Try it: push your first item to "seasonal".').waitFor();
    const curl = await shown.getByLabel('curl example').innerText();
    assert.match(curl, /"knowledgeBaseId":"seasonal"/);
    const res = await runTryIt(curl);
    assert.equal(res.status, 200, `the key may run its own Try it: ${await res.text()}`);
    await shown.getByRole('button', { name: 'I have stored the key' }).click();
    assert.deepEqual(app.pageErrors, []);
  });
});

import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { verifySignature } from '../../server/webhooks/signing.ts';
import { item } from '../helpers/temp-data.ts';
import { useDashboardSession } from './dashboard-session.ts';
import { startWebhookReceiver } from './loopback.ts';
import { shootWidths } from './screenshots.ts';
import { until } from './until.ts';

const SHOTS = '/tmp/webhooks-shots';
const failureShot = `${SHOTS}/failure.png`;

describe('the Webhooks panel in Settings (real server, real Chromium, a receiver on loopback)', { timeout: 240_000 }, () => {
  const app = useDashboardSession({ signInOwner: true, apiKey: { name: 'Shop', scopes: 'iq:import,iq:read' } });
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let receiverUrl = '';
  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    receiver = await startWebhookReceiver();
    receiverUrl = `${receiver.url}/localiq`;
  });
  after(() => receiver.close());

  let secret = '';

  it('adds a webhook and shows its signing secret once', async () => {
    const { page } = app;
    await page.goto(`${app.server.url}/#/settings`);
    const panel = page.getByRole('region', { name: 'Webhooks' });
    await panel.getByLabel('Address (http or https)').fill(receiverUrl);
    await panel.getByRole('checkbox', { name: /job\.succeeded/ }).check();
    await panel.getByRole('button', { name: 'Add webhook' }).click();
    secret = await panel.getByLabel('Signing secret of the new webhook').innerText();
    assert.match(secret, /^whsec_[\w-]{43}$/);
    await until(async () => (await panel.getByRole('row').filter({ hasText: receiverUrl }).count()) === 1, 'the webhook was listed', { page, failureShot });
    await shootWidths(page, `${SHOTS}/webhook-created`, [720, 1440]);
    await panel.getByRole('button', { name: 'I have stored the secret' }).click();
    await page.reload();
    assert.equal(await page.getByText(secret).count(), 0, 'the secret is not shown again');
  });

  it('delivers job.succeeded for a pushed item, and the delivery log shows it', async () => {
    const res = await fetch(`${app.server.url}/ingest`, {
      method: 'POST',
      headers: { 'x-api-key': app.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(item({ externalId: 'rye' }, { title: 'Rye bread', content: 'Dark rye bread, baked every morning.' })),
    });
    assert.ok(res.ok, await res.text());
    await until(async () => receiver.received.length > 0, 'the receiver had a delivery', { ms: 60_000, server: app.server });
    assert.ok(verifySignature(receiver.received[0]!.body, secret, receiver.received[0]!.signature));
    assert.equal(JSON.parse(receiver.received[0]!.body).events[0].type, 'job.succeeded');
    const { page } = app;
    const panel = page.getByRole('region', { name: 'Webhooks' });
    await until(
      async () => {
        await page.reload();
        // The list loads after the page: wait for the webhook's row before reading its last delivery.
        const row = panel.getByRole('row').filter({ hasText: receiverUrl });
        await row.waitFor();
        return (await row.filter({ hasText: 'HTTP 200' }).count()) > 0;
      },
      'the list showed the last delivery',
      { page, failureShot, server: app.server },
    );
    await panel.getByRole('button', { name: `Deliveries to ${receiverUrl}` }).click();
    const log = page.getByTestId('webhook-log');
    await until(async () => (await log.getByRole('row').filter({ hasText: 'job.succeeded' }).count()) === 1, 'the log showed the delivery', { page, failureShot });
    assert.match(await log.innerText(), /HTTP 200/);
    await shootWidths(page, `${SHOTS}/webhook-log`, [720, 1440]);
    assert.deepEqual(app.pageErrors, []);
  });

  it('deletes the webhook', async () => {
    const { page } = app;
    const panel = page.getByRole('region', { name: 'Webhooks' });
    await panel.getByRole('button', { name: `Delete webhook ${receiverUrl}` }).click();
    await page.getByRole('dialog', { name: 'Delete this webhook?' }).getByRole('button', { name: 'Delete webhook' }).click();
    await until(async () => (await panel.getByRole('row').filter({ hasText: receiverUrl }).count()) === 0, 'the webhook left the list', { page, failureShot, server: app.server });
    await until(async () => (await panel.getByText('No webhooks yet.').count()) === 1, 'the empty state', { page, failureShot });
  });
});

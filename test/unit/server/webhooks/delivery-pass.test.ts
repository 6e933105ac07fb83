/**
 * The webhook delivery pass as the runner drives it (server/webhooks/delivery.ts): a run starts
 * the due deliveries without waiting for them, and a delivery whose attempt could not be recorded
 * (the database busy) surfaces at the next run, for the runner to log. The repository is a FAKE
 * holding one due delivery; its webhook's secret cannot be opened, so nothing is sent.
 */
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, it } from 'node:test';
import type { DeliveryRecord, WebhookRepo } from '../../../../server/storage/webhook-repo.ts';
import { WebhookDelivery } from '../../../../server/webhooks/delivery.ts';

describe('WebhookDelivery as a background pass', () => {
  it('starts the due deliveries, and throws at the next run the one whose attempt could not be recorded', async () => {
    const due: DeliveryRecord = { id: 'dlv_1', webhookId: 'wh_1', events: [], state: 'pending', attempts: 0, nextAt: 0 };
    let recordBusy = true;
    const recorded: string[] = [];
    const repo = {
      prune: () => 0,
      due: () => (recorded.length === 0 ? [due] : []),
      recordAttempt: (attempt: { id: string }) => {
        if (recordBusy) throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
        recorded.push(attempt.id);
      },
    } as unknown as WebhookRepo;
    const delivery = new WebhookDelivery({ repo, target: () => ({ url: 'http://127.0.0.1:9/', secret: null }), clock: () => 1_000 });
    assert.equal(delivery.name, 'webhook-delivery');
    assert.equal(delivery.run(), undefined, 'a run returns at once');
    await delivery.idle();
    recordBusy = false;
    assert.throws(() => delivery.run(), /database is locked/, 'the failed delivery of the last run');
    await delivery.idle();
    assert.deepEqual(recorded, ['dlv_1'], 'the same run started the delivery again, and it was recorded');
    assert.doesNotThrow(() => delivery.run());
    await nextTurn();
    await delivery.flush();
  });
});

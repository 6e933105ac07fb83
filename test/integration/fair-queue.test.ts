import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { api, startPipelineServer } from '../helpers/pipeline-app.ts';
import { item } from '../helpers/temp-data.ts';

type Server = Awaited<ReturnType<typeof startPipelineServer>>;

/** Polls until the job has reached `status` (or the time runs out). */
async function waitForStatus(server: Server, jobId: string, status: string, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { body } = await api(server, 'GET', `/jobs/${jobId}`);
    if (body.status === status) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${jobId} did not reach ${status}`);
}

/** Jobs of an integration not yet final. */
function pendingOf(server: Server, integrationId: string): number {
  const row = server.services.db
    .prepare("SELECT count(*) AS n FROM jobs WHERE integration_id = ? AND status IN ('queued', 'processing')")
    .get(integrationId) as { n: number };
  return row.n;
}

/** Prose of about `characters` characters that no other item repeats (nothing comes from the embedding cache). */
function distinctText(seed: string, characters: number): string {
  let text = '';
  for (let i = 0; text.length < characters; i++) text += `Section ${seed}-${i} explains how order ${i * 7 + 3} of ${seed} is packed and shipped. `;
  return text;
}

describe('fair queue (real pipeline, one worker)', { timeout: 400_000 }, () => {
  it('a single edit pushed during a 2,000-item bulk import is processed before the import', async () => {
    const server = await startPipelineServer();
    try {
      const items = Array.from({ length: 2_000 }, (_, i) =>
        item({ integrationId: 'import', externalId: `p-${i}` }, { title: `Product ${i}`, content: `Bread number ${i}, baked daily.` }),
      );
      for (let i = 0; i < items.length; i += 1_000) {
        assert.equal((await api(server, 'POST', '/ingest/bulk', { items: items.slice(i, i + 1_000) })).status, 200);
      }
      const edit = item({ integrationId: 'import', externalId: 'price' }, { title: 'Sourdough', content: 'Sourdough now costs 4.20 EUR.' });
      assert.equal((await api(server, 'POST', '/ingest', edit)).status, 200);
      await waitForStatus(server, 'import-price', 'succeeded');
      const left = pendingOf(server, 'import');
      assert.ok(left >= 1_800, `the edit went before the import: ${left} of its jobs still pending`);
    } finally {
      await server.stop();
    }
  });

  it('a small push from another integration is processed while a large one is in progress', async () => {
    const server = await startPipelineServer();
    try {
      const large = ['a', 'b', 'c'].map((seed) =>
        item({ integrationId: 'archive', externalId: `manual-${seed}` }, { title: `Manual ${seed}`, content: distinctText(seed, 21_000) }),
      );
      assert.equal((await api(server, 'POST', '/ingest/bulk', { items: large })).status, 200);
      const small = item({ integrationId: 'shop', externalId: 'hours' }, { title: 'Opening hours', content: 'Open daily from 8 to 18.' });
      assert.equal((await api(server, 'POST', '/ingest', small)).status, 200);
      await waitForStatus(server, 'shop-hours', 'succeeded');
      const left = pendingOf(server, 'archive');
      assert.ok(left >= 2, `the small push did not wait for the large one: ${left} of its 3 items still pending`);
    } finally {
      await server.stop();
    }
  });
});

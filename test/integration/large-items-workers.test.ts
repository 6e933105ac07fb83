import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CLAIM_CHARACTERS } from '../../server/storage/jobs/claim.ts';
import { api, startPipelineServer, waitForIdle } from '../helpers/pipeline-app.ts';
import { item } from '../helpers/temp-data.ts';

type Server = Awaited<ReturnType<typeof startPipelineServer>>;

/**
 * One integration's large items never hold every pipeline worker (storage/jobs/claim.ts): with two
 * workers, two large pages from `big` take one worker at a time, and a one-sentence push from
 * `shop`, made while they fill the queue, is indexed by the other worker before either large page
 * is done. The assertions are about order and progress, not wall time.
 */
const LARGE_CHARACTERS = CLAIM_CHARACTERS + 10_000;

function largePage(n: number): string {
  const sentences: string[] = [];
  for (let i = 0, length = 0; length < LARGE_CHARACTERS; i++) {
    const sentence = `Section ${i} of catalogue ${n} describes loaves, flours and ovens for the bakery in detail. `;
    sentences.push(sentence);
    length += sentence.length;
  }
  return sentences.join('').slice(0, LARGE_CHARACTERS);
}

describe('large items and the pipeline workers', () => {
  let server: Server;
  before(async () => {
    server = await startPipelineServer({ workers: 2, batchJobs: 8 });
  });
  after(() => server.stop());

  const statusOf = (externalId: string) =>
    server.services.db.prepare('SELECT status FROM jobs WHERE external_id = ? ORDER BY id DESC LIMIT 1').pluck().get(externalId) as string;
  const poll = async (what: string, done: () => boolean, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline) assert.fail(`${what}: not within ${timeoutMs} ms (big-1 ${statusOf('big-1')}, big-2 ${statusOf('big-2')}, shop ${statusOf('shop-edit') ?? 'not pushed'})`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };

  it('a small push from another integration is indexed while large items fill the queue, before any of them is done', { timeout: 400_000 }, async () => {
    for (const n of [1, 2]) {
      const pushed = await api(server, 'POST', '/ingest', item({ integrationId: 'big', externalId: `big-${n}` }, { title: `Catalogue ${n}`, content: largePage(n) }));
      assert.equal(pushed.status, 200);
    }
    await poll('a large item being processed', () => statusOf('big-1') === 'processing' || statusOf('big-2') === 'processing', 60_000);
    // Give the second worker its chance at the other large item (before the rule, it took it at once).
    const settle = Date.now() + 3_000;
    await poll('both large items processing, or a moment passed', () => Date.now() > settle || (statusOf('big-1') === 'processing' && statusOf('big-2') === 'processing'), 5_000);

    const shopPushedAt = Date.now();
    const pushed = await api(server, 'POST', '/ingest', item({ integrationId: 'shop', externalId: 'shop-edit' }, { title: 'Sunday hours', content: 'The shop now opens at eight on Sundays.' }));
    assert.equal(pushed.status, 200);
    await poll('the shop edit indexed', () => ['succeeded', 'failed'].includes(statusOf('shop-edit')), 120_000);
    assert.equal(statusOf('shop-edit'), 'succeeded');
    console.log(`the shop edit was indexed ${Date.now() - shopPushedAt} ms after its push, large items holding a worker`);
    const bigWhenShopDone = [statusOf('big-1'), statusOf('big-2')].sort();
    assert.ok(!bigWhenShopDone.includes('succeeded'), `a large item was done before the shop edit (large items' states then: ${bigWhenShopDone})`);
    assert.ok(bigWhenShopDone.includes('queued'), `both large items took a worker at once, none left waiting (their states: ${bigWhenShopDone})`);

    const found = await api(server, 'POST', '/knowledge-bases/kb-main/search', { query: 'shop opens at eight on Sundays', mode: 'keyword' });
    assert.ok(found.body.results.some((result: { externalId: string }) => result.externalId === 'shop-edit'), 'the shop edit is searchable');

    await waitForIdle(server, 300_000);
    assert.deepEqual([statusOf('big-1'), statusOf('big-2')], ['succeeded', 'succeeded'], 'the large items still finish');
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { QueryEmbedder } from '../../server/embedders/query-embedder.ts';
import { api, startPipelineServer, waitForIdle } from '../helpers/pipeline-app.ts';
import { item } from '../helpers/temp-data.ts';

type Server = Awaited<ReturnType<typeof startPipelineServer>>;

/** A long article of distinct sentences: several chunks of the model's 128 word-pieces. */
function longArticle(topic: number): string {
  return Array.from({ length: 60 }, (_, i) => `Section ${i} of guide ${topic} explains how part ${i * 7 + topic} of the machine is cleaned, checked and stored.`).join(' ');
}

describe("search's queries embedded by the pipeline's workers (real model, worker threads)", () => {
  let server: Server;
  before(async () => {
    // Two workers, as by default on two cores: a query goes to both, the first answer is used.
    server = await startPipelineServer({ workers: 2 });
  });
  after(() => server.stop());

  it('gives the vector the query embedder gives in a thread of its own, without starting that thread', async () => {
    const question = 'when can I visit your store?';
    const fromWorker = await server.pipeline!.pool.embedQuery([question]);
    assert.ok(fromWorker, 'a ready worker takes the query');
    const own = new QueryEmbedder({ kind: 'use-lite' });
    try {
      const [fromOwnThread] = await own.embed([question]);
      assert.deepEqual(Array.from((await fromWorker)[0]!), Array.from(fromOwnThread!));
    } finally {
      await own.close();
    }

    await api(server, 'POST', '/ingest', item({ externalId: 'hours' }, { title: 'Opening hours', content: 'The shop is open Monday to Friday from 9:00 to 17:00.' }));
    await waitForIdle(server);
    const semantic = await api(server, 'POST', '/knowledge-bases/kb-main/search', { query: question, mode: 'semantic' });
    assert.equal(semantic.status, 200);
    assert.equal(semantic.body.results[0].externalId, 'hours');
    assert.equal(server.services.queryEmbedder.ownThreadStarted, false, 'no third copy of the model');
  });

  it("answers a search while the worker's claim is still being embedded: the query waits for one model call, not the claim", async () => {
    const pushed = await api(server, 'POST', '/ingest/bulk', {
      items: Array.from({ length: 8 }, (_, i) => item({ externalId: `guide-${i}` }, { title: `Guide ${i}`, content: longArticle(i) })),
    });
    assert.equal(pushed.status, 200);
    const deadline = Date.now() + 60_000;
    while (server.services.jobs.countByStatus().processing === 0) {
      assert.ok(Date.now() < deadline, 'the worker claimed the guides');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const semantic = await api(server, 'POST', '/knowledge-bases/kb-main/search', { query: 'opening hours of the shop', mode: 'semantic' });
    const stillProcessing = server.services.jobs.countByStatus().processing;
    assert.equal(semantic.status, 200);
    assert.ok(stillProcessing > 0, 'the search was answered before the claim of eight long guides was done');
    await waitForIdle(server);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { askResponseSchema } from '../../common/contract/ask.ts';
import type { RunningServer } from '../../server/main.ts';
import { KB, pushBakery, readEvents } from '../helpers/ask-fixtures.ts';
import { api, startPipelineServer, waitForIdle } from '../helpers/pipeline-app.ts';

type Server = RunningServer & { key: string };

describe('POST /knowledge-bases/{id}/ask (extractive)', { timeout: 180_000 }, () => {
  let server: Server;
  before(async () => {
    server = await startPipelineServer();
    await pushBakery(server);
  });
  after(() => server.stop());

  const ask = (body: object) => api(server, 'POST', `/knowledge-bases/${KB}/ask`, body);

  it('answers with the sentences that answer, citing only passages the search retrieved', async () => {
    const question = 'How far ahead should I order a wedding cake?';
    const res = await ask({ question });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    askResponseSchema.parse(res.body);
    assert.equal(res.body.answered, true);
    assert.equal(res.body.method, 'extractive');
    assert.match(res.body.answer, /six weeks ahead/);
    // Only the answering sentences, not the whole passage.
    assert.doesNotMatch(res.body.answer, /sponge, chocolate or carrot/);
    assert.ok(res.body.citations.length >= 1);
    assert.equal(res.body.citations[0].externalId, 'wedding-cakes');
    assert.equal(res.body.citations[0].url, 'https://bakery.example/wedding-cakes');

    const search = await api(server, 'POST', `/knowledge-bases/${KB}/search`, { query: question, topK: 5, passages: 2 });
    const retrieved = new Map<number, string>(
      search.body.results.flatMap((r: any) => r.passages.map((p: any) => [p.chunkId, p.text] as const)),
    );
    const markers = [...res.body.answer.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    assert.deepEqual([...new Set(markers)].sort(), res.body.citations.map((c: any) => c.number).sort());
    for (const citation of res.body.citations) {
      assert.equal(retrieved.get(citation.chunkId), citation.passage, 'every cited passage is a retrieved passage, verbatim');
    }
  });

  it("answers a question about cost with the product's price line, which shares no word with it", async () => {
    const product = {
      integrationId: 'shop', knowledgeBaseId: KB, sourceType: 'PRODUCT', externalId: 'sourdough',
      data: {
        title: 'Sourdough loaf',
        content: 'A country sourdough loaf with a dark, crackling crust, fermented for two days.',
        sourceData: { price: '6.50 EUR', weight: '1 kg' },
      },
    };
    assert.equal((await api(server, 'POST', '/ingest', product)).status, 200);
    await waitForIdle(server, 60_000);
    for (const question of ['How much does the sourdough loaf cost?', 'What is the price of a sourdough loaf?']) {
      const res = await ask({ question });
      assert.equal(res.body.citations[0]?.externalId, 'sourdough', res.body.answer);
      assert.match(res.body.answer, /Price: 6\.50 EUR \[1\]/, `${question} → ${res.body.answer}`);
    }
    const described = await ask({ question: 'How long is the sourdough loaf fermented?' });
    assert.doesNotMatch(described.body.answer, /6\.50/, 'only a question about cost quotes the price');
  });

  it('says plainly that the knowledge base does not hold the answer, citing nothing', async () => {
    for (const question of ['Which NFL team won Super Bowl 50?', 'What is the boiling point of tungsten in kelvin?']) {
      const res = await ask({ question });
      assert.equal(res.status, 200);
      assert.equal(res.body.answered, false, `${question} → ${res.body.answer}`);
      assert.deepEqual(res.body.citations, []);
      assert.match(res.body.answer, /does not contain the answer/);
    }
  });

  it('uses earlier turns so a follow-up question finds its subject', async () => {
    const conversation = [
      { role: 'user', content: 'Do you bake gluten-free bread?' },
      { role: 'assistant', content: 'Yes, gluten-free loaves are baked in a separate oven [1]' },
    ];
    const res = await ask({ question: 'On which day of the week are they baked?', conversation });
    assert.equal(res.status, 200);
    assert.equal(res.body.answered, true);
    assert.equal(res.body.citations[0].externalId, 'gluten');
    assert.match(res.body.answer, /Tuesdays/);
  });

  it('reads a question that refers back but names its own subject both ways, and answers from the better reading', async () => {
    const afterCakes = [
      { role: 'user', content: 'How far ahead should I order a wedding cake?' },
      { role: 'assistant', content: 'Order it at least six weeks ahead [1]' },
    ];
    const bread = await ask({ question: 'Is it possible to get gluten-free bread?', conversation: afterCakes });
    assert.equal(bread.body.citations[0].externalId, 'gluten', bread.body.answer);
    // Too short to stand alone: the price meant is the one the conversation was about.
    const afterDelivery = [
      { role: 'user', content: 'What does delivery cost for small orders?' },
      { role: 'assistant', content: 'Smaller orders pay a flat 4 euros [1]' },
    ];
    const price = await ask({ question: 'How much does it cost?', conversation: afterDelivery });
    assert.equal(price.body.citations[0].externalId, 'delivery', price.body.answer);
  });

  it('answers a question on a new subject from that subject, not from the conversation before it', async () => {
    const conversation = [
      { role: 'user', content: 'Do you bake gluten-free bread?' },
      { role: 'assistant', content: 'Yes, gluten-free loaves are baked in a separate oven [1]' },
    ];
    const cake = await ask({ question: 'How far ahead should I order a wedding cake?', conversation });
    assert.equal(cake.body.citations[0].externalId, 'wedding-cakes');
    assert.ok(!cake.body.citations.some((c: any) => c.externalId === 'gluten'), JSON.stringify(cake.body.citations));
    // Searched together with the earlier turn, this would be answered from the wedding-cake item.
    const afterCakes = [
      { role: 'user', content: 'How far ahead should I order a wedding cake?' },
      { role: 'assistant', content: 'Order it at least six weeks ahead [1]' },
    ];
    const elsewhere = await ask({ question: 'What is the capital of France?', conversation: afterCakes });
    assert.equal(elsewhere.body.answered, false, elsewhere.body.answer);
    assert.deepEqual(elsewhere.body.citations, []);
  });

  it('streams Server-Sent Events: answer sentences, then citations, then done', async () => {
    const res = await fetch(`${server.url}/knowledge-bases/${KB}/ask`, {
      method: 'POST',
      headers: { 'x-api-key': server.key, 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'What does delivery cost for small orders?', stream: true }),
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/event-stream/);
    assert.equal(res.headers.get('cache-control'), 'no-cache, no-transform');
    const events = await readEvents(res);
    const names = events.map((e) => e.event);
    const firstCitations = names.indexOf('citations');
    assert.ok(firstCitations > 0 && names.slice(0, firstCitations).every((n) => n === 'answer'), names.join(','));
    assert.deepEqual(names.slice(firstCitations), ['citations', 'done']);
    const done = askResponseSchema.parse(events.at(-1)!.data);
    assert.equal(events.filter((e) => e.event === 'answer').map((e) => e.data.text).join(''), done.answer);
    assert.deepEqual(events[firstCitations]!.data.citations, done.citations);
    assert.match(done.answer, /4 euros/);
  });

  it('validates the request with the contract error shape', async () => {
    const res = await ask({ question: '', extra: 1 });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'invalid_body');
    const missing = await api(server, 'POST', '/knowledge-bases/Bakery/ask', { question: 'When do you open?' });
    assert.equal(missing.status, 404, 'a mistyped knowledge base is not one that holds nothing');
    assert.equal(missing.body.code, 'not_found');
    assert.match(missing.body.message, /No knowledge base "Bakery"/);
    assert.equal((await api(server, 'POST', '/knowledge-bases/Bakery/search', { query: 'open' })).status, 404);
    assert.equal((await api(server, 'GET', '/knowledge-bases/Bakery/items')).status, 404);
  });
});

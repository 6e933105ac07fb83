import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../server/main.ts';
import { api, startPipelineServer, waitForIdle } from '../helpers/pipeline-app.ts';
import { judgeShopAnswer, SHOP_KB, SHOP_QUESTIONS, shopBulk } from '../helpers/shop-fixtures.ts';

type Server = RunningServer & { key: string };

describe('answers about a shop catalogue', { timeout: 180_000 }, () => {
  let server: Server;
  before(async () => {
    server = await startPipelineServer();
    const res = await api(server, 'POST', '/ingest/bulk', shopBulk());
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await waitForIdle(server, 120_000);
  });
  after(() => server.stop());

  for (const q of SHOP_QUESTIONS) {
    it(`${q.question}`, async () => {
      const res = await api(server, 'POST', `/knowledge-bases/${SHOP_KB}/ask`, { question: q.question });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const verdict = judgeShopAnswer(q, res.body);
      assert.ok(verdict.ok, `${res.body.answer}: ${verdict.problems.join('; ')}`);
      if (q.abstain) assert.deepEqual(res.body.citations, []);
    });
  }

  it('answers from the one product a question names, not from another one retrieved beside it', async () => {
    const res = await api(server, 'POST', `/knowledge-bases/${SHOP_KB}/ask`, { question: 'What is the rye bread made with?' });
    assert.equal(res.body.answered, true, res.body.answer);
    assert.deepEqual(res.body.citations.map((c: { externalId: string }) => c.externalId), ['rye']);
  });

  it("quotes no other thing's price for a price question that names no product", async () => {
    for (const question of ['What does a loaf cost?', 'How much is a loaf?']) {
      const res = await api(server, 'POST', `/knowledge-bases/${SHOP_KB}/ask`, { question });
      assert.doesNotMatch(res.body.answer, /Delivery|tasting|5 EUR per order|25 EUR/, `${question} → ${res.body.answer}`);
      const cited = new Set(res.body.citations.map((c: { externalId: string }) => c.externalId));
      assert.ok(cited.size <= 1 || /Oat loaf:|Sourdough loaf:/.test(res.body.answer), `one product, or each named: ${res.body.answer}`);
    }
  });

  it('names each product when several answer a question that names none', async () => {
    const res = await api(server, 'POST', `/knowledge-bases/${SHOP_KB}/ask`, { question: 'Which rolls have seeds?' });
    assert.equal(res.body.answered, true, res.body.answer);
    const products = res.body.citations.map((c: { externalId: string }) => c.externalId);
    assert.ok(products.includes('poppy-roll') && products.includes('sesame-roll'), res.body.answer);
    assert.match(res.body.answer, /Poppy seed roll: Filled with/);
    assert.match(res.body.answer, /Sesame roll: Topped with/);
  });
});

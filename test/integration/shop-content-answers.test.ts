import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../server/main.ts';
import { BAKERY_FAQ_MARKDOWN, BAKERY_KB, BAKERY_QUESTIONS, bakeryBulk, TURNS_KB, TURNS_QUESTIONS, turnsBulk } from '../helpers/bakery-fixtures.ts';
import { api, startPipelineServer, waitForIdle } from '../helpers/pipeline-app.ts';

type Server = RunningServer & { key: string };

/** Issue 37's bakery: shop content (attributes, FAQs, lower-case questions, typos) read as shop content. */
describe('answers from a bakery’s own content', { timeout: 240_000 }, () => {
  let server: Server;
  before(async () => {
    server = await startPipelineServer();
    const res = await api(server, 'POST', '/ingest/bulk', bakeryBulk());
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const turns = await api(server, 'POST', '/ingest/bulk', turnsBulk());
    assert.equal(turns.status, 200, JSON.stringify(turns.body));
    const form = new FormData();
    form.append('externalId', 'faq');
    form.append('file', new Blob([BAKERY_FAQ_MARKDOWN]), 'faq.md');
    const upload = await fetch(`${server.url}/knowledge-bases/${BAKERY_KB}/files`, { method: 'POST', headers: { 'x-api-key': server.key }, body: form });
    assert.ok(upload.ok, await upload.text());
    await waitForIdle(server, 180_000);
  });
  after(() => server.stop());

  for (const q of BAKERY_QUESTIONS) {
    it(q.question, async () => {
      const res = await api(server, 'POST', `/knowledge-bases/${BAKERY_KB}/ask`, { question: q.question });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const { answer, answered, citations } = res.body as { answer: string; answered: boolean; citations: { externalId: string }[] };
      assert.equal(answered, !q.abstain, `${q.abstain ? 'answered' : 'abstained'}: ${answer}`);
      if (q.abstain) return assert.deepEqual(citations, []);
      for (const fact of q.facts) assert.match(answer, fact);
      for (const wrong of q.forbidden) assert.doesNotMatch(answer, wrong);
      if (q.cites) assert.equal(citations[0]?.externalId, q.cites, answer);
    });
  }

  // A follow-up that points back is about the item the previous answer cited; a price question leads with the price.
  for (const q of TURNS_QUESTIONS) {
    it(`${q.question}${q.conversation ? ` (after "${q.conversation[0]!.content}")` : ''}`, async () => {
      const res = await api(server, 'POST', `/knowledge-bases/${TURNS_KB}/ask`, { question: q.question, ...(q.conversation ? { conversation: q.conversation } : {}) });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const { answer, answered, citations } = res.body as { answer: string; answered: boolean; citations: { externalId: string }[] };
      assert.equal(answered, true, answer);
      for (const fact of q.facts) assert.match(answer, fact);
      for (const wrong of q.forbidden) assert.doesNotMatch(answer, wrong);
      if (q.cites) assert.equal(citations[0]?.externalId, q.cites, answer);
      if (q.leads) assert.match(answer, q.leads);
    });
  }
});

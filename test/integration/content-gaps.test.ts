/**
 * Content gaps end to end, on the real server with its pipeline and the real model: visitors ask
 * what the knowledge base does not hold, in several wordings; the report groups them and ranks
 * them by visitors; the owner writes the answer, which goes through the ingestion queue and
 * becomes the group's curated answer; the same question then gets it as written, the new item is
 * searched, and the group counts as answered.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AdminContentGap, AdminContentGapReport, WriteAnswerResult } from '../../common/contract/content-gaps.ts';
import { visitorSessionSchema } from '../../common/contract/widget.ts';
import type { WidgetRecord } from '../../server/domain/widgets.ts';
import type { RunningServer } from '../../server/main.ts';
import { AdminClient } from '../helpers/admin-client.ts';
import { BAKERY_ORIGIN, KB, readEvents, startBakeryShop } from '../helpers/ask-fixtures.ts';
import { api, waitForIdle } from '../helpers/pipeline-app.ts';

const ORIGIN = BAKERY_ORIGIN;
const SOURDOUGH = ['Do you sell sourdough bread?', 'Is there sourdough bread for sale?', 'do you have sourdough bread'];
const PARKING = 'Where can I park my car near the shop?';

describe('content gaps: grouped unanswered questions, and writing the answer (real server, real model)', { timeout: 300_000 }, () => {
  let server: RunningServer & { key: string };
  let widget: WidgetRecord;
  let owner: AdminClient;
  let member: AdminClient;
  let visitors = 0;

  before(async () => {
    ({ server, widget, owner, member } = await startBakeryShop());
  });
  after(() => server.stop());

  /** A new visitor (an address of its own) asks one question; returns the `done` event. */
  async function visitorAsks(question: string): Promise<{ answered: boolean; answerId: string; token: string; citations: Array<{ title: string }> }> {
    const address = `10.1.0.${++visitors}`;
    const headers = { origin: ORIGIN, 'x-forwarded-for': address, 'content-type': 'application/json' };
    const session = await fetch(`${server.url}/v1/widget/${widget.id}/sessions`, { method: 'POST', headers });
    assert.equal(session.status, 201);
    const { token } = visitorSessionSchema.parse(await session.json());
    const res = await fetch(`${server.url}/v1/widget/${widget.id}/ask`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${token}` },
      body: JSON.stringify({ question }),
    });
    assert.equal(res.status, 200);
    const done = (await readEvents(res)).find((e) => e.event === 'done')!.data;
    return { ...done, token };
  }

  const report = async (query = '') => {
    const res = await member.get(`/content-gaps${query}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as AdminContentGapReport;
  };
  const groupOf = (gaps: AdminContentGap[], question: string) => gaps.find((g) => g.examples.some((e) => e.question === question));

  let sourdough: AdminContentGap;

  it('groups the wordings of one unanswered question, apart from another, and ranks by visitors', async () => {
    for (const question of [...SOURDOUGH, PARKING]) assert.equal((await visitorAsks(question)).answered, false, question);
    const answered = await visitorAsks('When does the bakery open on Sundays?');
    assert.equal(answered.answered, true);

    const { data, pending } = await report();
    assert.equal(pending, 0, 'the report groups what waits first');
    sourdough = groupOf(data, SOURDOUGH[0]!)!;
    assert.ok(sourdough, JSON.stringify(data));
    assert.deepEqual(sourdough.examples.map((e) => e.question).sort(), [...SOURDOUGH].sort(), 'three wordings, one group');
    assert.deepEqual({ asked: sourdough.asked, visitors: sourdough.visitors, abstained: sourdough.abstained, thumbsDown: sourdough.thumbsDown }, { asked: 3, visitors: 3, abstained: 3, thumbsDown: 0 });
    assert.equal(sourdough.knowledgeBaseId, KB);
    const parking = groupOf(data, PARKING)!;
    assert.ok(parking && parking.id !== sourdough.id, 'parking is a question of its own');
    assert.equal(data[0]!.id, sourdough.id, 'most visitors first');
    assert.ok(!groupOf(data, 'When does the bakery open on Sundays?'), 'an answered, unrated question is no gap');
    assert.ok(sourdough.nearestItems.length > 0, 'the items search found anyway');
    assert.ok(sourdough.nearestItems.every((item) => item.integrationId === 'cms'));
    assert.equal(sourdough.answeredAt, null);
  });

  it('counts an answer rated down as a gap', async () => {
    const rated = await visitorAsks('How much does delivery cost?');
    assert.equal(rated.answered, true);
    const feedback = await fetch(`${server.url}/v1/widget/${widget.id}/feedback`, {
      method: 'POST',
      headers: { origin: ORIGIN, 'x-forwarded-for': `10.1.0.${visitors}`, 'content-type': 'application/json', authorization: `Bearer ${rated.token}` },
      body: JSON.stringify({ answerId: rated.answerId, rating: 'down' }),
    });
    assert.equal(feedback.status, 204);
    const group = groupOf((await report()).data, 'How much does delivery cost?');
    assert.deepEqual({ thumbsDown: group?.thumbsDown, abstained: group?.abstained }, { thumbsDown: 1, abstained: 0 });
  });

  it('refuses a Member writing an answer, and an answer without content', async () => {
    const refused = await member.post(`/content-gaps/${sourdough.id}/answer`, { title: 'Sourdough', content: 'x' });
    assert.equal(refused.statusCode, 403);
    const empty = await owner.post(`/content-gaps/${sourdough.id}/answer`, { title: 'Sourdough', content: '' });
    assert.equal(empty.statusCode, 400);
    assert.equal(empty.json().code, 'invalid_body');
    assert.equal((await owner.post('/content-gaps/999999/answer', { title: 'x', content: 'y' })).statusCode, 404);
  });

  it('writes the answer through the ingestion queue and as a curated answer: the same question then gets it, and the page is searched', async () => {
    const content = 'Yes, we sell sourdough bread. Our sourdough loaves are baked every morning from rye and wheat flour and cost 6 euros each.';
    const res = await owner.post(`/content-gaps/${sourdough.id}/answer`, { title: 'Sourdough bread', content });
    assert.equal(res.statusCode, 202, res.body);
    const written = res.json() as WriteAnswerResult;
    assert.deepEqual(
      { kb: written.knowledgeBaseId, integration: written.integrationId, externalId: written.externalId, jobId: written.jobId },
      { kb: KB, integration: 'dashboard', externalId: `answer-${sourdough.id}`, jobId: `dashboard-answer-${sourdough.id}` },
    );
    assert.ok(written.group?.answeredAt);
    await waitForIdle(server, 60_000);
    const item = server.services.db.prepare('SELECT source_type, title FROM items WHERE integration_id = ? AND external_id = ?').get('dashboard', written.externalId);
    assert.deepEqual(item, { source_type: 'PAGE', title: 'Sourdough bread' });

    // The group's wordings now get the answer as written (it is also the group's curated answer),
    // and the page is searched and cited like any other.
    const again = (await visitorAsks(SOURDOUGH[0]!)) as Awaited<ReturnType<typeof visitorAsks>> & { answer: string; source?: string };
    assert.equal(again.answered, true, JSON.stringify(again));
    assert.deepEqual({ answer: again.answer, source: again.source }, { answer: content, source: 'owner' });
    assert.ok(written.curatedAnswerId);
    const found = await api(server, 'POST', `/knowledge-bases/${KB}/search`, { query: 'sourdough loaves rye flour', topK: 1 });
    assert.equal(found.body.results[0]?.title, 'Sourdough bread', JSON.stringify(found.body));

    const open = await report();
    assert.ok(!open.data.some((g) => g.id === sourdough.id), 'no longer an open gap');
    const answered = (await report('?status=answered')).data.find((g) => g.id === sourdough.id)!;
    assert.deepEqual(answered.answeredItem, { integrationId: 'dashboard', externalId: written.externalId });
    assert.equal(answered.askedSinceAnswer, 0);
    assert.ok(open.data.some((g) => g.examples.some((e) => e.question === PARKING)), 'the other gap stays open');
  });
});

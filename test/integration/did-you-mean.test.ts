/**
 * "Did you mean …?" and linking a content gap to a curated answer, on the real server with its
 * pipeline and the real model: a question left unanswered whose best curated answers score over
 * the floor carries up to three of them (`suggestions`), on the API ask and the visitor's ask;
 * asking one gets its curated answer, recorded in the visitor's conversation; answered questions,
 * questions near no curated answer and curated answers of other knowledge bases are never
 * offered. The owner links a group of unanswered questions to a curated answer: its wordings join
 * the answer's `alsoAsked`, the group counts as answered, and the same wording is then matched.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { askResponseSchema, type AskSuggestion } from '../../common/contract/ask.ts';
import type { AdminContentGap, AdminContentGapReport, LinkAnswerResult } from '../../common/contract/content-gaps.ts';
import type { AdminConversation, AdminConversationList } from '../../common/contract/conversations.ts';
import type { CuratedAnswerView } from '../../common/contract/curated-answers.ts';
import { visitorSessionSchema } from '../../common/contract/widget.ts';
import type { WidgetRecord } from '../../server/domain/widgets.ts';
import type { RunningServer } from '../../server/main.ts';
import { SUGGESTED } from '../../server/retrieval/curated/match.ts';
import { AdminClient } from '../helpers/admin-client.ts';
import { BAKERY_ORIGIN, KB, readEvents, startBakeryShop } from '../helpers/ask-fixtures.ts';
import { api } from '../helpers/pipeline-app.ts';

const ORIGIN = BAKERY_ORIGIN;
const PARKING_ANSWER = 'Park for free in the yard behind the shop.';
const CURATED = [
  { question: 'Do you sell sourdough bread?', answer: 'Yes. Our sourdough loaves are baked on Fridays and cost 6 euros.' },
  { question: 'Do you sell rye bread?', answer: 'Rye bread is baked on Wednesdays.' },
  { question: 'Where can I park?', answer: PARKING_ANSWER },
  { question: 'Can I pay by card?', answer: 'Yes, we take debit and credit cards, and contactless payment.' },
  { question: 'Do you bake vegan cakes?', answer: 'Yes, two vegan cakes every day: apple crumble and chocolate.' },
];
/** Close to "Where can I park?" (over the floor) but not matched, and nothing in the content answers it. */
const NEAR_PARKING = 'where do I leave my car';
/** Between the sourdough and the rye answers: both close, neither leads by the margin. */
const BETWEEN_BREADS = 'which breads do you sell';

type Done = { answered: boolean; answer: string; answerId: string; source?: string; suggestions?: AskSuggestion[] };

describe('"Did you mean": the owner\'s answers offered when unsure, and content gaps linked to them (real server, real model)', { timeout: 300_000 }, () => {
  let server: RunningServer & { key: string };
  let widget: WidgetRecord;
  let owner: AdminClient;
  let member: AdminClient;
  let visitors = 0;
  const curated = new Map<string, CuratedAnswerView>();

  before(async () => {
    ({ server, widget, owner, member } = await startBakeryShop());
    for (const body of CURATED) {
      const res = await owner.post(`/knowledge-bases/${KB}/answers`, body);
      assert.equal(res.statusCode, 201, res.body);
      curated.set(body.question, res.json() as CuratedAnswerView);
    }
  });
  after(() => server.stop());

  /** A visitor with a session of its own (an address of its own); `ask` asks in that session. */
  async function newVisitor() {
    const headers = { origin: ORIGIN, 'x-forwarded-for': `10.3.0.${++visitors}`, 'content-type': 'application/json' };
    const session = await fetch(`${server.url}/v1/widget/${widget.id}/sessions`, { method: 'POST', headers });
    assert.equal(session.status, 201);
    const { token } = visitorSessionSchema.parse(await session.json());
    return {
      async ask(question: string): Promise<Done> {
        const res = await fetch(`${server.url}/v1/widget/${widget.id}/ask`, { method: 'POST', headers: { ...headers, authorization: `Bearer ${token}` }, body: JSON.stringify({ question }) });
        assert.equal(res.status, 200);
        return (await readEvents(res)).find((e) => e.event === 'done')!.data as Done;
      },
    };
  }
  const visitorAsks = async (question: string) => (await newVisitor()).ask(question);
  const apiAsks = async (question: string) => {
    const res = await api(server, 'POST', `/knowledge-bases/${KB}/ask`, { question });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return askResponseSchema.parse(res.body);
  };
  const curatedQuestions = () => new Set(CURATED.map((c) => c.question));

  it('offers the closest curated question to an unanswered visitor; asking it gets the curated answer, both kept in the conversation', async () => {
    const visitor = await newVisitor();
    const unsure = await visitor.ask(NEAR_PARKING);
    assert.equal(unsure.answered, false, JSON.stringify(unsure));
    assert.equal(unsure.answer, widget.fallbackMessage);
    assert.ok(unsure.suggestions && unsure.suggestions.length >= 1 && unsure.suggestions.length <= SUGGESTED, JSON.stringify(unsure.suggestions));
    assert.deepEqual(unsure.suggestions[0], { id: curated.get('Where can I park?')!.id, question: 'Where can I park?' }, 'the closest first, as {id, question}');
    for (const s of unsure.suggestions) assert.ok(curatedQuestions().has(s.question), s.question);

    const clicked = await visitor.ask(unsure.suggestions[0]!.question);
    assert.deepEqual({ answered: clicked.answered, answer: clicked.answer, source: clicked.source, suggestions: clicked.suggestions }, { answered: true, answer: PARKING_ANSWER, source: 'owner', suggestions: undefined });

    const list = (await owner.get(`/conversations?widgetId=${widget.id}`)).json() as AdminConversationList;
    const kept = list.data.find((c) => c.firstQuestion === NEAR_PARKING);
    assert.ok(kept, JSON.stringify(list.data));
    const conversation = (await owner.get(`/conversations/${kept.id}`)).json() as AdminConversation;
    assert.deepEqual(
      conversation.turnList.map((t) => [t.question, t.answered]),
      [[NEAR_PARKING, false], ['Where can I park?', true]],
      'the click is asked and kept like any question',
    );
  });

  it('offers up to three, best first, on the API ask too, documented in its response schema', async () => {
    const res = await apiAsks(BETWEEN_BREADS);
    assert.equal(res.answered, false, JSON.stringify(res));
    assert.ok(res.suggestions && res.suggestions.length <= SUGGESTED, JSON.stringify(res.suggestions));
    const offered = res.suggestions.map((s) => s.question);
    assert.deepEqual(offered.slice(0, 2).sort(), ['Do you sell rye bread?', 'Do you sell sourdough bread?'], JSON.stringify(offered));
    for (const s of res.suggestions) assert.equal(curated.get(s.question)?.id, s.id);
    const openapi = (await (await fetch(`${server.url}/docs/json`)).json()) as { components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };
    assert.ok(openapi.components.schemas.AskResponse?.properties?.suggestions, 'OpenAPI shows suggestions');
    assert.ok(openapi.components.schemas.AskSuggestion, 'and their shape');
  });

  it('offers nothing when no curated answer is close, and never beside an answer', async () => {
    const far = await visitorAsks('what is the weather like on the moon tomorrow');
    assert.equal(far.answered, false);
    assert.equal(far.suggestions, undefined, JSON.stringify(far.suggestions));
    assert.equal('suggestions' in (await apiAsks('what is the weather like on the moon tomorrow')), false, 'the field is absent, not empty');

    const retrieved = await apiAsks('When does the bakery open on Sundays?');
    assert.equal(retrieved.answered, true);
    assert.equal(retrieved.suggestions, undefined);
    const owners = await visitorAsks('Can I pay with my card?');
    assert.deepEqual({ source: owners.source, suggestions: owners.suggestions }, { source: 'owner', suggestions: undefined });
  });

  it('offers only curated questions of the knowledge bases asked', async () => {
    // Worded exactly as the question: it would lead any offer were it of this knowledge base.
    const elsewhere = server.services.curatedAnswers.create('kb-elsewhere', { question: 'Where do I leave my car?', answer: 'In the other shop\'s garage.', alsoAsked: [] });
    try {
      const res = await apiAsks(NEAR_PARKING);
      assert.ok(res.suggestions?.length, JSON.stringify(res));
      assert.ok(!res.suggestions.some((s) => s.id === elsewhere.id), JSON.stringify(res.suggestions));
    } finally {
      server.services.curatedAnswers.delete('kb-elsewhere', elsewhere.id);
    }
  });

  it('links a content gap to a curated answer: its wordings join alsoAsked, the group is answered, the wording is matched from then on', async () => {
    const wording = 'Is there somewhere my camper van can stand while I shop?';
    const first = await visitorAsks(wording);
    assert.equal(first.answered, false);
    const gaps = ((await member.get('/content-gaps')).json() as AdminContentGapReport).data;
    const group = gaps.find((g) => g.examples.some((e) => e.question === wording)) as AdminContentGap;
    assert.ok(group, JSON.stringify(gaps.map((g) => g.examples)));
    const parking = curated.get('Where can I park?')!;
    const link = `/content-gaps/${group.id}/linked-answer`;

    assert.equal((await member.post(link, { curatedAnswerId: parking.id })).statusCode, 403, 'Owner and Admins only');
    const bad = await owner.post(link, { curatedAnswerId: 'parking' });
    assert.deepEqual([bad.statusCode, bad.json().code], [400, 'invalid_body']);
    const noGroup = await owner.post('/content-gaps/999999/linked-answer', { curatedAnswerId: parking.id });
    assert.deepEqual([noGroup.statusCode, noGroup.json().code], [404, 'not_found']);
    const other = server.services.curatedAnswers.create('kb-elsewhere', { question: 'Where can I park?', answer: 'Elsewhere.', alsoAsked: [] });
    const wrongKb = await owner.post(link, { curatedAnswerId: other.id });
    assert.deepEqual([wrongKb.statusCode, wrongKb.json().code], [404, 'not_found'], 'a curated answer of another knowledge base');
    server.services.curatedAnswers.delete('kb-elsewhere', other.id);
    const full = (await owner.post(`/knowledge-bases/${KB}/answers`, { question: 'Do you sell spelt?', answer: 'Yes.', alsoAsked: Array.from({ length: 50 }, (_, i) => `Spelt ${i}?`) })).json() as CuratedAnswerView;
    const refused = await owner.post(link, { curatedAnswerId: full.id });
    assert.deepEqual([refused.statusCode, refused.json().code], [409, 'conflict']);
    assert.equal((await owner.delete(`/knowledge-bases/${KB}/answers/${full.id}`)).statusCode, 204);

    const linked = await owner.post(link, { curatedAnswerId: parking.id });
    assert.equal(linked.statusCode, 200, linked.body);
    const result = linked.json() as LinkAnswerResult;
    assert.ok(result.added.includes(wording), JSON.stringify(result));
    assert.equal(result.group?.linkedAnswerId, parking.id);
    assert.ok(result.group?.answeredAt);
    const stored = (await member.get(`/knowledge-bases/${KB}/answers/${parking.id}`)).json() as CuratedAnswerView;
    assert.ok(stored.alsoAsked.includes(wording), JSON.stringify(stored.alsoAsked));
    const answered = ((await member.get('/content-gaps?status=answered')).json() as AdminContentGapReport).data.find((g) => g.id === group.id);
    assert.equal(answered?.linkedAnswerId, parking.id, 'the group moved to the answered ones');
    const again = await owner.post(link, { curatedAnswerId: parking.id });
    assert.deepEqual((again.json() as LinkAnswerResult).added, [], 'linking again adds nothing');

    const later = await visitorAsks(wording);
    assert.deepEqual({ answered: later.answered, answer: later.answer, source: later.source }, { answered: true, answer: PARKING_ANSWER, source: 'owner' });
  });
});

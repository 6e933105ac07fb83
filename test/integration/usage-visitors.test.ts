/**
 * The visitor analytics of `GET /usage` (and the dashboard's copy): sessions, answered share,
 * feedback and answer times per hour or day, per knowledge base and widget, top questions grouped
 * by meaning (with the real model) and top cited items; documented in the OpenAPI document.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { latencyBucket, latencyBucketUpperMs } from '../../server/domain/visitor-conversations.ts';
import { AdminClient } from '../helpers/admin-client.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

const HOUR = 3_600_000;
/** Answer times are reported as the upper bound of their histogram bucket (at most 20 % above). */
const reported = (ms: number) => latencyBucketUpperMs(latencyBucket(ms));
const DAY = 24 * HOUR;

describe('GET /usage: visitor analytics', { timeout: 120_000 }, () => {
  let t: TestApp;
  let key: string;
  let shop = '';
  let faq = '';
  const day0 = Date.UTC(2026, 5, 18);
  let now = day0;

  before(async () => {
    t = await createTestApp({}, undefined, { clock: () => now });
    key = t.key({ scopes: ['usage:read'] });
    const { widgets, visitorConversations: conversations } = t.services;
    shop = widgets.create({ name: 'Shop', knowledgeBaseIds: ['kb-main'], allowedOrigins: ['https://shop.example'] }).id;
    faq = widgets.create({ name: 'FAQ', knowledgeBaseIds: ['kb-faq'], allowedOrigins: ['https://faq.example'] }).id;
    let n = 0;
    const visit = (widgetId: string, at: number, turns: Array<{ q: string; answered: boolean; ms: number; rating?: 'up' | 'down'; cite?: string }>) => {
      now = at;
      const session = conversations.startSession({ id: `vs_${String(++n).padStart(20, '0')}`, widgetId, origin: 'https://shop.example', ipHash: `${n}`.padStart(64, '0') });
      for (const turn of turns) {
        const recorded = conversations.recordTurn({
          sessionId: session.id,
          widgetId,
          knowledgeBaseId: widgetId === shop ? 'kb-main' : 'kb-faq',
          question: turn.q,
          answer: 'x',
          answered: turn.answered,
          citations: turn.cite ? [{ number: 1, title: turn.cite, url: `https://shop.example/${turn.cite.toLowerCase()}` }] : [],
          latencyMs: turn.ms,
          askedAt: now,
        });
        if (turn.rating) conversations.rate(session.id, recorded.id, turn.rating);
        now += 1_000;
      }
    };
    // Day 0: two shop visitors ask about delivery in other words; one FAQ visitor.
    visit(shop, day0 + 9 * HOUR, [
      { q: 'Do you deliver to Bern?', answered: true, ms: 100, rating: 'up', cite: 'Delivery' },
      { q: 'When do you open on Sunday?', answered: true, ms: 300, cite: 'Opening hours' },
    ]);
    visit(shop, day0 + 10 * HOUR, [{ q: 'Can you deliver my order to Bern?', answered: true, ms: 200, rating: 'down', cite: 'Delivery' }]);
    visit(faq, day0 + 11 * HOUR, [{ q: 'Do you sell gift cards?', answered: false, ms: 50 }]);
    // Day 1: one more shop visitor.
    visit(shop, day0 + DAY + 8 * HOUR, [{ q: 'do you deliver to bern', answered: true, ms: 400, cite: 'Delivery' }]);
    now = day0 + 2 * DAY;
    // Group what was asked, with the real model, as the background pass does.
    assert.equal(await t.services.questionGrouper.catchUp(), 5);
  });
  after(() => t.close());

  const usage = async (query: string) => {
    const res = await t.app.inject({ method: 'GET', url: `/usage?${query}`, headers: { 'x-api-key': key } });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().visitors;
  };
  const range = `from=${new Date(day0).toISOString()}&to=${new Date(day0 + 2 * DAY).toISOString()}`;

  it('sums sessions, questions, answered share, feedback and answer times for the period', async () => {
    const v = await usage(`${range}&granularity=day`);
    assert.deepEqual(v.summary, {
      questions: 5, answered: 4, answeredShare: 0.8, feedbackUp: 1, feedbackDown: 1, sessions: 4,
      answerTimeMs: { median: reported(200), p95: reported(400) },
    });
    assert.deepEqual(v.totals, { questions: 5, answered: 4, feedbackUp: 1, feedbackDown: 1 }, 'the existing fields unchanged');
  });

  it('gives every day (or hour) of the range, quiet ones too', async () => {
    const days = (await usage(`${range}&granularity=day`)).series;
    assert.deepEqual(
      days.map((d: any) => [d.start.slice(0, 10), d.sessions, d.questions, d.answered, d.answeredShare, d.feedbackUp, d.feedbackDown, d.answerTimeMs.median]),
      [
        ['2026-06-18', 3, 4, 3, 0.75, 1, 1, reported(100)],
        ['2026-06-19', 1, 1, 1, 1, 0, 0, reported(400)],
      ],
    );
    const hours = (await usage(`from=${new Date(day0 + 9 * HOUR).toISOString()}&to=${new Date(day0 + 12 * HOUR).toISOString()}&granularity=hour`)).series;
    assert.deepEqual(hours.map((h: any) => [h.start.slice(11, 13), h.questions, h.answerTimeMs.p95]), [['09', 2, reported(300)], ['10', 1, reported(200)], ['11', 1, reported(50)]]);
    const quiet = (await usage(`from=${new Date(day0 + 3 * DAY).toISOString()}&to=${new Date(day0 + 5 * DAY).toISOString()}&granularity=day`)).series;
    assert.deepEqual(quiet.map((d: any) => [d.questions, d.sessions, d.answeredShare, d.answerTimeMs.median]), [[0, 0, null, null], [0, 0, null, null]]);
  });

  it('splits by knowledge base, filters by widget, and counts one question worded three ways once', async () => {
    const v = await usage(`${range}&granularity=day`);
    assert.deepEqual(v.byKnowledgeBase.map((k: any) => [k.knowledgeBaseId, k.questions, k.answeredShare]), [['kb-main', 4, 1], ['kb-faq', 1, 0]]);
    const top = v.topQuestions[0];
    assert.deepEqual({ asked: top.asked, answered: top.answered, wordings: top.wordings }, { asked: 3, answered: 3, wordings: 3 });
    assert.match(top.question, /deliver/i);
    assert.equal(v.topQuestions.length, 3);
    assert.deepEqual(v.topCitedItems, [
      { title: 'Delivery', url: 'https://shop.example/delivery', cited: 3 },
      { title: 'Opening hours', url: 'https://shop.example/opening hours', cited: 1 },
    ]);
    const onlyFaq = await usage(`${range}&granularity=day&widgetId=${faq}`);
    assert.deepEqual([onlyFaq.summary.questions, onlyFaq.summary.answered, onlyFaq.summary.sessions], [1, 0, 1]);
    assert.deepEqual(onlyFaq.byWidget.map((w: any) => w.widgetId), [faq]);
    assert.deepEqual(onlyFaq.topQuestions, [{ question: 'Do you sell gift cards?', asked: 1, answered: 0, wordings: 1 }]);
    assert.equal((await usage(`${range}&knowledgeBaseId=kb-faq`)).summary.questions, 1);
    assert.deepEqual((await usage(`${range}&keyId=nokey`)).summary.questions, 0, 'visitors use no key');
  });

  it('shows a key restricted to knowledge bases only theirs', async () => {
    const restricted = t.key({ scopes: ['usage:read'], knowledgeBaseIds: ['kb-faq'] });
    const res = await t.app.inject({ method: 'GET', url: `/usage?${range}`, headers: { 'x-api-key': restricted } });
    const v = res.json().visitors;
    assert.equal(v.summary.questions, 1);
    assert.ok(v.topCitedItems.length === 0 && v.topQuestions.every((q: any) => q.question === 'Do you sell gift cards?'));
  });

  it('serves the same visitor report to the dashboard', async () => {
    const owner = new AdminClient(t.app);
    assert.equal((await owner.post('/setup', { username: 'owner', password: 'owner password 1' })).statusCode, 201);
    const res = await owner.get(`/usage?${range}&granularity=day`);
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().visitors.summary.questions, 5);
  });

  it('documents the new fields in the OpenAPI document', async () => {
    const doc = JSON.stringify((await t.app.inject({ method: 'GET', url: '/docs/json' })).json());
    for (const field of ['topQuestions', 'topCitedItems', 'answeredShare', 'answerTimeMs', 'widgetId']) assert.ok(doc.includes(`"${field}"`), field);
  });
});

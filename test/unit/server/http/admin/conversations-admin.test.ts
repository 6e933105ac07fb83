/**
 * The owner's conversations (admin API): the list and its filters, paging, the reading view,
 * export as CSV and JSON Lines, and deletion, which Members may not do.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AdminConversation, AdminConversationList, ConversationExportRow } from '../../../../../common/contract/conversations.ts';
import { AdminClient, signedInAs } from '../../../../helpers/admin-client.ts';
import { createTestApp, type TestApp } from '../../../../helpers/test-app.ts';

const DAY = 86_400_000;
const OWNER = { username: 'owner', password: 'owner password 1' };
const IP_HASH = 'f'.repeat(64);

describe('admin API: conversations', () => {
  let t: TestApp;
  let owner: AdminClient;
  let admin: AdminClient;
  let member: AdminClient;
  let now = Date.UTC(2026, 5, 20, 12);
  const ids: Record<string, string> = {};
  let shop = '';
  let faq = '';

  before(async () => {
    t = await createTestApp({}, undefined, { jobWriter: 'in-process', clock: () => now });
    owner = new AdminClient(t.app);
    assert.equal((await owner.post('/setup', OWNER)).statusCode, 201);
    admin = await signedInAs(owner, t.app, 'admin');
    member = await signedInAs(owner, t.app, 'member');
    const { widgets, visitorConversations: conversations } = t.services;
    shop = widgets.create({ name: 'Shop', knowledgeBaseIds: ['kb-main'], allowedOrigins: ['https://shop.example'] }).id;
    faq = widgets.create({ name: 'FAQ page', knowledgeBaseIds: ['kb-faq'], allowedOrigins: ['https://faq.example'] }).id;
    const today = now;
    let n = 0;
    const conversation = (name: string, widgetId: string, daysAgo: number, turns: Array<{ q: string; answered: boolean; kb?: string; rating?: 'up' | 'down' }>) => {
      now = today - daysAgo * DAY;
      const session = conversations.startSession({ id: `vs_${String(++n).padStart(20, '0')}`, widgetId, origin: widgetId === shop ? 'https://shop.example' : 'https://faq.example', ipHash: IP_HASH });
      ids[name] = session.id;
      for (const turn of turns) {
        now += 30_000;
        const recorded = conversations.recordTurn({
          sessionId: session.id,
          widgetId,
          knowledgeBaseId: turn.kb ?? (widgetId === shop ? 'kb-main' : 'kb-faq'),
          question: turn.q,
          answer: turn.answered ? 'We open at 8.' : 'Please call us.',
          answered: turn.answered,
          citations: turn.answered ? [{ number: 1, title: 'Opening hours', url: 'https://shop.example/hours' }] : [],
          latencyMs: 40,
        });
        if (turn.rating) conversations.rate(session.id, recorded.id, turn.rating);
      }
    };
    conversation('sunday', shop, 10, [{ q: 'When do you open on Sunday?', answered: true, rating: 'up' }]);
    conversation('gluten', shop, 3, [
      { q: 'Do you sell gluten-free bread?', answered: false },
      { q: '=HYPERLINK("http://evil.example","click")', answered: true, rating: 'down' },
    ]);
    conversation('delivery', faq, 1, [{ q: 'Do you deliver to Bern?', answered: true, rating: 'down' }]);
    conversation('quotes', shop, 0, [{ q: 'He said "50% off", right?', answered: true }]);
    now = today + 60_000;
  });
  after(() => t.close());

  const list = async (client: AdminClient, query = '') => {
    const res = await client.get(`/conversations${query}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as AdminConversationList;
  };
  const names = (page: AdminConversationList) => page.data.map((c) => Object.entries(ids).find(([, id]) => id === c.id)![0]);

  it('lists conversations newest first with their widget, counts and first question, and no address hash', async () => {
    const page = await list(member);
    assert.deepEqual(names(page), ['quotes', 'delivery', 'gluten', 'sunday']);
    assert.equal(page.nextCursor, null);
    const gluten = page.data.find((c) => c.id === ids.gluten)!;
    assert.deepEqual(
      { widgetName: gluten.widgetName, turns: gluten.turns, unanswered: gluten.unanswered, thumbsDown: gluten.thumbsDown, first: gluten.firstQuestion },
      { widgetName: 'Shop', turns: 2, unanswered: 1, thumbsDown: 1, first: 'Do you sell gluten-free bread?' },
    );
    assert.equal(gluten.startedAt, new Date(Date.UTC(2026, 5, 17, 12)).toISOString());
    assert.ok(!JSON.stringify(page).includes(IP_HASH));
    assert.ok(!JSON.stringify(page).includes('ipHash'));
  });

  it('filters by widget, knowledge base, dates, unanswered, thumbs down and words of the questions', async () => {
    assert.deepEqual(names(await list(member, `?widgetId=${faq}`)), ['delivery']);
    assert.deepEqual(names(await list(member, '?knowledgeBaseId=kb-main')), ['quotes', 'gluten', 'sunday']);
    const from = new Date(Date.UTC(2026, 5, 15)).toISOString();
    const to = new Date(Date.UTC(2026, 5, 20)).toISOString();
    assert.deepEqual(names(await list(member, `?from=${from}&to=${to}`)), ['delivery', 'gluten']);
    assert.deepEqual(names(await list(member, '?unanswered=true')), ['gluten']);
    assert.deepEqual(names(await list(member, '?thumbsDown=true')), ['delivery', 'gluten']);
    assert.deepEqual(names(await list(member, `?thumbsDown=true&widgetId=${shop}`)), ['gluten']);
    assert.deepEqual(names(await list(member, '?q=GLUTEN')), ['gluten']);
    assert.deepEqual(names(await list(member, '?q=you%20sunday')), ['sunday']);
    // % and _ are literal characters, not wildcards.
    assert.deepEqual(names(await list(member, '?q=50%25')), ['quotes']);
    assert.deepEqual(names(await list(member, '?q=%25%25')), []);
    // Unanswered and thumbs down must hold of the same question: the down-rated one was answered.
    assert.deepEqual(names(await list(member, '?unanswered=true&thumbsDown=true')), []);
  });

  it('pages with a cursor, each conversation once, and refuses a cursor it did not give', async () => {
    const seen: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page: AdminConversationList = await list(member, `?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      assert.ok(page.data.length <= 1);
      seen.push(...names(page));
      cursor = page.nextCursor;
    }
    assert.deepEqual(seen, ['quotes', 'delivery', 'gluten', 'sunday']);
    const bad = await member.get('/conversations?cursor=bm90LWEtY3Vyc29y');
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().code, 'invalid_query');
    const backwards = await member.get(`/conversations?from=2026-06-20&to=2026-06-01`);
    assert.equal(backwards.statusCode, 400);
    assert.equal(backwards.json().code, 'invalid_query');
  });

  it('opens one conversation with every question, answer, citation and rating', async () => {
    const res = await member.get(`/conversations/${ids.gluten}`);
    assert.equal(res.statusCode, 200);
    const conversation = res.json() as AdminConversation;
    assert.deepEqual(
      conversation.turnList.map((turn) => [turn.question, turn.answered, turn.feedback, turn.citations.length]),
      [
        ['Do you sell gluten-free bread?', false, null, 0],
        ['=HYPERLINK("http://evil.example","click")', true, 'down', 1],
      ],
    );
    const missing = await member.get('/conversations/vs_nope');
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().code, 'not_found');
  });

  it('exports the filtered list as CSV, a row per question, formulas defused, without addresses', async () => {
    const res = await member.get(`/conversations/export?format=csv&widgetId=${shop}`);
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/csv/);
    assert.match(String(res.headers['content-disposition']), /^attachment; filename="conversations-\d{4}-\d\d-\d\d\.csv"$/);
    const lines = res.body.replace(/^\uFEFF/, '').trimEnd().split('\r\n');
    assert.equal(lines[0], '"conversationId","source","widgetId","widgetName","origin","userName","startedAt","answerId","askedAt","knowledgeBaseId","question","answer","answered","feedback","latencyMs","citations","handoffId","contactName","contactEmail","contactPhone"');
    assert.equal(lines.length, 1 + 4, 'a header and the four questions of the shop widget');
    assert.ok(lines.some((l) => l.includes(`"'=HYPERLINK(""http://evil.example"",""click"")"`)), 'the formula starts with an apostrophe, quotes doubled');
    assert.ok(lines.some((l) => l.includes('"He said ""50% off"", right?"')));
    assert.ok(lines.some((l) => l.includes('"Opening hours <https://shop.example/hours>"')));
    assert.ok(!res.body.includes(IP_HASH));
    const thumbsDown = await member.get('/conversations/export?format=csv&thumbsDown=true');
    assert.equal(thumbsDown.body.trimEnd().split('\r\n').length, 1 + 3, 'both conversations with a thumbs down, all their questions');
  });

  it('exports JSON Lines, one parsable object per question, in the filtered order', async () => {
    const res = await member.get('/conversations/export?format=jsonl&knowledgeBaseId=kb-faq');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/x-ndjson/);
    const rows = res.body.trimEnd().split('\n').map((line) => JSON.parse(line) as ConversationExportRow);
    assert.deepEqual(rows.map((r) => [r.conversationId, r.source, r.widgetName, r.userName, r.question, r.feedback]), [[ids.delivery, 'visitor', 'FAQ page', null, 'Do you deliver to Bern?', 'down']]);
    assert.deepEqual(Object.keys(rows[0]!).sort(), ['answer', 'answerId', 'answered', 'askedAt', 'citations', 'contactEmail', 'contactName', 'contactPhone', 'conversationId', 'feedback', 'handoffId', 'knowledgeBaseId', 'latencyMs', 'origin', 'question', 'source', 'startedAt', 'userName', 'widgetId', 'widgetName']);
    const bad = await member.get('/conversations/export?format=xml');
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().code, 'invalid_query');
  });

  it('lets Members read but not delete; the Owner and Admins delete one, or all older than a date', async () => {
    const refused = await member.delete(`/conversations/${ids.quotes}`);
    assert.equal(refused.statusCode, 403);
    assert.equal((await member.post('/conversations/delete-older', { before: new Date(now).toISOString() })).statusCode, 403);
    assert.equal((await member.get(`/conversations/${ids.quotes}`)).statusCode, 200, 'still there');

    assert.equal((await admin.delete(`/conversations/${ids.quotes}`)).statusCode, 204);
    assert.equal((await owner.get(`/conversations/${ids.quotes}`)).statusCode, 404);
    assert.equal((await owner.delete(`/conversations/${ids.quotes}`)).statusCode, 404);

    const future = await owner.post('/conversations/delete-older', { before: new Date(now + DAY).toISOString() });
    assert.equal(future.statusCode, 400);
    assert.equal((await owner.post('/conversations/delete-older', { before: 'last week' })).json().code, 'invalid_body');
    const older = await owner.post('/conversations/delete-older', { before: new Date(Date.UTC(2026, 5, 18)).toISOString() });
    assert.equal(older.statusCode, 200, older.body);
    assert.deepEqual(older.json(), { deleted: 2 });
    assert.deepEqual(names(await list(owner)), ['delivery']);
  });
});

/**
 * Dashboard conversations on the real server with its pipeline and the real model: a signed-in
 * user's chat questions are kept with the user and listed on the Conversations API beside the
 * visitors' (source filter), exported with their source and no address, rated, deleted and
 * removed with older conversations; the content-gap report and the visitor analytics stay about
 * visitors only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AdminContentGapReport } from '../../common/contract/content-gaps.ts';
import type { AdminConversation, AdminConversationList, ConversationExportRow, DashboardAnswer } from '../../common/contract/conversations.ts';
import { visitorSessionSchema } from '../../common/contract/widget.ts';
import type { WidgetRecord } from '../../server/domain/widgets.ts';
import type { RunningServer } from '../../server/main.ts';
import { AdminClient, signedInAs } from '../helpers/admin-client.ts';
import { KB, pushBakery, readEvents } from '../helpers/ask-fixtures.ts';
import { startPipelineServer } from '../helpers/pipeline-app.ts';

const ORIGIN = 'https://shop.example';
const OWNER = { username: 'owner', password: 'owner password 1' };
const OPEN = 'When does the bakery open on Sundays?';
const SOURDOUGH = 'Do you sell sourdough bread?';

/** The `done` event of a streamed answer in a body read whole (inject). */
function doneEvent(body: string): DashboardAnswer {
  const frame = body.split('\n\n').find((f) => /^event: done$/m.test(f));
  assert.ok(frame, body);
  return JSON.parse(/^data: (.*)$/m.exec(frame)![1]!) as DashboardAnswer;
}

describe('dashboard conversations: kept, listed, exported, deleted; gaps and usage stay visitors\' (real server, real model)', { timeout: 300_000 }, () => {
  let server: RunningServer & { key: string };
  let widget: WidgetRecord;
  let owner: AdminClient;
  let admin: AdminClient;
  let member: AdminClient;
  let visitorConversation = '';
  let memberConversation = '';
  let ownerConversation = '';
  let memberAnswers: string[] = [];

  before(async () => {
    server = await startPipelineServer({ trustedProxies: ['127.0.0.1'] });
    await pushBakery(server);
    widget = server.services.widgets.create({ name: 'Bakery', knowledgeBaseIds: [KB], allowedOrigins: [ORIGIN] });
    owner = new AdminClient(server.app);
    assert.equal((await owner.post('/setup', OWNER)).statusCode, 201);
    admin = await signedInAs(owner, server.app, 'admin');
    member = await signedInAs(owner, server.app, 'member');
  });
  after(() => server.stop());

  const list = async (query = '') => {
    const res = await member.get(`/conversations${query}`);
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as AdminConversationList).data;
  };
  const ask = async (client: AdminClient, body: Record<string, unknown>) => {
    const res = await client.post(`/knowledge-bases/${KB}/ask`, body);
    assert.equal(res.statusCode, 200, res.body);
    return body.stream ? doneEvent(res.body) : (res.json() as DashboardAnswer);
  };

  it('keeps each dashboard answer in the user\'s conversation, with the user, and returns where', async () => {
    // A visitor asks the unanswerable question too, through the widget.
    const headers = { origin: ORIGIN, 'x-forwarded-for': '10.2.0.1', 'content-type': 'application/json' };
    const session = await fetch(`${server.url}/v1/widget/${widget.id}/sessions`, { method: 'POST', headers });
    const { token } = visitorSessionSchema.parse(await session.json());
    const visitorAnswer = await fetch(`${server.url}/v1/widget/${widget.id}/ask`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${token}` },
      body: JSON.stringify({ question: SOURDOUGH }),
    });
    assert.equal((await readEvents(visitorAnswer)).find((e) => e.event === 'done')!.data.answered, false);

    const first = await ask(member, { question: OPEN });
    assert.equal(first.answered, true);
    assert.match(first.conversationId!, /^dc_/);
    assert.match(first.answerId!, /^ans_/);
    const second = await ask(member, { question: SOURDOUGH, stream: true, conversationId: first.conversationId });
    assert.equal(second.answered, false);
    assert.equal(second.conversationId, first.conversationId, 'the same chat, the same conversation');
    memberConversation = first.conversationId!;
    memberAnswers = [first.answerId!, second.answerId!];
    // The Owner sends the Member's conversation id: the answer starts a conversation of the Owner's.
    const owners = await ask(owner, { question: SOURDOUGH, stream: true, conversationId: memberConversation });
    assert.notEqual(owners.conversationId, memberConversation);
    ownerConversation = owners.conversationId!;

    const bad = await member.post(`/knowledge-bases/${KB}/ask`, { question: OPEN, conversationId: 'vs_not-a-dashboard-one' });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().code, 'invalid_body');

    const res = await member.get(`/conversations/${memberConversation}`);
    assert.equal(res.statusCode, 200, res.body);
    const read = res.json() as AdminConversation;
    const memberUser = read.user!;
    assert.equal(memberUser.name, 'member');
    assert.deepEqual({ source: read.source, widgetId: read.widgetId, origin: read.origin }, { source: 'dashboard', widgetId: null, origin: null });
    assert.deepEqual(
      read.turnList.map((t) => [t.question, t.answered, t.knowledgeBaseId]),
      [
        [OPEN, true, KB],
        [SOURDOUGH, false, KB],
      ],
    );
    assert.ok(read.turnList[0]!.citations.length > 0 && read.turnList[0]!.citations.every((c) => c.title), 'citations kept');
    assert.equal(read.turnList[0]!.answer, first.answer);
    assert.ok(read.turnList.every((t) => t.latencyMs > 0), 'answer times kept');
    assert.ok(!res.body.includes('password') && !res.body.includes(member.cookie!.split('=')[1]!), 'no password, no session token');
    visitorConversation = (await list('?source=visitor'))[0]!.id;
  });

  it('lists dashboard and visitor conversations, newest first, filtered by source', async () => {
    const everything = await list();
    assert.deepEqual(everything.map((c) => [c.source, c.user?.name ?? c.widgetName]), [
      ['dashboard', 'owner'],
      ['dashboard', 'member'],
      ['visitor', 'Bakery'],
    ]);
    assert.deepEqual((await list('?source=all')).map((c) => c.id), everything.map((c) => c.id));
    assert.deepEqual((await list('?source=dashboard')).map((c) => c.id), [ownerConversation, memberConversation]);
    assert.deepEqual((await list('?source=visitor')).map((c) => c.id), [visitorConversation]);
    assert.deepEqual((await list(`?widgetId=${widget.id}`)).map((c) => c.id), [visitorConversation], 'a widget filter selects visitors only');
    assert.deepEqual((await list('?source=dashboard&unanswered=true&q=sourdough')).map((c) => c.id), [ownerConversation, memberConversation]);
    assert.deepEqual((await list('?source=dashboard&q=sundays')).map((c) => c.id), [memberConversation]);
    const bad = await member.get('/conversations?source=staff');
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().code, 'invalid_query');
  });

  it('rates a dashboard answer of one\'s own conversation only', async () => {
    const url = `/conversations/${memberConversation}/answers/${memberAnswers[1]}/feedback`;
    assert.equal((await member.put(url, { rating: 'down' })).statusCode, 204);
    const notYours = await owner.put(url, { rating: 'up' });
    assert.equal(notYours.statusCode, 404);
    assert.equal(notYours.json().code, 'not_found');
    assert.equal((await member.put(url, { rating: 'sideways' })).statusCode, 400);
    assert.deepEqual((await list('?thumbsDown=true')).map((c) => c.id), [memberConversation]);
    const read = (await member.get(`/conversations/${memberConversation}`)).json() as AdminConversation;
    assert.deepEqual(read.turnList.map((t) => t.feedback), [null, 'down']);
  });

  it('exports dashboard rows with their source and user, and no address or its hash', async () => {
    const res = await member.get('/conversations/export?format=jsonl');
    assert.equal(res.statusCode, 200);
    const rows = res.body.trimEnd().split('\n').map((line) => JSON.parse(line) as ConversationExportRow);
    assert.deepEqual(rows.map((r) => [r.source, r.userName ?? r.widgetName, r.question]), [
      ['dashboard', 'owner', SOURDOUGH],
      ['dashboard', 'member', OPEN],
      ['dashboard', 'member', SOURDOUGH],
      ['visitor', 'Bakery', SOURDOUGH],
    ]);
    const ipHash = server.services.visitorConversations.session(visitorConversation)!.ipHash;
    assert.ok(!res.body.includes(ipHash) && !res.body.includes('10.2.0.1') && !res.body.includes('ipHash'));
    const csv = await member.get('/conversations/export?format=csv&source=dashboard');
    const lines = csv.body.replace(/^\uFEFF/, '').trimEnd().split('\r\n');
    assert.equal(lines.length, 1 + 3, 'a header and the three dashboard questions');
    assert.match(lines[0]!, /^"conversationId","source","widgetId","widgetName","origin","userName",/);
    assert.ok(lines.slice(1).every((l) => l.includes('"dashboard"')));
    assert.ok(!csv.body.includes(ipHash));
  });

  it('keeps dashboard questions out of the content-gap report and the visitor usage', async () => {
    const gaps = await member.get('/content-gaps');
    assert.equal(gaps.statusCode, 200, gaps.body);
    const report = gaps.json() as AdminContentGapReport;
    assert.equal(report.pending, 0);
    const sourdough = report.data.find((g) => g.examples.some((e) => e.question === SOURDOUGH));
    assert.ok(sourdough, JSON.stringify(report.data));
    // The visitor asked once; the Member and the Owner asked too (unanswered, one rated down): not counted.
    assert.deepEqual({ asked: sourdough.asked, visitors: sourdough.visitors, abstained: sourdough.abstained, thumbsDown: sourdough.thumbsDown }, { asked: 1, visitors: 1, abstained: 1, thumbsDown: 0 });
    assert.equal(report.data.reduce((n, g) => n + g.asked, 0), 1, 'only the visitor\'s question is a gap');

    const usage = await member.get('/usage');
    assert.equal(usage.statusCode, 200, usage.body);
    const visitors = usage.json().visitors;
    assert.deepEqual(
      { questions: visitors.summary.questions, sessions: visitors.summary.sessions, feedbackDown: visitors.summary.feedbackDown, totals: visitors.totals.questions },
      { questions: 1, sessions: 1, feedbackDown: 0, totals: 1 },
      JSON.stringify(visitors.summary),
    );
    assert.deepEqual(visitors.topQuestions.map((q: { asked: number }) => q.asked), [1], JSON.stringify(visitors.topQuestions));
  });

  it('lets Members read but not delete; the Owner and Admins delete dashboard conversations, one or all older than a date', async () => {
    assert.equal((await member.delete(`/conversations/${ownerConversation}`)).statusCode, 403);
    assert.equal((await admin.delete(`/conversations/${ownerConversation}`)).statusCode, 204);
    assert.equal((await member.get(`/conversations/${ownerConversation}`)).statusCode, 404);
    const older = await owner.post('/conversations/delete-older', { before: new Date().toISOString() });
    assert.equal(older.statusCode, 200, older.body);
    assert.deepEqual(older.json(), { deleted: 2 }, 'the member\'s dashboard conversation and the visitor\'s');
    assert.deepEqual(await list(), []);
    // A chat that goes on after its conversation was deleted starts a new one.
    const next = await ask(member, { question: OPEN, conversationId: memberConversation });
    assert.notEqual(next.conversationId, memberConversation);
  });
});

/**
 * Handoffs over the real app and a real SQLite file: a visitor leaves a question for the shop
 * (validation, limits, the per-session cap), reads the shop's reply on a later visit with the same
 * session's token, and never another session's or widget's; the owner's inbox (roles, reply,
 * saveAsAnswer); the contact details go with the conversation (delete, retention), are in its
 * export (formula-safe CSV), never in the logs, and not in the handoff.created webhook event.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AdminHandoffList, HandoffReplyResult } from '../../common/contract/handoffs.ts';
import { HANDOFFS_PER_SESSION } from '../../common/contract/handoffs.ts';
import type { ConversationExportRow } from '../../common/contract/conversations.ts';
import { visitorSessionSchema } from '../../common/contract/widget.ts';
import type { WidgetRecord } from '../../server/domain/widgets.ts';
import { AdminClient, signedInAs } from '../helpers/admin-client.ts';
import { countRows, createTestApp, type TestApp } from '../helpers/test-app.ts';
import { checkErrorShape } from './reliability/helpers/fixture.ts';

const ORIGIN = 'https://shop.example';
const KB = 'kb-shop';
const ROOMY = { visitorQuestionsPerMinute: 600, widgetQuestionsPerMinute: 6_000, dailyQuestions: 1_000_000 };
// Contact details that must never reach a log line; the name doubles as a spreadsheet formula and markup.
const EMAIL = 'grete.private@example.org';
const PHONE = '+49 30 1234 5678';
const NAME = '=HYPERLINK("https://evil.example","<img src=x onerror=alert(1)>")';

describe('handoffs: a visitor hands a question to the shop (real app, real SQLite)', () => {
  let t: TestApp;
  let now = Date.parse('2026-11-20T10:00:00Z');
  const logged: string[] = [];
  let widget: WidgetRecord;
  let otherWidget: WidgetRecord;
  let owner: AdminClient;
  let member: AdminClient;
  let visitors = 0;

  before(async () => {
    t = await createTestApp({ logLevel: 'trace', trustedProxies: ['127.0.0.1'] }, undefined, {
      clock: () => now,
      logStream: { write: (line: string) => void logged.push(line) },
    });
    widget = t.services.widgets.create({ name: 'Shop', knowledgeBaseIds: [KB], allowedOrigins: [ORIGIN], limits: ROOMY });
    otherWidget = t.services.widgets.create({ name: 'Other', knowledgeBaseIds: ['kb-other'], allowedOrigins: [ORIGIN], limits: ROOMY });
    owner = new AdminClient(t.app);
    assert.equal((await owner.post('/setup', { username: 'owner', password: 'owner password 1' })).statusCode, 201);
    member = await signedInAs(owner, t.app, 'member');
  });
  after(() => t.close());

  type Call = { method?: 'GET' | 'POST' | 'OPTIONS'; token?: string; body?: unknown; widgetId?: string; origin?: string; address?: string };
  const call = (route: string, { method = 'GET', token, body, widgetId = widget.id, origin = ORIGIN, address = `10.9.0.${++visitors % 250}` }: Call = {}) =>
    t.app.inject({
      method,
      url: `/v1/widget/${widgetId}/${route}`,
      headers: {
        origin,
        'x-forwarded-for': address,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  const session = async (widgetId = widget.id) => {
    const res = await call('sessions', { method: 'POST', widgetId });
    assert.equal(res.statusCode, 201, res.body);
    return visitorSessionSchema.parse(res.json()).token;
  };
  const leave = (token: string, body: Record<string, unknown>, options: Call = {}) => call('handoffs', { method: 'POST', token, body, ...options });
  const valid = (question = 'Can I pick up an order on Sunday?') => ({ question, name: NAME, email: EMAIL, phone: PHONE, consent: true });
  const mine = async (token: string, widgetId = widget.id) => {
    const res = await call('handoffs', { token, widgetId });
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as { handoffs: Array<{ id: string; question: string; status: string; reply?: { text: string; at: string } }> }).handoffs;
  };
  function refused(res: { statusCode: number; headers: Record<string, unknown>; body: string }, status: number, code: string) {
    assert.equal(res.statusCode, status, res.body);
    const shape = checkErrorShape(res.statusCode, res.headers as Record<string, string>, res.body);
    assert.ok(shape.ok, shape.ok ? '' : shape.problem);
    assert.equal(JSON.parse(res.body).code, code, res.body);
  }

  it('takes a question with an e-mail or a phone and consent; refuses the rest in the error shape', async () => {
    const token = await session();
    const created = await leave(token, valid());
    assert.equal(created.statusCode, 201, created.body);
    const body = created.json() as { id: string; status: string };
    assert.deepEqual(Object.keys(body).sort(), ['id', 'status']);
    assert.match(body.id, /^hnd_[A-Za-z0-9]{20}$/);
    assert.equal(body.status, 'open');
    assert.equal((await leave(token, { question: 'Phone only?', phone: '030 123456', consent: true })).statusCode, 201);

    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['no e-mail or phone', { question: 'Q?', name: 'Ann', consent: true }, 'email'],
      ['no consent', { question: 'Q?', email: 'a@example.com' }, 'consent'],
      ['consent false', { question: 'Q?', email: 'a@example.com', consent: false }, 'consent'],
      ['an invalid e-mail', { question: 'Q?', email: 'not-an-address-secret-77', consent: true }, 'email'],
      ['a phone of letters', { question: 'Q?', phone: 'call me maybe', consent: true }, 'phone'],
      ['no question', { question: '  ', email: 'a@example.com', consent: true }, 'question'],
      ['an unknown field', { question: 'Q?', email: 'a@example.com', consent: true, admin: true }, ''],
    ];
    for (const [what, payload, field] of cases) {
      const res = await leave(token, payload);
      refused(res, 400, 'invalid_body');
      if (field) assert.ok((res.json() as { details: Array<{ path: string }> }).details.some((d) => d.path === field), `${what}: ${res.body}`);
    }
    // Without a session, from another origin, for an unknown widget.
    refused(await leave('', valid()), 401, 'session_invalid');
    refused(await leave(token, valid(), { origin: 'https://evil.example' }), 403, 'origin_not_allowed');
    refused(await leave(token, valid(), { widgetId: 'wgt_00000000000000000000' }), 404, 'widget_not_found');
    // The preflight names both methods.
    const preflight = await call('handoffs', { method: 'OPTIONS' });
    assert.equal(preflight.statusCode, 204);
    assert.equal(preflight.headers['access-control-allow-methods'], 'GET, POST');
  });

  it("shows a session its own handoffs only: not another session's, not another widget's", async () => {
    const a = await session();
    const b = await session();
    const other = await session(otherWidget.id);
    await leave(a, valid('Question of visitor A?'));
    await leave(other, valid('Question on the other widget?'), { widgetId: otherWidget.id });
    assert.deepEqual((await mine(a)).map((h) => h.question), ['Question of visitor A?']);
    assert.deepEqual(await mine(b), []);
    assert.deepEqual((await mine(other, otherWidget.id)).map((h) => h.question), ['Question on the other widget?']);
    // A token is bound to its widget: A's token on the other widget is refused, not read as another's.
    refused(await call('handoffs', { token: a, widgetId: otherWidget.id }), 401, 'session_invalid');
    refused(await call('handoffs', { token: `${a.slice(0, -3)}AAA` }), 401, 'session_invalid');
    refused(await call('handoffs', {}), 401, 'session_invalid');
    // What a visitor reads holds nothing of the contact details.
    const text = (await call('handoffs', { token: a })).body;
    assert.ok(!text.includes(EMAIL) && !text.includes(PHONE), text);
  });

  it('caps a session at its handoffs and limits them like questions (429 with Retry-After)', async () => {
    const token = await session();
    for (let i = 0; i < HANDOFFS_PER_SESSION; i++) assert.equal((await leave(token, valid(`Question ${i}?`))).statusCode, 201);
    refused(await leave(token, valid('One too many?')), 429, 'rate_limited');

    const tight = t.services.widgets.create({ name: 'Tight', knowledgeBaseIds: [KB], allowedOrigins: [ORIGIN], limits: { ...ROOMY, visitorQuestionsPerMinute: 2 } });
    const visitor = await session(tight.id);
    const address = '10.77.0.1';
    assert.equal((await leave(visitor, valid('First?'), { widgetId: tight.id, address })).statusCode, 201);
    assert.equal((await leave(visitor, valid('Second?'), { widgetId: tight.id, address })).statusCode, 201);
    const limited = await leave(visitor, valid('Third?'), { widgetId: tight.id, address });
    refused(limited, 429, 'rate_limited');
    assert.ok(Number(limited.headers['retry-after']) >= 1, 'Retry-After says when to try again');
  });

  it("lets the owner reply in the inbox (Members reply, only Owner/Admin keep it as an answer); the visitor reads it on a later visit", async () => {
    const token = await session();
    const { id } = (await leave(token, valid('Do you deliver to Potsdam?'))).json() as { id: string };
    const asMember = await member.get('/handoffs?status=open');
    assert.equal(asMember.statusCode, 200, asMember.body);
    const inbox = asMember.json() as AdminHandoffList;
    const listed = inbox.data.find((h) => h.id === id)!;
    assert.deepEqual(
      { question: listed.question, name: listed.name, email: listed.email, phone: listed.phone, status: listed.status, widgetName: listed.widgetName, knowledgeBaseId: listed.knowledgeBaseId },
      { question: 'Do you deliver to Potsdam?', name: NAME, email: EMAIL, phone: PHONE, status: 'open', widgetName: 'Shop', knowledgeBaseId: KB },
    );
    assert.ok(inbox.counts.open >= 1);
    const count = (await owner.get('/handoffs/count')).json() as { open: number; answered: number };
    assert.equal(count.open, inbox.counts.open);

    refused(await member.post(`/handoffs/${id}/reply`, { text: 'Yes.', saveAsAnswer: true }), 403, 'forbidden');
    refused(await owner.post(`/handoffs/${id}/reply`, { text: '' }), 400, 'invalid_body');
    refused(await owner.post('/handoffs/hnd_00000000000000000000/reply', { text: 'Hi' }), 404, 'not_found');
    refused(await owner.post('/handoffs/not-an-id/reply', { text: 'Hi' }), 400, 'invalid_query');
    assert.equal((await member.post(`/handoffs/${id}/reply`, { text: 'Let me check.' })).statusCode, 200);
    assert.equal(t.services.curatedAnswers.list(KB).length, 0, 'a reply alone makes no curated answer');

    const replied = await owner.post(`/handoffs/${id}/reply`, { text: 'Yes, we deliver to Potsdam on Thursdays.', saveAsAnswer: true });
    assert.equal(replied.statusCode, 200, replied.body);
    const result = replied.json() as HandoffReplyResult;
    assert.equal(result.handoff.status, 'answered');
    assert.equal(result.handoff.reply?.by, 'owner');
    const curated = t.services.curatedAnswers.list(KB);
    assert.deepEqual(curated.map((c) => [c.id, c.question, c.answer]), [[result.curatedAnswerId, 'Do you deliver to Potsdam?', 'Yes, we deliver to Potsdam on Thursdays.']]);
    assert.ok(((await owner.get('/handoffs?status=answered')).json() as AdminHandoffList).data.some((h) => h.id === id));
    assert.ok(!((await owner.get('/handoffs?status=open')).json() as AdminHandoffList).data.some((h) => h.id === id));
    refused(await owner.get('/handoffs?status=closed'), 400, 'invalid_query');

    // Three hours later the token has expired: it no longer asks or hands off, but it reads its reply.
    now += 3 * 60 * 60_000;
    refused(await leave(token, valid('Another?')), 401, 'session_expired');
    const later = await mine(token);
    assert.deepEqual(later.map((h) => [h.id, h.status, h.reply?.text]), [[id, 'answered', 'Yes, we deliver to Potsdam on Thursdays.']]);
    assert.equal(later[0]!.reply!.at, new Date(now - 3 * 60 * 60_000).toISOString());
  });

  it('sends handoff.created to the webhooks that want it, with whether contact was given but never the details', async () => {
    const hook = t.services.webhooks.create({ url: 'https://helpdesk.example/hook', events: ['handoff.created'] }, 'owner');
    const token = await session();
    const { id } = (await leave(token, valid('Is the shop open at Christmas?'))).json() as { id: string };
    const rows = t.services.db.prepare('SELECT events FROM webhook_deliveries WHERE webhook_id = ?').all(hook.id) as Array<{ events: string }>;
    const events = rows.flatMap((r) => JSON.parse(r.events) as Array<{ type: string; data: Record<string, unknown> }>);
    const event = events.find((e) => e.type === 'handoff.created' && e.data.handoffId === id);
    assert.ok(event, JSON.stringify(events));
    assert.deepEqual(
      { ...event.data, at: undefined },
      { handoffId: id, widgetId: widget.id, knowledgeBaseId: KB, question: 'Is the shop open at Christmas?', contactGiven: true, at: undefined },
    );
    const stored = JSON.stringify(events);
    assert.ok(!stored.includes(EMAIL) && !stored.includes(PHONE) && !stored.includes('HYPERLINK'), 'no contact details are queued for a webhook');
  });

  it('exports contact details with their conversation, formula-safe in CSV, as plain strings in JSON', async () => {
    const token = await session();
    const sessionId = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).s as string;
    // A conversation is listed and exported once it holds a question: record one as the ask would.
    t.services.visitorConversations.recordTurn({ sessionId, widgetId: widget.id, knowledgeBaseId: KB, question: 'Gift cards?', answer: '', answered: false, citations: [], latencyMs: 5 });
    const { id } = (await leave(token, valid('Do you sell gift cards?'))).json() as { id: string };

    const json = await owner.get('/conversations/export?format=jsonl');
    assert.equal(json.statusCode, 200);
    const rows = json.body.trimEnd().split('\n').map((line) => JSON.parse(line) as ConversationExportRow);
    const row = rows.find((r) => r.handoffId === id)!;
    assert.deepEqual(
      { conversationId: row.conversationId, question: row.question, contactName: row.contactName, contactEmail: row.contactEmail, contactPhone: row.contactPhone, answered: row.answered },
      { conversationId: sessionId, question: 'Do you sell gift cards?', contactName: NAME, contactEmail: EMAIL, contactPhone: PHONE, answered: false },
    );
    assert.equal(rows.find((r) => r.question === 'Gift cards?')!.contactEmail, null, 'question rows carry no contact details');

    // A visitor who asked for a person before asking anything: the conversation holds only the handoff.
    const first = await session();
    const early = (await leave(first, valid('Can someone call me back?'))).json() as { id: string };
    const all = (await owner.get('/conversations/export?format=jsonl')).body.trimEnd().split('\n').map((l) => JSON.parse(l) as ConversationExportRow);
    assert.deepEqual(all.filter((r) => r.handoffId === early.id).map((r) => [r.question, r.contactEmail]), [['Can someone call me back?', EMAIL]]);
    const unanswered = (await owner.get('/conversations/export?format=jsonl&unanswered=true')).body;
    assert.ok(!unanswered.includes(early.id), 'a filter on questions selects conversations by their questions only');

    const csv = await member.get('/conversations/export?format=csv');
    assert.equal(csv.statusCode, 200);
    const line = csv.body.split('\r\n').find((l) => l.includes(id))!;
    assert.ok(line.includes(`"'=HYPERLINK(""https://evil.example"",""<img src=x onerror=alert(1)>"")"`), line);
    assert.ok(line.includes(`"${EMAIL}"`) && line.includes(`"${PHONE.startsWith('+') ? `'${PHONE}` : PHONE}"`), line);
  });

  it('deletes a handoff with its conversation, and retention removes it with the conversation', async () => {
    const token = await session();
    const sessionId = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).s as string;
    const { id } = (await leave(token, valid('Delete me with my conversation?'))).json() as { id: string };
    assert.equal((await member.delete(`/conversations/${sessionId}`)).statusCode, 403);
    assert.equal((await owner.delete(`/conversations/${sessionId}`)).statusCode, 204);
    assert.equal((await owner.get(`/handoffs?status=all`)).json().data.some((h: { id: string }) => h.id === id), false);
    refused(await call('handoffs', { token }), 401, 'session_invalid');

    const kept = await session();
    await leave(kept, valid('Kept for the retention period?'));
    assert.ok(countRows(t.services, 'handoffs') > 0);
    now += (t.services.visitorConversations.retentionDays() + 1) * 86_400_000;
    while (t.services.conversations.pruneExpired(200).sessions > 0);
    assert.equal(countRows(t.services, 'handoffs'), 0, 'every handoff went with its conversation past the retention period');
  });

  it('never writes contact details to the logs', () => {
    const all = logged.join('\n');
    assert.ok(logged.some((line) => line.includes('handoff: a visitor left a question')), 'each handoff is logged, by its id');
    for (const secret of [EMAIL, PHONE, 'HYPERLINK', 'not-an-address-secret-77', '030 123456']) assert.ok(!all.includes(secret), `${secret} reached the log`);
  });
});

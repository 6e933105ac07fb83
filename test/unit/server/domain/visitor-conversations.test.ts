import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { VISITOR_CONVERSATION_MAX_TURNS } from '../../../../common/contract/visitor-limits.ts';
import { DEFAULT_VISITOR_RETENTION_DAYS, VisitorConversations } from '../../../../server/domain/visitor-conversations.ts';
import { ADDRESS_FACTOR, SESSIONS_PER_ADDRESS_PER_MINUTE, VisitorLimits } from '../../../../server/domain/visitor-limits.ts';
import { VISITOR_PRUNE_PAGE, VisitorRetention } from '../../../../server/domain/visitor-retention.ts';
import { WidgetService } from '../../../../server/domain/widgets.ts';
import { type Db, openDatabase } from '../../../../server/storage/db.ts';
import { SettingsRepo } from '../../../../server/storage/settings-repo.ts';
import { VisitorRepo } from '../../../../server/storage/visitor-repo.ts';
import { WidgetRepo } from '../../../../server/storage/widget-repo.ts';
import { tempDataDir } from '../../../helpers/temp-data.ts';

const DAY = 86_400_000;

describe('visitor conversations (real SQLite)', () => {
  let db: Db;
  let now = Date.UTC(2026, 2, 10, 12);
  let conversations: VisitorConversations;
  let widgetId: string;
  before(() => {
    db = openDatabase(tempDataDir());
    conversations = new VisitorConversations(new VisitorRepo(db), new SettingsRepo(db), () => now);
    widgetId = new WidgetService(new WidgetRepo(db)).create({ name: 'Shop', knowledgeBaseIds: ['kb'], allowedOrigins: ['https://shop.example'] }).id;
  });
  after(() => db.close());

  let sessions = 0;
  const start = () => conversations.startSession({ id: `vs_${String(++sessions).padStart(20, '0')}`, widgetId, origin: 'https://shop.example', ipHash: 'h'.repeat(64) });
  const ask = (sessionId: string, answered = true) =>
    conversations.recordTurn({
      sessionId,
      widgetId,
      knowledgeBaseId: 'kb',
      question: 'When are you open?',
      answer: answered ? 'From 9 to 5.' : 'Fallback',
      answered,
      citations: answered ? [{ number: 1, title: 'Hours', url: 'https://shop.example/hours' }] : [],
      latencyMs: 12.5,
    });

  it('keeps each turn of a session in order, with its answer id, and moves the session last-seen time', () => {
    const session = start();
    const first = ask(session.id);
    now += 60_000;
    const second = ask(session.id, false);
    assert.match(first.id, /^ans_[0-9A-Za-z]{20}$/);
    const stored = conversations.conversation(session.id)!;
    assert.deepEqual(stored.turns.map((t) => t.id), [first.id, second.id]);
    assert.deepEqual(stored.turns[0], first);
    assert.equal(stored.session.lastSeenAt, now);
    const listed = conversations.conversations({ widgetId }).find((c) => c.id === session.id)!;
    assert.equal(listed.turns, 2);
    assert.equal(listed.unanswered, 1);
  });

  it('rates an answer of the session only, and counts a changed rating once', () => {
    const session = start();
    const other = start();
    const turn = ask(session.id);
    const from = Math.floor(now / DAY) * DAY;
    const before = conversations.usage({ from, to: from + DAY }).totals;
    assert.equal(conversations.rate(other.id, turn.id, 'up'), false, 'another session cannot rate it');
    assert.equal(conversations.rate(session.id, 'ans_unknown', 'up'), false);
    assert.equal(conversations.rate(session.id, turn.id, 'up'), true);
    assert.equal(conversations.rate(session.id, turn.id, 'up'), true);
    assert.equal(conversations.rate(session.id, turn.id, 'down'), true);
    const after = conversations.usage({ from, to: from + DAY }).totals;
    assert.equal(after.feedbackUp - before.feedbackUp, 0);
    assert.equal(after.feedbackDown - before.feedbackDown, 1);
    assert.equal(conversations.conversation(session.id)!.turns[0]!.feedback, 'down');
  });

  it('counts questions and answers per widget and knowledge base, and keeps the counts when turns go', () => {
    const from = Math.floor(now / DAY) * DAY;
    const before = conversations.usage({ from, to: from + DAY });
    const session = start();
    ask(session.id);
    ask(session.id, false);
    const after = conversations.usage({ from, to: from + DAY });
    assert.equal(after.totals.questions - before.totals.questions, 2);
    assert.equal(after.totals.answered - before.totals.answered, 1);
    assert.deepEqual(after.byWidget.map((w) => w.widgetId), [widgetId]);
    assert.equal(conversations.usage({ from, to: from + DAY, knowledgeBaseIds: ['other'] }).totals.questions, 0);
    assert.equal(conversations.questionsSince(widgetId, from), after.totals.questions);
    conversations.deleteConversation(session.id);
    assert.equal(conversations.usage({ from, to: from + DAY }).totals.questions, after.totals.questions);
  });

  it('deletes a conversation with every turn of it; a turn that arrives after is counted but not stored', () => {
    const session = start();
    ask(session.id);
    assert.equal(conversations.deleteConversation(session.id), true);
    assert.equal(conversations.conversation(session.id), null);
    assert.equal(conversations.session(session.id), null);
    assert.equal((db.prepare('SELECT count(*) AS n FROM visitor_turns WHERE session_id = ?').get(session.id) as { n: number }).n, 0);
    const from = Math.floor(now / DAY) * DAY;
    const counted = conversations.usage({ from, to: from + DAY }).totals.questions;
    ask(session.id);
    assert.equal(conversations.usage({ from, to: from + DAY }).totals.questions, counted + 1);
    assert.equal((db.prepare('SELECT count(*) AS n FROM visitor_turns WHERE session_id = ?').get(session.id) as { n: number }).n, 0);
    assert.equal(conversations.deleteConversation(session.id), false);
  });

  it("gives a follow-up question the session's last turns as stored, those still waiting included, without writing them", () => {
    const session = start().id;
    const asked = Array.from({ length: 7 }, (_, i) =>
      conversations.recordTurn({ sessionId: session, widgetId, knowledgeBaseId: 'kb', question: `Question ${i}?`, answer: `Answer ${i}.`, answered: true, citations: [], latencyMs: 1 }));
    const pending = () => (db.prepare('SELECT count(*) AS n FROM visitor_turns WHERE session_id = ?').get(session) as { n: number }).n;
    const earlier = conversations.earlierTurns(session);
    assert.equal(pending(), 0, 'read from memory: the question does not wait for a commit');
    assert.equal(earlier.length, VISITOR_CONVERSATION_MAX_TURNS, 'as many turns as a browser may send');
    assert.deepEqual(earlier, asked.slice(2).flatMap((t) => [{ role: 'user', content: t.question }, { role: 'assistant', content: t.answer }]), 'the last five, oldest first');
    assert.equal(conversations.conversation(session)!.turns.length, 7);
    assert.deepEqual(conversations.earlierTurns(session), earlier, 'the same once written');
    assert.deepEqual(conversations.earlierTurns('vs_never_asked'), []);
  });

  it('writes turns a moment later, several to a commit, and before closing', () => {
    const repo = new VisitorRepo(db);
    const session = start();
    const turn = { id: 'ans_later', sessionId: session.id, widgetId, knowledgeBaseId: 'kb', question: 'q', answer: 'a', answered: true, citations: [], latencyMs: 1, feedback: null, askedAt: now };
    repo.insertTurn(turn);
    repo.insertTurn({ ...turn, id: 'ans_later_2' });
    const stored = () => (db.prepare('SELECT count(*) AS n FROM visitor_turns WHERE session_id = ?').get(session.id) as { n: number }).n;
    assert.equal(stored(), 0, 'not yet written');
    repo.close();
    assert.equal(stored(), 2);
  });

  it('retention removes conversations older than the setting, page by page, and keeps the rest', async () => {
    assert.equal(conversations.retentionDays(), DEFAULT_VISITOR_RETENTION_DAYS);
    const old: string[] = [];
    for (let i = 0; i < VISITOR_PRUNE_PAGE + 5; i++) {
      const session = start();
      ask(session.id);
      old.push(session.id);
    }
    now += 10 * DAY;
    const recent = start();
    ask(recent.id);
    conversations.setRetentionDays(7);
    assert.throws(() => conversations.setRetentionDays(0), RangeError);
    const passes: number[] = [];
    const retention = new VisitorRetention(conversations, (removed) => passes.push(removed));
    const removed = await retention.pass();
    assert.ok(removed >= old.length, `${removed} removed`);
    assert.deepEqual(passes, [removed]);
    for (const id of old) assert.equal(conversations.session(id), null);
    assert.ok(conversations.conversation(recent.id));
    assert.equal(await retention.pass(), 0);
    await retention.stop();
  });
});

describe('VisitorLimits', () => {
  const widget = { id: 'wgt_x', limits: { visitorQuestionsPerMinute: 2, widgetQuestionsPerMinute: 5, dailyQuestions: 100 } };

  it('limits a visitor, an address and a widget per minute, refusing without taking, with the wait', () => {
    let now = Date.UTC(2026, 0, 1, 10);
    const limits = new VisitorLimits(() => 0, () => now);
    assert.equal(limits.takeQuestion(widget, 's1', 'a1'), null);
    assert.equal(limits.takeQuestion(widget, 's1', 'a1'), null);
    assert.deepEqual(limits.takeQuestion(widget, 's1', 'a1'), { code: 'rate_limited', limit: 'visitor', retryAfterSeconds: 30 });
    now += 30_000;
    assert.equal(limits.takeQuestion(widget, 's1', 'a1'), null, 'one more after half a minute at 2 a minute');
    // The widget's bucket (5 a minute) is full again after the half minute; it had one taken since.
    for (let i = 2; i <= 5; i++) assert.equal(limits.takeQuestion(widget, `s${i}`, `a${i}`), null, `s${i}`);
    const refused = limits.takeQuestion(widget, 's6', 'a6');
    assert.equal(refused?.limit, 'widget');
    assert.equal(refused?.code, 'rate_limited');
    assert.equal(refused?.retryAfterSeconds, 12, 'one question every 12 s at 5 a minute');
  });

  it('limits an address across sessions', () => {
    const now = Date.UTC(2026, 0, 1, 10);
    const limits = new VisitorLimits(() => 0, () => now);
    const wide = { id: 'wgt_y', limits: { visitorQuestionsPerMinute: 1, widgetQuestionsPerMinute: 100, dailyQuestions: 100 } };
    for (let i = 0; i < ADDRESS_FACTOR; i++) assert.equal(limits.takeQuestion(wide, `s${i}`, 'shared'), null);
    assert.equal(limits.takeQuestion(wide, 'fresh', 'shared')?.limit, 'address');
    assert.equal(limits.takeQuestion(wide, 'fresh', 'elsewhere'), null);
  });

  it('caps a widget per UTC day from the stored count, and says how long until midnight', () => {
    let now = Date.UTC(2026, 0, 1, 23, 0);
    const limits = new VisitorLimits((_id, since) => (since === Date.UTC(2026, 0, 1) ? 6 : 0), () => now);
    const roomy = { id: 'wgt_z', limits: { visitorQuestionsPerMinute: 100, widgetQuestionsPerMinute: 100, dailyQuestions: 7 } };
    assert.equal(limits.takeQuestion(roomy, 's', 'a'), null);
    assert.deepEqual(limits.takeQuestion(roomy, 's', 'a'), { code: 'daily_limit_reached', limit: 'daily', retryAfterSeconds: 3_600 });
    now = Date.UTC(2026, 0, 2, 0, 0, 1);
    assert.equal(limits.takeQuestion(roomy, 's', 'a'), null, 'a new day');
  });

  it('limits the sessions an address starts', () => {
    const limits = new VisitorLimits(() => 0, () => 0);
    const busy = { id: 'wgt_x', limits: { visitorQuestionsPerMinute: 6, widgetQuestionsPerMinute: 600, dailyQuestions: 100 } };
    for (let i = 0; i < SESSIONS_PER_ADDRESS_PER_MINUTE; i++) assert.equal(limits.takeSession(busy, 'a'), null);
    assert.equal(limits.takeSession(busy, 'a')?.limit, 'sessions');
    assert.equal(limits.takeSession(busy, 'b'), null);
  });
});

/**
 * Every conversation the owner reads (server/domain/conversations.ts): visitors' and the dashboard
 * chat's, merged into one list by start time, paged by one cursor, deleted and pruned together;
 * dashboard conversations belong to their user; and nothing of them reaches what the content-gap
 * report and the visitor analytics read. Real SQLite.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Conversations, type OwnerConversation } from '../../../../server/domain/conversations.ts';
import { DashboardConversations, type DashboardUser } from '../../../../server/domain/dashboard-conversations.ts';
import type { ConversationPosition } from '../../../../server/domain/visitor-conversations.ts';
import { VisitorConversations } from '../../../../server/domain/visitor-conversations.ts';
import { VisitorRetention } from '../../../../server/domain/visitor-retention.ts';
import { WidgetService } from '../../../../server/domain/widgets.ts';
import { DashboardConversationRepo } from '../../../../server/storage/dashboard-conversation-repo.ts';
import { type Db, openDatabase } from '../../../../server/storage/db.ts';
import { QuestionGroupRepo } from '../../../../server/storage/question-group-repo.ts';
import { SettingsRepo } from '../../../../server/storage/settings-repo.ts';
import { VisitorRepo } from '../../../../server/storage/visitor-repo.ts';
import { WidgetRepo } from '../../../../server/storage/widget-repo.ts';
import { tempDataDir } from '../../../helpers/temp-data.ts';

const DAY = 86_400_000;
const ANNA: DashboardUser = { id: 'usr_anna', name: 'anna' };
const BEN: DashboardUser = { id: 'usr_ben', name: 'ben' };

describe('conversations: visitors and dashboard together (real SQLite)', () => {
  let db: Db;
  let now = Date.UTC(2026, 2, 10, 12);
  let visitorRepo: VisitorRepo;
  let visitors: VisitorConversations;
  let dashboard: DashboardConversations;
  let conversations: Conversations;
  let widgetId: string;
  let sessions = 0;

  before(() => {
    db = openDatabase(tempDataDir());
    visitorRepo = new VisitorRepo(db);
    visitors = new VisitorConversations(visitorRepo, new SettingsRepo(db), () => now);
    dashboard = new DashboardConversations(new DashboardConversationRepo(db), () => now);
    conversations = new Conversations(visitors, dashboard);
    widgetId = new WidgetService(new WidgetRepo(db)).create({ name: 'Shop', knowledgeBaseIds: ['kb'], allowedOrigins: ['https://shop.example'] }).id;
  });
  after(() => {
    visitorRepo.close();
    db.close();
  });

  const visitorAsks = (question: string, answered: boolean) => {
    const session = visitors.startSession({ id: `vs_${String(++sessions).padStart(20, '0')}`, widgetId, origin: 'https://shop.example', ipHash: 'h'.repeat(64) });
    visitors.recordTurn({ sessionId: session.id, widgetId, knowledgeBaseId: 'kb', question, answer: answered ? 'Yes.' : 'Fallback', answered, citations: [], latencyMs: 20 });
    return session.id;
  };
  const staffAsks = (user: DashboardUser, conversationId: string | null, question: string, answered: boolean) =>
    dashboard.recordTurn(user, conversationId, {
      knowledgeBaseId: 'kb',
      question,
      answer: answered ? 'From 9 to 5 [1].' : 'The knowledge base does not say.',
      answered,
      citations: answered ? [{ number: 1, title: 'Hours', url: null }] : [],
      latencyMs: 31.5,
    });
  const all = (filter: Parameters<Conversations['find']>[0] = {}, limit = 2): OwnerConversation[] => {
    const rows: OwnerConversation[] = [];
    let after: ConversationPosition | null = null;
    do {
      const page = conversations.find(filter, after, limit);
      assert.ok(page.rows.length <= limit);
      rows.push(...page.rows);
      after = page.next;
    } while (after);
    return rows;
  };

  it('keeps a chat session as one conversation of its user, and never writes into another user\'s', () => {
    const first = staffAsks(ANNA, null, 'When are you open?', true);
    now += 60_000;
    const second = staffAsks(ANNA, first.conversationId, 'Do you sell sourdough?', false);
    assert.equal(second.conversationId, first.conversationId);
    assert.match(first.conversationId, /^dc_[A-Za-z0-9]{20}$/);
    // Ben sends Anna's conversation id: his question starts a conversation of his own.
    const bens = staffAsks(BEN, first.conversationId, 'Is there parking?', false);
    assert.notEqual(bens.conversationId, first.conversationId);
    // A conversation deleted since (or never given) starts a new one too.
    assert.notEqual(staffAsks(BEN, 'dc_gone', 'Hello?', true).conversationId, 'dc_gone');

    const read = conversations.read(first.conversationId)!;
    assert.deepEqual(read.conversation.user, ANNA);
    assert.equal(read.conversation.source, 'dashboard');
    assert.equal(read.conversation.widgetId, null);
    assert.deepEqual(
      read.turns.map((t) => [t.question, t.answered, t.latencyMs, t.citations.length]),
      [
        ['When are you open?', true, 31.5, 1],
        ['Do you sell sourdough?', false, 31.5, 0],
      ],
    );
    assert.deepEqual([read.conversation.turns, read.conversation.unanswered, read.conversation.firstQuestion], [2, 1, 'When are you open?']);

    assert.equal(dashboard.rate(BEN.id, first.conversationId, first.id, 'down'), false, 'only the user who asked rates');
    assert.equal(dashboard.rate(ANNA.id, first.conversationId, bens.id, 'down'), false, 'an answer of another conversation');
    assert.equal(dashboard.rate(ANNA.id, first.conversationId, first.id, 'down'), true);
    assert.equal(conversations.read(first.conversationId)!.conversation.thumbsDown, 1);
  });

  it('merges visitors\' and dashboard conversations newest first, pages them with one cursor, and filters by source', () => {
    now += 60_000;
    visitorAsks('Do you deliver?', true);
    now += 60_000;
    visitorAsks('Do you sell sourdough bread?', false);
    // Started in the same millisecond as the visitor's: the id decides, in both stores alike.
    staffAsks(ANNA, null, 'Same time question', true);

    const everything = all();
    const sorted = [...everything].sort((a, b) => b.startedAt - a.startedAt || (a.id < b.id ? 1 : -1));
    assert.deepEqual(everything.map((c) => c.id), sorted.map((c) => c.id), 'newest first, each once, across pages of 2');
    assert.equal(new Set(everything.map((c) => c.id)).size, everything.length);
    assert.deepEqual(
      everything.map((c) => c.source).filter((s) => s === 'visitor').length,
      2,
    );
    assert.equal(everything.length, 6);
    assert.ok(all({ source: 'dashboard' }, 1).every((c) => c.source === 'dashboard' && c.user !== null));
    assert.equal(all({ source: 'dashboard' }).length, 4);
    assert.deepEqual(all({ source: 'visitor' }).map((c) => c.firstQuestion), ['Do you sell sourdough bread?', 'Do you deliver?']);
    assert.deepEqual(all({ widgetId }).map((c) => c.source), ['visitor', 'visitor'], 'a widget filter selects visitors only');
    assert.deepEqual(all({ text: 'SOURDOUGH' }).map((c) => [c.source, c.firstQuestion]), [
      ['visitor', 'Do you sell sourdough bread?'],
      ['dashboard', 'When are you open?'],
    ]);
    assert.deepEqual(all({ unanswered: true, source: 'dashboard' }).map((c) => c.user?.name).sort(), ['anna', 'ben']);
    assert.deepEqual(all({ thumbsDown: true }).map((c) => c.user?.name), ['anna']);
  });

  it('keeps dashboard questions out of what the content gaps and the visitor analytics read', () => {
    const groups = new QuestionGroupRepo(db);
    // The grouping pass's queue holds the visitors' two questions only, not the staff's unanswered ones.
    assert.deepEqual(groups.ungrouped(100).map((t) => t.question).sort(), ['Do you deliver?', 'Do you sell sourdough bread?']);
    assert.equal(groups.countUngrouped(), 2);
    const usage = visitors.usage({ from: 0, to: now + DAY });
    assert.deepEqual(usage.totals, { questions: 2, answered: 1, feedbackUp: 0, feedbackDown: 0 });
  });

  it('reads the dashboard list through its indexes (EXPLAIN QUERY PLAN)', () => {
    const seen: string[] = [];
    const prepare = db.prepare.bind(db);
    db.prepare = ((sql: string) => {
      seen.push(sql);
      return prepare(sql);
    }) as typeof db.prepare;
    try {
      new DashboardConversationRepo(db).findConversations({ knowledgeBaseId: 'kb', unanswered: true }, { startedAt: now, id: 'dc_x' }, 50);
    } finally {
      db.prepare = prepare as typeof db.prepare;
    }
    const sql = seen.find((s) => s.includes('ORDER BY c.started_at DESC'))!;
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(now, now, 'dc_x', 'kb', 50) as Array<{ detail: string }>).map((r) => r.detail).join(' / ');
    assert.match(plan, /SCAN c USING (COVERING )?INDEX dashboard_conversations_by_start/, plan);
    assert.doesNotMatch(plan, /TEMP B-TREE/, 'no sort: the index is in list order');
    assert.match(plan, /SEARCH t USING INDEX dashboard_turns_by_conversation/, plan);
    assert.doesNotMatch(plan, /SCAN t\b/, plan);
  });

  it('deletes one, all older than a date, and prunes past the visitors\' retention period, dashboard conversations included', async () => {
    const staff = all({ source: 'dashboard' });
    assert.equal(conversations.deleteConversation(staff[0]!.id), true);
    assert.equal(conversations.read(staff[0]!.id), null);
    assert.equal(conversations.deleteConversation(staff[0]!.id), false);

    // An old staff conversation and an old visitor one, past a retention period of 7 days.
    const then = now;
    now = then - 20 * DAY;
    const old = staffAsks(BEN, null, 'An old question', true);
    const oldVisitor = visitorAsks('An old visitor question', true);
    now = then;
    visitors.setRetentionDays(7);
    const removed: number[] = [];
    assert.equal(await new VisitorRetention(conversations, (n) => removed.push(n)).pass(), 2);
    assert.deepEqual(removed, [2]);
    assert.equal(conversations.read(old.conversationId), null);
    assert.equal(conversations.read(oldVisitor), null);
    assert.equal(all().length, 5, 'the recent ones stay');

    await assert.rejects(conversations.deleteOlderThan(now + DAY), RangeError);
    now += 1;
    assert.equal(await conversations.deleteOlderThan(now), 5);
    assert.deepEqual(all(), []);
    assert.equal((db.prepare('SELECT count(*) AS n FROM dashboard_turns').get() as { n: number }).n, 0, 'turns go with their conversation');
  });
});

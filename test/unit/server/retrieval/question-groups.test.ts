/**
 * The grouping pass and the content-gap report on a real SQLite file: groups kept across passes
 * and restarts, answered and reopened groups, retention removing groups with their questions, and
 * regrouping after a model change. The model is a FAKE (a bag of stemmed words hashed into 64
 * dimensions): unit tests load no embedding model; the real one is measured in
 * bench/question-grouping.ts and used in test/integration/content-gaps.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { VisitorConversations } from '../../../../server/domain/visitor-conversations.ts';
import { VisitorRetention } from '../../../../server/domain/visitor-retention.ts';
import { WidgetService } from '../../../../server/domain/widgets.ts';
import { QuestionGrouper, questionStems } from '../../../../server/retrieval/question-groups.ts';
import { type Db, openDatabase } from '../../../../server/storage/db.ts';
import { QuestionGroupRepo } from '../../../../server/storage/question-group-repo.ts';
import { SettingsRepo } from '../../../../server/storage/settings-repo.ts';
import { VisitorRepo } from '../../../../server/storage/visitor-repo.ts';
import { WidgetRepo } from '../../../../server/storage/widget-repo.ts';
import { tempDataDir } from '../../../helpers/temp-data.ts';

const DAY = 86_400_000;

/** FAKE embedder: each stemmed content word adds 1 to one of 64 dimensions. */
async function fakeEmbed(texts: string[]): Promise<Float32Array[]> {
  return texts.map((text) => {
    const v = new Float32Array(64);
    for (const stem of questionStems(text)) {
      let h = 0;
      for (const c of stem) h = (h * 31 + c.charCodeAt(0)) >>> 0;
      v[h % 64]! += 1;
    }
    return v;
  });
}

describe('question groups and content gaps (real SQLite, fake model)', () => {
  let db: Db;
  let now = Date.UTC(2026, 3, 1, 12);
  let visitorRepo: VisitorRepo;
  let conversations: VisitorConversations;
  let groups: QuestionGroupRepo;
  let widgetId: string;
  let n = 0;
  const grouper = (model = 'fake-bow') => new QuestionGrouper({ store: groups, embed: fakeEmbed, model, clock: () => now, settings: { threshold: 0.6, keywordWeight: 0.2 } });

  before(() => {
    db = openDatabase(tempDataDir());
    visitorRepo = new VisitorRepo(db);
    conversations = new VisitorConversations(visitorRepo, new SettingsRepo(db), () => now);
    groups = new QuestionGroupRepo(db);
    widgetId = new WidgetService(new WidgetRepo(db)).create({ name: 'Shop', knowledgeBaseIds: ['kb'], allowedOrigins: ['https://shop.example'] }).id;
  });
  after(() => {
    visitorRepo.close();
    db.close();
  });

  /** A new visitor asks one question. */
  const ask = (question: string, answered = false, knowledgeBaseId = 'kb') => {
    const session = conversations.startSession({ id: `vs_${String(++n).padStart(20, '0')}`, widgetId, origin: 'https://shop.example', ipHash: String(n).padStart(64, '0') });
    return conversations.recordTurn({ sessionId: session.id, widgetId, knowledgeBaseId, question, answer: 'a', answered, citations: [], latencyMs: 10 });
  };
  const open = () => groups.gaps({ status: 'open' }, 50);

  it('groups new questions into the groups of earlier passes, and a restarted pass finds them', async () => {
    ask('Do you sell gift cards?');
    ask('Where can I park my car?');
    assert.equal(await grouper().catchUp(), 2);
    ask('gift cards, do you sell them');
    ask('Can I park my car nearby?');
    ask('Do you sell gift cards?', false, 'kb-other');
    // A new grouper (a restart) reads the groups back from the database.
    assert.equal(await grouper().catchUp(), 3);
    assert.equal(groups.countUngrouped(), 0);
    const gaps = open();
    const gift = gaps.find((g) => g.label === 'Do you sell gift cards?' && g.knowledgeBaseId === 'kb')!;
    assert.deepEqual({ asked: gift.asked, visitors: gift.visitors }, { asked: 2, visitors: 2 });
    assert.equal(gaps.find((g) => g.label === 'Where can I park my car?')!.asked, 2);
    assert.equal(gaps.find((g) => g.knowledgeBaseId === 'kb-other')!.asked, 1, 'each knowledge base groups its own questions');
    assert.deepEqual(groups.examples([gift.groupId], 5).get(gift.groupId)!.map((e) => e.question).sort(), ['Do you sell gift cards?', 'gift cards, do you sell them']);
  });

  it('marks a group answered, and opens it again when it is still asked without an answer', async () => {
    const gift = open().find((g) => g.label === 'Do you sell gift cards?' && g.knowledgeBaseId === 'kb')!;
    now += 60_000;
    assert.equal(groups.markAnswered(gift.groupId, 'dashboard/answer-1', now), true);
    assert.ok(!open().some((g) => g.groupId === gift.groupId));
    assert.equal(groups.gaps({ status: 'answered' }, 50)[0]!.groupId, gift.groupId);
    now += 60_000;
    ask('Do you sell gift cards?', true);
    await grouper().catchUp();
    assert.ok(!open().some((g) => g.groupId === gift.groupId), 'now answered: no gap');
    ask('do you sell gift cards');
    await grouper().catchUp();
    const reopened = open().find((g) => g.groupId === gift.groupId)!;
    assert.equal(reopened.askedSinceAnswer, 1);
  });

  it('retention takes the groups with the questions: a group with no kept question goes', async () => {
    now += 40 * DAY;
    ask('Do you repair bicycles?');
    const pass = grouper();
    await pass.catchUp();
    const before = db.prepare('SELECT count(*) AS n FROM question_groups').get() as { n: number };
    assert.ok(before.n >= 4);
    let removed = 0;
    const retention = new VisitorRetention(conversations, (r) => {
      removed = r;
    });
    await retention.pass();
    assert.equal(removed, 7, "every conversation but the last one");
    // The hourly counts of questions per group go with the conversations they count.
    const counted = db.prepare('SELECT min(hour) AS first, sum(asked) AS asked FROM visitor_group_counts').get() as { first: number; asked: number };
    assert.ok(counted.first >= now - 30 * DAY - 3_600_000, 'no count older than the retention period');
    assert.equal(counted.asked, 1, 'the one question kept');
    assert.ok((await pass.prune()) >= 3);
    const left = db.prepare('SELECT label FROM question_groups').all() as Array<{ label: string }>;
    assert.deepEqual(left.map((g) => g.label), ['Do you repair bicycles?']);
    assert.deepEqual(open().map((g) => g.label), ['Do you repair bicycles?']);
    ask('bicycles: do you repair them?');
    await pass.catchUp();
    assert.equal(open()[0]!.asked, 2, 'the pass goes on with the groups left');
  });

  it('regroups every question when the model changes', async () => {
    const regrouped = await grouper('another-fake').catchUp();
    assert.equal(regrouped, 2);
    assert.deepEqual((db.prepare('SELECT DISTINCT model FROM question_groups').all() as Array<{ model: string }>).map((r) => r.model), ['another-fake']);
    assert.equal(open()[0]!.asked, 2);
  });
});

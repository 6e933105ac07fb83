/**
 * The tables the owner's reads use at scale (docs/benchmarks.md, "Visitor conversations at
 * scale"), on a real SQLite file: the turns' ip_hash, the daily roll-up of the per-group counts
 * and the trigram index over questions are filled for data stored before their migration, and
 * stay equal to what they summarize when conversations are written, deleted and pruned; the
 * text search keeps its substring meaning on both of its paths. The grouping model is a FAKE
 * (each question's first word picks one of 8 dimensions): unit tests load no embedding model.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { VisitorConversations } from '../../../../server/domain/visitor-conversations.ts';
import { WidgetService } from '../../../../server/domain/widgets.ts';
import { QuestionGrouper } from '../../../../server/retrieval/question-groups.ts';
import { DB_FILE_NAME, type Db, openDatabase } from '../../../../server/storage/db.ts';
import { migrate, migrationVersion } from '../../../../server/storage/migrate.ts';
import { QuestionGroupRepo } from '../../../../server/storage/question-group-repo.ts';
import { SettingsRepo } from '../../../../server/storage/settings-repo.ts';
import { loadVectorExtension } from '../../../../server/storage/vector-extension.ts';
import { VisitorRepo } from '../../../../server/storage/visitor-repo.ts';
import { WidgetRepo } from '../../../../server/storage/widget-repo.ts';
import { tempDataDir } from '../../../helpers/temp-data.ts';

const DAY = 86_400_000;
const HOUR = 3_600_000;
/** The migration that added the read tables (0018). */
const READ_TABLES = migrationVersion('visitor-read-tables');

/** FAKE embedder: the first word of a question picks its dimension, so questions group by first word. */
async function fakeEmbed(texts: string[]): Promise<Float32Array[]> {
  return texts.map((text) => {
    const v = new Float32Array(8);
    v[[...(text.split(' ')[0] ?? '')].reduce((h, c) => h + c.charCodeAt(0), 0) % 8] = 1;
    return v;
  });
}

const QUESTIONS = [
  'Where is my GitHub order?',
  'Do you ship to Norway?',
  'Is 100% cotton available?',
  'Where can I find size_chart?',
  'Do you ship on Sundays?',
  'Wie lange dauert die Lieferung?',
  'Où est ma commande?',
  'ok?',
];

describe('the tables of the owner’s reads (real SQLite, fake model)', () => {
  let dataDir: string;
  let db: Db;
  let visitorRepo: VisitorRepo;
  let conversations: VisitorConversations;
  let groups: QuestionGroupRepo;
  let widgetId: string;
  let now = Date.UTC(2026, 3, 1, 12);
  let n = 0;

  const ask = (question: string, answered = false) => {
    const session = conversations.startSession({ id: `vs_${String(++n).padStart(20, '0')}`, widgetId, origin: 'https://shop.example', ipHash: String(n % 5).padStart(64, '0') });
    now += 5 * HOUR;
    return conversations.recordTurn({ sessionId: session.id, widgetId, knowledgeBaseId: 'kb', question, answer: 'a', answered, citations: [], latencyMs: 10 });
  };
  const grouper = () => new QuestionGrouper({ store: groups, embed: fakeEmbed, model: 'fake-first-word', clock: () => now, settings: { threshold: 0.6, keywordWeight: 0.2 } });
  const open = () => {
    db = openDatabase(dataDir);
    visitorRepo = new VisitorRepo(db);
    conversations = new VisitorConversations(visitorRepo, new SettingsRepo(db), () => now);
    groups = new QuestionGroupRepo(db);
  };

  /** Every derived table equals what it summarizes. */
  const assertConsistent = () => {
    visitorRepo.flush();
    const rollUp = db
      .prepare(`SELECT (hour / ${DAY}) * ${DAY} AS day, widget_id, knowledge_base_id, question_group, sum(asked) AS asked, sum(answered) AS answered
        FROM visitor_group_counts GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`)
      .all();
    const days = db.prepare('SELECT * FROM visitor_group_days ORDER BY day, widget_id, knowledge_base_id, question_group').all();
    assert.deepEqual(days, rollUp, 'the daily roll-up sums the hourly counts, and holds no empty day');
    const turns = db.prepare('SELECT count(*) AS n FROM visitor_turns').get() as { n: number };
    const indexed = db.prepare('SELECT count(*) AS n FROM visitor_questions_fts').get() as { n: number };
    assert.equal(indexed.n, turns.n, 'one trigram row per kept question');
    const orphans = db.prepare('SELECT count(*) AS n FROM visitor_questions_fts f WHERE f.rowid NOT IN (SELECT rowid FROM visitor_turns)').get() as { n: number };
    assert.equal(orphans.n, 0, 'no trigram row of a removed question');
    const mismatched = db.prepare('SELECT count(*) AS n FROM visitor_turns t JOIN visitor_sessions s ON s.id = t.session_id WHERE t.ip_hash IS NOT s.ip_hash').get() as { n: number };
    assert.equal(mismatched.n, 0, 'each turn carries its session’s ip_hash');
  };

  /** The conversations a text search lists, and what a plain substring scan (LIKE, ASCII case folded) would list. */
  const search = (text: string) => {
    const found = conversations.find({ text }, null, 10_000).rows.map((r) => r.id).sort();
    const words = text.split(/\s+/).filter(Boolean);
    const fold = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
    const rows = db.prepare('SELECT session_id, question FROM visitor_turns').all() as Array<{ session_id: string; question: string }>;
    const expected = [...new Set(rows.filter((r) => words.every((w) => fold(r.question).includes(fold(w)))).map((r) => r.session_id))].sort();
    return { found, expected };
  };

  before(() => {
    dataDir = tempDataDir();
    // A data folder as the release before these tables left it, with conversations grouped and counted.
    const old = new Database(path.join(dataDir, DB_FILE_NAME));
    loadVectorExtension(old);
    migrate(old, READ_TABLES - 1);
    old.close();
  });
  after(() => {
    visitorRepo.close();
    db.close();
  });

  it('fills ip_hash, the daily roll-up and the trigram index for conversations stored before them', async () => {
    // Written with the release's schema (no ip_hash column, no triggers): a raw connection at the old version.
    const old = new Database(path.join(dataDir, DB_FILE_NAME));
    old.prepare("INSERT INTO widgets (id, name, settings, enabled, created_at, updated_at) VALUES ('w_old', 'Old', '{}', 1, 0, 0)").run();
    old.prepare("INSERT INTO question_groups (id, knowledge_base_id, model, label, stems, centroid, members, created_at) VALUES (1, 'kb', 'fake-first-word', 'Where is my GitHub order?', '[]', x'00', 2, 0)").run();
    for (let i = 0; i < 4; i++) {
      const at = now - 3 * DAY + i * 7 * HOUR;
      old.prepare("INSERT INTO visitor_sessions VALUES (?, 'w_old', 'https://shop.example', ?, ?, ?)").run(`vs_old_${i}`, `ip-${i % 2}`, at, at);
      old.prepare("INSERT INTO visitor_turns (id, session_id, widget_id, knowledge_base_id, question, answer, answered, citations, latency_ms, asked_at, question_group) VALUES (?, ?, 'w_old', 'kb', ?, 'a', 0, '[]', 5, ?, 1)")
        .run(`vt_old_${i}`, `vs_old_${i}`, i % 2 ? 'Where is my GitHub order?' : 'where is my github order', at);
      old.prepare("INSERT INTO visitor_group_counts VALUES (?, 'w_old', 'kb', 1, 1, 0) ON CONFLICT DO UPDATE SET asked = asked + 1").run(Math.floor(at / HOUR) * HOUR);
    }
    old.close();
    open();
    widgetId = new WidgetService(new WidgetRepo(db)).create({ name: 'Shop', knowledgeBaseIds: ['kb'], allowedOrigins: ['https://shop.example'] }).id;
    assertConsistent();
    assert.equal((db.prepare('SELECT sum(asked) AS n FROM visitor_group_days').get() as { n: number }).n, 4);
    const gap = groups.gaps({ status: 'open' }, 10)[0]!;
    assert.deepEqual({ asked: gap.asked, visitors: gap.visitors, abstained: gap.abstained }, { asked: 4, visitors: 2, abstained: 4 });
    const { found } = search('GITHUB');
    assert.deepEqual(found, ['vs_old_0', 'vs_old_1', 'vs_old_2', 'vs_old_3']);
  });

  it('keeps them equal to the turns and hourly counts as visitors ask and the grouping pass counts', async () => {
    for (let round = 0; round < 3; round++) for (const [i, q] of QUESTIONS.entries()) ask(q, i % 3 === 0);
    await grouper().catchUp();
    assertConsistent();
    const gaps = groups.gaps({ status: 'open' }, 50);
    const counted = db.prepare("SELECT count(*) AS asked, count(DISTINCT ip_hash) AS visitors FROM visitor_turns WHERE answered = 0 AND question_group = ?");
    for (const gap of gaps) {
      const truth = counted.get(gap.groupId) as { asked: number; visitors: number };
      assert.deepEqual({ asked: gap.abstained, visitors: gap.visitors }, truth, `group ${gap.label}`);
    }
  });

  it('searches substrings as before: mid-word, any case, % and _ as themselves, short words, frequent and rare words', () => {
    for (const text of ['ithu', 'github ORDER', '100%', 'size_chart', '0%', 'e_c', 'ok', 'ship', 'Où', 'où', 'zzzqqq', 'Lieferung dauert', 'ship zzz']) {
      const { found, expected } = search(text);
      assert.deepEqual(found, expected, `"${text}"`);
    }
    assert.ok(search('ship').found.length >= 6, 'a word many ask finds them all');
    assert.equal(search('%').found.length, 3, '% is a character, not a wildcard');
    // Over 2,000 questions holding a word: the search walks the newest conversations instead.
    for (let i = 0; i < 2_100; i++) ask(`Can you ship it, ${i}?`);
    for (const text of ['ship', 'SHIP it', 'ship Norway', 'you ship 20', 'Sundays']) {
      const { found, expected } = search(text);
      assert.deepEqual(found, expected, `"${text}"`);
    }
    assert.ok(search('ship').found.length > 2_100);
  });

  it('takes a deleted conversation’s question out of every table, and so does retention', async () => {
    const target = search('Norway').found[0]!;
    assert.equal(conversations.deleteConversation(target), true);
    assertConsistent();
    assert.equal(search('Norway').found.includes(target), false);
    assert.equal(search('Norway').found.length, 2);
    // Retention (30 days by default): everything asked before the cutoff goes, counts included.
    now += 31 * DAY;
    ask('Do you ship to Norway?');
    await grouper().catchUp();
    now += 2 * DAY;
    const removed = await conversations.deleteOlderThan(now - 30 * DAY);
    assert.ok(removed > 0);
    assertConsistent();
    assert.ok((db.prepare('SELECT count(*) AS n FROM visitor_group_days').get() as { n: number }).n > 0, 'the kept days stay');
    assert.deepEqual(search('Norway').found.length, 1);
    assert.equal(search('GitHub').found.length, 0);
  });
});

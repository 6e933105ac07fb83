/**
 * Visitor conversations at scale: 100,000 conversations (about 2.5 questions each) spread over
 * the last 30 days, written through the real repositories, their questions grouped by the real
 * grouping pass and model. Then the data of each owner's screen, timed (p50/p95 of repeated runs):
 * the content-gap report, the usage analytics (30 days by day, 48 hours by the hour, one widget),
 * the conversation list (first page, filtered, text search, a deep page) and one conversation;
 * and what the conversations cost on disk (SQLite's dbstat, bytes per conversation).
 *
 * Questions are drawn from a pool of real ones (StackFAQ rephrasings and SQuAD questions,
 * ../shared/eval), so groups are as many and as large as real wordings make them; the pool is
 * grouped by the real pass, and each further turn with the same wording joins its group (the
 * pass would put it there: the same text has the same vector and words).
 *
 * Usage: node --import tsx bench/conversation-scale.ts [--conversations 100000 --repeat 30]
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { VisitorConversations } from '../server/domain/visitor-conversations.ts';
import { WidgetService } from '../server/domain/widgets.ts';
import { createEmbedder } from '../server/embedders/index.ts';
import { conversationFilter } from '../server/http/edge/conversation-filter.ts';
import { visitorUsage } from '../server/use-cases/usage-report.ts';
import { QuestionGrouper } from '../server/retrieval/question-groups.ts';
import { openDatabase } from '../server/storage/db.ts';
import { QuestionGroupRepo } from '../server/storage/question-group-repo.ts';
import { SettingsRepo } from '../server/storage/settings-repo.ts';
import { VisitorAnalyticsRepo } from '../server/storage/visitor-analytics-repo.ts';
import { VisitorRepo } from '../server/storage/visitor-repo.ts';
import { WidgetRepo } from '../server/storage/widget-repo.ts';
import { tempDir } from './lib/server-child.ts';

const { values } = parseArgs({ options: { conversations: { type: 'string', default: '100000' }, repeat: { type: 'string', default: '30' } } });
const total = Number(values.conversations);
const repeat = Number(values.repeat);
const DAY = 86_400_000;
const HOUR = 3_600_000;

const EVAL = path.resolve(import.meta.dirname, '../../shared/eval');
const lines = (file: string) => fs.readFileSync(path.join(EVAL, file), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const pool: string[] = [
  ...lines('stackfaq/queries.jsonl').map((q: { query: string }) => q.query),
  ...lines('squad-dev/questions.jsonl').slice(0, 1500).map((q: { question: string }) => q.question),
];

let seed = 12345;
const rand = () => {
  seed = (seed * 1664525 + 1013904223) >>> 0;
  return seed / 2 ** 32;
};
/** A skewed pick: a few questions are asked very often, most rarely (as in real traffic). */
const pickQuestion = () => pool[Math.floor(pool.length * rand() ** 2.5)]!;

const dataDir = tempDir();
const db = openDatabase(dataDir);
const now = Date.now();
let clock = now;
const visitorRepo = new VisitorRepo(db);
const conversations = new VisitorConversations(visitorRepo, new SettingsRepo(db), () => clock);
const widgets = new WidgetService(new WidgetRepo(db));
const widgetIds = ['Shop', 'FAQ page', 'Kiosk'].map(
  (name, i) => widgets.create({ name, knowledgeBaseIds: [i === 1 ? 'kb-faq' : 'kb-main'], allowedOrigins: ['https://shop.example'] }).id,
);
const groups = new QuestionGroupRepo(db);
const analytics = new VisitorAnalyticsRepo(db);

// 1. The pool, one turn per wording, grouped by the real pass and model.
const embedder = await createEmbedder({ kind: 'use-lite' });
const grouper = new QuestionGrouper({ store: groups, embed: (texts) => embedder.embed(texts), model: embedder.id });
clock = now - 31 * DAY;
const first = conversations.startSession({ id: 'vs_pool', widgetId: widgetIds[0]!, origin: 'https://shop.example', ipHash: '0'.repeat(64) });
for (const question of new Set(pool)) {
  conversations.recordTurn({ sessionId: first.id, widgetId: widgetIds[0]!, knowledgeBaseId: 'kb-main', question, answer: 'a', answered: true, citations: [], latencyMs: 100 });
}
const groupStarted = performance.now();
const pooled = await grouper.catchUp();
const groupMsPerQuestion = (performance.now() - groupStarted) / pooled;
await embedder.close();
const groupOf = new Map(
  (db.prepare('SELECT question, question_group FROM visitor_turns').all() as Array<{ question: string; question_group: number }>).map((r) => [r.question, r.question_group]),
);
// The FAQ page's knowledge base gets the same groups' questions under its own groups.
db.prepare(
  `INSERT INTO question_groups (knowledge_base_id, model, label, stems, centroid, members, created_at)
     SELECT 'kb-faq', model, label, stems, centroid, members, created_at FROM question_groups ORDER BY id`,
).run();
const groupCount = (db.prepare("SELECT count(*) AS n FROM question_groups WHERE knowledge_base_id = 'kb-main'").get() as { n: number }).n;
db.prepare('DELETE FROM visitor_sessions WHERE id = ?').run(first.id);

// 2. The conversations, through the real write path (turns and usage counts in one transaction).
const seedStarted = performance.now();
const setGroup = db.prepare('UPDATE visitor_turns SET question_group = ? WHERE id = ?');
let turns = 0;
let waiting: Array<{ id: string; question: string; kb: string }> = [];
const cites = ['Delivery', 'Opening hours', 'Returns', 'Gift cards', 'Wedding cakes', 'Gluten-free baking'];
for (let i = 0; i < total; i++) {
  clock = now - 30 * DAY + Math.floor((i / total) * 30 * DAY);
  const w = i % 3;
  const widgetId = widgetIds[w]!;
  const kb = w === 1 ? 'kb-faq' : 'kb-main';
  const session = conversations.startSession({ id: `vs_${String(i).padStart(20, '0')}`, widgetId, origin: 'https://shop.example', ipHash: String(i % 60_000).padStart(64, '0') });
  const asks = 1 + Math.floor(rand() * 4);
  const ids = waiting;
  for (let k = 0; k < asks; k++) {
    clock += 20_000;
    const question = pickQuestion();
    const answered = rand() > 0.2;
    const turn = conversations.recordTurn({
      sessionId: session.id,
      widgetId,
      knowledgeBaseId: kb,
      question,
      answer: answered ? 'An answer of a few sentences, as the extractive assistant gives them, quoting the knowledge base.' : 'Please call us.',
      answered,
      citations: answered ? [{ number: 1, title: cites[Math.floor(rand() * cites.length)]!, url: 'https://shop.example/page' }] : [],
      latencyMs: 80 + rand() * 400,
    });
    ids.push({ id: turn.id, question, kb });
    if (rand() < 0.05) conversations.rate(session.id, turn.id, rand() < 0.5 ? 'up' : 'down');
  }
  turns += asks;
  if (i % 1000 === 999 || i === total - 1) {
    visitorRepo.flush();
    // The pass would put the same wording in the same group (of its knowledge base).
    db.transaction(() => {
      for (const t of waiting) setGroup.run(groupOf.get(t.question)! + (t.kb === 'kb-faq' ? groupCount : 0), t.id);
    })();
    waiting = [];
  }
}
visitorRepo.flush();
// The hourly counts per group the pass writes as it groups (here the groups were set directly).
db.exec(`INSERT INTO visitor_group_counts (hour, widget_id, knowledge_base_id, question_group, asked, answered)
  SELECT (asked_at / ${HOUR}) * ${HOUR}, widget_id, knowledge_base_id, question_group, count(*), sum(answered)
  FROM visitor_turns GROUP BY 1, 2, 3, 4`);
db.pragma('wal_checkpoint(TRUNCATE)');
db.exec('ANALYZE');
const seedSeconds = (performance.now() - seedStarted) / 1000;

// 3. Each screen's data, timed.
function time(name: string, run: () => unknown): { name: string; p50: number; p95: number } {
  run();
  const samples: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const started = performance.now();
    run();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  const at = (p: number) => Math.round(samples[Math.min(samples.length - 1, Math.ceil(p * samples.length) - 1)]! * 10) / 10;
  return { name, p50: at(0.5), p95: at(0.95) };
}
clock = now;
const dayTo = Math.ceil((now + 1) / DAY) * DAY;
const hourTo = Math.ceil((now + 1) / HOUR) * HOUR;
const deps = { visitorConversations: conversations, visitorAnalytics: analytics };
const gapReport = () => {
  const rows = groups.gaps({ status: 'open' }, 20);
  return groups.examples(rows.map((r) => r.groupId), 5);
};
const tenPagesIn = (() => {
  let after = null as ReturnType<typeof conversations.find>['next'];
  for (let p = 0; p < 10; p++) after = conversations.find({}, after, 50).next;
  return after;
})();
const timings = [
  time('content gaps: top 20 open groups with 5 wordings each', gapReport),
  time('content gaps: one widget, last 7 days', () => groups.gaps({ status: 'open', widgetId: widgetIds[1], from: now - 7 * DAY }, 20)),
  time('usage: 30 days by day (all widgets)', () => visitorUsage(deps, { from: dayTo - 30 * DAY, to: dayTo, size: DAY })),
  time('usage: 48 hours by the hour', () => visitorUsage(deps, { from: hourTo - 48 * HOUR, to: hourTo, size: HOUR })),
  time('usage: 30 days by day, one widget', () => visitorUsage(deps, { from: dayTo - 30 * DAY, to: dayTo, size: DAY, widgetId: widgetIds[0] })),
  time('conversations: first page of 50', () => conversations.find({}, null, 50)),
  time('conversations: only unanswered', () => conversations.find(conversationFilter({ unanswered: 'true' }), null, 50)),
  time('conversations: only thumbs down, one widget', () => conversations.find(conversationFilter({ thumbsDown: 'true', widgetId: widgetIds[2] }), null, 50)),
  time('conversations: text search "github"', () => conversations.find(conversationFilter({ q: 'github' }), null, 50)),
  time('conversations: text search with no match', () => conversations.find(conversationFilter({ q: 'zzzqqq' }), null, 50)),
  time('conversations: 11th page', () => conversations.find({}, tenPagesIn, 50)),
  time('conversations: one opened', () => conversations.read(`vs_${String(total >> 1).padStart(20, '0')}`)),
];

// How SQLite runs the content-gap report (it should read the gap index alone, in order: no sort, no sessions).
const gapPlan = (db.prepare(
  `EXPLAIN QUERY PLAN SELECT g.id, t.ip_hash, count(*) FROM visitor_turns t INDEXED BY visitor_turns_gap_visitors JOIN question_groups g ON g.id = t.question_group
     WHERE (t.answered = 0 OR t.feedback = 'down') AND t.question_group IS NOT NULL GROUP BY t.question_group, t.ip_hash`,
).all() as Array<{ detail: string }>).map((r) => r.detail).join(' | ');

// 4. Disk: the conversation tables and their indexes.
const TABLES = "'visitor_sessions', 'visitor_turns', 'visitor_usage', 'question_groups', 'visitor_group_counts', 'visitor_group_days', 'visitor_citations'";
const trees = db
  .prepare(
    `SELECT name, sum(pgsize) AS bytes FROM dbstat WHERE name IN (${TABLES}) OR name LIKE 'visitor_questions_fts%'
       OR name IN (SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name IN (${TABLES}))
     GROUP BY name ORDER BY bytes DESC`,
  )
  .all() as Array<{ name: string; bytes: number }>;
const bytes = trees.reduce((sum, t) => sum + t.bytes, 0);
console.log(
  JSON.stringify(
    {
      when: new Date().toISOString(),
      conversations: total,
      turns,
      questionPool: pool.length,
      groupsPerKnowledgeBase: groupCount,
      groupingMsPerQuestion: Math.round(groupMsPerQuestion * 10) / 10,
      seedSeconds: Math.round(seedSeconds),
      timingsMs: timings,
      gapPlan,
      // What the 30-day top questions read: hourly rows per group, or the daily roll-up's.
      groupCountRows: {
        hourly: (db.prepare('SELECT count(*) AS n FROM visitor_group_counts').get() as { n: number }).n,
        daily: (db.prepare('SELECT count(*) AS n FROM visitor_group_days').get() as { n: number }).n,
      },
      disk: {
        bytesPerConversation: Math.round(bytes / total),
        totalMB: Math.round(bytes / 1e5) / 10,
        byTree: Object.fromEntries(trees.map((t) => [t.name, Math.round(t.bytes / total)])),
      },
    },
    null,
    2,
  ),
);
visitorRepo.close();
db.close();
fs.rmSync(dataDir, { recursive: true, force: true });

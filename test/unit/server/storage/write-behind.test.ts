/**
 * The one write-behind owner of a connection (server/storage/write-behind.ts), on a real SQLite
 * file: usage counts and visitor turns wait in memory together, every repository that reads them
 * writes them first without being handed anything, a buffer that cannot be written keeps its
 * records, and a timed write that fails is reported once per streak.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { VisitorConversations } from '../../../../server/domain/visitor-conversations.ts';
import { WidgetService } from '../../../../server/domain/widgets.ts';
import { type Db, openDatabase } from '../../../../server/storage/db.ts';
import { QuestionGroupRepo } from '../../../../server/storage/question-group-repo.ts';
import { SettingsRepo } from '../../../../server/storage/settings-repo.ts';
import { UsageRepo } from '../../../../server/storage/usage-repo.ts';
import { VisitorAnalyticsRepo } from '../../../../server/storage/visitor-analytics-repo.ts';
import { VisitorRepo } from '../../../../server/storage/visitor-repo.ts';
import { WidgetRepo } from '../../../../server/storage/widget-repo.ts';
import { WRITE_BEHIND_MS, WriteBehind, writeBehind } from '../../../../server/storage/write-behind.ts';
import { tempDataDir } from '../../../helpers/temp-data.ts';

const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 3, 1, 12);

describe('the write-behind owner of a connection', () => {
  let db: Db;
  let usage: UsageRepo;
  let visitorRepo: VisitorRepo;
  let conversations: VisitorConversations;
  let widgetId: string;
  const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
  const ask = (question: string) => {
    const session = conversations.startSession({ id: `vs_${String(question.length).padStart(20, '0')}`, widgetId, origin: 'https://shop.example', ipHash: '0'.repeat(64) });
    conversations.recordTurn({ sessionId: session.id, widgetId, knowledgeBaseId: 'kb', question, answer: 'a', answered: false, citations: [], latencyMs: 10 });
  };

  beforeEach(() => {
    db = openDatabase(tempDataDir());
    usage = new UsageRepo(db);
    visitorRepo = new VisitorRepo(db);
    conversations = new VisitorConversations(visitorRepo, new SettingsRepo(db), () => NOW);
    widgetId = new WidgetService(new WidgetRepo(db)).create({ name: 'Shop', knowledgeBaseIds: ['kb'], allowedOrigins: ['https://shop.example'] }).id;
  });
  afterEach(() => {
    mock.timers.reset();
    writeBehind(db).close();
    db.close();
  });

  it('is one per connection, and writes every buffer of it at once', () => {
    assert.equal(writeBehind(db), writeBehind(db));
    usage.count('requests', { keyId: 'k', route: 'GET /x' }, 1, NOW);
    ask('Do you ship to Norway?');
    assert.equal(count('SELECT count(*) AS n FROM usage_counts'), 0, 'both wait in memory');
    assert.equal(count('SELECT count(*) AS n FROM visitor_turns'), 0);
    usage.flush();
    assert.equal(count('SELECT count(*) AS n FROM usage_counts'), 1);
    assert.equal(count('SELECT count(*) AS n FROM visitor_turns'), 1, "the usage repository's flush wrote the turn too");
  });

  it('lets the repositories that read turns see one answered a moment ago, with nothing handed to them', () => {
    ask('Do you ship to Norway?');
    // Built from the connection alone: there is no flush to pass, so none can be forgotten.
    assert.equal(new QuestionGroupRepo(db).countUngrouped(), 1);
    ask('Where is my order?');
    const analytics = new VisitorAnalyticsRepo(db).analytics({ from: NOW - HOUR, to: NOW + HOUR, size: HOUR, top: 5 });
    assert.equal(analytics.summary.questions, 2);
  });

  it('writes within a second on its own, and keeps what a busy database refused for the next attempt, reporting it once', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    const failures: unknown[] = [];
    writeBehind(db).reportFailures((error) => failures.push(error));
    // A second connection holds the write lock: every write of this one is refused at once.
    const other = openDatabase(path.dirname(db.name));
    other.pragma('busy_timeout = 0');
    db.pragma('busy_timeout = 0');
    other.prepare('BEGIN IMMEDIATE').run();
    try {
      usage.count('requests', { keyId: 'k' }, 3, NOW);
      mock.timers.tick(WRITE_BEHIND_MS);
      mock.timers.tick(WRITE_BEHIND_MS);
      mock.timers.tick(WRITE_BEHIND_MS);
      assert.equal(failures.length, 1, 'three refused attempts, one report');
      assert.match(String((failures[0] as Error).message), /locked|busy/);
      assert.throws(() => usage.flush(), /locked|busy/, 'a read that cannot see the counts says so');
    } finally {
      other.prepare('COMMIT').run();
      other.close();
    }
    mock.timers.tick(WRITE_BEHIND_MS);
    assert.equal(count("SELECT sum(value) AS n FROM usage_counts WHERE metric = 'requests'"), 3, 'kept and written once the lock was gone');
  });

  it('closing under a database that refuses the write throws nothing, so the database still closes', () => {
    const owner = new WriteBehind(db);
    let writes = 0;
    owner.add(() => {
      writes += 1;
      throw new Error('database is locked');
    });
    assert.doesNotThrow(() => owner.close());
    assert.equal(writes, 1);
  });
});

describe('flush before read', () => {
  /** The tables whose rows wait in memory before they are written (write-behind.ts). */
  const BUFFERED = ['usage_counts', 'usage_answer_latency', 'visitor_turns', 'visitor_usage', 'visitor_citations'];
  const ROOT = path.resolve(import.meta.dirname, '../../../..');

  function sourceFiles(dir: string): string[] {
    return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return sourceFiles(full);
      return entry.name.endsWith('.ts') ? [full] : [];
    });
  }

  it('every server module that reads a buffered table goes through the write-behind owner', () => {
    const reads = new RegExp(`\\b(?:FROM|JOIN)\\s+(?:${BUFFERED.join('|')})\\b`);
    const readers = sourceFiles(path.join(ROOT, 'server')).filter((file) => reads.test(fs.readFileSync(file, 'utf8')));
    assert.ok(readers.length >= 4, `the check finds the readers (${readers.length})`);
    const forgetful = readers.filter((file) => !/\bwriteBehind\(/.test(fs.readFileSync(file, 'utf8'))).map((file) => path.relative(ROOT, file));
    assert.deepEqual(forgetful, [], 'these read rows that may still wait in memory without writing them first');
  });
});

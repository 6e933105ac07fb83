import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { DB_FILE_NAME, openDatabase } from '../../../../server/storage/db.ts';
import { MIGRATIONS, migrate, migrationVersion } from '../../../../server/storage/migrate.ts';
import { SearchRepo } from '../../../../server/storage/search-repo.ts';
import { loadVectorExtension } from '../../../../server/storage/vector-extension.ts';
import { tempDataDir } from '../../../helpers/temp-data.ts';

/** The migration that gave the keyword indexes their scope column (0006). */
const SCOPED = migrationVersion('keyword-scope');
/** The migration that started keeping job counts (0009). */
const COUNTED = migrationVersion('job-counts');

/** The migration that gave jobs a note of their own, apart from their last error (0021). */
const NOTED = migrationVersion('job-notes');

/** The migration that made the job counts' triggers independent of the order of changes (0011). */
const RECOUNTED = migrationVersion('job-counts-recounted');

/** A database as the release before migration `version` left it (its schema at version - 1). */
function releaseBefore(dataDir: string, version: number): Database.Database {
  const db = new Database(path.join(dataDir, DB_FILE_NAME));
  loadVectorExtension(db);
  migrate(db, version - 1);
  assert.equal(db.pragma('user_version', { simple: true }), version - 1);
  return db;
}

/** A data folder as the release before the scope column left it, with two indexed items. */
function previousRelease(dataDir: string): void {
  const db = releaseBefore(dataDir, SCOPED);
  const items: Array<[string, string, string, string]> = [
    ['kb-shop', 'PRODUCT', 'Espresso grinder', 'A conical burr grinder for espresso.'],
    ['kb-help', 'PAGE', 'Returns', 'Return any grinder within thirty days.'],
  ];
  items.forEach(([kb, type, title, text], i) => {
    const id = Number(
      db
        .prepare(
          `INSERT INTO items (knowledge_base_id, integration_id, external_id, source_type, title, content, text,
             content_hash, seq, chunk_count, embedder_id, created_at, updated_at)
           VALUES (?, 'cms', ?, ?, ?, ?, ?, 'h', 1, 1, 'use-lite', 0, 0)`,
        )
        .run(kb, `x-${i}`, type, title, text, text).lastInsertRowid,
    );
    const chunk = Number(
      db.prepare("INSERT INTO chunks (item_id, position, text, token_count, embed_hash) VALUES (?, 0, ?, 8, 'e')").run(id, text)
        .lastInsertRowid,
    );
    db.prepare('INSERT INTO items_fts (rowid, title, text) VALUES (?, ?, ?)').run(id, title, text);
    db.prepare('INSERT INTO chunks_fts (rowid, title, text) VALUES (?, ?, ?)').run(chunk, title, text);
  });
  db.close();
}

describe('upgrading a data folder', () => {
  it('rebuilds the keyword indexes with their scope column without losing an item', () => {
    assert.equal(SCOPED, 6);
    const dataDir = tempDataDir();
    previousRelease(dataDir);
    const db = openDatabase(dataDir);
    try {
      assert.equal(db.pragma('user_version', { simple: true }), MIGRATIONS.length);
      const repo = new SearchRepo(db);
      const shop = repo.keywordItems('kb-shop', '"grinder"', 10, null);
      const help = repo.keywordItems('kb-help', '"grinder"', 10, null);
      assert.equal(shop.length, 1);
      assert.equal(help.length, 1);
      assert.notEqual(shop[0]!.id, help[0]!.id);
      assert.deepEqual(repo.keywordItems('kb-shop', '"grinder"', 10, ['PAGE']), []);
      assert.equal(repo.keywordItems('kb-shop', '"grinder"', 10, ['PRODUCT']).length, 1);
      assert.equal(repo.keywordChunks('"thirty"', [help[0]!.id]).size, 1);
      assert.equal(repo.keywordChunks('"thirty"', [shop[0]!.id]).size, 0);
      assert.equal(db.prepare('SELECT count(*) FROM chunks_fts').pluck().get(), 2);
      // A later migration counts the items and chunks the folder already holds.
      assert.deepEqual(db.prepare('SELECT * FROM item_counts ORDER BY 1').raw().all(), [['kb-help', 1, 1], ['kb-shop', 1, 1]]);
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    } finally {
      db.close();
    }
  });

  it('counts the jobs a data folder already holds when it starts keeping job counts', () => {
    assert.equal(COUNTED, 9);
    const dataDir = tempDataDir();
    const before = releaseBefore(dataDir, COUNTED);
    const insert = before.prepare(
      `INSERT INTO jobs (job_id, knowledge_base_id, integration_id, external_id, source_type, data, content_hash,
         force_refresh, priority, seq, enqueued_at, sort_key, status, max_attempts, run_at, created_at, updated_at)
       VALUES (?, ?, 'cms', ?, 'ARTICLE', '{}', 'h', 0, ?, ?, 0, 0, ?, 3, 0, 0, 0)`,
    );
    const jobs: Array<[string, string, number, string]> = [
      ['kb-a', 'x-1', 1, 'succeeded'], ['kb-a', 'x-2', 1, 'succeeded'], ['kb-a', 'x-3', 0, 'queued'],
      ['kb-b', 'x-1', 2, 'queued'], ['kb-b', 'x-2', 1, 'failed'],
    ];
    jobs.forEach(([kb, externalId, priority, status], seq) => insert.run(`cms-${externalId}`, kb, externalId, priority, seq, status));
    before.close();

    const db = openDatabase(dataDir);
    try {
      assert.deepEqual(db.prepare('SELECT knowledge_base_id, status, priority, n FROM job_counts ORDER BY 1, 2, 3').raw().all(), [
        ['kb-a', 'queued', 0, 1], ['kb-a', 'succeeded', 1, 2], ['kb-b', 'failed', 1, 1], ['kb-b', 'queued', 2, 1],
      ]);
    } finally {
      db.close();
    }
  });

  it('counts the jobs again where an earlier release let the counts drift', () => {
    assert.equal(RECOUNTED, 11);
    const dataDir = tempDataDir();
    const before = releaseBefore(dataDir, RECOUNTED);
    before
      .prepare(
        `INSERT INTO jobs (job_id, knowledge_base_id, integration_id, external_id, source_type, data, content_hash,
           force_refresh, priority, seq, enqueued_at, sort_key, status, max_attempts, run_at, created_at, updated_at)
         VALUES ('cms-x', 'kb-a', 'cms', 'x', 'ARTICLE', '{}', 'h', 0, 1, 1, 0, 0, 'succeeded', 3, 0, 0, 0)`,
      )
      .run();
    // What the old triggers left after an item pushed twice in one bulk: a queued job that never was.
    before.prepare("INSERT INTO job_counts VALUES ('kb-a', 'queued', 0, 1)").run();
    before.close();

    const db = openDatabase(dataDir);
    try {
      assert.deepEqual(db.prepare('SELECT knowledge_base_id, status, priority, n FROM job_counts ORDER BY 1, 2, 3').raw().all(), [
        ['kb-a', 'succeeded', 1, 1],
      ]);
    } finally {
      db.close();
    }
  });

  it('makes a key whose expiry no date can hold a key that never expires', () => {
    const neverExpire = migrationVersion('keys-never-expire');
    assert.equal(neverExpire, 12);
    const dataDir = tempDataDir();
    const before = releaseBefore(dataDir, neverExpire);
    const insert = before.prepare(
      `INSERT INTO api_keys (id, name, description, scopes, knowledge_base_ids, secret_hash, created_by, created_at, expires_at)
       VALUES (?, ?, '', '["iq:read"]', NULL, X'00', 'cli', 0, ?)`,
    );
    insert.run('far', 'far', 31_537_795_381_363_972);
    insert.run('near', 'near', Date.UTC(2030, 0, 1));
    before.close();

    const db = openDatabase(dataDir);
    try {
      assert.deepEqual(db.prepare('SELECT id, expires_at FROM api_keys ORDER BY id').raw().all(), [['far', null], ['near', Date.UTC(2030, 0, 1)]]);
    } finally {
      db.close();
    }
  });

  it('moves the notes earlier releases wrote into last_error to note, and keeps every real error', () => {
    assert.equal(NOTED, 21);
    const dataDir = tempDataDir();
    const before = releaseBefore(dataDir, NOTED);
    const insert = before.prepare(
      `INSERT INTO jobs (job_id, knowledge_base_id, integration_id, external_id, source_type, data, content_hash,
         force_refresh, priority, seq, enqueued_at, sort_key, status, max_attempts, run_at, created_at, updated_at, last_error, errors)
       VALUES (?, 'kb-a', 'cms', ?, 'ARTICLE', '{}', 'h', 0, 1, ?, 0, 0, ?, 5, 0, 0, 0, ?, ?)`,
    );
    const ocr = 'text read by OCR (text recognition) from 2 scanned page(s) without a text layer: page(s) 1, 2';
    const failures = (...messages: string[]) => JSON.stringify(messages.map((message, i) => ({ attempt: i + 1, message, at: '2026-11-01T00:00:00.000Z' })));
    // [externalId, status, last_error, errors] as the release before left them, and what each becomes.
    const rows: Array<[string, string, string | null, string, { note: string | null; last_error: string | null }]> = [
      ['ocr', 'succeeded', ocr, failures(), { note: ocr, last_error: null }],
      ['ocr-after-retry', 'succeeded', ocr, failures('model crashed'), { note: ocr, last_error: null }],
      ['retried', 'succeeded', 'model crashed', failures('timeout', 'model crashed'), { note: null, last_error: null }],
      ['skipped-after-retry', 'skipped', 'model crashed', failures('model crashed'), { note: null, last_error: null }],
      // A crash on the last attempt, retried by hand, then a success: the crash is in no errors entry.
      ['crashed-then-retried', 'succeeded', 'interrupted by a crash on its last attempt', failures(), { note: null, last_error: 'interrupted by a crash on its last attempt' }],
      ['clean', 'succeeded', null, failures(), { note: null, last_error: null }],
      ['superseded', 'cancelled', 'superseded by a newer version', failures('model crashed'), { note: 'superseded by a newer version', last_error: null }],
      ['deleted', 'cancelled', 'the item was deleted', failures(), { note: 'the item was deleted', last_error: null }],
      ['superseded-failing', 'cancelled', 'boom', failures('boom'), { note: 'superseded by a newer version', last_error: 'boom' }],
      ['failed', 'failed', 'boom 5', failures('boom 1', 'boom 5'), { note: null, last_error: 'boom 5' }],
      ['backing-off', 'queued', 'model crashed', failures('model crashed'), { note: null, last_error: 'model crashed' }],
    ];
    rows.forEach(([externalId, status, lastError, errors], seq) => insert.run(`cms-${externalId}`, externalId, seq, status, lastError, errors));
    const countsBefore = before.prepare('SELECT * FROM job_counts ORDER BY 1, 2, 3').raw().all();
    before.close();

    const db = openDatabase(dataDir);
    try {
      const after = db.prepare('SELECT external_id, note, last_error, errors FROM jobs ORDER BY seq').all() as Array<{
        external_id: string; note: string | null; last_error: string | null; errors: string;
      }>;
      assert.deepEqual(
        after.map(({ external_id, note, last_error }) => `${external_id}: note ${note}, last error ${last_error}`),
        rows.map(([externalId, , , , expected]) => `${externalId}: note ${expected.note}, last error ${expected.last_error}`),
      );
      assert.deepEqual(after.map((row) => row.errors), rows.map(([, , , errors]) => errors), 'every failure stays in errors');
      assert.deepEqual(db.prepare('SELECT * FROM job_counts ORDER BY 1, 2, 3').raw().all(), countsBefore, 'no job changed state');
    } finally {
      db.close();
    }
  });
});

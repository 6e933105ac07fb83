import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { DB_FILE_NAME, openDatabase } from '../../../../server/storage/db.ts';
import { MIGRATIONS, migrate, migrationVersion } from '../../../../server/storage/migrate.ts';
import { readMigrationFiles } from '../../../../server/storage/migrations/files.ts';
import { loadVectorExtension } from '../../../../server/storage/vector-extension.ts';
import { tempDataDir } from '../../../helpers/temp-data.ts';

function schemaOf(db: Database.Database): unknown[] {
  return db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name').raw().all();
}

/** A database left at `version` by a release that knew that many migrations. */
function databaseAt(version: number): string {
  const dataDir = tempDataDir();
  const db = new Database(path.join(dataDir, DB_FILE_NAME));
  loadVectorExtension(db);
  migrate(db, version);
  db.close();
  return dataDir;
}

describe('schema migrations', () => {
  it('are the numbered files of storage/migrations, named for what they do', () => {
    assert.ok(MIGRATIONS.length >= 26);
    MIGRATIONS.forEach((m, i) => assert.equal(m.version, i + 1));
    assert.equal(migrationVersion('jobs-and-keys'), 1);
    assert.equal(migrationVersion('job-notes'), 21);
    assert.match(MIGRATIONS[migrationVersion('job-notes') - 1]!.sql, /ALTER TABLE jobs ADD COLUMN note TEXT;/);
    assert.throws(() => migrationVersion('no-such-thing'), /no migration is named no-such-thing/);
  });

  it('bring a database of every earlier version to the schema of a new one', () => {
    // In memory: the runner is what is tested here; openDatabase's file is the other tests'.
    const inMemory = () => {
      const db = new Database(':memory:');
      loadVectorExtension(db);
      return db;
    };
    const fresh = inMemory();
    migrate(fresh);
    const expected = schemaOf(fresh);
    assert.equal(fresh.pragma('user_version', { simple: true }), MIGRATIONS.length);
    for (let version = 0; version < MIGRATIONS.length; version++) {
      const db = inMemory();
      migrate(db, version);
      assert.equal(db.pragma('user_version', { simple: true }), version);
      migrate(db);
      assert.equal(db.pragma('user_version', { simple: true }), MIGRATIONS.length, `from version ${version}`);
      assert.deepEqual(schemaOf(db), expected, `from version ${version}`);
      db.close();
    }
  });

  it('refuse a database a newer LocalIQ wrote', () => {
    const dataDir = databaseAt(MIGRATIONS.length);
    const db = new Database(path.join(dataDir, DB_FILE_NAME));
    db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    db.close();
    assert.throws(() => openDatabase(dataDir), /written by a newer LocalIQ \(schema \d+, this build knows \d+\)/);
  });

  it('stop at the last whole migration when one fails', () => {
    const dataDir = databaseAt(migrationVersion('job-notes') - 1);
    const db = new Database(path.join(dataDir, DB_FILE_NAME));
    loadVectorExtension(db);
    // A column the migration adds already there: its ALTER TABLE fails, and nothing of it stays.
    db.exec('ALTER TABLE jobs ADD COLUMN note TEXT');
    assert.throws(() => migrate(db), /duplicate column name: note/);
    assert.equal(db.pragma('user_version', { simple: true }), migrationVersion('job-notes') - 1);
    db.close();
  });
});

describe('reading the migration files', () => {
  const folder = (files: Record<string, string>) => {
    const dir = fs.mkdtempSync(path.join(tempDataDir(), 'migrations-'));
    for (const [name, sql] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), sql);
    return dir;
  };

  it('reads them in the order of their numbers, their name without number and extension', () => {
    const dir = folder({ '0002-second.sql': 'SELECT 2;', '0001-first-one.sql': 'SELECT 1;', 'README.md': 'not SQL' });
    assert.deepEqual(readMigrationFiles(dir), [
      { version: 1, name: 'first-one', sql: 'SELECT 1;' },
      { version: 2, name: 'second', sql: 'SELECT 2;' },
    ]);
  });

  it('refuses a gap, a repeated number and a file not named NNNN-what-it-does.sql', () => {
    assert.throws(() => readMigrationFiles(folder({ '0001-a.sql': '', '0003-c.sql': '' })), /0003-c\.sql should be number 0002/);
    assert.throws(() => readMigrationFiles(folder({ '0001-a.sql': '', '0001-b.sql': '' })), /0001-b\.sql should be number 0002/);
    assert.throws(() => readMigrationFiles(folder({ '0001-a.sql': '', '2-b.sql': '' })), /2-b\.sql is not named NNNN-what-it-does\.sql/);
    assert.throws(() => readMigrationFiles(folder({ '0001-Job_Notes.sql': '' })), /is not named/);
  });
});

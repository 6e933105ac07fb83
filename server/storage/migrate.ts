import type Database from 'better-sqlite3';
import { type MigrationFile, readMigrationFiles } from './migrations/files.ts';
import { registerMigrationFunctions } from './migrations/functions.ts';

/**
 * The schema migrations (`migrations/NNNN-what-it-does.sql`), in order; `PRAGMA user_version`
 * records how many have run. A migration that has shipped is never edited: a new one is added
 * (README.md, "Migrations").
 */
export const MIGRATIONS: readonly MigrationFile[] = readMigrationFiles();

/** The version a migration brings the database to, by its name (`job-notes` → 21). */
export function migrationVersion(name: string): number {
  const migration = MIGRATIONS.find((m) => m.name === name);
  if (!migration) throw new Error(`no migration is named ${name}`);
  return migration.version;
}

/**
 * Brings a database to `target` (every migration when not given): each migration after its
 * version runs in a transaction of its own together with the new user_version, so a crash leaves
 * the database at the last whole one. The functions migrations call are registered first.
 */
export function migrate(db: Database.Database, target: number = MIGRATIONS.length): void {
  registerMigrationFunctions(db);
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new Error(
      `The database was written by a newer LocalIQ (schema ${current}, this build knows ${MIGRATIONS.length}).`,
    );
  }
  for (let version = current; version < target; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version]!.sql);
      db.pragma(`user_version = ${version + 1}`);
    }).immediate();
  }
}

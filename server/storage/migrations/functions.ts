import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';

/**
 * SQL functions that migrations call, registered on every connection the runner migrates, each as
 * it was when the migration calling it shipped. Never change one (a migration's result must not
 * move with today's code); a migration needing other behaviour gets a function of its own.
 */
export function registerMigrationFunctions(db: Database.Database): void {
  // 0006-keyword-scope: the keyword indexes' scope column (today's code: storage/keyword-scope.ts).
  db.function('localiq_scope', { deterministic: true }, (kb, type, itemId) => {
    const tokens = [
      `kb${createHash('sha256').update(String(kb)).digest('hex').slice(0, 16)}x`,
      `st${String(type).toLowerCase()}x`,
    ];
    if (itemId !== null) tokens.push(`it${Number(itemId)}x`);
    return tokens.join(' ');
  });
}

import type { Db } from './db.ts';

export class SettingsRepo {
  private readonly getStmt;
  private readonly setStmt;
  private readonly deleteStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?');
    this.setStmt = db.prepare<[string, string]>(
      'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    );
    this.deleteStmt = db.prepare<[string]>('DELETE FROM settings WHERE key = ?');
  }

  get(key: string): string | null {
    return this.getStmt.get(key)?.value ?? null;
  }

  set(key: string, value: string): void {
    this.setStmt.run(key, value);
  }

  delete(key: string): void {
    this.deleteStmt.run(key);
  }
}

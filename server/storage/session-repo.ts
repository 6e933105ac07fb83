import type { SessionRecord, SessionStore } from '../domain/sessions.ts';
import type { Db } from './db.ts';

type SessionRow = {
  token_hash: Buffer;
  user_id: string;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
};

/** Dashboard sessions, stored by the hash of their token only. */
export class SessionRepo implements SessionStore {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      insert: db.prepare<[Buffer, string, number, number, number]>(
        'INSERT INTO sessions (token_hash, user_id, created_at, last_seen_at, expires_at) VALUES (?, ?, ?, ?, ?)',
      ),
      get: db.prepare<[Buffer], SessionRow>('SELECT * FROM sessions WHERE token_hash = ?'),
      touch: db.prepare<[number, number, Buffer]>('UPDATE sessions SET last_seen_at = ?, expires_at = ? WHERE token_hash = ?'),
      remove: db.prepare<[Buffer]>('DELETE FROM sessions WHERE token_hash = ?'),
      removeForUser: db.prepare<[string]>('DELETE FROM sessions WHERE user_id = ?'),
      removeExpired: db.prepare<[number]>('DELETE FROM sessions WHERE expires_at <= ?'),
    };
  }

  insert(tokenHash: Buffer, userId: string, now: number, expiresAt: number): void {
    this.stmts.insert.run(tokenHash, userId, now, now, expiresAt);
  }

  get(tokenHash: Buffer): SessionRecord | null {
    const row = this.stmts.get.get(tokenHash);
    return row ? { userId: row.user_id, createdAt: row.created_at, lastSeenAt: row.last_seen_at, expiresAt: row.expires_at } : null;
  }

  touch(tokenHash: Buffer, now: number, expiresAt: number): void {
    this.stmts.touch.run(now, expiresAt, tokenHash);
  }

  remove(tokenHash: Buffer): void {
    this.stmts.remove.run(tokenHash);
  }

  removeForUser(userId: string): number {
    return this.stmts.removeForUser.run(userId).changes;
  }

  removeExpired(now: number): number {
    return this.stmts.removeExpired.run(now).changes;
  }
}

import type { Role, UserRecord, UserStore } from '../domain/users.ts';
import type { Db } from './db.ts';
import { refusingDuplicates } from './sqlite-errors.ts';

type UserRow = {
  id: string;
  username: string;
  role: Role;
  password_hash: string;
  created_at: number;
  updated_at: number;
  last_sign_in_at: number | null;
};

function toRecord(row: UserRow): UserRecord {
  return {
    id: row.id,
    username: row.username,
    role: row.role,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastSignInAt: row.last_sign_in_at,
  };
}

/** Dashboard users. Password hashes leave this file only for verification. */
export class UserRepo implements UserStore {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      count: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM users'),
      countOwners: db.prepare<[], { n: number }>("SELECT count(*) AS n FROM users WHERE role = 'owner'"),
      insert: db.prepare(
        `INSERT INTO users (id, username, role, password_hash, created_at, updated_at)
         VALUES (@id, @username, @role, @passwordHash, @now, @now)`,
      ),
      byId: db.prepare<[string], UserRow>('SELECT * FROM users WHERE id = ?'),
      byUsername: db.prepare<[string], UserRow>('SELECT * FROM users WHERE username = ?'),
      list: db.prepare<[], UserRow>(
        "SELECT * FROM users ORDER BY CASE role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 ELSE 2 END, username",
      ),
      setRole: db.prepare<[Role, number, string]>('UPDATE users SET role = ?, updated_at = ? WHERE id = ?'),
      setPassword: db.prepare<[string, number, string]>('UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?'),
      signedIn: db.prepare<[number, string]>('UPDATE users SET last_sign_in_at = ? WHERE id = ?'),
      remove: db.prepare<[string]>('DELETE FROM users WHERE id = ?'),
    };
  }

  count(): number {
    return this.stmts.count.get()!.n;
  }

  hasOwner(): boolean {
    return this.stmts.countOwners.get()!.n > 0;
  }

  /**
   * Inserts a user. With `onlyIfNoOwner`, the check and the insert run in one IMMEDIATE
   * transaction, so two first-run requests racing each other cannot both create an Owner.
   */
  insert(user: { id: string; username: string; role: Role; passwordHash: string }, now: number, onlyIfNoOwner = false): boolean {
    return this.db
      .transaction(() => {
        if (onlyIfNoOwner && this.hasOwner()) return false;
        refusingDuplicates(() => this.stmts.insert.run({ ...user, now }), `The username "${user.username}" is taken.`);
        return true;
      })
      .immediate();
  }

  find(id: string): UserRecord | null {
    const row = this.stmts.byId.get(id);
    return row ? toRecord(row) : null;
  }

  findWithHash(username: string): { user: UserRecord; passwordHash: string } | null {
    const row = this.stmts.byUsername.get(username);
    return row ? { user: toRecord(row), passwordHash: row.password_hash } : null;
  }

  list(): UserRecord[] {
    return this.stmts.list.all().map(toRecord);
  }

  setRole(id: string, role: Role, now: number): boolean {
    return this.stmts.setRole.run(role, now, id).changes > 0;
  }

  setPassword(id: string, passwordHash: string, now: number): boolean {
    return this.stmts.setPassword.run(passwordHash, now, id).changes > 0;
  }

  recordSignIn(id: string, now: number): void {
    this.stmts.signedIn.run(now, id);
  }

  /** Deleting a user ends their sessions too (foreign key cascade). */
  remove(id: string): boolean {
    return this.stmts.remove.run(id).changes > 0;
  }
}

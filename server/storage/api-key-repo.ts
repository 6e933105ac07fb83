import type { ApiKeyStore } from '../domain/api-key-service.ts';
import type { ApiKeyRecord } from '../domain/api-keys.ts';
import type { Scope } from '../../common/contract/scopes.ts';
import type { Db } from './db.ts';

type ApiKeyRow = {
  id: string;
  name: string;
  description: string;
  secret_hash: Buffer;
  scopes: string;
  knowledge_base_ids: string | null;
  created_by: string | null;
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
  revoked_at: number | null;
  rotated_from: string | null;
};

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    scopes: JSON.parse(row.scopes) as Scope[],
    knowledgeBaseIds: row.knowledge_base_ids === null ? null : (JSON.parse(row.knowledge_base_ids) as string[]),
    createdBy: row.created_by,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    rotatedFrom: row.rotated_from,
  };
}

export class ApiKeyRepo implements ApiKeyStore {
  private readonly insertStmt;
  private readonly byIdStmt;
  private readonly listStmt;
  private readonly touchStmt;
  private readonly revokeStmt;
  private readonly revokeAllStmt;
  private readonly versionStmt;
  private readonly dataVersionStmt;
  /** The keys' version as last read, and the connection's data_version when it was read. */
  private known = { dataVersion: -1, version: 0 };

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO api_keys (id, name, description, secret_hash, scopes, knowledge_base_ids, created_by,
         created_at, expires_at, rotated_from)
       VALUES (@id, @name, @description, @secretHash, @scopes, @knowledgeBaseIds, @createdBy,
         @createdAt, @expiresAt, @rotatedFrom)`,
    );
    this.byIdStmt = db.prepare<[string], ApiKeyRow>('SELECT * FROM api_keys WHERE id = ?');
    this.listStmt = db.prepare<[], ApiKeyRow>('SELECT * FROM api_keys ORDER BY created_at DESC, id');
    this.touchStmt = db.prepare<[number, string]>('UPDATE api_keys SET last_used_at = ? WHERE id = ?');
    this.revokeStmt = db.prepare<[number, string, number]>(
      'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND (revoked_at IS NULL OR revoked_at > ?)',
    );
    this.revokeAllStmt = db.prepare<[number, number]>(
      'UPDATE api_keys SET revoked_at = ? WHERE revoked_at IS NULL OR revoked_at > ?',
    );
    this.versionStmt = db
      .prepare<[], number>("SELECT value FROM counters WHERE name = 'api_keys_version'")
      .pluck();
    this.dataVersionStmt = db.prepare<[], number>('PRAGMA data_version').pluck();
  }

  /**
   * Changes whenever any key is created, changed or deleted, by any connection or process
   * (triggers of migration 5); the last-used time does not count as a change.
   * The counter is read again only when another connection committed anything since the last
   * read (`data_version`, which needs no page read) or when this repo wrote a key itself
   * (this connection's own commits do not move data_version, so keys must only be written
   * through this repo on this connection). Pushes commit on their own connection many times a
   * second, so this saves a page read on most requests, not all.
   */
  version(): number {
    const dataVersion = this.dataVersionStmt.get()!;
    if (dataVersion !== this.known.dataVersion) {
      this.known = { dataVersion, version: this.versionStmt.get() ?? 0 };
    }
    return this.known.version;
  }

  /** After a write through this connection: the next `version()` reads the counter. */
  private changed(): void {
    this.known = { dataVersion: -1, version: 0 };
  }

  insert(key: Omit<ApiKeyRecord, 'lastUsedAt' | 'revokedAt'>, secretHash: Buffer): void {
    this.insertStmt.run({
      id: key.id,
      name: key.name,
      description: key.description,
      secretHash,
      scopes: JSON.stringify(key.scopes),
      knowledgeBaseIds: key.knowledgeBaseIds === null ? null : JSON.stringify(key.knowledgeBaseIds),
      createdBy: key.createdBy,
      createdAt: key.createdAt,
      expiresAt: key.expiresAt,
      rotatedFrom: key.rotatedFrom,
    });
    this.changed();
  }

  findWithHash(id: string): { key: ApiKeyRecord; secretHash: Buffer } | null {
    const row = this.byIdStmt.get(id);
    return row ? { key: toRecord(row), secretHash: row.secret_hash } : null;
  }

  find(id: string): ApiKeyRecord | null {
    return this.findWithHash(id)?.key ?? null;
  }

  list(): ApiKeyRecord[] {
    return this.listStmt.all().map(toRecord);
  }

  /** Every key with its stored hash: what key checks are answered from. */
  listWithHash(): Array<{ key: ApiKeyRecord; secretHash: Buffer }> {
    return this.listStmt.all().map((row) => ({ key: toRecord(row), secretHash: row.secret_hash }));
  }

  touch(id: string, at: number): void {
    this.touchStmt.run(at, id);
  }

  /** Revokes every key not revoked by `at`; returns how many. */
  revokeAll(at: number): number {
    const changed = this.revokeAllStmt.run(at, at).changes;
    this.changed();
    return changed;
  }

  /** Sets the revocation time unless the key is already revoked earlier; returns whether it changed. */
  revoke(id: string, at: number): boolean {
    const changed = this.revokeStmt.run(at, id, at).changes > 0;
    this.changed();
    return changed;
  }
}

import {
  type ApiKeyRecord,
  type ApiKeyState,
  generateKeyValue,
  hashSecret,
  keyState,
  parseKeyValue,
  secretMatches,
  secretVerifier,
  verifierMatches,
} from './api-keys.ts';
import type { Scope } from '../../common/contract/scopes.ts';

export type NewApiKey = {
  name: string;
  description?: string;
  scopes: Scope[];
  knowledgeBaseIds?: string[] | null;
  expiresAt?: number | null;
  createdBy?: string | null;
};

/** API keys as stored (storage/api-key-repo.ts): the record, and the keyed hash of its secret. */
export type ApiKeyStore = {
  /**
   * Changes whenever any key is created, changed or deleted, by any connection or process; the
   * last-used time does not count as a change.
   */
  version(): number;
  insert(key: Omit<ApiKeyRecord, 'lastUsedAt' | 'revokedAt'>, secretHash: Buffer): void;
  find(id: string): ApiKeyRecord | null;
  /** Newest first. */
  list(): ApiKeyRecord[];
  /** Every key with its stored hash: what key checks are answered from. */
  listWithHash(): Array<{ key: ApiKeyRecord; secretHash: Buffer }>;
  touch(id: string, at: number): void;
  /** Sets the revocation time unless the key is already revoked earlier; returns whether it changed. */
  revoke(id: string, at: number): boolean;
};

export type AuthResult =
  | { ok: true; key: ApiKeyRecord }
  | { ok: false; reason: 'invalid' | 'expired' };

/** How often the last-used time is written: often enough to be useful, rarely enough to cost nothing. */
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/**
 * A key whose secret was verified: its record and a SHA-256 of the secret that proved it, so
 * later requests with the same value skip the HMAC.
 */
type VerifiedKey = { key: ApiKeyRecord; verifier: Buffer };

export class ApiKeyService {
  private readonly lastUsedWritten = new Map<string, number>();
  /**
   * Every key with its stored hash, and the keys verified so far, both by id and valid while the
   * keys' version in the database stays `cacheVersion`. Held in memory, a key check reads no row:
   * an unknown id and a known one with a wrong secret cost the same (a lookup and the keyed
   * hash), so timing does not tell which public ids exist.
   */
  private stored = new Map<string, { key: ApiKeyRecord; secretHash: Buffer }>();
  private readonly verified = new Map<string, VerifiedKey>();
  private cacheVersion = -1;
  /** Compared against when the id is unknown, so unknown and known ids cost the same work. */
  private readonly decoyHash: Buffer;

  constructor(
    private readonly repo: ApiKeyStore,
    private readonly serverSecret: Buffer,
    private readonly clock: () => number = Date.now,
  ) {
    this.decoyHash = hashSecret(serverSecret, 'decoy');
  }

  create(input: NewApiKey, rotatedFrom: string | null = null): { key: ApiKeyRecord; value: string } {
    if (input.scopes.length === 0) throw new Error('A key needs at least one scope.');
    const { id, secret, value } = generateKeyValue();
    const key: ApiKeyRecord = {
      id,
      name: input.name,
      description: input.description ?? '',
      scopes: [...new Set(input.scopes)],
      knowledgeBaseIds: input.knowledgeBaseIds?.length ? [...new Set(input.knowledgeBaseIds)] : null,
      createdBy: input.createdBy ?? null,
      createdAt: this.clock(),
      expiresAt: input.expiresAt ?? null,
      lastUsedAt: null,
      revokedAt: null,
      rotatedFrom,
    };
    this.repo.insert(key, hashSecret(this.serverSecret, secret));
    return { key, value };
  }

  list(): Array<ApiKeyRecord & { state: ApiKeyState }> {
    const now = this.clock();
    return this.repo.list().map((key) => ({ ...key, state: keyState(key, now) }));
  }

  find(id: string): ApiKeyRecord | null {
    return this.repo.find(id);
  }

  /** Revokes at once, or at `at` (the end of a rotation's grace period). */
  revoke(id: string, at: number = this.clock()): boolean {
    return this.repo.revoke(id, at);
  }

  /** A new value with the same settings; the old value keeps working for the grace period. */
  rotate(id: string, graceMs: number, createdBy: string | null = null): { key: ApiKeyRecord; value: string } | null {
    const old = this.repo.find(id);
    // A key already rotated (its old value in its grace period) has its replacement: rotating it
    // again made a second one.
    if (!old || keyState(old, this.clock()) !== 'active' || old.revokedAt !== null) return null;
    const created = this.create(
      {
        name: old.name,
        description: old.description,
        scopes: old.scopes,
        knowledgeBaseIds: old.knowledgeBaseIds,
        expiresAt: old.expiresAt,
        createdBy: createdBy ?? old.createdBy,
      },
      old.id,
    );
    this.repo.revoke(old.id, this.clock() + Math.max(0, graceMs));
    return created;
  }

  /**
   * Verifies a key value. Keys verified before are answered from memory as long as no key changed
   * since (the keys' version is read first, so a revocation by another process counts from its
   * commit on); expiry and revocation times are checked against the clock every time.
   */
  authenticate(value: string): AuthResult {
    this.refreshCache();
    return this.verify(value);
  }

  /**
   * Verifies several values against one read of the keys' version: for requests that had all
   * been received when it is called, that read is as fresh as one read per request.
   */
  authenticateMany(values: string[]): AuthResult[] {
    this.refreshCache();
    return values.map((value) => this.verify(value));
  }

  /** Reads the keys again when any key changed (version read before any row, never after). */
  private refreshCache(): void {
    const version = this.repo.version();
    if (version !== this.cacheVersion) {
      this.verified.clear();
      this.stored = new Map(this.repo.listWithHash().map((entry) => [entry.key.id, entry]));
      this.cacheVersion = version;
    }
  }

  private verify(value: string): AuthResult {
    const parsed = parseKeyValue(value);
    if (!parsed) {
      secretMatches(this.serverSecret, value, this.decoyHash);
      return { ok: false, reason: 'invalid' };
    }
    // Only the right secret takes the shortcut; a wrong one is checked like an unknown id.
    const cached = this.verified.get(parsed.id);
    let key: ApiKeyRecord;
    if (cached && verifierMatches(parsed.secret, cached.verifier)) {
      key = cached.key;
    } else {
      const found = this.stored.get(parsed.id);
      const matches = secretMatches(this.serverSecret, parsed.secret, found?.secretHash ?? this.decoyHash);
      if (!found || !matches) return { ok: false, reason: 'invalid' };
      key = found.key;
      this.verified.set(key.id, { key, verifier: secretVerifier(parsed.secret) });
    }
    const now = this.clock();
    const state = keyState(key, now);
    if (state === 'revoked') return { ok: false, reason: 'invalid' };
    if (state === 'expired') return { ok: false, reason: 'expired' };
    this.recordUse(key.id, now);
    return { ok: true, key };
  }

  private recordUse(id: string, now: number): void {
    const last = this.lastUsedWritten.get(id) ?? 0;
    if (now - last < LAST_USED_WRITE_INTERVAL_MS) return;
    this.lastUsedWritten.set(id, now);
    this.repo.touch(id, now);
  }
}

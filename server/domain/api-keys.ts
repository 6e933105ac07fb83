import { createHmac, hash, randomInt, timingSafeEqual } from 'node:crypto';
import type { Scope } from '../../common/contract/scopes.ts';

/**
 * API key values are `liq_<id>_<secret>`: the id finds the row, the secret proves possession.
 * Only HMAC-SHA-256(serverSecret, secret) is stored, so a copied database does not reveal keys.
 */
export const KEY_PREFIX = 'liq_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ID_LENGTH = 12;
/** 43 base62 characters carry 256 bits of randomness. */
const SECRET_LENGTH = 43;
const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}([0-9A-Za-z]{${ID_LENGTH}})_([0-9A-Za-z]{${SECRET_LENGTH}})$`);

export type ApiKeyRecord = {
  id: string;
  name: string;
  description: string;
  scopes: Scope[];
  knowledgeBaseIds: string[] | null;
  createdBy: string | null;
  createdAt: number;
  expiresAt: number | null;
  lastUsedAt: number | null;
  revokedAt: number | null;
  rotatedFrom: string | null;
};

export type ApiKeyState = 'active' | 'expired' | 'revoked';

export function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

export function generateKeyValue(): { id: string; secret: string; value: string } {
  const id = randomBase62(ID_LENGTH);
  const secret = randomBase62(SECRET_LENGTH);
  return { id, secret, value: `${KEY_PREFIX}${id}_${secret}` };
}

export function parseKeyValue(value: string): { id: string; secret: string } | null {
  const match = KEY_PATTERN.exec(value);
  return match ? { id: match[1]!, secret: match[2]! } : null;
}

/** The visible, non-secret part of a key, shown in lists so people can tell keys apart. */
export function displayPrefix(id: string): string {
  return `${KEY_PREFIX}${id}`;
}

export function hashSecret(serverSecret: Buffer, secret: string): Buffer {
  return createHmac('sha256', serverSecret).update(secret).digest();
}

/** Constant-time comparison: the time taken never depends on how much of the secret matched. */
export function secretMatches(serverSecret: Buffer, secret: string, storedHash: Buffer): boolean {
  const candidate = hashSecret(serverSecret, secret);
  return candidate.length === storedHash.length && timingSafeEqual(candidate, storedHash);
}

/**
 * What a verified secret is remembered by in memory: SHA-256 of it (the secret has 256 random
 * bits, so this reveals nothing), a few times cheaper to compute than the stored HMAC.
 */
export function secretVerifier(secret: string): Buffer {
  return hash('sha256', secret, 'buffer');
}

/** Constant-time, like `secretMatches`. */
export function verifierMatches(secret: string, verifier: Buffer): boolean {
  return timingSafeEqual(secretVerifier(secret), verifier);
}

export function keyState(key: Pick<ApiKeyRecord, 'expiresAt' | 'revokedAt'>, now: number): ApiKeyState {
  if (key.revokedAt !== null && key.revokedAt <= now) return 'revoked';
  if (key.expiresAt !== null && key.expiresAt <= now) return 'expired';
  return 'active';
}

const DURATION_UNITS: Record<string, number> = {
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
  y: 365 * 86_400_000,
};

/** The furthest expiry a key may have; "never" is for keys that do not expire. */
const MAX_EXPIRY_MS = 100 * DURATION_UNITS.y!;

/** A duration (`30m`, `24h`, `7d`, `2w`, `1y`, or `0h`) in milliseconds. */
export function parseDuration(input: string): number {
  const duration = /^(\d+)\s*([mhdwy])$/.exec(input.trim());
  if (!duration) throw new Error(`"${input}" is not a duration like 24h, 7d or 0h.`);
  return Number(duration[1]) * DURATION_UNITS[duration[2]!]!;
}

/**
 * Parses an expiry given as a duration (`30d`, `12h`, `1y`) or a date (`2027-01-31`, the start of
 * that day in UTC, or a full ISO time), relative to `now`. Returns null for `never`.
 */
export function parseExpiry(input: string, now: number): number | null {
  const text = input.trim();
  if (text === 'never') return null;
  let expiresAt: number;
  if (/^\d+\s*[mhdwy]$/.test(text)) {
    const duration = parseDuration(text);
    if (duration <= 0) throw new Error('The expiry duration must be positive.');
    expiresAt = now + duration;
  } else {
    // ISO dates only: Date.parse reads "Jan 5" as a day of 2001.
    expiresAt = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
    if (Number.isNaN(expiresAt)) throw new Error(`"${input}" is neither a duration like 30d nor a date like 2027-01-31.`);
    if (expiresAt <= now) throw new Error('The expiry date must be in the future.');
  }
  if (expiresAt - now > MAX_EXPIRY_MS) throw new Error('An expiry more than 100 years ahead: use "never" for a key that does not expire.');
  return expiresAt;
}

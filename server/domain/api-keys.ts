import { createHmac, hash, randomInt, timingSafeEqual } from 'node:crypto';
import type { Scope } from './scopes.ts';

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

function randomBase62(length: number): string {
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

/**
 * Parses an expiry given as a duration (`30d`, `12h`, `1y`) or an ISO date, relative to `now`.
 * Returns null for `never`.
 */
export function parseExpiry(input: string, now: number): number | null {
  const text = input.trim();
  if (text === 'never') return null;
  const duration = /^(\d+)\s*([mhdwy])$/.exec(text);
  if (duration) {
    const amount = Number(duration[1]);
    if (amount <= 0) throw new Error('The expiry duration must be positive.');
    return now + amount * DURATION_UNITS[duration[2]!]!;
  }
  const date = Date.parse(text);
  if (Number.isNaN(date)) throw new Error(`"${input}" is neither a duration like 30d nor a date.`);
  if (date <= now) throw new Error('The expiry date must be in the future.');
  return date;
}

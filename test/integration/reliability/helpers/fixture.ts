import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { ERROR_CODES, errorSchema } from '../../../../common/contract/errors.ts';
import { FIXTURE } from './fixture-data.ts';

export { FIXTURE };

/**
 * A digest of everything a request could change: the queue, knowledge bases, tombstones, the
 * index and the keys (last-used time left out: a refused request with a valid key may touch it).
 */
export function storedDigest(db: Database.Database): string {
  const hash = createHash('sha256');
  const tables: Array<[string, string]> = [
    ['jobs', 'SELECT * FROM jobs ORDER BY id'],
    ['knowledge_bases', 'SELECT * FROM knowledge_bases ORDER BY id'],
    ['item_tombstones', 'SELECT * FROM item_tombstones ORDER BY knowledge_base_id, integration_id, external_id'],
    ['items', 'SELECT * FROM items ORDER BY id'],
    ['chunks', 'SELECT id, item_id, position, text FROM chunks ORDER BY id'],
    ['api_keys', 'SELECT id, name, scopes, knowledge_base_ids, expires_at, revoked_at FROM api_keys ORDER BY id'],
  ];
  for (const [name, sql] of tables) {
    hash.update(name);
    for (const row of db.prepare(sql).iterate()) hash.update(JSON.stringify(row, (_k, v) => (Buffer.isBuffer(v) ? v.toString('hex') : v)));
  }
  return hash.digest('hex');
}

export type ShapeCheck = { ok: true } | { ok: false; problem: string };

/**
 * Contract §3: every error is `{statusCode, code, message, details?, requestId}` with a known code
 * that belongs to the HTTP status, and the request id matches the x-request-id header.
 */
export function checkErrorShape(status: number, headers: Record<string, string | string[] | undefined>, text: string): ShapeCheck {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, problem: `error body is not JSON: ${text.slice(0, 200)}` };
  }
  const parsed = errorSchema.safeParse(body);
  if (!parsed.success) return { ok: false, problem: `error body does not match the contract: ${text.slice(0, 300)}` };
  const error = parsed.data;
  if (error.statusCode !== status) return { ok: false, problem: `statusCode ${error.statusCode} in a ${status} answer` };
  if (ERROR_CODES[error.code] !== status) return { ok: false, problem: `code ${error.code} does not belong to ${status}` };
  if (!/^req_[0-9A-Za-z]{8,}$/.test(error.requestId)) return { ok: false, problem: `odd requestId ${error.requestId}` };
  const header = headers['x-request-id'];
  if (header !== undefined && header !== error.requestId) return { ok: false, problem: 'requestId differs from x-request-id' };
  if (!String(headers['content-type'] ?? '').startsWith('application/json')) return { ok: false, problem: `content-type ${headers['content-type']}` };
  return { ok: true };
}

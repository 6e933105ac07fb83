import { Refusal } from './errors.ts';

/** Opaque page cursors: the id of the last row of the previous page, base64url-wrapped. */
function encodeCursor(id: number): string {
  return Buffer.from(`c${id}`).toString('base64url');
}

/** An unreadable cursor is the caller's mistake: routes answer 400 invalid_query. */
export function decodeCursor(cursor: string): number {
  const match = /^c(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw new InvalidCursorError();
  return Number(match[1]);
}

export class InvalidCursorError extends Refusal {
  constructor() {
    super('invalid_query', 'The cursor is not one this server returned.', 'cursor');
  }
}

/** Splits a page fetched with one extra row into the page and the cursor of the next one. */
export function paginate<T extends { id: number }>(rows: T[], limit: number): { rows: T[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  return { rows: page, nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1]!.id) : null };
}

/** A cursor for lists ordered by a time then a text id (newest first): both of the last row. */
export function encodeTimeCursor(position: { startedAt: number; id: string }): string {
  return Buffer.from(`t${position.startedAt}.${position.id}`).toString('base64url');
}

export function decodeTimeCursor(cursor: string): { startedAt: number; id: string } {
  const match = /^t(\d{1,15})\.([\w-]{1,64})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw new InvalidCursorError();
  return { startedAt: Number(match[1]), id: match[2]! };
}

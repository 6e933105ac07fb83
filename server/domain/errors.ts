/**
 * A write refused because a record with the same identity already exists: storage turns its
 * unique constraints into this error, so the domain decides what a duplicate means (a taken
 * username, a newer version already queued) without knowing the database.
 */
export class DuplicateError extends Error {
  override readonly name = 'DuplicateError';
}

/** What kind of refusal a request met: each edge maps a kind once (HTTP: edge/error-handler.ts). */
export type RefusalKind = 'invalid_input' | 'invalid_query' | 'not_found' | 'forbidden' | 'conflict';

/**
 * A request the domain refuses, with its kind, and for an input the field to fix: the domain's
 * refusals (users, website sources, backup schedules, page cursors) extend it, and the HTTP edge
 * turns every one into the contract's error shape in one place, as meilisearch maps each of its
 * error codes once. `message` says what is wrong (of the field, when there is one); `summary`, when
 * given, is what the answer says first ("The source was not added."), the message then naming the
 * field's fault in the details.
 */
export class Refusal extends Error {
  constructor(
    readonly kind: RefusalKind,
    message: string,
    readonly field?: string,
    readonly summary?: string,
  ) {
    super(message);
  }
}

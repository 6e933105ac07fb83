/**
 * A write refused because a record with the same identity already exists: storage turns its
 * unique constraints into this error, so the domain decides what a duplicate means (a taken
 * username, a newer version already queued) without knowing the database.
 */
export class DuplicateError extends Error {
  override readonly name = 'DuplicateError';
}

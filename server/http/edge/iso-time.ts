/** Times in responses: milliseconds since the epoch as ISO 8601 (UTC). */
export const isoTime = (ms: number) => new Date(ms).toISOString();

/** The same, or null for a time that has not come (never signed in, never expires). */
export const isoOrNull = (ms: number | null) => (ms === null ? null : isoTime(ms));

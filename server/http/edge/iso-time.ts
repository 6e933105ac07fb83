/** Times in responses: milliseconds since the epoch as ISO 8601 (UTC). */
export const isoTime = (ms: number) => new Date(ms).toISOString();

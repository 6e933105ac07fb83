/**
 * Input limits of the public API (contract §3). They live in the contract so the renderer's
 * form validation and the server agree; the server can raise or lower the body and bulk limits
 * through its config.
 */
export const LIMITS = {
  idLength: 256,
  titleLength: 1_000,
  /**
   * What one item may cost: 100,000 characters are about 250 chunks of prose, 600 of text that
   * tokenizes badly (random words), which hold a pipeline worker for up to about a minute and a
   * half (docs/api.md). Longer documents go in as several items, one per chapter or page.
   */
  contentLength: 100_000,
  urlLength: 2_048,
  sourceDataBytes: 64 * 1024,
  hashLength: 128,
  /** Deepest nesting accepted in any JSON body; deeper bodies are refused before parsing. */
  jsonDepth: 32,
  /**
   * Most keys in any one JSON object of a body. The largest valid object is a sourceData of
   * sourceDataBytes, and each of its keys takes at least 5 bytes (`"":0,`); objects with more are
   * refused before parsing.
   */
  objectKeys: Math.floor((64 * 1024) / 5),
  defaultBodyBytes: 10 * 1024 * 1024,
  defaultBulkItems: 1_000,
} as const;

/**
 * A size limit as people read it. Limits are defined in binary units (50 × 1024 × 1024 bytes), so
 * they are shown in them: "50 MB", never the "52.4 MB" decimal units would make of the same limit.
 */
export function limitSize(bytes: number): string {
  if (bytes < 1_024) return `${bytes} bytes`;
  if (bytes < 1_048_576) return `${Math.round((bytes / 1_024) * 10) / 10} KB`;
  return `${Math.round((bytes / 1_048_576) * 10) / 10} MB`;
}

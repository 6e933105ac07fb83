import { z } from 'zod';

/**
 * String rules shared by every schema. Strings must be well-formed Unicode (no lone surrogates,
 * which SQLite and the tokenizers would mangle) and must not carry NUL bytes.
 */
const CONTROL_CHARS = /\p{Cc}/u;

export function safeText(max: number, tooLong?: string) {
  return z
    .string()
    .max(max, tooLong)
    .refine((s) => s.isWellFormed(), 'must be well-formed Unicode (no lone surrogates)')
    .refine((s) => !s.includes('\u0000'), 'must not contain NUL characters');
}

/** Identifiers: 1–256 characters, no control characters at all. */
export function identifier() {
  return z
    .string()
    .min(1)
    .max(256)
    .refine((s) => s.isWellFormed(), 'must be well-formed Unicode (no lone surrogates)')
    .refine((s) => !CONTROL_CHARS.test(s), 'must not contain control characters');
}

/**
 * The identifiers a push gives an item. They also name it in URL paths (`GET …/items/{id}`,
 * `DELETE /items/…`), where "." and ".." are dot segments that clients and proxies resolve away
 * even when percent-encoded, so such an item could never be read or deleted.
 */
export function pushedIdentifier() {
  return identifier().refine((s) => s !== '.' && s !== '..', 'must not be "." or "..": a URL path cannot name it');
}

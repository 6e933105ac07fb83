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

/**
 * The bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069): invisible,
 * they reorder what follows them on screen, so `rtl\u202Egpj.md` shows as `rtldm.jpg`. Right-to-left
 * letters themselves (Hebrew, Arabic) need none of them and are taken.
 */
export const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/u;
export const BIDI_CONTROLS_MESSAGE = 'must not contain bidirectional controls (U+202A to U+202E, U+2066 to U+2069), which make it display as something else';

/** A name as a message may quote it: JSON-quoted, with each bidirectional control written `\uXXXX`. */
export function quoteName(name: string): string {
  return JSON.stringify(name).replace(/[\u202A-\u202E\u2066-\u2069]/gu, (c) => `\\u${c.codePointAt(0)!.toString(16).toUpperCase()}`);
}

/** Identifiers: 1–256 characters, no control characters at all, no bidirectional controls. */
export function identifier() {
  return z
    .string()
    .min(1)
    .max(256)
    .refine((s) => s.isWellFormed(), 'must be well-formed Unicode (no lone surrogates)')
    .refine((s) => !CONTROL_CHARS.test(s), 'must not contain control characters')
    .refine((s) => !BIDI_CONTROLS.test(s), BIDI_CONTROLS_MESSAGE);
}

/**
 * The identifiers a push gives an item. They also name it in URL paths (`GET …/items/{id}`,
 * `DELETE /items/…`), where "." and ".." are dot segments that clients and proxies resolve away
 * even when percent-encoded, so such an item could never be read or deleted.
 */
export function pushedIdentifier() {
  return identifier().refine((s) => s !== '.' && s !== '..', 'must not be "." or "..": a URL path cannot name it');
}

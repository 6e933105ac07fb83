import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-localiq-signature';

/** A new signing secret: 32 random bytes, prefixed so that it is recognisable where it is pasted. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** `sha256=<hex HMAC-SHA256 of the raw body with the secret>`: the signature header's value. */
export function signatureOf(body: string | Buffer, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** What a receiver does (docs/webhooks.md shows it): compare in constant time over the raw body. */
export function verifySignature(body: string | Buffer, secret: string, header: string | undefined): boolean {
  if (!header) return false;
  const expected = Buffer.from(signatureOf(body, secret));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { VISITOR_SESSION_MS, VisitorSessions } from '../../../../server/domain/visitor-sessions.ts';

describe('visitor session tokens', () => {
  const secret = randomBytes(32);
  let now = Date.UTC(2026, 0, 1);
  const sessions = new VisitorSessions(secret, () => now);
  const widget = 'wgt_AAAAAAAAAAAAAAAAAAAA';
  const origin = 'https://shop.example';

  it('are valid for their widget and origin for two hours, then expired', () => {
    const issued = sessions.issue(widget, origin);
    assert.match(issued.sessionId, /^vs_[0-9A-Za-z]{20}$/);
    assert.equal(issued.expiresAt, now + VISITOR_SESSION_MS);
    assert.deepEqual(sessions.verify(issued.token, widget, origin), { state: 'valid', sessionId: issued.sessionId, expiresAt: issued.expiresAt });
    now += VISITOR_SESSION_MS - 1;
    assert.equal(sessions.verify(issued.token, widget, origin).state, 'valid');
    now += 1;
    assert.deepEqual(sessions.verify(issued.token, widget, origin), { state: 'expired', sessionId: issued.sessionId });
  });

  it('are invalid for another widget or another origin, even once expired', () => {
    const issued = sessions.issue(widget, origin);
    assert.deepEqual(sessions.verify(issued.token, 'wgt_BBBBBBBBBBBBBBBBBBBB', origin), { state: 'invalid' });
    assert.deepEqual(sessions.verify(issued.token, widget, 'https://evil.example'), { state: 'invalid' });
    assert.deepEqual(sessions.verify(issued.token, widget, 'http://shop.example'), { state: 'invalid' });
    now += VISITOR_SESSION_MS * 3;
    assert.deepEqual(sessions.verify(issued.token, 'wgt_BBBBBBBBBBBBBBBBBBBB', origin), { state: 'invalid' });
  });

  it('refuse forged, altered and malformed tokens', () => {
    const issued = sessions.issue(widget, origin);
    const [version, payload, signature] = issued.token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forgedPayload = Buffer.from(JSON.stringify({ ...claims, e: claims.e + VISITOR_SESSION_MS * 100 })).toString('base64url');
    const otherSecret = new VisitorSessions(randomBytes(32), () => now).issue(widget, origin).token;
    const flipped = signature.slice(0, -2) + (signature.endsWith('AA') ? 'BB' : 'AA');
    for (const token of [
      `${version}.${forgedPayload}.${signature}`,
      `${version}.${payload}.${flipped}`,
      `${version}.${payload}.`,
      `${version}.${payload}`,
      `v2.${payload}.${signature}`,
      otherSecret,
      '',
      'Bearer',
      '.'.repeat(10),
      'x'.repeat(5_000),
      `${issued.token}.extra`,
    ]) {
      assert.deepEqual(sessions.verify(token, widget, origin), { state: 'invalid' }, token.slice(0, 80));
    }
    assert.deepEqual(sessions.verify(undefined, widget, origin), { state: 'invalid' });
  });

  it('hash addresses with a key of their own: stable per secret, never the address', () => {
    const hash = sessions.hashAddress('203.0.113.7');
    assert.match(hash, /^[0-9a-f]{64}$/);
    assert.equal(sessions.hashAddress('203.0.113.7'), hash);
    assert.notEqual(sessions.hashAddress('203.0.113.8'), hash);
    assert.notEqual(new VisitorSessions(randomBytes(32)).hashAddress('203.0.113.7'), hash);
    // Keyed: a plain hash of an IPv4 address is undone by hashing all four billion of them.
    assert.notEqual(hash, createHash('sha256').update('203.0.113.7').digest('hex'));
  });
});

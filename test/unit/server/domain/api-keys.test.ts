import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDuration, parseExpiry, parseKeyValue, generateKeyValue, keyState } from '../../../../server/domain/api-keys.ts';

describe('API key values', () => {
  it('round-trip through parse, and differ every time', () => {
    const a = generateKeyValue();
    const b = generateKeyValue();
    assert.notEqual(a.value, b.value);
    assert.deepEqual(parseKeyValue(a.value), { id: a.id, secret: a.secret });
    for (const bad of ['', 'liq_', `liq_${a.id}`, `${a.value}x`, a.value.replace('liq_', 'lig_'), ` ${a.value}`]) {
      assert.equal(parseKeyValue(bad), null, bad);
    }
  });

  it('parse expiries as durations or dates', () => {
    const now = Date.UTC(2026, 0, 1);
    assert.equal(parseExpiry('30d', now), now + 30 * 86_400_000);
    assert.equal(parseExpiry('12h', now), now + 12 * 3_600_000);
    assert.equal(parseExpiry('never', now), null);
    assert.equal(parseExpiry('2027-01-31', now), Date.UTC(2027, 0, 31));
    assert.throws(() => parseExpiry('2020-01-01', now), /future/);
    assert.throws(() => parseExpiry('0d', now), /positive/);
    assert.throws(() => parseExpiry('soon', now));
    assert.throws(() => parseExpiry('Jan 5', now), /date like/, 'only ISO dates: Date.parse reads this as 2001');
    assert.equal(parseExpiry('99y', now), now + 99 * 365 * 86_400_000);
    assert.throws(() => parseExpiry('1000000y', now), /100 years/, 'a date no clock can show');
  });

  it('parse grace periods as durations only, zero included', () => {
    assert.equal(parseDuration('24h'), 24 * 3_600_000);
    assert.equal(parseDuration('0h'), 0);
    assert.throws(() => parseDuration('2027-01-31'), /not a duration/, 'a date is not a grace period');
    assert.throws(() => parseDuration('never'), /not a duration/);
  });

  it('know when they are expired or revoked', () => {
    assert.equal(keyState({ expiresAt: null, revokedAt: null }, 10), 'active');
    assert.equal(keyState({ expiresAt: 10, revokedAt: null }, 10), 'expired');
    assert.equal(keyState({ expiresAt: null, revokedAt: 20 }, 10), 'active');
    assert.equal(keyState({ expiresAt: null, revokedAt: 5 }, 10), 'revoked');
  });
});

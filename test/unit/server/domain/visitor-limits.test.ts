import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ADDRESS_FACTOR, addressKey, SESSIONS_PER_ADDRESS_PER_MINUTE, VisitorLimits, WIDGET_SESSIONS_FACTOR,
} from '../../../../server/domain/visitor-limits.ts';

const NOW = Date.UTC(2026, 0, 1, 10);

describe('addressKey: what a per-address bucket counts', () => {
  it('counts an IPv6 address by its /64, whatever its spelling', () => {
    assert.equal(addressKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
    assert.equal(addressKey('2001:0DB8:0001:0002:ffff:ffff:ffff:fffe'), '2001:db8:1:2::/64');
    assert.equal(addressKey('2001:db8:1:2::'), '2001:db8:1:2::/64');
    assert.equal(addressKey('2001:db8::1'), '2001:db8:0:0::/64');
    assert.equal(addressKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
    assert.notEqual(addressKey('2001:db8:1:3::1'), addressKey('2001:db8:1:2::1'), 'the next /64 is another subscriber');
  });

  it('keeps an IPv4 address whole, also written as IPv6', () => {
    assert.equal(addressKey('192.0.2.7'), '192.0.2.7');
    assert.equal(addressKey('::ffff:192.0.2.7'), '192.0.2.7');
    assert.equal(addressKey('::FFFF:c000:207'), '192.0.2.7');
    assert.equal(addressKey('0:0:0:0:0:ffff:192.0.2.8'), '192.0.2.8');
    assert.notEqual(addressKey('::ffff:c000:207'), addressKey('::ffff:c000:208'), 'mapped addresses are not lumped into one /64');
  });
});

describe('VisitorLimits behind a proxy', () => {
  const widget = { id: 'wgt_v6', limits: { visitorQuestionsPerMinute: 6, widgetQuestionsPerMinute: 60, dailyQuestions: 10_000 } };

  it('an IPv6 visitor taking a new address of its /64 for each session meets the per-address session limit', () => {
    const limits = new VisitorLimits(() => 0, () => NOW);
    for (let i = 0; i < SESSIONS_PER_ADDRESS_PER_MINUTE; i++) assert.equal(limits.takeSession(widget, `2001:db8:5:6::${(i + 1).toString(16)}`), null, `session ${i}`);
    assert.equal(limits.takeSession(widget, '2001:db8:5:6:ffff::99')?.limit, 'sessions');
    assert.equal(limits.takeSession(widget, '2001:db8:5:7::1'), null, 'another /64 is another visitor');
  });

  it('an IPv6 visitor rotating addresses of its /64 meets the per-address question limit', () => {
    const limits = new VisitorLimits(() => 0, () => NOW);
    const perAddress = widget.limits.visitorQuestionsPerMinute * ADDRESS_FACTOR;
    for (let i = 0; i < perAddress; i++) assert.equal(limits.takeQuestion(widget, `s${i}`, `2001:db8:5:6::${(i + 1).toString(16)}`), null, `question ${i}`);
    const refused = limits.takeQuestion(widget, 'another', '2001:db8:5:6:1234::1');
    assert.equal(refused?.limit, 'address');
    assert.equal(refused?.code, 'rate_limited');
  });

  it("caps the sessions a widget starts, all addresses together, at a multiple of its questions per minute", () => {
    let now = NOW;
    const limits = new VisitorLimits(() => 0, () => now);
    const cap = widget.limits.widgetQuestionsPerMinute * WIDGET_SESSIONS_FACTOR;
    for (let i = 0; i < cap; i++) assert.equal(limits.takeSession(widget, `198.51.100.${i}`), null, `session ${i}`);
    const refused = limits.takeSession(widget, '203.0.113.1');
    assert.deepEqual(refused, { code: 'rate_limited', limit: 'widget sessions', retryAfterSeconds: 1 });
    const other = { ...widget, id: 'wgt_other' };
    assert.equal(limits.takeSession(other, '203.0.113.1'), null, "another widget's visitors are not held");
    now += 60_000 / cap;
    assert.equal(limits.takeSession(widget, '203.0.113.1'), null, 'one more after 1/cap of a minute');
  });
});

describe('VisitorLimits: handoffs', () => {
  const widget = { id: 'wgt_handoffs', limits: { visitorQuestionsPerMinute: 2, widgetQuestionsPerMinute: 60, dailyQuestions: 1 } };

  it('limits handoffs at the rates of questions, in buckets of their own, outside the daily cap', () => {
    let now = NOW;
    const limits = new VisitorLimits(() => 0, () => now);
    // The day's one question and the visitor's minute of questions are used up...
    assert.equal(limits.takeQuestion(widget, 'vs_a', '192.0.2.1'), null);
    assert.equal(limits.takeQuestion(widget, 'vs_a', '192.0.2.1')?.code, 'daily_limit_reached');
    // ...and the visitor can still ask the team, twice a minute.
    assert.equal(limits.takeHandoff(widget, 'vs_a', '192.0.2.1'), null);
    assert.equal(limits.takeHandoff(widget, 'vs_a', '192.0.2.1'), null);
    assert.deepEqual(limits.takeHandoff(widget, 'vs_a', '192.0.2.1'), { code: 'rate_limited', limit: 'visitor', retryAfterSeconds: 30 });
    now += 30_000;
    assert.equal(limits.takeHandoff(widget, 'vs_a', '192.0.2.1'), null, 'a token back after half a minute');
  });

  it('counts an address across its sessions, as for questions', () => {
    const limits = new VisitorLimits(() => 0, () => NOW);
    const perAddress = widget.limits.visitorQuestionsPerMinute * ADDRESS_FACTOR;
    for (let i = 0; i < perAddress; i++) assert.equal(limits.takeHandoff(widget, `vs_${i}`, '192.0.2.9'), null);
    assert.equal(limits.takeHandoff(widget, 'vs_new', '192.0.2.9')?.limit, 'address');
  });

  it('lets a session read its handoffs 30 times a minute', () => {
    const limits = new VisitorLimits(() => 0, () => NOW);
    for (let i = 0; i < 30; i++) assert.equal(limits.takeHandoffRead('vs_r'), null);
    assert.equal(limits.takeHandoffRead('vs_r')?.limit, 'handoff reads');
    assert.equal(limits.takeHandoffRead('vs_other'), null, 'per session');
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDuration, parseExpiry, parseKeyValue, generateKeyValue, keyState } from '../../../../server/domain/api-keys.ts';
import { AGING_MS, backoffMs, contentHash, formatEstimate, sortKey } from '../../../../server/domain/jobs.ts';
import { JOB_OVERHEAD_CHARACTERS, jobCost, LaneClock, laneOf } from '../../../../server/domain/fair-queue.ts';
import { ThroughputMeter } from '../../../../server/domain/throughput.ts';
import { RateLimiter } from '../../../../server/http/rate-limiter.ts';
import { JsonShapeScan, jsonShapeProblem } from '../../../../server/http/json-body.ts';
import { LIMITS } from '../../../../common/contract/limits.ts';
import { defaultDataDir } from '../../../../server/config.ts';
import { keywordCandidatesFirst, minMaxFusion } from '../../../../server/retrieval/fusion.ts';
import { contextTurns, leansOnConversation, retrievalQuery } from '../../../../server/retrieval/answer/question-terms.ts';
import { splitSentences } from '../../../../server/retrieval/answer/sentences.ts';
import { type ScoredSentence, selectSentences } from '../../../../server/retrieval/answer/extractive.ts';
import { quotable } from '../../../../server/retrieval/answer/quotable.ts';
import { SignInThrottle } from '../../../../server/http/admin/sign-in-throttle.ts';

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

describe('job rules', () => {
  it('claim order: high before normal before low, FIFO within a level, no starvation', () => {
    const t0 = 1_000_000;
    assert.ok(sortKey(t0 + 1000, 0) < sortKey(t0, 1));
    assert.ok(sortKey(t0, 1) < sortKey(t0 + 1, 1));
    assert.ok(sortKey(t0, 2) < sortKey(t0 + 2 * AGING_MS + 1, 0), 'an old low job overtakes fresh high jobs');
  });

  it('fair order: the jobs of a lane arrive one after another at the measured cost, a push in an idle lane arrives now', () => {
    const lanes = new LaneClock();
    const t0 = 1_000_000;
    const bulk = Array.from({ length: 4 }, () => lanes.arrive(laneOf('import', 500), t0, 250));
    assert.deepEqual(bulk, [t0, t0 + 250, t0 + 500, t0 + 750]);
    assert.equal(lanes.arrive(laneOf('import', 1), t0 + 100, 250), t0 + 100, "the same integration's single push has a lane of its own");
    assert.equal(lanes.arrive(laneOf('crm', 500), t0 + 100, 250), t0 + 100);
    assert.equal(lanes.arrive(laneOf('import', 500), t0 + 5_000, 250), t0 + 5_000, 'a lane that caught up starts from now');
    assert.equal(jobCost({ title: 'ab', content: 'cde' }), 5 + JOB_OVERHEAD_CHARACTERS);
  });

  it("the pipeline's capacity counts the time it worked, not the time it waited for pushes", () => {
    let now = 0;
    const meter = new ThroughputMeter(2, 60_000, () => now, 4_000);
    assert.equal(meter.costPerSecond(), 4_000, 'the prior until a second of work is measured');
    for (let i = 0; i < 4; i++) {
      now += 60_000; // a push a minute
      meter.record(1);
      meter.recordWork(10_000, 500);
    }
    assert.equal(meter.costPerSecond(), 20_000);
  });

  it('backoff doubles and is capped', () => {
    assert.deepEqual([1, 2, 3, 4].map(backoffMs), [2000, 4000, 8000, 16000]);
    assert.equal(backoffMs(50), 600_000);
  });

  it('content hash prefers the caller hash, else covers data and source type', () => {
    const data = { title: 't', content: 'c' };
    assert.equal(contentHash({ sourceType: 'PAGE', data: { ...data, hash: 'mine' } }), 'mine');
    assert.notEqual(contentHash({ sourceType: 'PAGE', data }), contentHash({ sourceType: 'ARTICLE', data }));
    assert.notEqual(contentHash({ sourceType: 'PAGE', data }), contentHash({ sourceType: 'PAGE', data: { ...data, content: 'd' } }));
  });

  it('estimates are whole seconds, at least 1', () => {
    assert.equal(formatEstimate(0, 2), '1s');
    assert.equal(formatEstimate(10, 2), '5s');
    assert.equal(formatEstimate(11, 2), '6s');
  });
});

describe('rate limiter', () => {
  it('allows the burst, then one request per refill interval, per key', () => {
    let now = 0;
    const limiter = new RateLimiter(2, 3, () => now);
    assert.deepEqual([1, 2, 3].map(() => limiter.take('a')), [0, 0, 0]);
    assert.equal(limiter.take('a'), 1);
    assert.equal(limiter.take('b'), 0);
    now += 500;
    assert.equal(limiter.take('a'), 0);
  });

  it('a charge spends tokens beyond the burst, down to one burst of debt, and the key waits it off', () => {
    let now = 0;
    const limiter = new RateLimiter(2, 3, () => now);
    limiter.charge('a', 100);
    // 3 - 100 is floored at -3: 4 tokens short of one request, 2 seconds at 2 a second.
    assert.equal(limiter.take('a'), 2);
    assert.equal(limiter.take('b'), 0);
    now += 2_000;
    assert.equal(limiter.take('a'), 0);
  });
});

describe('JSON shape before parsing', () => {
  const deep = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
  const withKeys = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":1`).join(',')}}`;
  it('counts brackets outside strings only', () => {
    assert.equal(jsonShapeProblem(deep(LIMITS.jsonDepth)), null);
    assert.match(jsonShapeProblem(deep(LIMITS.jsonDepth + 1))!, /nested deeper/);
    assert.equal(jsonShapeProblem(`{"a":"${'['.repeat(40)}"}`), null);
    assert.equal(jsonShapeProblem(`{"a":"\\"${'['.repeat(40)}"}`), null);
    assert.equal(jsonShapeProblem('1'), null);
  });
  it('counts keys per object, outside strings, and refuses past the most a valid body holds', () => {
    assert.equal(jsonShapeProblem(withKeys(LIMITS.objectKeys)), null);
    assert.match(jsonShapeProblem(withKeys(LIMITS.objectKeys + 1))!, /more than \d+ keys/);
    // Keys of sibling and nested objects are counted apart, and colons inside strings are text.
    const half = Math.ceil(LIMITS.objectKeys / 2) + 1;
    assert.equal(jsonShapeProblem(`[${withKeys(half)},${withKeys(half)}]`), null);
    assert.equal(jsonShapeProblem(`{"a":${withKeys(half)},${withKeys(half).slice(1)}`), null);
    assert.equal(jsonShapeProblem(`{"a":"${':'.repeat(LIMITS.objectKeys + 1)}"}`), null);
  });
  it('reads the body in any pieces: a string, an escape or a run of backslashes split between them', () => {
    const colons = ':'.repeat(LIMITS.objectKeys + 1);
    const texts = [`{"a\\\\":"\\"${colons}\\\\"}`, `{"a":"x\\\\\\"${colons}"}`, withKeys(LIMITS.objectKeys + 1)];
    for (const text of texts) {
      const whole = jsonShapeProblem(text);
      for (const size of [1, 2, 3, 7]) {
        const scan = new JsonShapeScan();
        const bytes = Buffer.from(text);
        let problem: string | null = null;
        for (let at = 0; at < bytes.length && !problem; at += size) problem = scan.feed(bytes.subarray(at, at + size));
        assert.equal(problem, whole, `${text.slice(0, 20)} in pieces of ${size}`);
      }
    }
    assert.equal(jsonShapeProblem(texts[0]!), null);
    assert.equal(jsonShapeProblem(texts[1]!), null);
  });
});

describe('default data folder', () => {
  it('follows each OS convention', () => {
    assert.match(defaultDataDir({ APPDATA: 'C:\\Users\\a\\AppData\\Roaming' }, 'win32'), /LocalIQ$/);
    assert.match(defaultDataDir({}, 'darwin'), /Library\/Application Support\/LocalIQ$/);
    assert.equal(defaultDataDir({ XDG_DATA_HOME: '/x' }, 'linux'), '/x/localiq');
  });
});

describe('hybrid fusion', () => {
  const keyword = [
    { id: 1, score: 9 },
    { id: 2, score: 4 },
    { id: 3, score: 1 },
  ];
  const semantic = [
    { id: 4, score: 0.9 },
    { id: 3, score: 0.8 },
    { id: 1, score: 0.5 },
  ];
  const fused = minMaxFusion([keyword, semantic], [0.6, 0.4]);

  it('min-max fusion lets a strong semantic-only item displace keyword matches', () => {
    assert.deepEqual(fused.map((r) => r.id), [1, 4, 3, 2]);
  });

  it('keyword-first keeps every keyword candidate ahead, in fused order, then the semantic-only ones', () => {
    assert.deepEqual(keywordCandidatesFirst(fused, keyword).map((r) => r.id), [1, 3, 2, 4]);
    const semanticOnly = minMaxFusion([[], semantic], [0.6, 0.4]);
    assert.deepEqual(keywordCandidatesFirst(semanticOnly, []).map((r) => r.id), [4, 3, 1]);
  });
});

describe('questions within a conversation', () => {
  it('tells a question that needs the conversation from one that stands on its own', () => {
    const cases: Array<[string, boolean]> = [
      ['On which day of the week are they baked?', true],
      ['What does it cost?', true],
      ['And on Sundays?', true],
      ['What about delivery to Brussels?', true],
      ['Price?', true],
      ['Who won Super Bowl 50?', false],
      ['How far ahead should I order a wedding cake?', false],
      ['Do you bake gluten-free bread?', false],
    ];
    for (const [question, leans] of cases) assert.equal(leansOnConversation(question), leans, question);
  });

  it('reads a question with the earlier user turns only when it leans on them', () => {
    const conversation = [
      { role: 'user' as const, content: 'Do you sell rye bread?' },
      { role: 'assistant' as const, content: 'Yes, every day [1]' },
      { role: 'user' as const, content: 'Do you bake gluten-free bread?' },
      { role: 'assistant' as const, content: 'Yes, on Tuesdays [1]' },
    ];
    const context = contextTurns('Where are they baked?', conversation);
    assert.deepEqual(context, ['Do you sell rye bread?', 'Do you bake gluten-free bread?']);
    assert.equal(retrievalQuery('Where are they baked?', context), 'Do you sell rye bread?\nDo you bake gluten-free bread?\nWhere are they baked?');
    assert.deepEqual(contextTurns('Who won Super Bowl 50?', conversation), []);
  });
});

describe('sentences an answer quotes', () => {
  it('keeps a web address whole and still ends sentences at "?", "!" and full-width marks', () => {
    assert.deepEqual(splitSentences('A direct link: https://drive.example.com/uc?export=download&id=F1 works. Is it free? Yes!'), [
      'A direct link: https://drive.example.com/uc?export=download&id=F1 works.',
      'Is it free?',
      'Yes!',
    ]);
    assert.deepEqual(splitSentences('今日は晴れ。明日は雨？はい！'), ['今日は晴れ。', '明日は雨？', 'はい！']);
  });
});

describe('sentences an answer is made of', () => {
  const scored = (text: string, score: number, stems: string[], item = 1): ScoredSentence => ({
    text, passage: 0, position: 1, coverage: score, score, stems, item, quotable: quotable(text, 1), namesSubject: true, statesPrice: false, holdsRarest: true,
  });

  it('leaves out a sentence that asks, even when it matches the question best', () => {
    const chosen = selectSentences([
      scored('How do I delete my account?', 1, ['delet', 'account']),
      scored('Open Settings, then choose Delete account.', 0.9, ['open', 'setting', 'choos', 'delet', 'account']),
      scored('The account is gone after two weeks.', 0.8, ['gone', 'two', 'week']),
    ]);
    assert.deepEqual(chosen.map((s) => s.text), ['Open Settings, then choose Delete account.', 'The account is gone after two weeks.']);
  });

  it('quotes nothing when every sentence asks: a question is never shown as an answer', () => {
    const chosen = selectSentences([scored('Have you tried Settings?', 1, ['tri', 'setting']), scored('Is it in the menu?', 0.9, ['menu'])]);
    assert.deepEqual(chosen, []);
  });
});

describe('sign-in throttle', () => {
  it('forgets expired tries once it tracks many usernames, so guessing names cannot grow it without end', () => {
    let now = 0;
    const throttle = new SignInThrottle(60_000, () => now);
    for (let i = 0; i <= 10_000; i++) throttle.fail([`name:user${i}`]);
    const tracked = () => (throttle as unknown as { failures: Map<string, number[]> }).failures.size;
    assert.equal(tracked(), 10_001);
    now = 120_000;
    throttle.fail(['name:one-more']);
    assert.equal(tracked(), 1);
  });

  it('lets five tries through, then asks for a wait that doubles with each failure, up to a minute', () => {
    let now = 1_000_000;
    const throttle = new SignInThrottle(15 * 60_000, () => now);
    const keys = SignInThrottle.keys('Owner', '127.0.0.2');
    const waits: number[] = [];
    for (let i = 0; i < 14; i++) {
      const wait = throttle.retryAfter(keys);
      waits.push(wait);
      now += wait * 1000;
      throttle.fail(keys);
    }
    assert.deepEqual(waits, [0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 60, 60, 60]);
    // Another address guessing the same name waits as long; other names from that address go on
    // until the address has failed twenty times.
    assert.equal(throttle.retryAfter(SignInThrottle.keys('owner', '127.0.0.9')), 60);
    assert.equal(throttle.retryAfter(SignInThrottle.keys('someone', '127.0.0.2')), 0);
    for (let i = 0; i < 6; i++) throttle.fail(SignInThrottle.keys(`name${i}`, '127.0.0.2'));
    assert.equal(throttle.retryAfter(SignInThrottle.keys('someone', '127.0.0.2')), 1);
    assert.equal(throttle.retryAfter(SignInThrottle.keys('someone', '127.0.0.9')), 0);
    throttle.succeed(keys);
    assert.equal(throttle.retryAfter(keys), 0);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractMainContent, UnreadablePage } from '../../../../server/sources/main-content.ts';

const prose = (sentence: string, times = 6) => sentence.repeat(times).trim();

describe('extractMainContent on hostile nesting', () => {
  it('reads a page nested thousands deep quickly, without Readability', () => {
    const started = process.hrtime.bigint();
    const page = extractMainContent(`<html><body>${'<div>'.repeat(5000)}<p>${prose('Deep text about our bakery and its bread. ')}</p>`, 'https://shop.test/');
    assert.match(page.text, /bakery/);
    // Readability took some 14 s on 1,000 levels; the bound keeps this well under that.
    assert.ok(Number(process.hrtime.bigint() - started) / 1e9 < 10);
  });
  it('says a page nested beyond the parser’s stack is unreadable rather than crashing the sync', () => {
    assert.throws(() => extractMainContent(`<html><body>${'<div>'.repeat(60_000)}<p>x</p>`, 'https://shop.test/'), UnreadablePage);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { globMatcher, normalizeUrl, outOfScopeReason, patternProblem } from '../../../../server/sources/url-rules.ts';

describe('url rules', () => {
  it('normalizes addresses and refuses other schemes and credentials', () => {
    assert.equal(normalizeUrl('HTTPS://Shop.Test:443/a#top'), 'https://shop.test/a');
    assert.equal(normalizeUrl('../b?x=1', 'http://shop.test/a/c'), 'http://shop.test/b?x=1');
    assert.equal(normalizeUrl('mailto:a@b.c'), null);
    assert.equal(normalizeUrl('javascript:alert(1)'), null);
    assert.equal(normalizeUrl('ftp://shop.test/a'), null);
    assert.equal(normalizeUrl('http://user:pw@shop.test/'), null);
  });
  it('keeps to the start host unless an include names another', () => {
    const scope = { host: 'shop.test', include: [], exclude: [] };
    assert.equal(outOfScopeReason('https://shop.test/a', scope), null);
    assert.equal(outOfScopeReason('https://evil.test/a', scope), 'another host');
    assert.equal(outOfScopeReason('https://docs.shop.test/a', scope), 'another host');
    const withDocs = { host: 'shop.test', include: ['/**', 'https://docs.shop.test/**'], exclude: [] };
    assert.equal(outOfScopeReason('https://docs.shop.test/a', withDocs), null);
    assert.equal(outOfScopeReason('https://evil.test/a', withDocs), 'another host');
  });
  it('applies include and exclude globs to the path', () => {
    const scope = { host: 'shop.test', include: ['/help/**', '/about'], exclude: ['/help/internal/**', '/**/*.zip'] };
    assert.equal(outOfScopeReason('https://shop.test/help/returns', scope), null);
    assert.equal(outOfScopeReason('https://shop.test/about', scope), null);
    assert.equal(outOfScopeReason('https://shop.test/about/team', scope), 'not matched by an include pattern');
    assert.equal(outOfScopeReason('https://shop.test/help/internal/x', scope), 'matched by an exclude pattern');
    assert.equal(outOfScopeReason('https://shop.test/help/files/a.zip', scope), 'matched by an exclude pattern');
  });
  it('reads * as one path segment, ** as anything and ? as one character', () => {
    assert.equal(globMatcher('/a/*').test('/a/b'), true);
    assert.equal(globMatcher('/a/*').test('/a/b/c'), false);
    assert.equal(globMatcher('/a/**').test('/a/b/c'), true);
    assert.equal(globMatcher('/p?ge').test('/page'), true);
    assert.equal(globMatcher('/a.b').test('/aXb'), false);
  });
  it('explains a pattern it cannot use', () => {
    assert.equal(patternProblem('/blog/**'), null);
    assert.equal(patternProblem('https://docs.shop.test/**'), null);
    assert.match(patternProblem('blog/**') ?? '', /must start with/);
    assert.match(patternProblem('') ?? '', /1 to 500/);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_CRAWL_DELAY_SECONDS, parseRobots } from '../../../../server/sources/robots.ts';

describe('parseRobots', () => {
  it("reads LocalIQ's own group rather than *", () => {
    const robots = parseRobots('User-agent: *\nDisallow: /\n\nUser-agent: LocalIQ\nDisallow: /private\nCrawl-delay: 2\n');
    assert.equal(robots.allows('/shop'), true);
    assert.equal(robots.allows('/private/a'), false);
    assert.equal(robots.crawlDelay, 2);
  });
  it('falls back to the * group, and another bot’s group does not apply', () => {
    const robots = parseRobots('User-agent: Googlebot\nDisallow: /\n\nUser-agent: *\nDisallow: /cart\nCrawl-delay: 1.5');
    assert.equal(robots.allows('/'), true);
    assert.equal(robots.allows('/cart?id=1'), false);
    assert.equal(robots.crawlDelay, 1.5);
  });
  it('does not take a bot named like a prefix of LocalIQ for LocalIQ', () => {
    const robots = parseRobots('User-agent: Local\nDisallow: /\n');
    assert.equal(robots.allows('/a'), true);
  });
  it('lets the longest match win, Allow on a tie', () => {
    const robots = parseRobots('User-agent: *\nDisallow: /shop\nAllow: /shop/public\nDisallow: /shop/public/secret\nAllow: /tie\nDisallow: /tie\n');
    assert.equal(robots.allows('/shop/x'), false);
    assert.equal(robots.allows('/shop/public/page'), true);
    assert.equal(robots.allows('/shop/public/secret1'), false);
    assert.equal(robots.allows('/tie'), true);
  });
  it('reads * and $ in paths', () => {
    const robots = parseRobots('User-agent: *\nDisallow: /*.pdf$\nDisallow: /*?session=\n');
    assert.equal(robots.allows('/files/a.pdf'), false);
    assert.equal(robots.allows('/files/a.pdf?x=1'), true);
    assert.equal(robots.allows('/cart?session=2'), false);
    assert.equal(robots.allows('/cart'), true);
  });
  it('groups consecutive user-agent lines and merges groups for the same agent', () => {
    const robots = parseRobots('User-agent: a\nUser-agent: localiq\nDisallow: /x\n\nUser-agent: LocalIQ\nDisallow: /y\n');
    assert.equal(robots.allows('/x'), false);
    assert.equal(robots.allows('/y'), false);
    assert.equal(robots.allows('/z'), true);
  });
  it('ignores comments, an empty Disallow, unknown lines, rules before any group, and CRLF', () => {
    const robots = parseRobots('Disallow: /early\r\n# comment\r\nUser-agent: * # all\r\nDisallow:\r\nNoise line\r\nFoo: bar\r\nDisallow: /a # why\r\n');
    assert.equal(robots.allows('/early'), true);
    assert.equal(robots.allows('/a/b'), false);
    assert.equal(robots.allows('/b'), true);
  });
  it('matches percent-escapes of unreserved characters either way', () => {
    const robots = parseRobots('User-agent: *\nDisallow: /%7Ejoe\n');
    assert.equal(robots.allows('/~joe/page'), false);
  });
  it('always allows /robots.txt itself, and an empty file allows everything', () => {
    assert.equal(parseRobots('User-agent: *\nDisallow: /').allows('/robots.txt'), true);
    assert.equal(parseRobots('').allows('/anything'), true);
  });
  it('collects Sitemap lines wherever they are, and bounds Crawl-delay', () => {
    const robots = parseRobots('Sitemap: https://s.test/a.xml\nUser-agent: *\nCrawl-delay: 86400\nSitemap: https://s.test/b.xml.gz\nCrawl-delay: nonsense');
    assert.deepEqual(robots.sitemaps, ['https://s.test/a.xml', 'https://s.test/b.xml.gz']);
    assert.equal(robots.crawlDelay, MAX_CRAWL_DELAY_SECONDS);
  });
  it('reads a huge file only up to its bound without failing', () => {
    const huge = `User-agent: *\nDisallow: /a\n${'Disallow: /filler\n'.repeat(100_000)}`;
    const robots = parseRobots(huge);
    assert.equal(robots.allows('/a'), false);
    assert.equal(robots.allows('/b'), true);
  });
});

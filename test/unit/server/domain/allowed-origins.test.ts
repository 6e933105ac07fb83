import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalOrigin, originAllowed } from '../../../../server/domain/allowed-origins.ts';

describe('originAllowed: the Origin header against a widget allowed origins', () => {
  const allowed = ['https://shop.example', 'http://localhost:8080', 'https://*.example.com', 'https://secure.example:8443'];

  const table: Array<[origin: string | null | undefined, expected: boolean, why: string]> = [
    ['https://shop.example', true, 'exact'],
    ['https://SHOP.example', true, 'host case does not matter'],
    ['HTTPS://shop.example', true, 'scheme case does not matter'],
    ['https://shop.example:443', true, 'the default port is the same as none'],
    ['http://shop.example', false, 'other scheme'],
    ['https://shop.example:8443', false, 'other port'],
    ['https://shop.example.', false, 'trailing dot is another host'],
    ['https://shop.example/', false, 'not a bare origin (path)'],
    ['https://shop.example/page', false, 'path'],
    ['https://user@shop.example', false, 'credentials'],
    ['https://shop.example.evil.net', false, 'allowed host as a prefix'],
    ['https://evilshop.example', false, 'allowed host as a suffix without a dot'],
    ['https://www.shop.example', false, 'a subdomain of an exact origin'],
    ['http://localhost:8080', true, 'exact with port'],
    ['http://localhost', false, 'port missing'],
    ['http://localhost:80', false, 'default port is not 8080'],
    ['https://localhost:8080', false, 'other scheme, same port'],
    ['http://127.0.0.1:8080', false, 'same machine, other host name'],
    ['https://a.example.com', true, 'one-level subdomain of a wildcard'],
    ['https://a.b.example.com', true, 'deeper subdomain of a wildcard'],
    ['https://A.Example.COM', true, 'case in a wildcard match'],
    ['https://a.example.com:443', true, 'default port in a wildcard match'],
    ['https://example.com', false, 'a wildcard does not match its own domain'],
    ['http://a.example.com', false, 'wildcard, other scheme'],
    ['https://a.example.com:8443', false, 'wildcard, other port'],
    ['https://aexample.com', false, 'wildcard suffix without the dot'],
    ['https://a.example.com.evil.net', false, 'wildcard domain as a prefix'],
    ['https://.example.com', false, 'empty label'],
    ['https://a..example.com', false, 'empty label inside'],
    ['https://secure.example:8443', true, 'non-default port, exact'],
    ['https://secure.example', false, 'non-default port missing'],
    ['null', false, 'the null origin (sandboxed frames, file: pages)'],
    ['', false, 'empty header'],
    [null, false, 'no header'],
    [undefined, false, 'no header'],
    ['file://', false, 'file scheme'],
    ['chrome-extension://abcdef', false, 'extension origin'],
    ['javascript:alert(1)', false, 'script URL'],
    ['https://shop.example, https://evil.example', false, 'two origins in one header'],
    ['https://shop.example\n', false, 'trailing newline'],
    [' https://shop.example', false, 'leading space'],
    ['https://shop.example:0', false, 'port 0'],
    ['https://shop.example:99999', false, 'port out of range'],
  ];

  for (const [origin, expected, why] of table) {
    it(`${JSON.stringify(origin)} → ${expected ? 'allowed' : 'refused'} (${why})`, () => {
      assert.equal(originAllowed(origin, allowed), expected);
    });
  }

  it('an allowed origin written with its default port matches one without it', () => {
    assert.equal(originAllowed('https://shop.example', ['https://shop.example:443']), true);
    assert.equal(originAllowed('http://shop.example:80', ['http://shop.example']), true);
  });

  it('nothing matches an empty list', () => {
    assert.equal(originAllowed('https://shop.example', []), false);
  });
});

describe('canonicalOrigin', () => {
  it('spells an origin one way and refuses what is not one', () => {
    assert.equal(canonicalOrigin('HTTPS://Shop.Example:443'), 'https://shop.example');
    assert.equal(canonicalOrigin('http://127.0.0.1:7410'), 'http://127.0.0.1:7410');
    assert.equal(canonicalOrigin('http://[::1]:7410'), 'http://[::1]:7410');
    assert.equal(canonicalOrigin('null'), null);
    assert.equal(canonicalOrigin(undefined), null);
    assert.equal(canonicalOrigin('https://shop.example/path'), null);
  });
});

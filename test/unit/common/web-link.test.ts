import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { webLink } from '../../../common/web-link.ts';

describe('an address as a link target', () => {
  it('keeps http and https addresses, normalised', () => {
    assert.equal(webLink('https://Shop.example/p/scarf'), 'https://shop.example/p/scarf');
    assert.equal(webLink('http://127.0.0.1:8080/a b'), 'http://127.0.0.1:8080/a%20b');
  });

  it('refuses every other scheme, a relative path and nothing', () => {
    for (const url of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'data:text/html,<b>x</b>', 'file:///etc/passwd', '/relative', 'not a url', '', null]) {
      assert.equal(webLink(url), null, String(url));
    }
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pageKey } from '../../../../server/domain/page-url.ts';

describe('pageKey: a page address as it is compared with an item\'s data.url', () => {
  it('ignores the case of scheme and host, a trailing slash, the query, the fragment and a default port', () => {
    const key = 'https://shop.example/products/alpine-scarf';
    for (const url of [
      'https://shop.example/products/alpine-scarf',
      'HTTPS://Shop.Example/products/alpine-scarf/',
      'https://shop.example/products/alpine-scarf?utm_source=mail#reviews',
      'https://shop.example:443/products/alpine-scarf//',
    ]) {
      assert.equal(pageKey(url), key, url);
    }
  });

  it('keeps what tells pages apart: the path\'s case, another port, another scheme', () => {
    assert.notEqual(pageKey('https://shop.example/products/Alpine-Scarf'), pageKey('https://shop.example/products/alpine-scarf'));
    assert.notEqual(pageKey('https://shop.example:8443/p'), pageKey('https://shop.example/p'));
    assert.notEqual(pageKey('http://shop.example/p'), pageKey('https://shop.example/p'));
    assert.equal(pageKey('https://shop.example/'), 'https://shop.example');
  });

  it('is null for what is not an http(s) address', () => {
    for (const url of ['javascript:alert(1)', 'file:///etc/passwd', 'not a url', '']) assert.equal(pageKey(url), null, url);
  });
});

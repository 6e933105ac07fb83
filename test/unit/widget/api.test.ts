import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apiBaseOf } from '../../../widget/src/api.ts';

describe('apiBaseOf: where the widget asks, from its script address', () => {
  const page = 'https://shop.example/products/rye?ref=1';

  it('keeps the path before /widget.js, so a proxy prefix is kept', () => {
    assert.equal(apiBaseOf('https://shop.example/assistant/widget.js', page), 'https://shop.example/assistant');
    assert.equal(apiBaseOf('https://shop.example/tools/assistant/widget.js', page), 'https://shop.example/tools/assistant');
  });

  it('is the bare origin when LocalIQ is served at the root', () => {
    assert.equal(apiBaseOf('http://127.0.0.1:7411/widget.js', page), 'http://127.0.0.1:7411');
    assert.equal(apiBaseOf('https://assistant.shop.example/widget.js', page), 'https://assistant.shop.example');
  });

  it('drops the query and fragment (the hosted page links widget.js?v=<version>)', () => {
    assert.equal(apiBaseOf('https://shop.example/assistant/widget.js?v=0123abcd#x', page), 'https://shop.example/assistant');
  });

  it('resolves a relative src against the page, as the hosted page under a prefix links it', () => {
    assert.equal(apiBaseOf('../widget.js?v=1', 'https://shop.example/assistant/w/wgt_X'), 'https://shop.example/assistant');
    assert.equal(apiBaseOf('../../widget.js', 'https://shop.example/assistant/w/wgt_X/'), 'https://shop.example/assistant');
  });
});

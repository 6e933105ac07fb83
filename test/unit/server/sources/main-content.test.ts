import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractMainContent } from '../../../../server/sources/main-content.ts';

const prose = (sentence: string, times = 6) => sentence.repeat(times).trim();

function shopPage(main: string, head = '') {
  return `<!doctype html><html><head><title>Returns | Corner Shop</title>${head}</head><body>
    <a class="skip-link" href="#main">Skip to content</a>
    <div id="cookie-consent">We use cookies to improve your experience. <button>Accept all</button></div>
    <header class="site-header"><a href="/">Corner Shop</a><nav><ul><li><a href="/shop">Shop</a></li><li><a href="/about">About us</a></li></ul></nav></header>
    <main id="main">${main}</main>
    <aside><h3>Popular</h3><a href="/gift-cards">Gift cards</a></aside>
    <footer class="site-footer"><p>© 2024 Corner Shop, 12 High Street</p><a href="/privacy">Privacy</a></footer>
  </body></html>`;
}

describe('extractMainContent', () => {
  it('keeps the main text and its headings, not the navigation, banner, sidebar or footer', () => {
    const page = extractMainContent(
      shopPage(`<article><h1>Returns</h1><p>${prose('You can return any item within 30 days of delivery. ')}</p><h2>Damaged goods</h2><p>${prose('Send us a photo of the damage and we send a new one. ')}</p></article>`),
      'https://shop.test/returns',
    );
    assert.match(page.text, /within 30 days of delivery/);
    assert.match(page.text, /Damaged goods/);
    assert.match(page.html, /<h2>Damaged goods<\/h2>/);
    for (const boilerplate of ['cookies', 'Accept all', 'About us', 'Popular', '12 High Street', 'Skip to content']) {
      assert.doesNotMatch(page.text, new RegExp(boilerplate), boilerplate);
      assert.doesNotMatch(page.html, new RegExp(boilerplate), boilerplate);
    }
    assert.match(page.html, /<title>Returns \| Corner Shop<\/title>/);
  });
  it('collects links before removing the boilerplate, absolute and each once', () => {
    const page = extractMainContent(shopPage('<p>See <a href="/faq#top">the FAQ</a> and <a href="faq">again</a>, <a href="mailto:a@b.c">mail</a>.</p>'), 'https://shop.test/help/');
    assert.deepEqual(page.links.slice(0, 3), ['https://shop.test/help/#main', 'https://shop.test/', 'https://shop.test/shop'].map((u) => u.replace('#main', '')));
    assert.ok(page.links.includes('https://shop.test/faq'));
    assert.ok(page.links.includes('https://shop.test/help/faq'));
    assert.ok(page.links.includes('https://shop.test/privacy'));
    assert.ok(!page.links.some((link) => link.startsWith('mailto:')));
  });
  it('reads canonical (relative to <base>), noindex and nofollow', () => {
    const page = extractMainContent(
      shopPage('<p>Hi</p>', '<base href="https://shop.test/en/"><link rel="canonical" href="returns"><meta name="ROBOTS" content="NoIndex, nofollow">'),
      'https://shop.test/returns?utm=1',
    );
    assert.equal(page.canonical, 'https://shop.test/en/returns');
    assert.equal(page.noindex, true);
    assert.equal(page.nofollow, true);
    const plain = extractMainContent(shopPage('<p>Hi</p>', '<meta name="googlebot" content="noindex">'), 'https://shop.test/');
    assert.equal(plain.noindex, false);
    assert.equal(plain.canonical, null);
    assert.equal(extractMainContent(shopPage('<p>Hi</p>', '<meta name="localiq" content="none">'), 'https://shop.test/').noindex, true);
  });
  it('falls back to the main region of a short page Readability finds too little in', () => {
    const page = extractMainContent(shopPage('<h1>Opening hours</h1><p>Mon–Fri 9–17.</p>'), 'https://shop.test/hours');
    assert.match(page.text, /Mon–Fri 9–17/);
    assert.doesNotMatch(page.text, /cookies|About us/);
  });
  it('keeps hostile markup inert: scripts, handlers and iframes are dropped, never run', () => {
    (globalThis as { __ran?: boolean }).__ran = false;
    const page = extractMainContent(
      shopPage(`<p onclick="globalThis.__ran=true">${prose('Our shop sells handmade candles and soaps. ')}</p><script>globalThis.__ran = true</script><img src=x onerror="globalThis.__ran=true"><iframe src="javascript:globalThis.__ran=true"></iframe><style>p{}</style>`),
      'https://shop.test/',
    );
    assert.equal((globalThis as { __ran?: boolean }).__ran, false);
    assert.doesNotMatch(page.html, /<script|<iframe|<style|onerror/i);
    assert.match(page.text, /handmade candles/);
  });
  it('reads unclosed markup', () => {
    const page = extractMainContent(`<html><body><p>${prose('Fresh bread every morning at the bakery. ')}<p>unclosed <b>bold`, 'https://shop.test/');
    assert.match(page.text, /Fresh bread/);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Citation } from '../../../../../common/contract/ask.ts';
import { visitorCitations } from '../../../../../server/retrieval/answer/ask-question.ts';

describe('visitorCitations: what a visitor sees of a citation', () => {
  const citation = (url: string | null): Citation => ({
    number: 1, knowledgeBaseId: 'kb', integrationId: 'cms', externalId: 'secret-id', sourceType: 'ARTICLE',
    title: '<b>Title</b>', url, chunkId: 42, passage: 'the retrieved passage',
  });

  const links: Array<[string | null, string | null]> = [
    ['https://shop.example/page?x=1#top', 'https://shop.example/page?x=1#top'],
    ['http://shop.example', 'http://shop.example/'],
    ['HTTPS://SHOP.EXAMPLE/a', 'https://shop.example/a'],
    ['javascript:alert(1)', null],
    ['JaVaScRiPt:alert(1)', null],
    [' javascript:alert(1)', null],
    ['\tjavascript:alert(1)', null],
    ['java\nscript:alert(1)', null],
    ['data:text/html,<script>alert(1)</script>', null],
    ['vbscript:msgbox(1)', null],
    ['file:///etc/passwd', null],
    ['ftp://shop.example/file', null],
    ['//evil.example/x', null],
    ['/relative/path', null],
    ['', null],
    [null, null],
  ];
  for (const [url, expected] of links) {
    it(`${JSON.stringify(url)} → ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(visitorCitations([citation(url)]), [{ number: 1, title: '<b>Title</b>', url: expected }]);
    });
  }

  it("keeps where an uploaded file's passage is, its page or its headings, and nothing else of it", () => {
    const fromPdf = { ...citation(null), page: 2 };
    const fromWord = { ...citation('https://shop.example/care'), section: 'Returns › Damaged goods' };
    assert.deepEqual(visitorCitations([fromPdf, fromWord]), [
      { number: 1, title: '<b>Title</b>', url: null, page: 2 },
      { number: 1, title: '<b>Title</b>', url: 'https://shop.example/care', section: 'Returns › Damaged goods' },
    ]);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../../../helpers/test-app.ts';
import { item } from '../../../helpers/temp-data.ts';

type Case = {
  name: string;
  url?: string;
  method?: 'POST' | 'GET' | 'DELETE' | 'PUT';
  /** A raw string or Buffer is sent as is; anything else as JSON. */
  body?: unknown;
  contentType?: string | null;
  status: number;
  code: string;
  /** A detail path that must be named. */
  path?: string;
  /** What the message, or the named detail's message, must say. */
  says?: RegExp;
  headers?: Record<string, string>;
};

const good = item();
const withData = (data: Record<string, unknown>) => ({ ...good, data: { ...good.data, ...data } });
const without = (key: string) => Object.fromEntries(Object.entries(good).filter(([k]) => k !== key));
const dataWithout = (key: string) => ({
  ...good,
  data: Object.fromEntries(Object.entries(good.data).filter(([k]) => k !== key)),
});
const deep = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

const CASES: Case[] = [
  { name: 'broken JSON', body: '{"integrationId": "cms",', status: 400, code: 'invalid_json' },
  { name: 'trailing garbage', body: `${JSON.stringify(good)} x`, status: 400, code: 'invalid_json' },
  { name: 'single quotes', body: "{'integrationId': 'cms'}", status: 400, code: 'invalid_json' },
  { name: 'empty body', body: '', status: 400, code: 'invalid_json' },
  { name: 'JSON null', body: 'null', status: 400, code: 'invalid_body' },
  { name: 'JSON array instead of object', body: '[]', status: 400, code: 'invalid_body' },
  { name: 'JSON string', body: '"hello"', status: 400, code: 'invalid_body' },
  { name: 'invalid UTF-8 bytes', body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), status: 400, code: 'invalid_json' },
  { name: 'raw NUL byte in JSON', body: Buffer.from('{"a":"\u0000"}'), status: 400, code: 'invalid_json' },
  { name: '__proto__ key', body: '{"__proto__":{"polluted":true}}', status: 400, code: 'invalid_body' },
  { name: '__proto__ inside sourceData', body: JSON.stringify(withData({})).replace('"title"', '"sourceData":{"__proto__":{"x":1}},"title"'), status: 400, code: 'invalid_body' },
  { name: 'constructor.prototype key', body: '{"constructor":{"prototype":{"x":1}}}', status: 400, code: 'invalid_body' },
  { name: 'nesting 10,000 deep', body: deep(10_000), status: 400, code: 'invalid_json' },
  { name: 'nesting 33 deep in sourceData', body: JSON.stringify(withData({ sourceData: JSON.parse(deep(31)) })), status: 400, code: 'invalid_json' },
  { name: 'wrong content type text/plain', body: JSON.stringify(good), contentType: 'text/plain', status: 415, code: 'unsupported_media_type' },
  { name: 'form content type', body: 'a=1', contentType: 'application/x-www-form-urlencoded', status: 415, code: 'unsupported_media_type' },
  { name: 'no content type', body: JSON.stringify(good), contentType: null, status: 415, code: 'unsupported_media_type' },
  { name: 'body over 10 MB', body: JSON.stringify(withData({ content: 'x'.repeat(10 * 1024 * 1024) })), status: 413, code: 'payload_too_large', says: /larger than the 10 MB/ },
  { name: 'gzip-compressed body', body: Buffer.from([0x1f, 0x8b, 0x08, 0]), headers: { 'content-encoding': 'gzip' }, status: 415, code: 'unsupported_media_type', says: /Content-Encoding: gzip/ },
  { name: 'missing integrationId', body: without('integrationId'), status: 400, code: 'invalid_body', path: 'integrationId', says: /^is required/ },
  { name: 'knowledgeBaseId misspelled', body: { ...without('knowledgeBaseId'), knowledgebaseId: 'kb' }, status: 400, code: 'invalid_body', path: 'knowledgebaseId', says: /did you mean "knowledgeBaseId"/ },
  { name: 'externalId in snake case', body: { ...without('externalId'), external_id: 'x' }, status: 400, code: 'invalid_body', path: 'external_id', says: /did you mean "externalId"/ },
  { name: 'missing knowledgeBaseId', body: without('knowledgeBaseId'), status: 400, code: 'invalid_body', path: 'knowledgeBaseId' },
  { name: 'missing sourceType', body: without('sourceType'), status: 400, code: 'invalid_body', path: 'sourceType' },
  { name: 'missing externalId', body: without('externalId'), status: 400, code: 'invalid_body', path: 'externalId' },
  { name: 'missing data', body: without('data'), status: 400, code: 'invalid_body', path: 'data' },
  { name: 'missing title', body: dataWithout('title'), status: 400, code: 'invalid_body', path: 'data.title' },
  { name: 'missing content', body: dataWithout('content'), status: 400, code: 'invalid_body', path: 'data.content' },
  { name: 'unknown sourceType', body: { ...good, sourceType: 'BLOG' }, status: 400, code: 'invalid_body', path: 'sourceType' },
  { name: 'lowercase sourceType', body: { ...good, sourceType: 'article' }, status: 400, code: 'invalid_body', path: 'sourceType' },
  { name: 'numeric externalId', body: { ...good, externalId: 42 }, status: 400, code: 'invalid_body', path: 'externalId' },
  { name: 'empty externalId', body: { ...good, externalId: '' }, status: 400, code: 'invalid_body', path: 'externalId' },
  { name: 'externalId "." (a URL path cannot name it)', body: { ...good, externalId: '.' }, status: 400, code: 'invalid_body', path: 'externalId' },
  { name: 'knowledgeBaseId ".."', body: { ...good, knowledgeBaseId: '..' }, status: 400, code: 'invalid_body', path: 'knowledgeBaseId' },
  { name: 'externalId over 256 characters', body: { ...good, externalId: 'x'.repeat(257) }, status: 400, code: 'invalid_body', path: 'externalId' },
  { name: 'control character in integrationId', body: { ...good, integrationId: 'cms\n1' }, status: 400, code: 'invalid_body', path: 'integrationId' },
  { name: 'NUL in knowledgeBaseId', body: { ...good, knowledgeBaseId: 'kb\u0000' }, status: 400, code: 'invalid_body', path: 'knowledgeBaseId' },
  { name: 'NUL in content', body: withData({ content: 'a\u0000b' }), status: 400, code: 'invalid_body', path: 'data.content' },
  { name: 'NUL in sourceData', body: withData({ sourceData: { note: 'a\u0000b' } }), status: 400, code: 'invalid_body', path: 'data.sourceData' },
  { name: 'lone surrogate in title', body: JSON.stringify(good).replace('Opening hours', 'Open \\ud800 hours'), status: 400, code: 'invalid_body', path: 'data.title' },
  { name: 'title of wrong type', body: withData({ title: ['a'] }), status: 400, code: 'invalid_body', path: 'data.title' },
  { name: 'title over 1,000 characters', body: withData({ title: 't'.repeat(1001) }), status: 400, code: 'invalid_body', path: 'data.title' },
  { name: 'empty content', body: withData({ content: '' }), status: 400, code: 'invalid_body', path: 'data.content' },
  { name: 'content over 100,000 characters', body: withData({ content: 'c'.repeat(100_001) }), status: 400, code: 'invalid_body', path: 'data.content' },
  { name: 'url that is not a URL', body: withData({ url: 'not a url' }), status: 400, code: 'invalid_body', path: 'data.url' },
  { name: 'javascript: url', body: withData({ url: 'javascript:alert(1)' }), status: 400, code: 'invalid_body', path: 'data.url' },
  { name: 'ftp url', body: withData({ url: 'ftp://example.com/file' }), status: 400, code: 'invalid_body', path: 'data.url' },
  { name: 'url over 2,048 characters', body: withData({ url: `https://example.com/${'p'.repeat(2048)}` }), status: 400, code: 'invalid_body', path: 'data.url' },
  { name: 'sourceData as array', body: withData({ sourceData: [1, 2] }), status: 400, code: 'invalid_body', path: 'data.sourceData' },
  { name: 'sourceData as string', body: withData({ sourceData: 'x' }), status: 400, code: 'invalid_body', path: 'data.sourceData' },
  { name: 'number beyond double range in sourceData', body: JSON.stringify(withData({ sourceData: { n: 1 } })).replace('"n":1', '"n":1e400'), status: 400, code: 'invalid_body', path: 'data.sourceData', says: /1e400/ },
  { name: 'sourceData over 64 KB', body: withData({ sourceData: { blob: 's'.repeat(70_000) } }), status: 400, code: 'invalid_body', path: 'data.sourceData' },
  { name: 'hash over 128 characters', body: withData({ hash: 'h'.repeat(129) }), status: 400, code: 'invalid_body', path: 'data.hash' },
  { name: 'hash of wrong type', body: withData({ hash: 123 }), status: 400, code: 'invalid_body', path: 'data.hash' },
  { name: 'unknown top-level field', body: { ...good, extra: true }, status: 400, code: 'invalid_body' },
  { name: 'unknown data field', body: withData({ body: 'x' }), status: 400, code: 'invalid_body', path: 'data.body', says: /^is not a field here$/ },
  { name: 'unknown option', body: { ...good, options: { retry: 3 } }, status: 400, code: 'invalid_body', path: 'options.retry' },
  { name: 'priority not high/low', body: { ...good, options: { priority: 'urgent' } }, status: 400, code: 'invalid_body', path: 'options.priority' },
  { name: 'forceRefresh as string', body: { ...good, options: { forceRefresh: 'yes' } }, status: 400, code: 'invalid_body', path: 'options.forceRefresh' },
  { name: 'bulk without items', url: '/ingest/bulk', body: {}, status: 400, code: 'invalid_body', path: 'items' },
  { name: 'empty bulk', url: '/ingest/bulk', body: { items: [] }, status: 400, code: 'invalid_body', path: 'items' },
  { name: 'bulk items not an array', url: '/ingest/bulk', body: { items: good }, status: 400, code: 'invalid_body', path: 'items' },
  { name: 'bulk of 1,001 items', url: '/ingest/bulk', body: { items: Array.from({ length: 1001 }, () => good) }, status: 400, code: 'too_many_items' },
  { name: 'bulk with one bad item among good ones', url: '/ingest/bulk', body: { items: [good, good, { ...good, sourceType: 'X' }] }, status: 400, code: 'invalid_body', path: 'items.2.sourceType' },
  {
    name: 'bulk with an item of 1,000,000 characters (more than one item may cost)',
    url: '/ingest/bulk',
    body: { items: [good, withData({ content: 'word '.repeat(200_000) })] },
    status: 400,
    code: 'invalid_body',
    path: 'items.1.data.content',
    says: /100000/,
  },
  { name: 'bulk with an unknown field', url: '/ingest/bulk', body: { items: [good], dryRun: true }, status: 400, code: 'invalid_body' },
  { name: 'GET on /ingest', url: '/ingest', method: 'GET', status: 405, code: 'method_not_allowed', says: /takes POST/ },
  { name: 'PUT on a job', url: '/jobs/cms-1', method: 'PUT', body: good, status: 405, code: 'method_not_allowed', says: /takes GET, HEAD/ },
  { name: 'unknown route', url: '/ingest/single', status: 404, code: 'not_found' },
];

describe('malformed requests', () => {
  let t: TestApp;
  let key: string;
  let snapshot: () => string;
  before(async () => {
    t = await createTestApp({}, undefined, { jobWriter: 'in-process' });
    key = t.key({ scopes: ['iq:import'] });
    await t.app.inject({ method: 'POST', url: '/ingest', headers: { 'x-api-key': key }, payload: good });
    snapshot = () =>
      JSON.stringify([
        t.services.db.prepare('SELECT * FROM jobs ORDER BY id').all(),
        t.services.db.prepare('SELECT * FROM knowledge_bases ORDER BY id').all(),
        t.services.db.prepare('SELECT * FROM item_tombstones').all(),
      ]);
  });
  after(() => t.close());

  it(`has at least 40 cases (${CASES.length})`, () => assert.ok(CASES.length >= 40));

  for (const c of CASES) {
    it(`${c.name} → ${c.status} ${c.code}`, async () => {
      const before = snapshot();
      const raw = typeof c.body === 'string' || Buffer.isBuffer(c.body);
      const headers: Record<string, string> = { 'x-api-key': key, ...c.headers };
      const contentType = c.contentType === undefined ? 'application/json' : c.contentType;
      if (contentType) headers['content-type'] = contentType;
      const res = await t.app.inject({
        method: c.method ?? 'POST',
        url: c.url ?? '/ingest',
        headers,
        ...(c.body === undefined ? {} : { payload: raw ? (c.body as string | Buffer) : JSON.stringify(c.body) }),
      });
      assert.equal(res.statusCode, c.status, res.body.slice(0, 500));
      const body = res.json();
      assert.deepEqual(Object.keys(body).filter((k) => k !== 'details').sort(), ['code', 'message', 'requestId', 'statusCode']);
      assert.equal(body.code, c.code);
      assert.equal(body.statusCode, c.status);
      assert.equal(typeof body.message, 'string');
      if (c.path) {
        const detail = (body.details ?? []).find((d: { path: string }) => d.path === c.path);
        assert.ok(detail, `details should name ${c.path}: ${JSON.stringify(body.details)}`);
        if (c.says) assert.match(detail.message, c.says);
      } else if (c.says) assert.match(body.message, c.says);
      if (c.status === 405) assert.match(String(res.headers.allow), /\w/, 'a 405 says what the path allows');
      assert.equal(snapshot(), before, 'nothing stored changes');
      assert.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype pollution');
    });
  }

  it('a route that takes no body accepts an empty one labelled as JSON', async () => {
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };
    const deleted = await t.app.inject({ method: 'DELETE', url: `/items/${good.knowledgeBaseId}/${good.integrationId}/${good.externalId}`, headers });
    assert.equal(deleted.statusCode, 200, deleted.body);
    const retried = await t.app.inject({ method: 'POST', url: `/jobs/${good.integrationId}-${good.externalId}/retry`, headers });
    assert.equal(retried.statusCode, 409, retried.body);
  });
});

/**
 * The attack table for input built to cost the server: bodies of hundreds of thousands of keys or
 * problems, addresses with control characters, paths that climb out of the static folders, bodies
 * sent a byte at a time. Each is refused in the contract's error shape, quickly and with a small
 * answer, and stores nothing.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LIMITS } from '../../../common/contract/limits.ts';
import { MAX_DETAILS } from '../../../server/http/edge/error-handler.ts';
import { createTestApp, type TestApp } from '../../helpers/test-app.ts';
import { FIXTURE, checkErrorShape, storedDigest } from './helpers/fixture.ts';
import { parseResponses, rawExchange } from './helpers/raw-http.ts';

describe('attack table: input refused as it arrives, with no rate limit in the way', () => {
  let t: TestApp;
  let key: string;
  before(async () => {
    t = await createTestApp({ rateLimit: { perSecond: 1_000_000, burst: 1_000_000 } });
    key = t.key();
  });
  after(() => t.close());

  describe('attack table: bodies built to be costly', () => {
    const keysOf = (count: number) => Array.from({ length: count }, (_, i) => `"key_${i}":1`).join(',');
    const push = (url: string, payload: string) =>
      t.app.inject({ method: 'POST', url, headers: { 'x-api-key': key, 'content-type': 'application/json' }, payload });

    function refused(res: Awaited<ReturnType<typeof push>>, code: string) {
      assert.equal(res.statusCode, 400, res.body.slice(0, 300));
      const shape = checkErrorShape(res.statusCode, res.headers as Record<string, string>, res.body);
      assert.ok(shape.ok, shape.ok ? '' : shape.problem);
      assert.equal(res.json().code, code);
    }

    it('one object of 600,000 keys is refused while it is read, with a short answer', async () => {
      const before = storedDigest(t.services.db);
      const res = await push('/ingest', `{${keysOf(600_000)}}`);
      refused(res, 'invalid_json');
      assert.match(res.json().message, new RegExp(`more than ${LIMITS.objectKeys} keys`));
      assert.ok(res.body.length < 1_000, `the answer is ${res.body.length} bytes`);
      assert.equal(storedDigest(t.services.db), before);
    });

    it('a body with thousands of problems lists the first few dozen and counts the rest', async () => {
      const items = Array.from({ length: 20 }, () => `{${keysOf(1_000)}}`);
      const res = await push('/ingest/bulk', `{"items":[${items.join(',')}]}`);
      refused(res, 'invalid_body');
      const body = res.json();
      assert.equal(body.details.length, MAX_DETAILS);
      assert.match(body.message, /: \d{5} problem\(s\), the first 50 are in details\./);
      assert.ok(Number(/(\d+) problem/.exec(body.message)![1]) >= 20_000, body.message);
      assert.ok(res.body.length < 10_000, `the answer is ${res.body.length} bytes`);
    });

    it('a valid item with the most sourceData keys one can hold is still taken', async () => {
      // Keys of one character and empty values: the most that fit in sourceData's byte limit.
      const sourceData: Record<string, number> = {};
      for (let i = 0, bytes = 2; bytes < LIMITS.sourceDataBytes - 20; i++) {
        sourceData[i.toString(36)] = 0;
        bytes += i.toString(36).length + 5; // "k":0,
      }
      const res = await push('/ingest', JSON.stringify(FIXTURE.item({ externalId: 'many-keys' }, { sourceData })));
      assert.equal(res.statusCode, 200, res.body.slice(0, 300));
      assert.ok(Object.keys(sourceData).length < LIMITS.objectKeys);
    });
  });

  describe('attack table: addresses with control characters', () => {
    const bad = ['https://shop.example/a\u0000b', 'https://shop.example/a\r\nSet-Cookie: x=1', 'https://shop.example/\u0007', 'https://shop.example/a\tb', ' https://shop.example/a', 'https://shop.example/a b', 'ftp://shop.example/a', 'javascript:alert(1)', `https://shop.example/${'a'.repeat(LIMITS.urlLength)}`];
    for (const url of bad) {
      it(`data.url ${JSON.stringify(url.slice(0, 50))} → 400 with the field's path, nothing stored`, async () => {
        const before = storedDigest(t.services.db);
        const one = await t.app.inject({ method: 'POST', url: '/ingest', headers: { 'x-api-key': key }, payload: FIXTURE.item({}, { url }) });
        assert.equal(one.statusCode, 400, one.body);
        assert.deepEqual(one.json().details.map((d: { path: string }) => d.path), ['data.url']);
        const bulk = await t.app.inject({ method: 'POST', url: '/ingest/bulk', headers: { 'x-api-key': key }, payload: { items: [FIXTURE.item(), FIXTURE.item({ externalId: 'b' }, { url })] } });
        assert.equal(bulk.statusCode, 400, bulk.body);
        assert.deepEqual(bulk.json().details.map((d: { path: string }) => d.path), ['items.1.data.url']);
        assert.equal(storedDigest(t.services.db), before);
      });
    }

    it('an ordinary address is stored and returned exactly as sent', async () => {
      const url = 'https://shop.example/products/rain-jacket?colour=navy#sizes';
      const res = await t.app.inject({ method: 'POST', url: '/ingest', headers: { 'x-api-key': key }, payload: FIXTURE.item({ externalId: 'with-url' }, { url }) });
      assert.equal(res.statusCode, 200, res.body);
      const row = t.services.db.prepare("SELECT data FROM jobs WHERE job_id = 'cms-with-url'").get() as { data: string } | undefined;
      assert.equal(row && JSON.parse(row.data).url, url, 'the queued item keeps the address as sent');
    });
  });
});

describe('attack table: paths out of the static folders', () => {
  let t: TestApp;
  let port: number;
  let logged: string[];
  before(async () => {
    // A built dashboard of one file, and the server's log, as lines, at every level.
    const rendererDir = fs.mkdtempSync(path.join(os.tmpdir(), 'localiq-renderer-'));
    fs.mkdirSync(path.join(rendererDir, 'assets'));
    fs.writeFileSync(path.join(rendererDir, 'assets', 'app-1.js'), 'export {};');
    fs.writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>LocalIQ</title>');
    logged = [];
    t = await createTestApp({ logLevel: 'trace' }, undefined, { rendererDir, logStream: { write: (line: string) => logged.push(line) } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as { port: number }).port;
  });
  after(() => t.close());

  const paths = ['/assets/../index.html', '/assets/%2e%2e/x', '/assets/%2e%2e/index.html', '/assets/..%2findex.html', '/assets//etc/passwd', '/assets/a%00b', '/docs/static/../../x', '/docs/static/%2e%2e/%2e%2e/x', '/assets/missing.js', '/docs/static/missing.js'];
  for (const target of paths) {
    for (const method of ['GET', 'HEAD']) {
      it(`${method} ${target} → 404 in the error shape, logged below warn`, async () => {
        logged.length = 0;
        const [res] = parseResponses(await rawExchange(port, `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`, 300));
        assert.equal(res?.status, 404, res?.body);
        if (method === 'GET') {
          const shape = checkErrorShape(res.status, res.headers, res.body);
          assert.ok(shape.ok, shape.ok ? '' : shape.problem);
        }
        const loud = logged.filter((line) => JSON.parse(line).level >= 40);
        assert.deepEqual(loud, [], 'logged at warn or above');
      });
    }
  }

  it('the dashboard file itself is still served', async () => {
    const [res] = parseResponses(await rawExchange(port, 'GET /assets/app-1.js HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n', 300));
    assert.equal(res?.status, 200);
    assert.equal(res.body, 'export {};');
  });
});

describe('attack table: a body sent a byte at a time', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await createTestApp({ bodyTimeoutMs: 2_000 });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as { port: number }).port;
  });
  after(() => t.close());

  it('is answered 408 and closed once the body timeout has passed, though bytes keep coming', async () => {
    const key = t.key();
    const socket = net.connect({ host: '127.0.0.1', port });
    await new Promise((resolve) => socket.once('connect', resolve));
    const started = Date.now();
    socket.write(`POST /ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`);
    const drip = setInterval(() => socket.writable && socket.write(' '), 200);
    let received = '';
    socket.on('data', (d) => (received += d));
    socket.on('error', () => {});
    await new Promise((resolve) => socket.once('close', resolve));
    clearInterval(drip);
    const seconds = (Date.now() - started) / 1000;
    assert.ok(seconds > 1.9 && seconds < 4, `the connection stayed open ${seconds} s`);
    const [res] = parseResponses(received);
    assert.equal(res?.status, 408, received);
    const shape = checkErrorShape(res.status, res.headers, res.body);
    assert.ok(shape.ok, shape.ok ? '' : shape.problem);
  });
});

describe('attack table: one key sending large bodies that are refused', () => {
  let t: TestApp;
  before(async () => {
    // The default rate: 100 requests a second, bursts of 500.
    t = await createTestApp({ rateLimit: { perSecond: 100, burst: 500 } });
  });
  after(() => t.close());

  // A 4 MB bulk whose one item lacks its title: read and parsed whole, then refused at validation.
  const invalidBulk = JSON.stringify({
    items: [{ integrationId: 'cms', knowledgeBaseId: 'kb', sourceType: 'ARTICLE', externalId: 'x', data: { content: 'c'.repeat(4_000_000) } }],
  });

  it('spends that key’s rate, and only that key’s: it is then refused before its body is read, with the connection closed', async () => {
    const costly = t.key({ name: 'costly' });
    const other = t.key({ name: 'other' });
    const send = (key: string, payload: string) =>
      t.app.inject({ method: 'POST', url: '/ingest/bulk', headers: { 'x-api-key': key, 'content-type': 'application/json' }, payload });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await send(costly, invalidBulk)).statusCode);
    // Each refused 4 MB body costs 122 requests' worth: the fifth is over the burst of 500.
    assert.deepEqual(statuses.slice(0, 4), [400, 400, 400, 400]);
    const limited = await send(costly, invalidBulk);
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.json().code, 'rate_limited');
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.equal(limited.headers.connection, 'close', 'a refused body is not read to the end on a kept connection');
    // A small refused request costs only itself; another key is untouched.
    const ok = await t.app.inject({
      method: 'POST',
      url: '/ingest',
      headers: { 'x-api-key': other, 'content-type': 'application/json' },
      payload: JSON.stringify({ integrationId: 'cms', knowledgeBaseId: 'kb', sourceType: 'ARTICLE', externalId: 'y', data: { title: 'T', content: 'C' } }),
    });
    assert.equal(ok.statusCode, 200, ok.body);
  });
});

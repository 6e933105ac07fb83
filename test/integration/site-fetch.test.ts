import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { type FetchOptions, fetchPage, FetchRefused } from '../../server/sources/fetch-page.ts';

/** A loopback server whose every request is logged, with the hostile answers the fetch must survive. */
const requests: Array<{ url: string; headers: http.IncomingHttpHeaders }> = [];
let base = '';
const server = http.createServer((request, response) => {
  requests.push({ url: request.url ?? '', headers: request.headers });
  const url = request.url ?? '/';
  if (url === '/page') {
    if (request.headers['if-none-match'] === '"v1"') return void response.writeHead(304).end();
    return void response.writeHead(200, { 'content-type': 'text/html', etag: '"v1"' }).end('<p>hello</p>');
  }
  if (url === '/hop1') return void response.writeHead(301, { location: '/hop2' }).end();
  if (url === '/hop2') return void response.writeHead(302, { location: `${base}/page` }).end();
  if (url.startsWith('/loop')) return void response.writeHead(302, { location: `/loop${Number(url.slice(5) || 0) + 1}` }).end();
  if (url === '/to-file') return void response.writeHead(302, { location: 'file:///etc/passwd' }).end();
  if (url === '/declared-huge') return void response.writeHead(200, { 'content-length': String(1e9) }).end();
  if (url === '/endless') {
    response.writeHead(200, { 'content-type': 'text/html' });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const write = () => {
      while (!response.destroyed && response.write(chunk));
      if (!response.destroyed) response.once('drain', write);
    };
    return void write();
  }
  if (url === '/slow') {
    response.writeHead(200, { 'content-type': 'text/html' });
    const timer = setInterval(() => response.write('a'), 50);
    response.on('close', () => clearInterval(timer));
    return;
  }
  if (url === '/gzip-bomb') {
    return void response.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20)));
  }
  response.writeHead(404).end();
});

const options = (overrides: Partial<FetchOptions> = {}): FetchOptions => ({
  userAgent: 'LocalIQ/1.0 (+test)',
  allowPrivateNetwork: true,
  maxBytes: 1024 * 1024,
  timeoutMs: 5000,
  maxRedirects: 5,
  ...overrides,
});

describe('fetchPage against a loopback server', () => {
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it('refuses loopback without allowPrivateNetwork, by address and by name, before any request', async () => {
    const before = requests.length;
    await assert.rejects(fetchPage(`${base}/page`, options({ allowPrivateNetwork: false })), /private or loopback address \(127\.0\.0\.1\)/);
    await assert.rejects(fetchPage(`${base.replace('127.0.0.1', 'localhost')}/page`, options({ allowPrivateNetwork: false })), FetchRefused);
    await assert.rejects(fetchPage(`${base.replace('127.0.0.1', '[::ffff:127.0.0.1]')}/page`, options({ allowPrivateNetwork: false })), FetchRefused);
    assert.equal(requests.length, before, 'the server heard nothing');
  });

  it('refuses a name whose DNS answer is private (the resolved address is checked, not the name)', async () => {
    const resolve = async () => [{ address: '127.0.0.1', family: 4 }];
    const before = requests.length;
    await assert.rejects(fetchPage(`http://shop.example:${new URL(base).port}/page`, options({ allowPrivateNetwork: false, resolve })), /shop\.example is a private or loopback address/);
    assert.equal(requests.length, before);
    const allowed = await fetchPage(`http://shop.example:${new URL(base).port}/page`, options({ resolve }));
    assert.equal(allowed.status, 200);
  });

  it('sends its user agent and validators, and reads a 304', async () => {
    const fresh = await fetchPage(`${base}/page`, options());
    assert.equal(fresh.body.toString(), '<p>hello</p>');
    assert.equal(requests.at(-1)!.headers['user-agent'], 'LocalIQ/1.0 (+test)');
    const again = await fetchPage(`${base}/page`, options({ etag: '"v1"', lastModified: 'Mon, 01 Jan 2024 00:00:00 GMT' }));
    assert.equal(again.status, 304);
    assert.equal(requests.at(-1)!.headers['if-modified-since'], 'Mon, 01 Jan 2024 00:00:00 GMT');
  });

  it('follows redirects, checking each hop, and stops a loop', async () => {
    const page = await fetchPage(`${base}/hop1`, options());
    assert.equal(page.url, `${base}/page`);
    assert.deepEqual(page.redirects, [`${base}/hop1`, `${base}/hop2`]);
    const hops: string[] = [];
    await assert.rejects(fetchPage(`${base}/hop1`, options({ checkRedirect: (url) => (hops.push(url), url.endsWith('/page') ? 'disallowed by robots.txt' : null) })), /redirected to .*\/page: disallowed by robots\.txt/);
    assert.deepEqual(hops, [`${base}/hop2`, `${base}/page`]);
    await assert.rejects(fetchPage(`${base}/loop`, options()), /more than 5 redirects/);
    await assert.rejects(fetchPage(`${base}/to-file`, options()), /a redirect to a file: address/);
  });

  it('refuses a body larger than the cap: declared, endless, or a compression bomb', async () => {
    await assert.rejects(fetchPage(`${base}/declared-huge`, options()), /larger than 1048576 bytes/);
    await assert.rejects(fetchPage(`${base}/endless`, options()), /larger than 1048576 bytes/);
    await assert.rejects(fetchPage(`${base}/gzip-bomb`, options()), /larger than 1048576 bytes once decompressed/);
  });

  it('gives up on a page sent slowly forever at the time cap', async () => {
    await assert.rejects(fetchPage(`${base}/slow`, options({ timeoutMs: 500 })), /took longer than 500 ms/);
  });
});

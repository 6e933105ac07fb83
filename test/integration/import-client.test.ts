import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ErrorAnswer } from '../../common/contract/errors.ts';
import { ApiClient } from '../../server/cli/import/api-client.ts';

/**
 * Test double: a scripted HTTP server standing in for LocalIQ, because the real one cannot be
 * made to answer 503 or drop connections on demand. Each request takes the next scripted answer.
 */
type Answer = { status: number; headers?: Record<string, string>; body?: unknown } | 'hang-up';

describe('import API client retries', () => {
  let server: http.Server;
  let url = '';
  let script: Answer[] = [];
  let seen: Array<{ method: string; url: string; key: string | undefined; body: string }> = [];

  before(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, key: req.headers['x-api-key'] as string | undefined, body });
        const answer = script.shift() ?? { status: 200, body: { ok: true } };
        if (answer === 'hang-up') {
          req.socket.destroy();
          return;
        }
        res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
        res.end(JSON.stringify(answer.body ?? {}));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  function client(waits: number[], maxAttempts = 4) {
    return new ApiClient({
      url,
      apiKey: 'liq_test',
      maxAttempts,
      baseDelayMs: 100,
      sleep: async (ms) => void waits.push(ms),
    });
  }

  it('waits out 429 for Retry-After seconds and 5xx and dropped connections with doubling backoff', async () => {
    seen = [];
    script = [
      { status: 429, headers: { 'retry-after': '3' }, body: { code: 'rate_limited' } },
      { status: 503, body: { code: 'internal_error' } },
      'hang-up',
      { status: 500 },
      { status: 200, body: { status: 'queued', jobCount: 1 } },
    ];
    const waits: number[] = [];
    const result = await client(waits).request<{ jobCount: number }>('POST', '/ingest/bulk', { items: [1] });
    assert.deepEqual(result, { status: 'queued', jobCount: 1 });
    assert.deepEqual(waits, [3000, 100, 200, 400]);
    assert.equal(seen.length, 5);
    assert.ok(seen.every((r) => r.key === 'liq_test' && r.url === '/ingest/bulk' && r.body === '{"items":[1]}'));
  });

  it('gives up after the last attempt on repeated 5xx, with the server error', async () => {
    script = [{ status: 500 }, { status: 502 }, { status: 503, body: { code: 'internal_error', message: 'down' } }];
    const waits: number[] = [];
    await assert.rejects(client(waits, 3).request('GET', '/jobs'), (e) => e instanceof ErrorAnswer && e.status === 503 && e.message === 'down');
    assert.deepEqual(waits, [100, 200]);
  });

  it('never retries other 4xx and keeps the error details', async () => {
    seen = [];
    script = [{ status: 400, body: { code: 'invalid_body', message: 'bad', details: [{ path: 'items.0.data.title', message: 'x' }] } }];
    const waits: number[] = [];
    await assert.rejects(
      client(waits).request('POST', '/ingest/bulk', { items: [] }),
      (e) => e instanceof ErrorAnswer && e.code === 'invalid_body' && e.details[0]!.path === 'items.0.data.title',
    );
    assert.equal(seen.length, 1);
    assert.deepEqual(waits, []);
  });

  it('names the server it cannot reach', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = new ApiClient({ url: `http://127.0.0.1:${port}`, apiKey: 'k', maxAttempts: 2, baseDelayMs: 1 });
    await assert.rejects(unreachable.request('GET', '/jobs'), new RegExp(`Cannot reach LocalIQ at http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\)`));
  });
});

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLI, cliEnv, REPO_ROOT, type ServerProcess, startServerProcess, waitForExit } from '../helpers/server-process.ts';
import { tempDataDir } from '../helpers/temp-data.ts';

const GUIDE = path.join(REPO_ROOT, 'docs/integration-guide.md');
const EXAMPLES = path.join(REPO_ROOT, 'docs/examples');

type Run = { code: number | null; stdout: string; stderr: string };

function run(command: string, args: string[], env: Record<string, string>): Promise<Run> {
  const child = spawn(command, args, { cwd: EXAMPLES, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

describe('integration guide', () => {
  it('shows every example file in full, so the doc is the code that is tested', () => {
    const guide = fs.readFileSync(GUIDE, 'utf8');
    const files = fs.readdirSync(EXAMPLES).sort();
    assert.deepEqual(files, ['delete-item.sh', 'push-bulk.sh', 'push-item.sh', 'push-products.mts', 'push_products.py']);
    for (const file of files) {
      const content = fs.readFileSync(path.join(EXAMPLES, file), 'utf8');
      assert.ok(guide.includes(`\n${content}\`\`\`\n`), `${file} appears verbatim in a code block of the guide`);
    }
  });

  it('has a section for each topic it promises', () => {
    const headings = fs.readFileSync(GUIDE, 'utf8').split('\n').filter((l) => l.startsWith('## '));
    for (const topic of ['push model', 'Idempotency', 'Bulk', 'Retries and rate limits', 'Polling jobs', 'Deleting', 'TypeScript', 'Python', 'Importing files']) {
      assert.ok(headings.some((h) => h.includes(topic)), `a heading about ${topic}`);
    }
  });
});

describe('integration guide examples against a real server', { timeout: 600_000 }, () => {
  const dataDir = tempDataDir();
  let server: ServerProcess | undefined;
  let env: Record<string, string> = {};

  const createKey = (name: string) => {
    const out = spawnSync(process.execPath, [CLI, 'keys', 'create', '--name', name, '--scopes', 'iq:import,iq:read', '--json'], {
      env: cliEnv(dataDir),
      encoding: 'utf8',
    });
    assert.equal(out.status, 0, out.stderr);
    return JSON.parse(out.stdout).value as string;
  };
  let readKey = '';
  /** The test's own requests share the tight limit: they wait out 429 like any client. */
  const patiently = async (p: string, init: RequestInit = {}): Promise<Response> => {
    for (;;) {
      const response = await fetch(`${server!.url}${p}`, { ...init, headers: { 'x-api-key': readKey, ...init.headers } });
      if (response.status !== 429) return response;
      await new Promise((r) => setTimeout(r, Number(response.headers.get('retry-after')) * 1000));
    }
  };
  const get = async (p: string) => {
    const response = await patiently(p);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const push = (item: object) =>
    patiently('/ingest', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(item) });
  const retired = (externalId: string) => ({
    integrationId: 'shop', knowledgeBaseId: 'main', sourceType: 'PRODUCT', externalId, data: { title: 'Retired', content: 'No longer sold.' },
  });

  before(async () => {
    readKey = createKey('test reads');
    // A tight rate limit (2 a second, bursts of 2): a push followed by polling three jobs exceeds
    // it, so the examples' 429 handling runs for real.
    server = await startServerProcess(dataDir, { LOCALIQ_WORKERS: '1', LOCALIQ_RATE_LIMIT_PER_SECOND: '2', LOCALIQ_RATE_LIMIT_BURST: '2' });
    env = { LOCALIQ_URL: server.url };
  });
  after(async () => {
    if (!server) return;
    server.child.kill('SIGTERM');
    await waitForExit(server.child);
  });

  it('curl: push one item and follow its job to the end', async () => {
    const out = await run('sh', ['push-item.sh'], { ...env, LOCALIQ_API_KEY: createKey('curl') });
    assert.equal(out.code, 0, out.stderr + out.stdout);
    assert.match(out.stdout, /^\{"status":"queued","jobId":"shop-sku-42"\}\n/);
    assert.match(out.stdout, /job shop-sku-42: succeeded\n$/);
    const item = await get('/knowledge-bases/main/items/shop/sku-42');
    assert.equal(item.status, 200);
    assert.equal(item.body.title, 'Rain jacket');
  });

  it('curl: bulk push, then delete', async () => {
    const key = createKey('curl bulk');
    const bulk = await run('sh', ['push-bulk.sh'], { ...env, LOCALIQ_API_KEY: key });
    assert.equal(bulk.code, 0, bulk.stderr + bulk.stdout);
    const ack = JSON.parse(bulk.stdout);
    assert.deepEqual(ack.jobIds, ['shop-sku-43', 'shop-returns']);
    assert.equal((await get('/jobs/shop-sku-43?knowledgeBaseId=main')).status, 200);

    const deleted = await run('sh', ['delete-item.sh'], { ...env, LOCALIQ_API_KEY: key });
    assert.equal(deleted.code, 0, deleted.stderr + deleted.stdout);
    assert.equal(JSON.parse(deleted.stdout).deleted, true);
    assert.equal((await get('/knowledge-bases/main/items/shop/sku-43')).status, 404);

    const again = await run('sh', ['delete-item.sh'], { ...env, LOCALIQ_API_KEY: key });
    assert.equal(again.code, 0, 'deleting it twice is done as well (404)');
    assert.match(again.stdout, /"code":"not_found"/);

    const refused = await run('sh', ['delete-item.sh'], { ...env, LOCALIQ_API_KEY: 'liq_wrong' });
    assert.notEqual(refused.code, 0, 'any other error fails the script');
    assert.match(refused.stdout, /"code":"invalid_api_key"/);
  });

  for (const [language, command, file, skus] of [
    ['TypeScript (fetch)', process.execPath, ['--import', 'tsx', 'push-products.mts'], ['sku-100', 'sku-101', 'sku-102', 'sku-099']],
    ['Python (requests)', 'python3', ['push_products.py'], ['sku-200', 'sku-201', 'sku-202', 'sku-199']],
  ] as const) {
    it(`${language}: pushes in batches, retries 429, follows every job, deletes; a rerun skips everything`, async () => {
      const [a, b, c, gone] = skus;
      assert.equal((await push(retired(gone))).status, 200, 'a product the shop has since discontinued');
      const key = createKey(language);
      const first = await run(command, [...file], { ...env, LOCALIQ_API_KEY: key });
      assert.equal(first.code, 0, first.stderr + first.stdout);
      assert.match(first.stderr, /rate limited, retrying in \d+s/, 'the burst limit was met and waited out');
      const lines = first.stdout.trim().split('\n');
      assert.match(lines[0]!, /^queued 3 jobs, estimated \d+s$/);
      assert.deepEqual(lines.slice(1).sort(), [`${a}: succeeded`, `${b}: succeeded`, `${c}: succeeded`, `${gone}: deleted`].sort());
      for (const sku of [a, b, c]) assert.equal((await get(`/knowledge-bases/main/items/shop/${sku}`)).status, 200);
      assert.equal((await get(`/knowledge-bases/main/items/shop/${gone}`)).status, 404);

      const second = await run(command, [...file], { ...env, LOCALIQ_API_KEY: key });
      assert.equal(second.code, 0, second.stderr + second.stdout);
      assert.deepEqual(second.stdout.trim().split('\n').slice(1).sort(), [`${a}: skipped`, `${b}: skipped`, `${c}: skipped`, `${gone}: already gone`].sort());
    });
  }

  it('a malformed push gets the documented error shape', async () => {
    const response = await patiently('/ingest/bulk', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ items: [retired('ok'), { ...retired('bad'), data: { title: 7, content: 'x' } }] }),
    });
    assert.equal(response.status, 400);
    const body = (await response.json()) as { code: string; details: Array<{ path: string }>; requestId: string };
    assert.equal(body.code, 'invalid_body');
    assert.deepEqual(body.details.map((d) => d.path), ['items.1.data.title']);
    assert.equal(response.headers.get('x-request-id'), body.requestId);
  });
});

import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLI, cliEnv, REPO_ROOT, type ServerProcess, startServerProcess, waitForExit } from '../helpers/server-process.ts';
import { tempDataDir } from '../helpers/temp-data.ts';
import { skipWhereMissing } from '../helpers/skip-where-missing.ts';

// 50 StackFAQ threads, copied into a temporary folder so that the import's checkpoint is written
// beside the copy, never into the repository (see test/fixtures/eval-sample/README.md).
const FAQS = path.join(tempDataDir(), 'faqs.jsonl');
fs.copyFileSync(path.join(REPO_ROOT, 'test/fixtures/eval-sample/stackfaq-faqs.jsonl'), FAQS);
const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/import');
const FAQ_MAP = 'title=question,content=answers,externalId=id';
const FAQ_TARGET = ['--source-type', 'ARTICLE', '--knowledge-base', 'faq', '--integration', 'stackfaq'];

type Run = { code: number | null; stdout: string; stderr: string };

function startCli(dataDir: string, args: string[], env: Record<string, string> = {}): { child: ChildProcess; done: Promise<Run> } {
  const child = spawn(process.execPath, [CLI, ...args], { env: cliEnv(dataDir, env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const done = new Promise<Run>((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
  return { child, done };
}

const runCli = (dataDir: string, args: string[], env: Record<string, string> = {}) => startCli(dataDir, args, env).done;

function createKey(dataDir: string): string {
  const out = spawnSync(process.execPath, [CLI, 'keys', 'create', '--name', 'import', '--scopes', 'iq:import,iq:read', '--json'], {
    env: cliEnv(dataDir),
    encoding: 'utf8',
  });
  assert.equal(out.status, 0, out.stderr);
  return JSON.parse(out.stdout).value as string;
}

async function api<T>(server: ServerProcess, key: string, pathAndQuery: string): Promise<{ status: number; body: T }> {
  const response = await fetch(`${server.url}${pathAndQuery}`, { headers: { 'x-api-key': key } });
  return { status: response.status, body: (await response.json()) as T };
}

async function listIds(server: ServerProcess, key: string, kb: string, integrationId: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const query: URLSearchParams = new URLSearchParams({ integrationId, limit: '200', ...(cursor ? { cursor } : {}) });
    const page: { status: number; body: { data: Array<{ externalId: string }>; nextCursor: string | null } } = await api<{ data: Array<{ externalId: string }>; nextCursor: string | null }>(server, key, `/knowledge-bases/${kb}/items?${query}`);
    assert.equal(page.status, 200);
    ids.push(...page.body.data.map((d) => d.externalId));
    cursor = page.body.nextCursor;
  } while (cursor);
  return ids.sort();
}

async function stop(server: ServerProcess | undefined): Promise<void> {
  if (!server) return;
  server.child.kill('SIGTERM');
  await waitForExit(server.child);
}

const faqLines = fs.readFileSync(FAQS, 'utf8').split('\n').filter((l) => l.trim());
const faqs = faqLines.map((l) => JSON.parse(l) as { id: string; question: string; answers: string[] });

describe('localiq import against a real server with the pipeline', { timeout: 900_000 }, () => {
  const dataDir = tempDataDir();
  let server: ServerProcess | undefined;
  let key = '';

  before(async () => {
    key = createKey(dataDir);
    server = await startServerProcess(dataDir, { LOCALIQ_WORKERS: '1' });
  });
  after(() => stop(server));

  const importFaqs = (file: string, ...extra: string[]) =>
    runCli(dataDir, ['import', file, '--map', FAQ_MAP, ...FAQ_TARGET, '--url', server!.url, '--key', key, '--json', ...extra]);

  it('imports every stackfaq thread, mapped, and waits until each is indexed', async () => {
    const run = await importFaqs(FAQS);
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout);
    assert.equal(report.rows, faqs.length);
    assert.equal(report.valid, faqs.length);
    assert.equal(report.invalid, 0);
    assert.equal(report.itemsSent, faqs.length);
    assert.equal(report.jobs.succeeded, faqs.length);
    assert.equal(report.jobs.timedOut, false);
    assert.deepEqual(await listIds(server!, key, 'faq', 'stackfaq'), faqs.map((f) => f.id).sort());
    const sample = faqs[7]!;
    const detail = await api<{ title: string; content: string; chunks: unknown[] }>(server!, key, `/knowledge-bases/faq/items/stackfaq/${sample.id}`);
    assert.equal(detail.body.title, sample.question);
    assert.equal(detail.body.content, sample.answers.join('\n\n'));
    assert.ok(detail.body.chunks.length > 0);
    // A finished import leaves no checkpoint, beside the file or in the data folder.
    assert.equal(fs.existsSync(`${FAQS}.localiq-import.json`), false);
    assert.deepEqual(fs.existsSync(path.join(dataDir, 'imports')) ? fs.readdirSync(path.join(dataDir, 'imports')) : [], []);
  });

  it('a second import of the unchanged file ends with every job skipped', async () => {
    const run = await importFaqs(FAQS);
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout);
    assert.equal(report.itemsSent, faqs.length);
    assert.equal(report.jobs.skipped, faqs.length);
    assert.equal(report.jobs.succeeded, 0);
  });

  it('sync mode asks before deleting, then deletes exactly the threads removed from the export', async () => {
    const removed = new Set(['faq3', 'faq10', 'faq42', 'faq47', faqs.at(-1)!.id]);
    const trimmed = path.join(tempDataDir(), 'faqs-trimmed.jsonl');
    fs.writeFileSync(trimmed, `${faqLines.filter((l) => !removed.has(JSON.parse(l).id)).join('\n')}\n`);

    const refused = await importFaqs(trimmed, '--sync');
    assert.equal(refused.code, 1, 'without --yes and without a terminal nothing is deleted');
    assert.deepEqual(JSON.parse(refused.stdout).sync, { absent: removed.size, deleted: 0, confirmed: false });
    assert.match(refused.stderr, /Sync would delete 5 items of integration "stackfaq" in knowledge base "faq".*--yes/);
    assert.equal((await listIds(server!, key, 'faq', 'stackfaq')).length, faqs.length);

    const run = await importFaqs(trimmed, '--sync', '--yes');
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout);
    assert.deepEqual(report.sync, { absent: removed.size, deleted: removed.size, confirmed: true });
    assert.equal(report.jobs.skipped, faqs.length - removed.size);
    const remaining = await listIds(server!, key, 'faq', 'stackfaq');
    assert.deepEqual(remaining, faqs.map((f) => f.id).filter((id) => !removed.has(id)).sort());
    for (const id of removed) assert.equal((await api(server!, key, `/knowledge-bases/faq/items/stackfaq/${id}`)).status, 404);
  });

  it('on a terminal, sync asks for confirmation stating how many items go, and honours the answer', async (t) => {
    if (spawnSync('script', ['--version']).status !== 0) return skipWhereMissing(t, 'util-linux `script` (a pseudo-terminal) is not installed');
    const removed = new Set(['faq3', 'faq10', 'faq42', 'faq47', faqs.at(-1)!.id, 'faq5']);
    const trimmed = path.join(tempDataDir(), 'faqs-trimmed-more.jsonl');
    fs.writeFileSync(trimmed, `${faqLines.filter((l) => !removed.has(JSON.parse(l).id)).join('\n')}\n`);
    const quote = (a: string) => `'${a.replaceAll("'", "'\\''")}'`;
    const command = [process.execPath, CLI, 'import', trimmed, '--map', FAQ_MAP, ...FAQ_TARGET, '--url', server!.url, '--key', key, '--sync']
      .map(quote)
      .join(' ');
    const answer = (reply: string) =>
      new Promise<Run>((resolve) => {
        const child = spawn('script', ['-qec', command, '/dev/null'], { env: cliEnv(dataDir), stdio: ['pipe', 'pipe', 'pipe'] });
        let stdout = '';
        child.stdout.on('data', (c: Buffer) => {
          stdout += c.toString();
          if (stdout.includes('[y/N]') && child.stdin.writable) child.stdin.end(`${reply}\n`);
        });
        child.once('close', (code) => resolve({ code, stdout, stderr: '' }));
      });
    const declined = await answer('n');
    assert.match(declined.stdout, /Sync will delete 1 item of integration "stackfaq" in knowledge base "faq" that the file no longer holds\. Delete them\? \[y\/N\]/);
    assert.match(declined.stdout, /Sync: 1 item\(s\) not in the file, 0 deleted\./);
    assert.equal((await api(server!, key, '/knowledge-bases/faq/items/stackfaq/faq5')).status, 200);
    const accepted = await answer('y');
    assert.equal(accepted.code, 0, accepted.stdout);
    assert.match(accepted.stdout, /Sync: 1 item\(s\) not in the file, 1 deleted\./);
    assert.equal((await api(server!, key, '/knowledge-bases/faq/items/stackfaq/faq5')).status, 404);
  });

  it('a dry run shows the first items and every invalid row with its reason, and sends nothing', async () => {
    const run = await runCli(dataDir, [
      'import', path.join(FIXTURES, 'products.csv'),
      '--map', 'externalId=sku,title=name,content=description,url=link,sourceData.price=price',
      '--source-type', 'PRODUCT', '--knowledge-base', 'shop', '--integration', 'dry', '--dry-run', '--preview', '2',
      '--url', server!.url, '--key', key,
    ]);
    assert.equal(run.code, 1, 'invalid rows make the exit code 1');
    assert.match(run.stdout, /Dry run: nothing was sent\. The first 2 item\(s\):/);
    assert.match(run.stdout, /"externalId": "A-1"/);
    assert.match(run.stdout, /"price": "19\.50"/);
    assert.ok(!run.stdout.includes('"externalId": "A-5"'), 'only the requested preview');
    const invalid = run.stdout.split('\n').filter((l) => l.startsWith('  row '));
    assert.deepEqual(invalid.map((l) => l.replace(/: data\.url: .*/, ': data.url')), [
      '  row 4: has 3 fields, the header has 5',
      '  row 5 (A-4): content: column "description" is empty or missing',
      '  row 6 (A-5): data.url',
      '  row 7: externalId: column "sku" is empty or missing',
    ]);
    assert.match(run.stdout, /7 row\(s\) read: 3 valid, 4 invalid\./);
    const jobs = await api<{ data: unknown[] }>(server!, key, '/jobs?integrationId=dry');
    assert.deepEqual(jobs.body.data, []);
  });

  it('refuses a wrong command line with usage help', async () => {
    const run = await runCli(dataDir, ['import', FAQS, '--map', 'title=question', ...FAQ_TARGET, '--key', key]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /Mapping: Invalid mapping: externalId/);
    const noKey = await runCli(dataDir, ['import', FAQS, '--map', FAQ_MAP, ...FAQ_TARGET]);
    assert.equal(noKey.code, 2);
    assert.match(noKey.stderr, /needs an API key/);
  });
});

describe('localiq import resumes after an interruption', { timeout: 300_000 }, () => {
  const dataDir = tempDataDir();
  let server: ServerProcess | undefined;
  let key = '';
  /** The test's own reads use another key, so they never take the import's rate budget. */
  let readKey = '';
  const rows = 60;
  const file = path.join(tempDataDir(), 'notes.jsonl');

  before(async () => {
    key = createKey(dataDir);
    readKey = createKey(dataDir);
    // Two requests a second: the import is slow enough to be stopped half-way, and it meets 429s.
    // Bulk requests of at most 4 items: a larger batch has to be split.
    server = await startServerProcess(dataDir, {
      LOCALIQ_RATE_LIMIT_PER_SECOND: '2',
      LOCALIQ_RATE_LIMIT_BURST: '1',
      LOCALIQ_BULK_LIMIT: '4',
    });
    const lines = Array.from({ length: rows }, (_, i) => JSON.stringify({ id: `note-${i + 1}`, text: `Note number ${i + 1}.` }));
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
  });
  after(() => stop(server));

  it('continues after the last acknowledged batch and removes the checkpoint when done', async () => {
    const args = ['import', file, '--map', 'externalId=id,content=text', '--source-type', 'PAGE', '--knowledge-base', 'notes',
      '--integration', 'notes', '--batch-size', '4', '--no-wait', '--json', '--url', server!.url, '--key', key];
    const checkpointFile = `${file}.localiq-import.json`;
    const first = startCli(dataDir, args);
    const started = Date.now();
    for (;;) {
      const saved = fs.existsSync(checkpointFile) ? JSON.parse(fs.readFileSync(checkpointFile, 'utf8')) : null;
      if (saved && saved.lastRow >= 16) break;
      assert.ok(Date.now() - started < 60_000, 'the checkpoint advances');
      await new Promise((r) => setTimeout(r, 50));
    }
    first.child.kill('SIGKILL');
    const interrupted = await first.done;
    assert.equal(interrupted.code, null, 'killed before it finished');
    assert.match(interrupted.stderr, /rate limited; retrying in \d+s/);
    const { lastRow, itemsSent } = JSON.parse(fs.readFileSync(checkpointFile, 'utf8'));
    assert.ok(lastRow < rows, `stopped at row ${lastRow}`);
    assert.equal(itemsSent, lastRow);

    const resumed = await runCli(dataDir, args);
    assert.equal(resumed.code, 0, resumed.stderr);
    const report = JSON.parse(resumed.stdout);
    assert.equal(report.resumedAfterRow, lastRow);
    assert.equal(report.itemsSent, rows - lastRow, 'rows acknowledged before the interruption are not sent again');
    assert.match(resumed.stderr, new RegExp(`Resuming: rows up to ${lastRow} were already sent`));
    assert.ok(!fs.existsSync(checkpointFile));

    const ids = new Set<string>();
    let cursor: string | null = null;
    do {
      const page: { body: { data: Array<{ externalId: string }>; nextCursor: string | null } } = await api<{ data: Array<{ externalId: string }>; nextCursor: string | null }>(
        server!, readKey, `/jobs?integrationId=notes&limit=500${cursor ? `&cursor=${cursor}` : ''}`);
      for (const job of page.body.data) ids.add(job.externalId);
      cursor = page.body.nextCursor;
    } while (cursor);
    assert.equal(ids.size, rows, 'every row became a job exactly once');
  });

  it('a batch larger than the server takes is sent in halves', async () => {
    const file10 = path.join(path.dirname(file), 'ten.jsonl');
    fs.writeFileSync(file10, Array.from({ length: 10 }, (_, i) => `{"id":"t-${i}","text":"Ten ${i}."}\n`).join(''));
    const run = await runCli(dataDir, ['import', file10, '--map', 'externalId=id,content=text', '--source-type', 'PAGE',
      '--knowledge-base', 'notes', '--integration', 'ten', '--batch-size', '10', '--no-wait', '--json', '--url', server!.url, '--key', key]);
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout);
    assert.equal(report.itemsSent, 10);
    assert.equal(report.batches, 4, '10 → 5 + 5 → (3 + 2) + (3 + 2)');
    assert.equal(report.titlesFromContent, 10, 'no title column: each title is taken from the content');
    const jobs = await api<{ data: Array<{ externalId: string }> }>(server!, readKey, '/jobs?integrationId=ten&limit=500');
    assert.equal(new Set(jobs.body.data.map((j) => j.externalId)).size, 10);
  });

  it('without --url, sends to LOCALIQ_URL, or else where LOCALIQ_PORT says this machine serves', async () => {
    const port = new URL(server!.url).port;
    const local = path.join(path.dirname(file), 'local.jsonl');
    fs.writeFileSync(local, '{"id":"l-1","text":"One."}\n');
    const args = ['import', local, '--map', 'externalId=id,content=text', '--source-type', 'PAGE', '--knowledge-base', 'notes',
      '--integration', 'local', '--no-wait', '--json', '--key', key];
    const run = await runCli(dataDir, args, { LOCALIQ_PORT: port });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).itemsSent, 1);
    const byUrl = await runCli(dataDir, [...args, '--restart'], { LOCALIQ_URL: server!.url, LOCALIQ_PORT: '1' });
    assert.equal(byUrl.code, 0, byUrl.stderr);
  });

  it('a changed file does not resume from a stale checkpoint', async () => {
    const other = path.join(path.dirname(file), 'other.jsonl');
    fs.writeFileSync(other, '{"id":"o-1","text":"One."}\n{"id":"o-2","text":"Two."}\n');
    fs.writeFileSync(`${other}.localiq-import.json`, JSON.stringify({ version: 1, key: 'stale', file: other, lastRow: 1, itemsSent: 1 }));
    const run = await runCli(dataDir, ['import', other, '--map', 'externalId=id,content=text', '--source-type', 'PAGE',
      '--knowledge-base', 'notes', '--integration', 'other', '--no-wait', '--json', '--url', server!.url, '--key', key]);
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout);
    assert.equal(report.resumedAfterRow, null);
    assert.equal(report.itemsSent, 2);
  });
});

describe('localiq import after a restore', { timeout: 300_000 }, () => {
  it('a checkpoint whose last job the restored database lacks starts over instead of skipping rows', async () => {
    const dataDir = tempDataDir();
    const key = createKey(dataDir);
    const rows = 24;
    const file = path.join(tempDataDir(), 'restored.jsonl');
    fs.writeFileSync(file, Array.from({ length: rows }, (_, i) => `{"id":"r-${i + 1}","text":"Row ${i + 1}."}\n`).join(''));
    const backup = path.join(tempDataDir(), 'before-import.db');
    const env = { LOCALIQ_RATE_LIMIT_PER_SECOND: '2', LOCALIQ_RATE_LIMIT_BURST: '1', LOCALIQ_BULK_LIMIT: '4' };
    let server: ServerProcess | undefined = await startServerProcess(dataDir, env);
    try {
      assert.equal((await runCli(dataDir, ['backup', backup])).code, 0);
      const args = ['import', file, '--map', 'externalId=id,content=text', '--source-type', 'PAGE', '--knowledge-base', 'notes',
        '--integration', 'restored', '--batch-size', '4', '--no-wait', '--json', '--key', key];
      const checkpointFile = `${file}.localiq-import.json`;
      const first = startCli(dataDir, [...args, '--url', server.url]);
      const started = Date.now();
      while (!(fs.existsSync(checkpointFile) && JSON.parse(fs.readFileSync(checkpointFile, 'utf8')).lastRow >= 8)) {
        assert.ok(Date.now() - started < 60_000, 'the checkpoint advances');
        await new Promise((r) => setTimeout(r, 50));
      }
      first.child.kill('SIGKILL');
      await first.done;
      const { lastJobId } = JSON.parse(fs.readFileSync(checkpointFile, 'utf8'));
      assert.match(lastJobId, /^restored-r-\d+$/);

      await stop(server);
      server = undefined;
      const restore = await runCli(dataDir, ['restore', backup]);
      assert.equal(restore.code, 0, restore.stderr);
      server = await startServerProcess(dataDir, env);
      const resumed = await runCli(dataDir, [...args, '--url', server.url]);
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.ok(resumed.stderr.includes(`Starting over: LocalIQ no longer has job ${lastJobId}`), resumed.stderr);
      const report = JSON.parse(resumed.stdout);
      assert.equal(report.resumedAfterRow, null);
      assert.equal(report.itemsSent, rows, 'every row sent again, none skipped');
    } finally {
      await stop(server);
    }
  });
});

import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLI, cliEnv, type ServerProcess, startServerProcess, waitForExit } from '../helpers/server-process.ts';
import { tempDataDir } from '../helpers/temp-data.ts';
import { docxFile } from '../helpers/document-fixtures.ts';
import { scannedTextPdf } from '../helpers/scanned-fixtures.ts';

type Run = { code: number | null; stdout: string; stderr: string };

function startCli(dataDir: string, args: string[]): { child: ChildProcess; done: Promise<Run>; stdout: () => string } {
  const child = spawn(process.execPath, [CLI, ...args], { env: cliEnv(dataDir), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const done = new Promise<Run>((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
  return { child, done, stdout: () => stdout };
}

async function until<T>(what: string, probe: () => Promise<T | null | false> | T | null | false, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('localiq files add against a real server with the pipeline', { timeout: 600_000 }, () => {
  const dataDir = tempDataDir();
  const folder = path.join(tempDataDir(), 'shop-docs');
  let server: ServerProcess;
  let key = '';

  before(async () => {
    const out = spawnSync(process.execPath, [CLI, 'keys', 'create', '--name', 'files', '--scopes', 'iq:import,iq:read', '--json'], {
      env: cliEnv(dataDir),
      encoding: 'utf8',
    });
    assert.equal(out.status, 0, out.stderr);
    key = JSON.parse(out.stdout).value as string;
    server = await startServerProcess(dataDir, { LOCALIQ_WORKERS: '1' });
    fs.mkdirSync(path.join(folder, 'policies'), { recursive: true });
    fs.mkdirSync(path.join(folder, '.git'));
    fs.writeFileSync(path.join(folder, 'care.md'), '# Care\n\nWash the jackets at 30 degrees.\n');
    fs.writeFileSync(path.join(folder, 'policies', 'returns.docx'), await docxFile([{ heading: 1, text: 'Returns' }, { text: 'Returns within 30 days.' }]));
    fs.writeFileSync(path.join(folder, 'policies', 'index.html'), '<h1>Policies</h1><p>All our policies in one place.</p>');
    fs.writeFileSync(path.join(folder, '.git', 'config'), 'hidden');
    fs.writeFileSync(path.join(folder, '.draft.md'), '# Draft');
    fs.writeFileSync(path.join(folder, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    fs.writeFileSync(path.join(folder, 'empty.txt'), '');
  });
  after(async () => {
    server.child.kill('SIGTERM');
    await waitForExit(server.child);
  });

  const files = (...args: string[]) => ['files', 'add', folder, '--knowledge-base', 'docs', '--url', server.url, '--key', key, ...args];
  const itemIds = async () => {
    const res = await fetch(`${server.url}/knowledge-bases/docs/items?integrationId=files&limit=100`, { headers: { 'x-api-key': key } });
    return ((await res.json()) as { data: Array<{ externalId: string }> }).data.map((d) => d.externalId).sort();
  };
  const item = async (externalId: string) => {
    const res = await fetch(`${server.url}/knowledge-bases/docs/items/files/${encodeURIComponent(externalId)}`, { headers: { 'x-api-key': key } });
    return res.status === 200 ? ((await res.json()) as { text: string }) : null;
  };

  it('walks the folder, skips hidden, unsupported and empty files with a summary, and waits for the jobs', async () => {
    const run = await startCli(dataDir, files()).done;
    assert.equal(run.code, 0, run.stderr + run.stdout);
    assert.match(run.stdout, /3 file\(s\) found: 3 sent, 0 unchanged/);
    const skipped = run.stdout.match(/Skipped 4: (.*)\./)?.[1]?.split('; ').sort();
    assert.deepEqual(skipped, ['1 empty', '1 not a kind of file LocalIQ reads (.pdf, .docx, .md, .markdown, .html, .htm, .txt, .text)', '2 hidden']);
    assert.match(run.stdout, /Jobs: 3 succeeded\./);
    assert.deepEqual(await itemIds(), ['care.md', 'policies/index.html', 'policies/returns.docx'], 'named by their path in the folder');
  });

  it('run again, nothing changed: nothing is sent', async () => {
    const run = await startCli(dataDir, files('--json')).done;
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout);
    assert.equal(report.uploaded.length, 0);
    assert.equal(report.unchanged, 3);
  });

  it('--watch pushes new and changed files and deletes removed ones; a restart catches up without pushing everything again', async () => {
    const watching = startCli(dataDir, files('--watch', '--interval', '1s', '--json'));
    await until('the first pass', () => watching.stdout().includes('"checkpoint"'));
    fs.writeFileSync(path.join(folder, 'care.md'), '# Care\n\nWash the jackets at 40 degrees, inside out.\n');
    fs.writeFileSync(path.join(folder, 'policies', 'shipping.txt'), 'Parcels leave the warehouse every afternoon.');
    fs.rmSync(path.join(folder, 'policies', 'index.html'));
    await until('the changes in LocalIQ', async () => {
      const ids = await itemIds();
      const care = await item('care.md');
      return ids.includes('policies/shipping.txt') && !ids.includes('policies/index.html') && care?.text.includes('40 degrees');
    });
    watching.child.kill('SIGTERM');
    const stopped = await watching.done;
    assert.equal(stopped.code, 0, stopped.stderr);

    // While nothing watches: one new file. The next start sends it alone.
    fs.writeFileSync(path.join(folder, 'opening-hours.txt'), 'Open Monday to Saturday.');
    const restarted = startCli(dataDir, files('--watch', '--interval', '60s', '--json'));
    await until('the catch-up pass', () => restarted.stdout().includes('"checkpoint"'));
    restarted.child.kill('SIGTERM');
    const caughtUp = await restarted.done;
    const report = JSON.parse(caughtUp.stdout.slice(0, caughtUp.stdout.indexOf('\n}\n') + 2));
    assert.deepEqual(report.uploaded.map((u: { externalId: string }) => u.externalId), ['opening-hours.txt']);
    assert.equal(report.unchanged, 3, 'the files sent before are not sent again');
    assert.deepEqual(await itemIds(), ['care.md', 'opening-hours.txt', 'policies/returns.docx', 'policies/shipping.txt']);
  });

  it("a scan's summary line says it was read by OCR, and which page", async () => {
    const scans = path.join(tempDataDir(), 'scans');
    fs.mkdirSync(scans);
    fs.writeFileSync(path.join(scans, 'gift-cards.pdf'), await scannedTextPdf([['Gift cards are valid for three years.']]));
    const run = await startCli(dataDir, ['files', 'add', scans, '--knowledge-base', 'scans', '--url', server.url, '--key', key]).done;
    assert.equal(run.code, 0, run.stderr + run.stdout);
    assert.match(run.stdout, /Jobs: 1 succeeded\./);
    assert.match(run.stdout, /^ {2}succeeded gift-cards\.pdf: text read by OCR \(text recognition\) from 1 scanned page\(s\) without a text layer: page\(s\) 1$/m);
  });
});

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { pdfFile } from '../helpers/document-fixtures.ts';
import { CLI, cliEnv } from '../helpers/server-process.ts';
import { type ShopSite, startShopSite } from '../helpers/shop-site.ts';
import { tempDataDir } from '../helpers/temp-data.ts';

/** Runs `localiq sources …` (asynchronously: the shop site answers from this process). */
function run(dataDir: string, args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'sources', ...args], { env: cliEnv(dataDir) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (part: Buffer) => (stdout += part));
    child.stderr.on('data', (part: Buffer) => (stderr += part));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('localiq sources (a website source from the command line)', () => {
  const dataDir = tempDataDir();
  let site: ShopSite;
  before(async () => {
    site = await startShopSite(await pdfFile([['Catalogue']]));
  });
  after(async () => {
    await site.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('adds a site, syncs it with a summary, lists and removes it', async () => {
    const added = await run(dataDir, ['add-site', `${site.url}/`, '--knowledge-base', 'shop', '--every', '24h', '--max-pages', '50', '--exclude', '/*.pdf', '--allow-private-network']);
    assert.equal(added.status, 0, added.stderr);
    const id = added.stdout.trim();
    assert.match(id, /^[0-9a-f]{12}$/);
    const synced = await run(dataDir, ['sync', id, '--json']);
    assert.equal(synced.status, 0, synced.stderr);
    const summary = JSON.parse(synced.stdout) as { state: string; summary: { added: number; updated: number; unchanged: number; removed: number; skipped: Array<{ url: string; reason: string }> } };
    assert.equal(summary.state, 'succeeded');
    assert.equal(summary.summary.added, 7);
    assert.ok(summary.summary.skipped.some((skip) => skip.url.endsWith('/account/orders') && skip.reason === 'disallowed by robots.txt'));
    const again = await run(dataDir, ['sync', id]);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /^synced: 0 added, 0 updated, 7 unchanged, 0 removed, \d+ skipped/);
    assert.match(again.stdout, /skipped .*\/draft-sale: noindex \(robots meta tag\)/);
    const listed = await run(dataDir, ['list']);
    assert.match(listed.stdout, new RegExp(`${id}  shop  ${site.url}/  every 24h  synced: 0 added`));
    const removed = await run(dataDir, ['remove', id]);
    assert.equal(removed.status, 0, removed.stderr);
    assert.match((await run(dataDir, ['list'])).stdout, /No website sources/);
  });

  it('refuses bad options with a usage message, and the loopback site without --allow-private-network', async () => {
    const badEvery = await run(dataDir, ['add-site', `${site.url}/`, '--knowledge-base', 'shop', '--every', 'often']);
    assert.equal(badEvery.status, 2);
    assert.match(badEvery.stderr, /--every takes a duration/);
    const noKb = await run(dataDir, ['add-site', `${site.url}/`]);
    assert.match(noKb.stderr, /needs --knowledge-base/);
    const id = (await run(dataDir, ['add-site', `${site.url}/`, '--knowledge-base', 'shop'])).stdout.trim();
    const requests = site.requests.length;
    const refused = await run(dataDir, ['sync', id]);
    assert.equal(refused.status, 1);
    assert.match(refused.stdout, /failed \(.*private or loopback address/);
    assert.equal(site.requests.length, requests);
  });
});

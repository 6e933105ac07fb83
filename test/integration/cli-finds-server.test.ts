import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { CLI, cliEnv, type ServerProcess, startServerProcess, waitForExit } from '../helpers/server-process.ts';
import { tempDataDir } from '../helpers/temp-data.ts';

type Run = { code: number | null; stdout: string; stderr: string };

/**
 * The CLI as a shop owner runs it: LOCALIQ_DATA_DIR set, neither LOCALIQ_PORT nor LOCALIQ_URL nor
 * --url. The host is a loopback address no server here listens on, so that the default address
 * the CLI falls back to is surely unanswered even where another LocalIQ runs on port 7410.
 */
function runCli(dataDir: string, args: string[]): Promise<Run> {
  const env = cliEnv(dataDir, { LOCALIQ_HOST: '127.0.0.9' });
  delete env.LOCALIQ_PORT;
  delete env.LOCALIQ_URL;
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

async function stop(server: ServerProcess, signal: NodeJS.Signals): Promise<void> {
  server.child.kill(signal);
  await waitForExit(server.child);
}

describe('the CLI finds the server of its data folder', { timeout: 300_000 }, () => {
  const dataDir = tempDataDir();
  const addressFile = path.join(dataDir, 'server.json');
  const rows = path.join(tempDataDir(), 'prices.csv');
  fs.writeFileSync(rows, 'sku,name,price\nsku-1,Rye loaf,4.20 EUR\n');
  const importArgs = (key: string) => [
    'import', rows, '--map', 'externalId=sku,title=name,content=name,sourceData.price=price', '--source-type', 'PRODUCT',
    '--knowledge-base', 'shop', '--integration', 'bakery', '--no-wait', '--restart', '--json', '--key', key,
  ];

  it('import and files add reach a server on a random port through server.json; a clean stop removes it', async () => {
    const created = spawnSync(process.execPath, [CLI, 'keys', 'create', '--name', 'cli', '--scopes', 'iq:import,iq:read', '--json'], {
      env: cliEnv(dataDir),
      encoding: 'utf8',
    });
    assert.equal(created.status, 0, created.stderr);
    const key = JSON.parse(created.stdout).value as string;
    // LOCALIQ_PORT=0: the server takes any free port, which only its server.json tells.
    const server = await startServerProcess(dataDir);
    try {
      const recorded = JSON.parse(fs.readFileSync(addressFile, 'utf8'));
      assert.equal(recorded.pid, server.child.pid);
      assert.equal(`http://127.0.0.1:${recorded.port}`, server.url);

      const imported = await runCli(dataDir, importArgs(key));
      assert.equal(imported.code, 0, imported.stderr);
      assert.equal(JSON.parse(imported.stdout).itemsSent, 1);

      const docs = path.join(tempDataDir(), 'docs');
      fs.mkdirSync(docs);
      fs.writeFileSync(path.join(docs, 'hours.md'), '# Opening hours\n\nOpen Monday to Saturday from 7 to 18.\n');
      const added = await runCli(dataDir, ['files', 'add', docs, '--knowledge-base', 'shop', '--no-wait', '--json', '--key', key]);
      assert.equal(added.code, 0, added.stderr);

      const jobs = (await (await fetch(`${server.url}/jobs?knowledgeBaseId=shop`, { headers: { 'x-api-key': key } })).json()) as {
        data: Array<{ externalId: string }>;
      };
      assert.deepEqual(jobs.data.map((j) => j.externalId).sort(), ['hours.md', 'sku-1']);
    } finally {
      await stop(server, 'SIGTERM');
    }
    assert.equal(fs.existsSync(addressFile), false, 'a clean stop removes server.json');
  });

  it('a server that died leaves a stale server.json, which the CLI passes over and names with a way to start one', async () => {
    const server = await startServerProcess(dataDir);
    const pid = server.child.pid;
    await stop(server, 'SIGKILL');
    assert.ok(fs.existsSync(addressFile), 'a killed server cannot remove its file');
    const run = await runCli(dataDir, importArgs('liq_unused'));
    assert.equal(run.code, 1, run.stdout);
    assert.match(run.stderr, /Cannot reach LocalIQ at http:\/\/127\.0\.0\.9:7410/);
    assert.ok(run.stderr.includes(`${addressFile} names a server (process ${pid}`), run.stderr);
    assert.match(run.stderr, /no longer running/);
    assert.ok(run.stderr.includes(`LOCALIQ_DATA_DIR=${dataDir} npm start`), run.stderr);
  });
});

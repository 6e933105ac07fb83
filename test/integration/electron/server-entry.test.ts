import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { mintSignInToken, serverEnvironment, signInUrl } from '../../../electron/desktop-session.ts';
import { ServerSupervisor } from '../../../electron/server-supervisor.ts';
import { CLI, cliEnv, REPO_ROOT } from '../../helpers/server-process.ts';
import { forkHandle } from './fixtures/fork-handle.ts';

// The real server entry (the file the desktop app forks as its utility process), started here as
// a Node child process with an IPC channel in place of Electron's parent port.
const ENTRY = path.join(REPO_ROOT, 'electron', 'server-entry.ts');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'localiq-entry-'));
const children: ChildProcess[] = [];

after(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  fs.rmSync(tmp, { recursive: true, force: true });
});

function supervise(dataDir: string, extra: Record<string, string> = {}) {
  const exits: (number | null)[] = [];
  const tokens: string[] = [];
  const supervisor = new ServerSupervisor({
    // As main.ts does: a fresh sign-in token in the environment of every start.
    spawn: () => {
      const token = mintSignInToken();
      tokens.push(token);
      const env = serverEnvironment(cliEnv(dataDir, extra), { dataDir, token });
      const handle = forkHandle(ENTRY, { env, execArgv: ['--import', 'tsx'] }, children);
      handle.on('exit', (code) => exits.push(code));
      return handle;
    },
    readyTimeoutMs: 45_000,
    maxRestarts: 0,
  });
  return { supervisor, exits, tokens };
}

describe('desktop server entry (real server, real child process)', { timeout: 120_000 }, () => {
  it('reports ready with its URL, keeps acknowledged jobs across a clean stop, and exits 0', async () => {
    const dataDir = path.join(tmp, 'data');
    fs.mkdirSync(dataDir);
    const created = JSON.parse(
      execFileSync(process.execPath, [CLI, 'keys', 'create', '--name', 'Desktop test', '--scopes', 'iq:import,iq:read', '--json'], {
        env: cliEnv(dataDir),
        encoding: 'utf8',
      }),
    ) as { value: string };

    const first = supervise(dataDir);
    const url = await first.supervisor.start();
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const pushed = await fetch(`${url}/ingest`, {
      method: 'POST',
      headers: { 'x-api-key': created.value, 'content-type': 'application/json' },
      body: JSON.stringify({
        integrationId: 'shop',
        knowledgeBaseId: 'main',
        sourceType: 'PRODUCT',
        externalId: 'sku-1',
        data: { title: 'Rain jacket', content: 'Waterproof jacket with taped seams.' },
      }),
    });
    assert.equal(pushed.status, 200);
    assert.equal(((await pushed.json()) as { jobId: string }).jobId, 'shop-sku-1');

    await first.supervisor.stop();
    assert.deepEqual(first.exits, [0], 'the server stopped by itself on the stop message');
    assert.equal(first.supervisor.state.status, 'stopped');
    await assert.rejects(fetch(`${url}/jobs/shop-sku-1`), 'the port is closed after the stop');

    // The next start (the app's next launch) still has the acknowledged job.
    const second = supervise(dataDir);
    const url2 = await second.supervisor.start();
    const job = await fetch(`${url2}/jobs/shop-sku-1`, { headers: { 'x-api-key': created.value } });
    assert.equal(job.status, 200);
    assert.equal(((await job.json()) as { status: string }).status, 'queued');
    await second.supervisor.stop();
    assert.deepEqual(second.exits, [0]);
  });

  it('signs the window in as the Owner with the one-time token of the current start', async () => {
    const dataDir = path.join(tmp, 'data-sign-in');
    fs.mkdirSync(dataDir);
    const { supervisor, tokens } = supervise(dataDir);
    const url = await supervisor.start();
    const setup = await fetch(`${url}/admin/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-localiq-csrf': 'setup' },
      body: JSON.stringify({ username: 'olivia', password: 'correct horse battery' }),
    });
    assert.equal(setup.status, 201);

    const link = signInUrl(url, tokens[0]!);
    const signIn = await fetch(link, { redirect: 'manual' });
    assert.equal(signIn.status, 303);
    assert.equal(signIn.headers.get('location'), '/');
    const cookie = signIn.headers.getSetCookie().find((c) => c.startsWith('localiq_session='))!.split(';')[0]!;
    const session = await fetch(`${url}/admin/api/session`, { headers: { cookie } });
    assert.equal(session.status, 200);
    assert.equal(((await session.json()) as { user: { username: string; role: string } }).user.role, 'owner');

    const reused = await fetch(link, { redirect: 'manual' });
    assert.notEqual(reused.status, 303, 'the link works once');
    await supervisor.stop();
  });

  it('reports why it cannot start (port taken) instead of being restarted', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const dataDir = path.join(tmp, 'data-port');
      fs.mkdirSync(dataDir);
      const { supervisor, exits } = supervise(dataDir, { LOCALIQ_PORT: String(port) });
      await assert.rejects(supervisor.start(), /EADDRINUSE/);
      assert.equal(supervisor.state.status, 'failed');
      assert.deepEqual(exits, [1]);
    } finally {
      blocker.close();
    }
  });
});

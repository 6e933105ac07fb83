import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { appMenuTemplate, type MenuActions } from '../../../electron/app-menu.ts';
import { localServerUrl, mintSignInToken, serverEnvironment, SIGN_IN_TOKEN_ENV, signInUrl } from '../../../electron/desktop-session.ts';
import { logLine, openLogFile } from '../../../electron/log-file.ts';
import { decideNavigation } from '../../../electron/security-rules.ts';
import { escapeHtml, statusPageHtml, statusPageUrl } from '../../../electron/status-page.ts';

describe('desktop sign-in', () => {
  it('mints a fresh 256-bit URL-safe token each time', () => {
    const tokens = new Set(Array.from({ length: 100 }, () => mintSignInToken()));
    assert.equal(tokens.size, 100);
    for (const token of tokens) {
      assert.match(token, /^[A-Za-z0-9_-]{43}$/);
      assert.equal(Buffer.from(token, 'base64url').length, 32);
    }
  });

  it('builds the sign-in link on the server’s own origin, which the window may load', () => {
    const url = signInUrl('http://127.0.0.1:7410', 'abc_-123');
    assert.equal(url, 'http://127.0.0.1:7410/admin/api/session/desktop?token=abc_-123');
    assert.equal(decideNavigation(url, 'http://127.0.0.1:7410'), 'allow');
  });

  it('opens the window on the loopback address when the server listens on every interface', () => {
    assert.equal(localServerUrl('http://127.0.0.1:7410'), 'http://127.0.0.1:7410');
    assert.equal(localServerUrl('http://0.0.0.0:7410'), 'http://127.0.0.1:7410');
    assert.equal(localServerUrl('http://[::]:7410'), 'http://[::1]:7410');
    assert.equal(localServerUrl('http://192.168.1.5:7410'), 'http://192.168.1.5:7410');
  });

  it('gives the server the app’s data folder and this start’s token, keeping the user’s settings', () => {
    const env = serverEnvironment({ PATH: '/bin', LOCALIQ_PORT: '7500', [SIGN_IN_TOKEN_ENV]: 'stale', UNSET: undefined }, { dataDir: '/data', token: 't1' });
    assert.deepEqual(env, { PATH: '/bin', LOCALIQ_PORT: '7500', LOCALIQ_DATA_DIR: '/data', [SIGN_IN_TOKEN_ENV]: 't1' });
    assert.equal(serverEnvironment({ LOCALIQ_DATA_DIR: '/elsewhere' }, { dataDir: '/data', token: 't' }).LOCALIQ_DATA_DIR, '/elsewhere');
  });
});

describe('status page', () => {
  it('escapes the failure reason and paths, and runs no script', () => {
    const reason = '<script>alert(1)</script><img src=x onerror=alert(2)> "quoted" & \'single\'';
    const html = statusPageHtml({ kind: 'failed', reason, logsDir: '/logs/<b>', dataDir: '/data"x' });
    assert.doesNotMatch(html, /<script|<img|onerror=alert\(2\)>/);
    assert.ok(html.includes(escapeHtml(reason)));
    assert.ok(html.includes('/logs/&#60;b&#62;'));
    assert.ok(html.includes('/data&#34;x'));
    assert.match(html, /Content-Security-Policy" content="default-src &#39;none&#39;/);
  });

  it('is a data: URL the window loads directly', () => {
    const url = statusPageUrl({ kind: 'restarting', reason: 'exit code 2', delayMs: 2_000 });
    assert.match(url, /^data:text\/html;charset=utf-8,/);
    const html = decodeURIComponent(url.slice(url.indexOf(',') + 1));
    assert.match(html, /Restarting the LocalIQ server/);
    assert.match(html, /exit code 2/);
    assert.match(html, /in 2 s/);
  });
});

describe('app menu', () => {
  it('offers open dashboard, copy API base URL, open data folder, restart and quit, each wired to its action', () => {
    const called: string[] = [];
    const actions = new Proxy({} as MenuActions, { get: (_t, name: string) => () => called.push(name) });
    const [localiq] = appMenuTemplate(actions, 'linux');
    const items = (localiq!.submenu as { label?: string; click?: () => void }[]).filter((i) => i.label);
    assert.deepEqual(items.map((i) => i.label), ['Open Dashboard', 'Copy API Base URL', 'Open Data Folder', 'Open Logs Folder', 'Restart Server', 'Quit LocalIQ']);
    for (const item of items) item.click!();
    assert.deepEqual(called, ['openDashboard', 'copyApiBaseUrl', 'openDataFolder', 'openLogsFolder', 'restartServer', 'quit']);
  });

  it('keeps the standard Edit menu, so copy and paste work in the dashboard on macOS', () => {
    const template = appMenuTemplate({} as MenuActions, 'darwin');
    assert.ok(template.some((menu) => menu.role === 'editMenu'));
  });
});

describe('log files', () => {
  it('appends, and moves a grown file aside at the next start', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'localiq-logs-'));
    try {
      const write = async (text: string, max: number) => {
        const stream = openLogFile(dir, 'server.log', max);
        logLine(stream, text);
        await new Promise((resolve) => stream.end(resolve));
      };
      await write('first', 1_000);
      await write('second', 1_000);
      assert.match(fs.readFileSync(path.join(dir, 'server.log'), 'utf8'), /first\n.*second\n$/s);
      await write('third', 10);
      assert.match(fs.readFileSync(path.join(dir, 'server.log.1'), 'utf8'), /second/);
      assert.match(fs.readFileSync(path.join(dir, 'server.log'), 'utf8'), /^\S+ third\n$/);
      if (process.platform !== 'win32') assert.equal(fs.statSync(path.join(dir, 'server.log')).mode & 0o777, 0o600);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CLI, cliEnv, REPO_ROOT, type ServerProcess, startServerProcess, waitForExit } from '../helpers/server-process.ts';
import { tempDataDir } from '../helpers/temp-data.ts';
import { launchChromium } from './browser.ts';

export const OWNER = { username: 'olivia', password: 'correct horse battery' };

export type DashboardSessionOptions = {
  /** Extra environment for the server process, on top of a single worker. */
  env?: Record<string, string>;
  /** Creates an API key with the CLI before the browser opens; its value ends up in `apiKey`. */
  apiKey?: { name: string; scopes: string };
  /** Creates the Owner through the first-run form, which signs in; off for tests of that form itself. */
  signInOwner?: boolean;
};

/** Filled in by the before hook, so read its fields inside tests and hooks, not at describe time. */
export type DashboardSession = {
  dataDir: string;
  server: ServerProcess;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  apiKey: string;
  /** Uncaught script errors in the page; a test asserts it stays empty. */
  pageErrors: string[];
};

/**
 * Registers before/after hooks on the enclosing describe: a real server on a temporary data dir
 * and a headless Chromium page on it, torn down afterwards even when the setup failed halfway.
 */
export function useDashboardSession(options: DashboardSessionOptions = {}): DashboardSession {
  const session = { apiKey: '', pageErrors: [] as string[] } as DashboardSession;
  before(async () => {
    assert.ok(fs.existsSync(path.join(REPO_ROOT, 'out/renderer/index.html')), 'build the dashboard first: npx electron-vite build');
    session.dataDir = tempDataDir();
    session.server = await startServerProcess(session.dataDir, { LOCALIQ_WORKERS: '1', ...options.env });
    if (options.apiKey) session.apiKey = createApiKey(session.dataDir, options.apiKey.name, options.apiKey.scopes);
    session.browser = await launchChromium();
    session.context = await session.browser.newContext({ viewport: { width: 1280, height: 900 } });
    session.page = await session.context.newPage();
    session.page.setDefaultTimeout(20_000);
    session.page.on('pageerror', (error) => session.pageErrors.push(error.message));
    if (options.signInOwner) await createOwner(session.page, session.server.url);
  });
  after(async () => {
    await session.browser?.close();
    if (session.server) {
      session.server.child.kill('SIGTERM');
      await waitForExit(session.server.child);
    }
    if (session.dataDir) fs.rmSync(session.dataDir, { recursive: true, force: true });
  });
  return session;
}

/** Goes through the CLI, as an operator would, so the key exists before any page is open. */
function createApiKey(dataDir: string, name: string, scopes: string): string {
  const created = spawnSync(process.execPath, [CLI, 'keys', 'create', '--name', name, '--scopes', scopes, '--json'], {
    env: cliEnv(dataDir),
    encoding: 'utf8',
  });
  assert.equal(created.status, 0, created.stderr);
  return JSON.parse(created.stdout).value as string;
}

/** First run: create the Owner, which signs in. */
async function createOwner(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.getByRole('heading', { name: 'Create the Owner account' }).waitFor();
  await page.getByLabel('Username').fill(OWNER.username);
  await page.getByLabel(/^Password/).fill(OWNER.password);
  await page.getByLabel('Repeat the password').fill(OWNER.password);
  await page.getByRole('button', { name: 'Create Owner and sign in' }).click();
  await page.getByRole('heading', { name: 'Knowledge bases' }).waitFor();
}

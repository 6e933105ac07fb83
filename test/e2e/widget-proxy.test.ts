import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ENGLISH_WIDGET_TEXTS } from '../../common/contract/widget-texts.ts';
import { PROXIES, type RunningProxy, freePort, proxyInstalled, startDocumentedProxy } from '../helpers/documented-proxies.ts';
import { WIDGET_BUNDLE } from '../helpers/fake-widget-api.ts';
import { runCli, type ServerProcess, startServerProcess, waitForExit } from '../helpers/server-process.ts';
import { suiteSkipWhereMissing } from '../helpers/skip-where-missing.ts';
import { tempDataDir } from '../helpers/temp-data.ts';
import { KB, pushBakery } from './bakery.ts';
import { launchChromium } from './browser.ts';
import { until } from './until.ts';

/**
 * The README's website set-up, followed step by step: a widget made for the shop's origin,
 * `localiq serve` with its public listener, nginx and Caddy configured exactly as
 * docs/visitor-assistant.md shows (LocalIQ under `/assistant/`, the shop's own pages beside it),
 * and the snippet `<script src="<shop>/assistant/widget.js" …>` on a shop page. Chromium opens
 * that page and the hosted chat page `<shop>/assistant/w/<id>` through each proxy and asks.
 */

const S = ENGLISH_WIDGET_TEXTS;
const SHOTS = '/tmp/widget-proxy-shots';

/** The shop's own page, with the snippet as README step 4 shows it (the shop's address + /assistant/widget.js). */
function writeShopPage(siteRoot: string, snippetSrc: string, widgetId: string): void {
  fs.writeFileSync(
    path.join(siteRoot, 'index.html'),
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Rye &amp; Co.</title><link rel="icon" href="data:,"></head>' +
      '<body><main><h1>Rye &amp; Co. bakery</h1><p>Fresh bread every morning.</p></main>' +
      `<script src="${snippetSrc}" data-widget="${widgetId}" async></script></body></html>`,
  );
  fs.chmodSync(path.join(siteRoot, 'index.html'), 0o644);
}

describe('the widget behind a proxy path prefix (README steps 1-5, Chromium, real nginx and Caddy)', { timeout: 300_000 }, () => {
  let dataDir = '';
  let server: ServerProcess;
  let publicPort = 0;
  let browser: Browser;
  const pageErrors: string[] = [];

  before(async () => {
    assert.ok(fs.existsSync(WIDGET_BUNDLE), 'out/widget/widget.js exists: run `npm run build` first');
    fs.mkdirSync(SHOTS, { recursive: true });
    dataDir = tempDataDir();
    publicPort = await freePort();
    // README step 2.
    server = await startServerProcess(dataDir, {
      LOCALIQ_WORKERS: '1',
      LOCALIQ_PUBLIC_HOST: '127.0.0.1',
      LOCALIQ_PUBLIC_PORT: String(publicPort),
      LOCALIQ_TRUSTED_PROXY: '127.0.0.1',
    });
    const apiKey = JSON.parse(runCli(dataDir, ['keys', 'create', '--name', 'Shop sync', '--scopes', 'iq:import,iq:read', '--json'])).value as string;
    await pushBakery(server.url, apiKey);
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    if (server) {
      server.child.kill('SIGTERM');
      await waitForExit(server.child);
    }
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    assert.deepEqual(pageErrors, [], 'no uncaught script errors in any page');
  });

  async function visit(url: string): Promise<{ page: Page; warnings: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    const warnings: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'warning') warnings.push(message.text());
    });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(url);
    return { page, warnings };
  }

  const input = (page: Page) => page.getByRole('textbox', { name: S.inputLabel });
  const lastAnswer = (page: Page) => page.locator('localiq-widget .msg.bot').last();

  /** Asks and waits for the answer stream, which must go to the proxy's `/assistant/v1/widget/…`. */
  async function askThrough(page: Page, proxy: RunningProxy, widgetId: string, question: string): Promise<void> {
    const answered = page.waitForResponse((res) => res.url().endsWith(`/v1/widget/${widgetId}/ask`));
    await input(page).fill(question);
    await input(page).press('Enter');
    const response = await answered;
    assert.equal(response.url(), `${proxy.base}/v1/widget/${widgetId}/ask`);
    assert.equal(response.status(), 200);
    assert.match(response.headers()['content-type'] ?? '', /^text\/event-stream/);
    await until(async () => (await lastAnswer(page).innerText()).includes('7 in the morning'), 'the answer names the opening hour', { ms: 60_000, page });
  }

  for (const kind of PROXIES) {
    describe(`behind ${kind}`, () => {
      const skip = suiteSkipWhereMissing(proxyInstalled(kind), `${kind} is not installed (apt-get install -y ${kind}); .ci/run installs it`);
      let proxy: RunningProxy | undefined;
      let widgetId = '';
      let siteRoot = '';

      before(async () => {
        if (skip) return;
        // README step 3, with the shop's pages served beside /assistant/ (readable by nginx's unprivileged workers).
        siteRoot = fs.mkdtempSync(path.join(os.tmpdir(), `localiq-shop-${kind}-`));
        fs.chmodSync(siteRoot, 0o755);
        proxy = await startDocumentedProxy(kind, { upstreamPort: publicPort, siteRoot });
        // README step 1: the widget for the site's address as the browser shows it.
        widgetId = JSON.parse(runCli(dataDir, ['widgets', 'create', '--name', `Shop (${kind})`, '--knowledge-base', KB, '--origin', proxy.origin, '--json'])).id;
        // README step 4.
        writeShopPage(siteRoot, `${proxy.base}/widget.js`, widgetId);
      });
      after(async () => {
        if (proxy) await proxy.stop();
        if (siteRoot) fs.rmSync(siteRoot, { recursive: true, force: true });
      });

      it('the snippet on the shop page loads the widget, which answers a question through the proxy', { skip }, async () => {
        const { page, warnings } = await visit(`${proxy!.origin}/`);
        await page.getByRole('button', { name: S.launcherLabel }).click({ timeout: 30_000 }).catch(async (error: Error) => {
          throw new Error(`no launcher on the shop page (${error.message.split('\n')[0]}); console: ${JSON.stringify(warnings)}`);
        });
        await page.getByRole('dialog', { name: S.title }).waitFor();
        await askThrough(page, proxy!, widgetId, 'When does the bakery open?');
        assert.equal(await lastAnswer(page).getByRole('link', { name: 'Opening hours' }).getAttribute('href'), 'https://shop.example/hours');
        assert.deepEqual(warnings, []);
        await page.screenshot({ path: `${SHOTS}/${kind}-shop-page.png` });
        await page.context().close();
      });

      for (const trailing of ['', '/']) {
        it(`the hosted chat page <shop>/assistant/w/<id>${trailing} answers through the proxy`, { skip }, async () => {
          const { page, warnings } = await visit(`${proxy!.base}/w/${widgetId}${trailing}`);
          await page.getByRole('dialog', { name: S.title }).waitFor({ timeout: 30_000 }).catch(async (error: Error) => {
            throw new Error(`the hosted page shows no chat (${error.message.split('\n')[0]}); console: ${JSON.stringify(warnings)}`);
          });
          await askThrough(page, proxy!, widgetId, 'When does the bakery open?');
          assert.deepEqual(warnings, []);
          await page.screenshot({ path: `${SHOTS}/${kind}-hosted-page${trailing ? '-slash' : ''}.png` });
          await page.context().close();
        });
      }
    });
  }
});

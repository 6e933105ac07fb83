import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { ServerProcess } from '../helpers/server-process.ts';

export type UntilOptions = {
  /** How long to keep asking (default 30 s). */
  ms?: number;
  /** On giving up: the page whose HTML the failure quotes, and where to save its screenshot. */
  page?: Page;
  failureShot?: string;
  /** On giving up: the server whose state and last output the failure quotes. */
  server?: ServerProcess;
};

/** Asks `check` every 50 ms until it holds; fails saying `what` was awaited (and what the page showed). */
export async function until(check: () => Promise<boolean>, what: string, options: UntilOptions = {}): Promise<void> {
  const end = Date.now() + (options.ms ?? 30_000);
  while (!(await check())) {
    if (Date.now() >= end) {
      const { page, failureShot } = options;
      if (page && failureShot) await page.screenshot({ path: failureShot });
      const shows = page ? `; the page shows: ${(await page.evaluate(() => document.body.innerHTML)).slice(0, 3000)}` : '';
      assert.fail(`timed out waiting until ${what}${shows}${serverState(options.server)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function serverState(server: ServerProcess | undefined): string {
  if (!server) return '';
  const { exitCode, signalCode } = server.child;
  const state = exitCode === null && signalCode === null ? 'running' : `ended (${exitCode ?? signalCode})`;
  return `; the server is ${state}, its last output: ${server.output().slice(-3000)}`;
}

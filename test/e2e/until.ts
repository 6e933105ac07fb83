import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';

export type UntilOptions = {
  /** How long to keep asking (default 30 s). */
  ms?: number;
  /** On giving up: the page whose HTML the failure quotes, and where to save its screenshot. */
  page?: Page;
  failureShot?: string;
};

/** Asks `check` every 50 ms until it holds; fails saying `what` was awaited (and what the page showed). */
export async function until(check: () => Promise<boolean>, what: string, options: UntilOptions = {}): Promise<void> {
  const end = Date.now() + (options.ms ?? 30_000);
  while (!(await check())) {
    if (Date.now() >= end) {
      const { page, failureShot } = options;
      if (page && failureShot) await page.screenshot({ path: failureShot });
      const shows = page ? `; the page shows: ${(await page.evaluate(() => document.body.innerHTML)).slice(0, 3000)}` : '';
      assert.fail(`timed out waiting until ${what}${shows}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

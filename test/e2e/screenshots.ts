import type { Page } from 'playwright-core';

/** Full-page screenshots `${prefix}-${width}.png` at each width, from the top, then back at 1280 px. */
export async function shootWidths(page: Page, prefix: string, widths: number[]): Promise<void> {
  for (const width of widths) {
    await page.setViewportSize({ width, height: 900 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: `${prefix}-${width}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

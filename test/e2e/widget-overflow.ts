import type { Page } from 'playwright-core';

/**
 * What in the page's widget sticks out: an element whose content is wider than its box, or that
 * leaves the screen (long texts, such as German ones, must wrap instead). Empty when nothing does.
 */
export function widgetOverflow(page: Page): Promise<string[]> {
  return page.locator('localiq-widget').evaluate((host) => {
    const found: string[] = [];
    const selector = '.launcher, .panel, .head, .head *, .ask, .ask *, .msg, .notice, .sources *, .rate button, .thanks, .offer, .offer-hint, .suggestions *, .handoff, .handoff *, .replies *';
    for (const node of Array.from(host.shadowRoot!.querySelectorAll<HTMLElement>(selector))) {
      const rect = node.getBoundingClientRect();
      if (rect.width === 0) continue;
      const name = `${node.tagName.toLowerCase()}.${node.getAttribute('class') ?? ''}:${(node.textContent ?? '').slice(0, 30)}`;
      if (node.scrollWidth > node.clientWidth + 1) found.push(`${name} overflows its box`);
      if (rect.left < -1 || rect.right > window.innerWidth + 1) found.push(`${name} leaves the screen`);
    }
    return found;
  });
}

import type { AskContext } from '../../common/contract/ask.ts';

/**
 * The page the visitor asks on, sent with each question (`context`) so "how long is this?" is
 * answered about the item the page shows: the item the snippet names (`data-external-id="sku-42"`,
 * or `LocalIQ.setContext({ externalId })` on pages that change it), and the page's address unless
 * the owner turned that off (the widget's `sendPageUrl`). Only the scheme, host and path are sent:
 * LocalIQ ignores the query and the fragment, which may carry a visitor's own data.
 */
export class PageContext {
  private externalId: string | undefined;

  constructor(externalId: string | undefined) {
    this.set({ externalId });
  }

  /** `LocalIQ.setContext`: an empty or missing id forgets the item named before. */
  set(context: { externalId?: string | null | undefined }): void {
    const id = typeof context.externalId === 'string' ? context.externalId.trim() : '';
    this.externalId = id ? id : undefined;
  }

  /** What goes with a question; undefined when there is nothing to say about the page. */
  forAsk(sendPageUrl: boolean): AskContext | undefined {
    const url = sendPageUrl ? pageAddress() : undefined;
    if (url === undefined && this.externalId === undefined) return undefined;
    return { ...(url !== undefined ? { url } : {}), ...(this.externalId !== undefined ? { externalId: this.externalId } : {}) };
  }
}

/** The page's scheme, host and path, or undefined for a page not on http(s) or an address too long to send. */
function pageAddress(): string | undefined {
  if (location.protocol !== 'http:' && location.protocol !== 'https:') return undefined;
  const address = `${location.origin}${location.pathname}`;
  return address.length <= 2_048 ? address : undefined;
}

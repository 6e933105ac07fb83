import type { VisitorProduct, WidgetStrings } from '../../common/contract/widget.ts';
import { webLink } from '../../common/web-link.ts';
import { el } from './dom.ts';

/**
 * The product an answer is about, shown under the answering line: its title (a link to its page
 * when it has one) and its price when known. A visitor reads that faster than a quote. A group
 * named "Product: <title>" in the widget's language, so a screen reader announces what the card is about.
 */
export function productCard(product: VisitorProduct, strings: WidgetStrings): HTMLElement {
  const href = webLink(product.url);
  const title = href ? el('a', { href, target: '_blank', rel: 'noopener noreferrer nofollow' }, product.title) : product.title;
  const card = el('div', { class: 'product', role: 'group', 'aria-label': `${strings.product}: ${product.title}` }, el('p', { class: 'product-title' }, title));
  if (product.price) card.append(el('p', { class: 'product-price' }, product.price));
  return card;
}

/** The card's styles, added to the widget's stylesheet; it wraps rather than overflows at narrow widths. */
export const PRODUCT_CARD_STYLES = `
.product{display:flex;flex-wrap:wrap;align-items:baseline;justify-content:space-between;gap:4px 12px;margin:8px 0 0;padding:8px 10px;border:1px solid #c9ccd1;border-radius:10px;background:#fff}
.product p{margin:0;min-width:0;overflow-wrap:anywhere}
.product-title{font-weight:600}
.product-title a{color:#1a1a1a}
.product-price{color:#1a1a1a;font-variant-numeric:tabular-nums;white-space:nowrap}
`;

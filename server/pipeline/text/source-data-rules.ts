/**
 * What the keys and values of free-form `sourceData` mean: which keys are noise, how a key reads
 * as a label, how prices, stock states and durations are written. Keys are compared in a compact
 * form (lowercase, no separators), so `stock_status`, `stockStatus` and `Stock-Status` are one key.
 */
import type { SourceType } from '../../../common/contract/ingest.ts';
import { cleanLine } from './clean-text.ts';
import { decodeHtmlEntities, hasHtmlEntity, htmlToPlainText, looksLikeHtml } from './html-to-plain-text.ts';

/** Longer strings are blobs or a copy of the body, not a fact worth a line. */
const MAX_VALUE_CHARS = 500;

export function compactKey(key: string): string {
  return key.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}

function keyWords(key: string): string[] {
  return key
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((word) => word.toLowerCase());
}

// Identifiers, links, media, timestamps, secrets and CMS bookkeeping: never useful to a reader.
const NOISE_WORDS = new Set([
  'id', 'ids', 'uuid', 'guid', 'url', 'urls', 'uri', 'href', 'link', 'links', 'permalink', 'slug', 'src',
  'image', 'images', 'img', 'thumbnail', 'thumbnails', 'photo', 'photos', 'avatar', 'icon', 'logo', 'media',
  'hash', 'checksum', 'etag', 'token', 'password', 'secret', 'html', 'css', 'json', 'raw', 'gmt',
  'created', 'updated', 'modified', 'deleted', 'timestamp', 'expires', 'internal', 'debug',
]);
const NOISE_KEYS = new Set([
  'status', 'type', 'template', 'layout', 'visibility', 'catalogvisibility', 'taxstatus', 'taxclass',
  'shippingclass', 'version', 'parent', 'namespace', 'locale', 'lang', 'language', 'format', 'context',
]);
/** Numbers under these keys are sort positions, not facts (a PERSON's `position` text still counts). */
const ORDERING_KEYS = new Set(['position', 'order', 'menuorder', 'sortorder', 'sort', 'rank', 'priority']);

export function isNoiseKey(key: string): boolean {
  if (/^[_@$]/.test(key)) return true;
  const words = keyWords(key);
  if (words.length === 0) return true;
  if (words.at(-1) === 'at' && words.length > 1) return true;
  return NOISE_KEYS.has(compactKey(key)) || words.some((word) => NOISE_WORDS.has(word));
}

export function isOrderingKey(key: string): boolean {
  return ORDERING_KEYS.has(compactKey(key));
}

const LABELS: Record<string, string> = {
  sku: 'SKU', mpn: 'MPN', gtin: 'GTIN', gtin8: 'GTIN', gtin12: 'GTIN', gtin13: 'GTIN', gtin14: 'GTIN',
  ean: 'EAN', upc: 'UPC', isbn: 'ISBN', vat: 'VAT',
  stockstatus: 'Availability', instock: 'Availability', isinstock: 'Availability', available: 'Availability',
  isavailable: 'Availability', stockquantity: 'Stock', inventoryquantity: 'Stock', qty: 'Stock',
  colour: 'Color', jobtitle: 'Role', telephone: 'Phone', tel: 'Phone', phonenumber: 'Phone',
  mail: 'Email', emailaddress: 'Email', pricecurrency: 'Currency',
};

export function labelFor(key: string): string {
  const known = LABELS[compactKey(key)];
  if (known) return known;
  const text = keyWords(key).join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Objects under these keys read best as their values joined: "Main St 1, 10115 Berlin". */
export const ADDRESS_KEYS = new Set(['address', 'location', 'place', 'postaladdress', 'venue']);
export const CURRENCY_KEYS = new Set(['currency', 'currencycode', 'pricecurrency', 'curr']);
export const NAME_KEYS = ['name', 'label', 'title', 'key', 'attribute', 'property', 'displayname'];
export const VALUE_KEYS = ['value', 'values', 'options', 'option', 'text'];
export const AMOUNT_KEYS = ['amount', 'value', 'price'];

export function isPriceKey(key: string): boolean {
  const words = keyWords(key);
  return words.some((word) => word === 'price' || word === 'prices') || ['amount', 'cost', 'fee'].includes(words.at(-1) ?? '');
}

/** Most telling facts first per source type, so the cap on text never drops them. */
const PRIORITY: Record<SourceType, string[]> = {
  PRODUCT: ['price', 'saleprice', 'regularprice', 'sku', 'brand', 'manufacturer', 'vendor', 'category', 'categories', 'stockstatus', 'availability', 'instock', 'stock', 'stockquantity'],
  SERVICE: ['price', 'duration', 'durationminutes', 'location', 'address', 'category', 'categories'],
  PERSON: ['role', 'jobtitle', 'position', 'title', 'department', 'email', 'phone', 'telephone', 'mobile'],
  ARTICLE: ['author', 'category', 'categories', 'tags'],
  PAGE: ['category', 'categories', 'tags'],
};

export function priorityOf(sourceType: SourceType, key: string): number {
  const rank = PRIORITY[sourceType].indexOf(compactKey(key));
  return rank === -1 ? Number.MAX_SAFE_INTEGER : rank;
}

const STOCK_STATES: Record<string, string> = {
  instock: 'In stock', outofstock: 'Out of stock', onbackorder: 'On backorder', backorder: 'On backorder',
  preorder: 'Pre-order', soldout: 'Sold out', limitedavailability: 'Limited availability', discontinued: 'Discontinued',
};
const SCHEMA_ORG_ENUM = /^https?:\/\/schema\.org\/(\w+)$/i;
const URL_LIKE = /^(?:[a-z][a-z\d+.-]*:\/\/|www\.|data:|mailto:|\/\/|\/[\w\-./]*$)/i;
const UUID = /^[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}$/i;
const HEX_DIGEST = /^[\da-f]{16,}$/i;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;
const LONG_UNBROKEN = /^\S{61,}$/;
const ISO_DURATION = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?)?$/;

/** A readable one-line string, or null for values that carry nothing for a reader. */
export function readableString(raw: string): string | null {
  const schemaEnum = SCHEMA_ORG_ENUM.exec(raw.trim());
  const source = schemaEnum ? splitCamelCase(schemaEnum[1]!) : raw;
  const text = cleanLine(looksLikeHtml(source) ? htmlToPlainText(source) : hasHtmlEntity(source) ? decodeHtmlEntities(source) : source);
  if (!text || text.length > MAX_VALUE_CHARS) return null;
  if (URL_LIKE.test(text) || UUID.test(text) || HEX_DIGEST.test(text) || DATE_TIME.test(text) || LONG_UNBROKEN.test(text)) return null;
  return STOCK_STATES[compactKey(text)] ?? isoDuration(text) ?? text;
}

function splitCamelCase(word: string): string {
  const words = keyWords(word).join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function isoDuration(text: string): string | null {
  const match = ISO_DURATION.exec(text);
  if (!match || text === 'P' || text.endsWith('T')) return null;
  const parts = [[match[1], 'day'], [match[2], 'hour'], [match[3], 'minute']] as const;
  return parts
    .filter(([amount]) => amount !== undefined && Number(amount) > 0)
    .map(([amount, unit]) => `${Number(amount)} ${unit}${Number(amount) === 1 ? '' : 's'}`)
    .join(' ') || null;
}

/** Prices keep cents ("19.9" → "19.90") and carry the currency when the number has none. */
export function formatPrice(amount: number | string, currency: string | undefined): string {
  let text = typeof amount === 'number' ? String(amount) : amount.trim();
  if (/^\d+\.\d$/.test(text)) text += '0';
  return currency && /^[\d.,\s-]+$/.test(text) ? `${text} ${currency}` : text;
}

const DURATION_UNITS: Record<string, string> = { minutes: 'minutes', mins: 'minutes', min: 'minutes', hours: 'hours', hrs: 'hours', days: 'days' };

/** `durationMinutes: 60` reads "Duration: 60 minutes" instead of "Duration minutes: 60". */
export function splitUnitFromKey(key: string): { label: string; unit: string } | null {
  const words = keyWords(key);
  const unit = DURATION_UNITS[words.at(-1) ?? ''];
  if (!unit || words.length < 2) return null;
  return { label: labelFor(words.slice(0, -1).join(' ')), unit };
}

const AVAILABILITY_FLAGS = new Set(['instock', 'isinstock', 'available', 'isavailable']);
const YES_FLAGS: Record<string, string> = { onsale: 'On sale', isonsale: 'On sale', freeshipping: 'Free shipping', bookable: 'Bookable online' };

/**
 * Flags that describe the product ("dishwasher_safe", "is_heat_sensitive", "has_lid", "vegan"):
 * a customer asks about them. Most other booleans are CMS switches ("featured", "visible").
 */
const PROPERTY_FLAG = /^(?:is|has|can|contains)(?=\p{Lu}|_|\s|-)|(?:safe|proof|free|friendly|sensitive|resistant|washable|suitable|compatible|included|organic|vegan|vegetarian|handmade|recyclable|refillable|adjustable|waterproof)$/iu;
/** Words of a flag that switches something in a shop system, whatever its prefix ("is_featured"). */
const SWITCH_WORDS = new Set([
  'featured', 'visible', 'published', 'active', 'enabled', 'disabled', 'hidden', 'draft', 'variation', 'taxable', 'virtual',
  'downloadable', 'manage', 'backorders', 'individually', 'allowed', 'purchasable', 'indexed', 'synced', 'new', 'default', 'test',
]);

/** Only flags a customer would ask about become text, as "Label: yes" or "Label: no". */
export function flagLine(key: string, value: boolean): string | null {
  const compact = compactKey(key);
  if (AVAILABILITY_FLAGS.has(compact)) return `Availability: ${value ? 'In stock' : 'Out of stock'}`;
  const label = YES_FLAGS[compact];
  if (label) return value ? `${label}: yes` : null;
  const words = keyWords(key);
  if (!PROPERTY_FLAG.test(key) || words.some((word) => SWITCH_WORDS.has(word))) return null;
  // "is_heat_sensitive" reads "Heat sensitive"; "has_lid" reads "Has lid".
  const shown = words[0] === 'is' && words.length > 1 ? words.slice(1) : words;
  const text = shown.join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}: ${value ? 'yes' : 'no'}`;
}

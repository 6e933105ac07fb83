/**
 * Free-form `sourceData` (price, sku, attributes…) → readable "Label: value" lines that are indexed
 * with the body, so "red shirt under 20 EUR" finds the product whose text never says so.
 * Any JSON shape is accepted; what cannot be read sensibly is left out, never thrown on.
 */
import type { SourceType } from '../../../common/contract/ingest.ts';
import {
  ADDRESS_KEYS, AMOUNT_KEYS, CURRENCY_KEYS, NAME_KEYS, VALUE_KEYS,
  compactKey, flagLine, formatPrice, isNoiseKey, isOrderingKey, isPriceKey, labelFor, priorityOf,
  readableString, splitUnitFromKey,
} from './source-data-rules.ts';

const MAX_LINES = 40;
const MAX_CHARS = 2_000;
const MAX_DEPTH = 5;
const MAX_ARRAY_ITEMS = 20;
/** Bounds the walk of a 64 KB object whatever its shape. */
const MAX_VISITS = 2_000;

type JsonObject = Record<string, unknown>;
type Line = { text: string; rank: number };

/** Lines describing `sourceData`, most telling first, deduplicated and capped in size. */
export function sourceDataLines(sourceType: SourceType, sourceData: unknown, title: string): string[] {
  if (!isObject(sourceData)) return [];
  const walker = new SourceDataWalker(sourceType, title);
  walker.object('', sourceData, undefined, 0, Number.MAX_SAFE_INTEGER);
  return walker.result();
}

class SourceDataWalker {
  private readonly lines: Line[] = [];
  private visits = 0;
  private readonly titleKey: string;

  constructor(
    private readonly sourceType: SourceType,
    title: string,
  ) {
    this.titleKey = title.toLowerCase();
  }

  result(): string[] {
    const seen = new Set<string>();
    const ordered = this.lines.sort((a, b) => a.rank - b.rank).map((line) => line.text);
    const kept: string[] = [];
    let chars = 0;
    for (const text of ordered) {
      if (seen.has(text) || kept.length >= MAX_LINES || chars + text.length > MAX_CHARS) continue;
      seen.add(text);
      kept.push(text);
      chars += text.length + 1;
    }
    return kept;
  }

  /** `rank` is inherited from the top-level key, so `offers.price` sorts like `price`. */
  value(key: string, value: unknown, currency: string | undefined, depth: number, rank: number): void {
    if (++this.visits > MAX_VISITS || depth > MAX_DEPTH || isNoiseKey(key)) return;
    const ownRank = Math.min(rank, priorityOf(this.sourceType, key));
    if (typeof value === 'string') this.scalar(key, value, currency, ownRank);
    else if (typeof value === 'number' && Number.isFinite(value)) this.scalar(key, value, currency, ownRank);
    else if (typeof value === 'boolean') this.push(flagLine(key, value), ownRank);
    else if (Array.isArray(value)) this.array(key, value, currency, depth, ownRank);
    else if (isObject(value)) this.object(key, value, currency, depth, ownRank);
  }

  object(key: string, object: JsonObject, inherited: string | undefined, depth: number, rank: number): void {
    const currency = currencyOf(object) ?? inherited;
    const amount = AMOUNT_KEYS.map((k) => object[k]).find(isAmount);
    if (key && isPriceKey(key) && amount !== undefined) return this.push(`${labelFor(key)}: ${formatPrice(amount, currency)}`, rank);
    if (key && this.pair(object, rank)) return;
    const name = onlyName(object);
    if (key && name !== null) return this.scalar(key, name, currency, rank);
    if (ADDRESS_KEYS.has(compactKey(key))) return this.joinedValues(key, object, rank);
    for (const [childKey, child] of Object.entries(object)) {
      if (!CURRENCY_KEYS.has(compactKey(childKey))) this.value(childKey, child, currency, depth + 1, rank);
    }
  }

  private array(key: string, items: unknown[], currency: string | undefined, depth: number, rank: number): void {
    const names: string[] = [];
    for (const item of items.slice(0, MAX_ARRAY_ITEMS)) {
      if (typeof item === 'string' || typeof item === 'number') {
        const text = typeof item === 'number' ? String(item) : readableString(item);
        if (text) names.push(text);
      } else if (isObject(item)) {
        const name = onlyName(item);
        if (name !== null) names.push(name);
        else if (!this.pair(item, rank)) this.object(key, item, currency, depth + 1, rank);
      } else if (Array.isArray(item)) {
        this.array(key, item, currency, depth + 1, rank);
      }
    }
    if (names.length > 0) this.push(`${labelFor(key)}: ${names.join(', ')}`, rank);
  }

  /** `{name: 'Color', value: 'Red'}` and its many spellings become "Color: Red". */
  private pair(object: JsonObject, rank: number): boolean {
    const name = NAME_KEYS.map((k) => object[k]).find((v): v is string => typeof v === 'string');
    const valueKey = VALUE_KEYS.find((k) => object[k] !== undefined && object[k] !== null);
    if (name === undefined || valueKey === undefined || !isPairShaped(object)) return false;
    if (isNoiseKey(name)) return true;
    const raw = object[valueKey];
    const values = (Array.isArray(raw) ? raw.slice(0, MAX_ARRAY_ITEMS) : [raw]).map(scalarText).filter((v) => v !== null);
    // Attribute names are usually written for people ("Pattern Type"); machine keys ("care_info") are not.
    const label = /\s|^\p{Lu}/u.test(name) ? readableString(name) : labelFor(name);
    if (label && values.length > 0) this.push(`${label}: ${values.join(', ')}`, rank);
    return true;
  }

  private joinedValues(key: string, object: JsonObject, rank: number): void {
    const parts = Object.entries(object)
      .filter(([k]) => !isNoiseKey(k))
      .map(([, v]) => scalarText(v))
      .filter((v) => v !== null);
    if (parts.length > 0) this.push(`${labelFor(key)}: ${parts.join(', ')}`, rank);
  }

  private scalar(key: string, value: string | number, currency: string | undefined, rank: number): void {
    if (typeof value === 'number' && isOrderingKey(key)) return;
    if (isPriceKey(key) && isAmount(value)) return this.push(`${labelFor(key)}: ${formatPrice(value, currency)}`, rank);
    const text = scalarText(value);
    if (text === null || text.toLowerCase() === this.titleKey) return;
    const withUnit = splitUnitFromKey(key);
    this.push(withUnit ? `${withUnit.label}: ${text} ${withUnit.unit}` : `${labelFor(key)}: ${text}`, rank);
  }

  private push(text: string | null, rank: number): void {
    if (text) this.lines.push({ text, rank });
  }
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isAmount(value: unknown): value is number | string {
  return (typeof value === 'number' && Number.isFinite(value)) || (typeof value === 'string' && /^\s*\d[\d.,]*\s*$/.test(value));
}

function scalarText(value: unknown): string | null {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : null;
  return typeof value === 'string' ? readableString(value) : null;
}

function currencyOf(object: JsonObject): string | undefined {
  for (const [key, value] of Object.entries(object)) {
    if (CURRENCY_KEYS.has(compactKey(key)) && typeof value === 'string' && /^\S{1,5}$/.test(value.trim())) return value.trim();
  }
  return undefined;
}

/** Nothing but a name, a value and bookkeeping (ids, flags, sort positions): not a record of its own. */
function isPairShaped(object: JsonObject): boolean {
  return Object.entries(object).every(
    ([key, value]) =>
      NAME_KEYS.includes(key) ||
      VALUE_KEYS.includes(key) ||
      isNoiseKey(key) ||
      typeof value === 'boolean' ||
      (typeof value === 'number' && isOrderingKey(key)),
  );
}

/** The name of an object that is only a named reference: `{id: 7, name: 'Acme', slug: 'acme'}`. */
function onlyName(object: JsonObject): string | null {
  const meaningful = Object.entries(object).filter(([key, value]) => !isNoiseKey(key) && value !== null && value !== '');
  const [entry] = meaningful;
  if (meaningful.length !== 1 || !entry || !NAME_KEYS.includes(compactKey(entry[0]))) return null;
  return typeof entry[1] === 'string' ? readableString(entry[1]) : null;
}

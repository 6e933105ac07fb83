/**
 * The product-QA data of `../shared/eval/product-qa` (hetPQA evidence ranking, semiPQA attribute
 * ranking) as a shop's catalogue: one PRODUCT item per product (asin), its attribute candidates as `sourceData` and its
 * text candidates (bullets, description, on-site publications, reviews, community answers) as the
 * item's paragraphs; and its questions, each with the product's candidates labelled answering or
 * not. Products are split into a calibration and a report fold by a stable hash of the asin, so
 * no product (and none of its questions) is in both. Pure functions of the rows read.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { EVAL_DIR, readJsonl } from '../lib/server-child.ts';

export const PRODUCT_QA_DIR = path.join(EVAL_DIR, 'product-qa');
export const PRODUCT_QA_KB = 'product-qa';
/** semiPQA's products, in a knowledge base of their own so hetPQA's figures stay comparable. */
export const ATTRIBUTE_QA_KB = 'product-qa-attributes';
/** Percent of the products (by hash) whose questions are reported; the rest calibrate. */
export const REPORT_PERCENT = 20;

export type EvidenceRow = { qid: string; asin: string; question: string; candidate: string; label: 0 | 1; source: string };
export type Candidate = { text: string; source: string; label: 0 | 1 };
export type ProductQuestion = { qid: string; asin: string; question: string; candidates: Candidate[]; answerable: boolean };
export type ProductItem = {
  externalId: string;
  sourceType: 'PRODUCT';
  title: string;
  content: string;
  url: string;
  sourceData: Record<string, string | boolean>;
};
export type Fold = 'report' | 'calibration';

/** The fold of a product: the first four bytes of sha256(asin), as a percentile, below REPORT_PERCENT is reported. */
export function foldOf(asin: string): Fold {
  const bucket = createHash('sha256').update(asin).digest().readUInt32BE(0) % 100;
  return bucket < REPORT_PERCENT ? 'report' : 'calibration';
}

export function readEvidence(file = path.join(PRODUCT_QA_DIR, 'hetpqa-evidence-dev.jsonl')): EvidenceRow[] {
  return readJsonl<EvidenceRow>(file);
}

/**
 * semiPQA's attribute questions as evidence rows: each question names no product, only the
 * attributes of the one it was asked about, so each question is a product of its own
 * (`semipqa-<qid>`) whose content is its attribute candidates.
 */
export function readSemiPqa(file = path.join(PRODUCT_QA_DIR, 'semipqa-attributes.jsonl')): EvidenceRow[] {
  return readJsonl<{ qid: string; question: string; candidate: string; label: 0 | 1 }>(file).map((r) => ({
    qid: `semipqa-${r.qid}`,
    asin: `semipqa-${r.qid}`,
    question: r.question,
    candidate: r.candidate,
    label: r.label,
    source: 'attribute',
  }));
}

/** Each question once, with its candidates; answerable when one of them is labelled answering. */
export function questionsOf(rows: EvidenceRow[]): ProductQuestion[] {
  const byQid = new Map<string, ProductQuestion>();
  for (const row of rows) {
    let q = byQid.get(row.qid);
    if (!q) byQid.set(row.qid, (q = { qid: row.qid, asin: row.asin, question: row.question, candidates: [], answerable: false }));
    q.candidates.push({ text: row.candidate, source: row.source, label: row.label });
    if (row.label === 1) q.answerable = true;
  }
  return [...byQid.values()];
}

/**
 * One item per product: every distinct candidate of its questions. Attributes become `sourceData`
 * (key → readable value, as a shop's feed sends them), text candidates the content, one paragraph
 * each, bullets as "- " lines, as the data holds them (lower case). The data has no product names:
 * the title is the product's code.
 */
export function productItems(rows: EvidenceRow[]): ProductItem[] {
  const byAsin = new Map<string, { texts: Map<string, string>; attributes: Map<string, Array<string | boolean>> }>();
  for (const row of rows) {
    let p = byAsin.get(row.asin);
    if (!p) byAsin.set(row.asin, (p = { texts: new Map(), attributes: new Map() }));
    if (row.source === 'attribute') {
      const attribute = parseAttribute(row.candidate);
      // A key twice (a few semiPQA products list one attribute in two candidates): every value, once.
      if (attribute) p.attributes.set(attribute.key, [...new Set([...(p.attributes.get(attribute.key) ?? []), attribute.value])]);
    } else if (!p.texts.has(row.candidate)) {
      p.texts.set(row.candidate, row.source === 'bullet' ? `- ${row.candidate.trim()}` : row.candidate.trim());
    }
  }
  return [...byAsin.entries()].map(([asin, p]) => ({
    externalId: asin,
    sourceType: 'PRODUCT',
    title: `Product ${asin}`,
    content: [...p.texts.values()].join('\n\n') || `Product ${asin}`,
    url: productUrl(asin),
    sourceData: Object.fromEntries([...p.attributes].map(([key, values]) => [key, values.length === 1 ? values[0]! : values.map(String).join(', ')])),
  }));
}

export function productUrl(asin: string): string {
  return `https://shop.example.com/products/${asin.toLowerCase()}`;
}

/**
 * An attribute candidate (`compatible_devices:  { value:"apple ipad 3" }; { value:"apple ipad" }`,
 * `item_weight: { unit:pounds, normalized_value:{…}, value:13. }`) as its key and a readable value
 * ("apple ipad 3, apple ipad"; "13 pounds"; true/false). Null when nothing readable is left.
 */
export function parseAttribute(candidate: string): { key: string; value: string | boolean } | null {
  const colon = candidate.indexOf(':');
  if (colon <= 0) return null;
  const key = candidate.slice(0, colon).trim();
  const parser = new BraceParser(candidate.slice(colon + 1));
  const values: string[] = [];
  for (const group of parser.groups()) {
    const text = readable(group);
    if (text !== '') values.push(text);
  }
  if (values.length === 0) return null;
  if (values.length === 1 && (values[0] === 'true' || values[0] === 'false')) return { key, value: values[0] === 'true' };
  return { key, value: [...new Set(values)].join(', ') };
}

type Value = string | Value[] | { [field: string]: Value };

/** A value of one `{ … }` group: its own `value` (with its `unit`), else its fields' values by name. */
function readable(v: Value): string {
  if (typeof v === 'string') return v.replace(/_/g, ' ').replace(/^(-?\d+)\.$/, '$1');
  if (Array.isArray(v)) return v.map(readable).filter(Boolean).join(', ');
  if ('value' in v) {
    const value = readable(v.value!);
    const unit = typeof v.unit === 'string' ? ` ${readable(v.unit)}` : '';
    return value === '' ? '' : `${value}${unit}`;
  }
  return Object.entries(v)
    .filter(([field]) => field !== 'normalized_value' && field !== 'standardized_values' && field !== 'language_tag')
    .map(([field, inner]) => {
      const text = readable(inner);
      return text === '' ? '' : `${field.replace(/_/g, ' ')} ${text}`;
    })
    .filter(Boolean)
    .join(', ');
}

/** The attribute notation of the data: `{ k:v, k:{…}, k:[ "a", "b" ] }` groups joined by `;`. */
class BraceParser {
  private i = 0;
  constructor(private readonly s: string) {}

  *groups(): Generator<Value> {
    for (;;) {
      this.skip();
      if (this.i >= this.s.length) return;
      if (this.s[this.i] === '{') yield this.object();
      else this.i++; // ";" between groups, or stray text
    }
  }

  private skip(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i]!)) this.i++;
  }

  private object(): Value {
    const out: Record<string, Value> = {};
    this.i++; // {
    for (;;) {
      this.skip();
      if (this.i >= this.s.length) return out;
      if (this.s[this.i] === '}') {
        this.i++;
        return out;
      }
      if (this.s[this.i] === ',') {
        this.i++;
        continue;
      }
      const colon = this.s.indexOf(':', this.i);
      if (colon < 0) {
        this.i = this.s.length;
        return out;
      }
      const field = this.s.slice(this.i, colon).trim();
      this.i = colon + 1;
      out[field] = this.value();
    }
  }

  private value(): Value {
    this.skip();
    const c = this.s[this.i];
    if (c === '{') return this.object();
    if (c === '[') {
      this.i++;
      const items: Value[] = [];
      for (;;) {
        this.skip();
        if (this.i >= this.s.length) return items;
        if (this.s[this.i] === ']') {
          this.i++;
          return items;
        }
        if (this.s[this.i] === ',') {
          this.i++;
          continue;
        }
        items.push(this.value());
      }
    }
    if (c === '"') {
      const end = this.s.indexOf('"', this.i + 1);
      const text = this.s.slice(this.i + 1, end < 0 ? undefined : end);
      this.i = end < 0 ? this.s.length : end + 1;
      return text;
    }
    const start = this.i;
    while (this.i < this.s.length && !',}]'.includes(this.s[this.i]!)) this.i++;
    return this.s.slice(start, this.i).trim();
  }
}

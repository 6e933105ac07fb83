import type { SourceType } from '../../../../common/contract/ingest.ts';
import type { ImportFormat } from '../../../../common/import/formats.ts';
import type { ByteSource } from './file-records.ts';
import { openRecords } from './file-records.ts';

/** How many records are read to list a JSON file's keys (CSV has its header). */
const SAMPLE_RECORDS = 50;

/**
 * The columns a mapping can use: the CSV header, or the keys of the first JSON records, nested
 * objects one level deep as `a.b` (mapRecord reads dotted paths).
 */
export async function readColumns(file: ByteSource, format: ImportFormat): Promise<string[]> {
  const columns = new Set<string>();
  const reader = openRecords(file, format);
  let seen = 0;
  for await (const read of reader.records) {
    if ('error' in read) continue;
    for (const [key, value] of Object.entries(read.record)) {
      columns.add(key);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        for (const inner of Object.keys(value)) columns.add(`${key}.${inner}`);
      }
    }
    // A CSV's first record already carries every header column.
    if (format === 'csv' || ++seen >= SAMPLE_RECORDS) break;
  }
  await reader.records.return(undefined);
  return [...columns];
}

const GUESSES: Record<'externalId' | 'title' | 'content' | 'url', string[]> = {
  externalId: ['externalid', 'external_id', 'id', 'sku', 'slug', 'key'],
  title: ['title', 'name', 'question', 'subject', 'headline'],
  content: ['content', 'description', 'body', 'text', 'answer', 'answers', 'summary'],
  url: ['url', 'link', 'href', 'permalink'],
};

/** A first mapping from common column names; the user adjusts it. */
export function guessMapping(columns: string[]): Partial<Record<keyof typeof GUESSES, string>> {
  const lower = new Map(columns.map((c) => [c.toLowerCase(), c]));
  const out: Partial<Record<keyof typeof GUESSES, string>> = {};
  for (const [field, names] of Object.entries(GUESSES) as Array<[keyof typeof GUESSES, string[]]>) {
    const hit = names.map((n) => lower.get(n)).find((c) => c !== undefined);
    if (hit) out[field] = hit;
  }
  return out;
}

/** Columns and file names that say what kind of item a row is; the first kind that matches wins. */
const KINDS: Array<{ sourceType: SourceType; columns: string[]; fileWords: string[] }> = [
  { sourceType: 'PRODUCT', columns: ['price', 'sku', 'stock', 'ean', 'gtin', 'brand', 'regular_price', 'sale_price'], fileWords: ['product', 'catalog', 'catalogue', 'shop'] },
  { sourceType: 'SERVICE', columns: ['duration'], fileWords: ['service'] },
  { sourceType: 'PERSON', columns: ['email', 'phone', 'first_name', 'last_name'], fileWords: ['people', 'person', 'staff', 'team', 'employee', 'contact'] },
  { sourceType: 'PAGE', columns: [], fileWords: ['page'] },
];

/**
 * A first target for a chosen file: the source type its columns or name suggest (ARTICLE when
 * nothing does), the knowledge base when only one exists (else the user picks), and an
 * integration named after the file without a trailing date or number, so next month's export
 * `products-2026-12.csv` lands on the same items as `products-2026-11.csv`.
 */
export function guessTarget(fileName: string, columns: string[], knowledgeBases: string[]): { sourceType: SourceType; knowledgeBaseId: string; integrationId: string } {
  const lowerColumns = new Set(columns.map((c) => c.toLowerCase()));
  const stem = fileName.replace(/\.[^.]*$/, '').toLowerCase();
  const kind = KINDS.find((k) => k.columns.some((c) => lowerColumns.has(c))) ?? KINDS.find((k) => k.fileWords.some((w) => stem.includes(w)));
  const integrationId = stem
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/(-\d+)+-?$/, '')
    .replace(/^-+|-+$/g, '');
  return {
    sourceType: kind?.sourceType ?? 'ARTICLE',
    knowledgeBaseId: knowledgeBases.length === 1 ? knowledgeBases[0]! : '',
    integrationId: integrationId || 'import',
  };
}

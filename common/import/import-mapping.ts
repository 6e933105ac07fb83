import { z } from 'zod';
import { type IngestItem, ingestItemSchema, PRIORITIES, sourceTypeSchema } from '../contract/ingest.ts';
import { identifier } from '../contract/text-rules.ts';

/**
 * Turning one record of an imported file (a CSV row, a JSON object) into an ingest item.
 * Pure and free of Node APIs: the CLI and the dashboard's import view share it, and both
 * validate with the very schema the server applies to `/ingest/bulk`.
 */

/** Which column (or JSON key, `a.b` for nested keys) feeds each item field. */
export const importMappingSchema = z.strictObject({
  externalId: z.string().min(1).describe('Column holding the item id in the source system.'),
  content: z.string().min(1).describe('Column holding the searchable text.'),
  title: z.string().min(1).optional(),
  url: z.string().min(1).optional(),
  hash: z.string().min(1).optional().describe('Column holding a caller-computed content hash.'),
  /** sourceData key → column. */
  sourceData: z.record(z.string().min(1), z.string().min(1)).optional(),
});
export type ImportMapping = z.infer<typeof importMappingSchema>;

/** Where the mapped items go: the same for every row of one import. */
export const importTargetSchema = z.strictObject({
  integrationId: identifier(),
  knowledgeBaseId: identifier(),
  sourceType: sourceTypeSchema,
  priority: z.enum(PRIORITIES).optional(),
  forceRefresh: z.boolean().optional(),
});
export type ImportTarget = z.infer<typeof importTargetSchema>;

export type ImportRecord = Record<string, unknown>;
export type RowError = { row: number; reason: string; externalId?: string };
/** `titleFromContent`: the row had no title, so the item's title is the start of its content. */
export type MapResult = { item: IngestItem; titleFromContent: boolean } | { error: RowError };

/** How long a title taken from the content may be before it is cut at a word. */
const DERIVED_TITLE_LENGTH = 80;

/**
 * A title for a row without one: the first line of its content (tags left out), cut at a word
 * near 80 characters. A list of items with blank titles cannot be told apart.
 */
export function titleFromContent(content: string): string {
  const line = content
    .replace(/<[^>]*>/g, ' ')
    .split(/\n/)
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .find((l) => l !== '') ?? '';
  if (line.length <= DERIVED_TITLE_LENGTH) return line;
  const cut = line.slice(0, DERIVED_TITLE_LENGTH);
  const atWord = cut.lastIndexOf(' ');
  return `${(atWord > DERIVED_TITLE_LENGTH / 2 ? cut.slice(0, atWord) : cut).trimEnd()}…`;
}

const FIELDS = ['externalId', 'content', 'title', 'url', 'hash'] as const;

/**
 * Parses the compact form `title=question,content=answer,sourceData.price=price`.
 * Throws an Error whose message names the offending part.
 */
export function parseMappingSpec(spec: string): ImportMapping {
  const mapping: Record<string, unknown> = {};
  const sourceData: Record<string, string> = {};
  for (const part of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0 || eq === part.length - 1) throw new Error(`"${part}" is not field=column.`);
    const field = part.slice(0, eq).trim();
    const column = part.slice(eq + 1).trim();
    if (field.startsWith('sourceData.') && field.length > 'sourceData.'.length) {
      sourceData[field.slice('sourceData.'.length)] = column;
    } else if ((FIELDS as readonly string[]).includes(field)) {
      if (field in mapping) throw new Error(`"${field}" is mapped twice.`);
      mapping[field] = column;
    } else {
      throw new Error(`"${field}" is not an item field (${FIELDS.join(', ')}, sourceData.<key>).`);
    }
  }
  if (Object.keys(sourceData).length) mapping.sourceData = sourceData;
  return parseMapping(mapping);
}

/** Validates a mapping object (e.g. read from a mapping file); throws with every problem named. */
export function parseMapping(value: unknown): ImportMapping {
  const parsed = importMappingSchema.safeParse(value);
  if (!parsed.success) {
    throw new Error(`Invalid mapping: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(mapping)'}: ${i.message}`).join('; ')}`);
  }
  return parsed.data;
}

/** A record's value for a column: the exact key first, then a dotted path into nested objects. */
export function readColumn(record: ImportRecord, column: string): unknown {
  if (Object.hasOwn(record, column)) return record[column];
  let value: unknown = record;
  for (const key of column.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Text fields take strings, numbers and booleans as text; a list of texts becomes paragraphs. */
function asText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number')) {
    return value.map(String).join('\n\n');
  }
  return undefined;
}

/** Ids trimmed so a stray space in a spreadsheet does not create a second item. */
function asId(value: unknown): string | undefined {
  const text = asText(value);
  return text === undefined ? undefined : text.trim();
}

/**
 * Maps one record to an item validated by the ingest schema, or to the reason it cannot be one.
 * Empty cells of optional fields are left out (CSV has no null); an empty or unmapped title is
 * taken from the content (titleFromContent), and the result says so.
 */
export function mapRecord(record: ImportRecord, mapping: ImportMapping, target: ImportTarget, row: number): MapResult {
  const problems: string[] = [];
  const externalId = asId(readColumn(record, mapping.externalId));
  if (!externalId) problems.push(`externalId: column "${mapping.externalId}" is empty or missing`);

  const pick = (field: 'content' | 'title' | 'url' | 'hash'): string | undefined => {
    const column = mapping[field];
    if (!column) return undefined;
    const raw = readColumn(record, column);
    const text = asText(raw);
    if (raw !== undefined && raw !== null && text === undefined) problems.push(`${field}: column "${column}" is not text`);
    return field === 'url' || field === 'hash' ? text?.trim() || undefined : text;
  };
  const content = pick('content');
  if (!content?.trim()) problems.push(`content: column "${mapping.content}" is empty or missing`);
  const title = pick('title');
  const url = pick('url');
  const hash = pick('hash');

  let sourceData: Record<string, unknown> | undefined;
  for (const [key, column] of Object.entries(mapping.sourceData ?? {})) {
    const value = readColumn(record, column);
    if (value === undefined || value === null || value === '') continue;
    (sourceData ??= {})[key] = value;
  }

  if (problems.length) return { error: { row, reason: problems.join('; '), ...(externalId ? { externalId } : {}) } };

  const candidate = {
    integrationId: target.integrationId,
    knowledgeBaseId: target.knowledgeBaseId,
    sourceType: target.sourceType,
    externalId,
    data: {
      title: title?.trim() || titleFromContent(content!),
      content,
      ...(url ? { url } : {}),
      ...(sourceData ? { sourceData } : {}),
      ...(hash ? { hash } : {}),
    },
    ...(target.priority || target.forceRefresh
      ? { options: { ...(target.priority ? { priority: target.priority } : {}), ...(target.forceRefresh ? { forceRefresh: true } : {}) } }
      : {}),
  };
  const parsed = ingestItemSchema.safeParse(candidate);
  if (!parsed.success) {
    const reason = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    return { error: { row, reason, ...(externalId ? { externalId } : {}) } };
  }
  return { item: parsed.data, titleFromContent: !title?.trim() };
}

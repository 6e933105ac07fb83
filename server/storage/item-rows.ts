import type { SourceType } from '../../common/contract/ingest.ts';
import type { ItemRecord } from '../domain/item-record.ts';

/** A row of the items table (migration 1; `indexing` since migration 28). */
export type ItemRow = {
  id: number;
  knowledge_base_id: string;
  integration_id: string;
  external_id: string;
  source_type: string;
  title: string;
  content: string;
  text: string;
  url: string | null;
  source_data: string | null;
  content_hash: string;
  chunk_count: number;
  embedder_id: string;
  indexing: 'text' | 'complete';
  created_at: number;
  updated_at: number;
  original_sha256: string | null;
};

/** An item's summary columns under their record's names (domain/item-record.ts ItemSummary). */
export const ITEM_SUMMARY_COLUMNS =
  'id, knowledge_base_id AS knowledgeBaseId, integration_id AS integrationId, external_id AS externalId, ' +
  'source_type AS sourceType, title, url, updated_at AS updatedAt, chunk_count AS chunkCount';

/** The stored `sourceData` (JSON of an object, as the pipeline writes it), or null for anything else. */
export function parseSourceData(json: string | null): Record<string, unknown> | null {
  if (!json) return null;
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch {
    return null;
  }
  return typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : null;
}

/** An items row as the domain sees it. */
export function toItemRecord(row: ItemRow): ItemRecord {
  return {
    id: row.id,
    knowledgeBaseId: row.knowledge_base_id,
    integrationId: row.integration_id,
    externalId: row.external_id,
    sourceType: row.source_type as SourceType,
    title: row.title,
    content: row.content,
    text: row.text,
    url: row.url,
    sourceData: parseSourceData(row.source_data),
    contentHash: row.content_hash,
    chunkCount: row.chunk_count,
    embedderId: row.embedder_id,
    indexing: row.indexing,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    originalSha256: row.original_sha256,
  };
}

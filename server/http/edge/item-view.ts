import type { SourceType } from '../../../common/contract/ingest.ts';
import type { ItemReadRepo, ItemRow } from '../../storage/item-read-repo.ts';
import { isoTime } from './iso-time.ts';

type SummaryFields = Pick<ItemRow, 'knowledge_base_id' | 'integration_id' | 'external_id' | 'source_type' | 'title' | 'url' | 'updated_at'>;

/** An item as lists show it, in the API and in the dashboard. */
export function itemSummaryView(row: SummaryFields) {
  return {
    knowledgeBaseId: row.knowledge_base_id,
    integrationId: row.integration_id,
    externalId: row.external_id,
    sourceType: row.source_type as SourceType,
    title: row.title,
    url: row.url,
    updatedAt: isoTime(row.updated_at),
  };
}

/** An indexed item with its content and chunks, as `GET /items/…` and the dashboard show it. */
export function indexedItemView(row: ItemRow, reader: ItemReadRepo) {
  return {
    ...itemSummaryView(row),
    content: row.content,
    text: row.text,
    sourceData: row.source_data ? (JSON.parse(row.source_data) as Record<string, unknown>) : null,
    contentHash: row.content_hash,
    embedder: row.embedder_id,
    indexing: row.indexing,
    createdAt: isoTime(row.created_at),
    chunks: reader.chunks(row.id).map((c) => ({
      id: c.id,
      position: c.position,
      text: c.text,
      tokenCount: c.token_count,
      ...(c.page !== null ? { page: c.page } : {}),
      ...(c.section !== null ? { section: c.section } : {}),
    })),
  };
}

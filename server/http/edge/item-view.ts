import type { ItemRecord, ItemSummary } from '../../domain/item-record.ts';
import type { ItemReadRepo } from '../../storage/item-read-repo.ts';
import { isoTime } from './iso-time.ts';

type SummaryFields = Omit<ItemSummary, 'id' | 'chunkCount'>;

/** An item as lists show it, in the API and in the dashboard. */
export function itemSummaryView(row: SummaryFields) {
  return {
    knowledgeBaseId: row.knowledgeBaseId,
    integrationId: row.integrationId,
    externalId: row.externalId,
    sourceType: row.sourceType,
    title: row.title,
    url: row.url,
    updatedAt: isoTime(row.updatedAt),
  };
}

/** An indexed item with its content and chunks, as `GET /items/…` and the dashboard show it. */
export function indexedItemView(row: ItemRecord, reader: ItemReadRepo) {
  return {
    ...itemSummaryView(row),
    content: row.content,
    text: row.text,
    sourceData: row.sourceData,
    contentHash: row.contentHash,
    embedder: row.embedderId,
    indexing: row.indexing,
    createdAt: isoTime(row.createdAt),
    chunks: reader.chunks(row.id).map((c) => ({
      id: c.id,
      position: c.position,
      text: c.text,
      tokenCount: c.tokenCount,
      ...(c.page !== null ? { page: c.page } : {}),
      ...(c.section !== null ? { section: c.section } : {}),
    })),
  };
}

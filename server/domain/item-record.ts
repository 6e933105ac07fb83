import type { SourceType } from '../../common/contract/ingest.ts';
import type { ItemIdentity } from './job-record.ts';

/**
 * An indexed item as the domain sees it (storage maps its rows to these at its edge). Times in
 * milliseconds since the epoch.
 */
export type ItemRecord = ItemIdentity & {
  id: number;
  sourceType: SourceType;
  title: string;
  /** As pushed (HTML or plain text). */
  content: string;
  /** The normalised text that was chunked and indexed. */
  text: string;
  url: string | null;
  /** The pushed `sourceData`, or null (also when none was pushed). */
  sourceData: Record<string, unknown> | null;
  contentHash: string;
  chunkCount: number;
  embedderId: string;
  /** 'text' while its chunks wait for their vectors (keyword search finds it already), then 'complete'. */
  indexing: 'text' | 'complete';
  createdAt: number;
  updatedAt: number;
  /** SHA-256 of the uploaded file it was extracted from (files as knowledge), else null. */
  originalSha256: string | null;
};

/** What search results, lists and citations need of an item. */
export type ItemSummary = Pick<
  ItemRecord,
  'id' | 'knowledgeBaseId' | 'integrationId' | 'externalId' | 'sourceType' | 'title' | 'url' | 'updatedAt' | 'chunkCount'
>;

/** The item an ask's context names, with what its product card shows. */
export type ContextItem = ItemSummary & Pick<ItemRecord, 'sourceData'>;

/** A published article: an indexed item of sourceType ARTICLE. */
export type ArticleRecord = Pick<
  ItemRecord,
  'id' | 'knowledgeBaseId' | 'integrationId' | 'externalId' | 'title' | 'content' | 'url' | 'createdAt' | 'updatedAt'
>;

/** A passage of an item as it is stored (position in the item, the file's page or headings). */
export type ChunkRecord = {
  id: number;
  itemId: number;
  position: number;
  text: string;
  /** Of an uploaded file's passage: its PDF page, or the headings above it. */
  page: number | null;
  section: string | null;
  /** Of an uploaded file's passage: the paragraph of its document (the parts of one long paragraph share it). */
  paragraph: number | null;
};

/** An item's chunk as the item's view lists it. */
export type ItemChunk = Pick<ChunkRecord, 'id' | 'position' | 'text' | 'page' | 'section'> & { tokenCount: number };

export type KnowledgeBaseRecord = { id: string; createdAt: number; itemCount: number; chunkCount: number; pendingJobs: number };

/** The integrations that have items in a knowledge base, with their item counts. */
export type IntegrationCount = { integrationId: string; itemCount: number };

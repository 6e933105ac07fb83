import type { ItemReadRepo } from '../../storage/item-read-repo.ts';
import { ApiError } from './api-error.ts';

/**
 * A knowledge base is created by the first item pushed to it. Reading, searching or asking one
 * that does not exist answers 404, so a mistyped id ("Main" for "main") is not taken for a
 * knowledge base that holds nothing.
 */
export function assertKnowledgeBaseExists(reader: ItemReadRepo, knowledgeBaseId: string): void {
  if (!reader.hasKnowledgeBase(knowledgeBaseId)) {
    throw new ApiError(
      'not_found',
      `No knowledge base "${knowledgeBaseId}". A knowledge base is created by the first item pushed to it; GET /knowledge-bases lists them.`,
    );
  }
}

import { createHash } from 'node:crypto';

/**
 * The `scope` column of the keyword indexes (items_fts, chunks_fts) holds tokens to filter by: the
 * knowledge base, the source type and, for chunks, their item. A search restricts itself with
 * `scope : token` inside the FTS5 query, so filtering happens in the full-text index instead of
 * a join to `items` for every matching row (the join cost four times the search at 100,000
 * chunks), and the passages of the top items come from one MATCH. The column weighs 0 in BM25.
 *
 * All knowledge bases share the two tables, so BM25's statistics are the folder's: measured, that
 * ranks better than per-knowledge-base tables (which were a quarter faster), because FTS5 gives a
 * word in more than half of the documents no weight at all, which in a small knowledge base hits
 * useful words (StackFAQ's 125 items: R@1 0.725 shared, 0.693 alone; docs/retrieval.md).
 *
 * Tokens are letters and digits only (one token for the unicode61 tokenizer) and end in `x`, which
 * no rule of the Porter stemmer changes; knowledge-base ids are hashed so any id becomes such a token.
 */
export function knowledgeBaseToken(knowledgeBaseId: string): string {
  return `kb${createHash('sha256').update(knowledgeBaseId).digest('hex').slice(0, 16)}x`;
}

/** Source types are upper-case words (contract). */
function sourceTypeToken(sourceType: string): string {
  return `st${sourceType.toLowerCase()}x`;
}

function itemToken(itemId: number): string {
  return `it${itemId}x`;
}

/** The scope column of an item row, or of one of its chunks when `itemId` is given. */
export function scopeColumn(knowledgeBaseId: string, sourceType: string, itemId: number | null = null): string {
  const tokens = [knowledgeBaseToken(knowledgeBaseId), sourceTypeToken(sourceType)];
  if (itemId !== null) tokens.push(itemToken(itemId));
  return tokens.join(' ');
}

/**
 * An FTS5 query for `terms` (valid FTS5, e.g. from ftsQuery) in the title and text columns of one
 * knowledge base, or of some of its items (item ids imply their knowledge base), restricted to some
 * source types when given.
 */
export function scopedQuery(
  terms: string,
  scope: { knowledgeBaseId: string; sourceTypes?: string[] | null } | { itemIds: number[] },
): string {
  const filters: string[] = [];
  if ('itemIds' in scope) filters.push(anyOf(scope.itemIds.map(itemToken)));
  else {
    filters.push(`scope : ${knowledgeBaseToken(scope.knowledgeBaseId)}`);
    if (scope.sourceTypes) filters.push(anyOf(scope.sourceTypes.map(sourceTypeToken)));
  }
  return [...filters, `{title text} : (${terms})`].join(' AND ');
}

function anyOf(tokens: string[]): string {
  if (tokens.length === 0) throw new Error('a scope filter needs at least one token');
  return `scope : (${tokens.join(' OR ')})`;
}

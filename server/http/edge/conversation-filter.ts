import type { ConversationFilterQuery, ConversationSource } from '../../../common/contract/conversations.ts';
import type { OwnerConversationFilter } from '../../domain/conversations.ts';
import type { ConversationFilter } from '../../domain/visitor-conversations.ts';
import { ApiError } from './api-error.ts';

/** The query's filters as the domain reads them. */
export function conversationFilter(query: ConversationFilterQuery): ConversationFilter {
  const from = query.from === undefined ? undefined : Date.parse(query.from);
  const to = query.to === undefined ? undefined : Date.parse(query.to);
  if (from !== undefined && to !== undefined && from >= to) {
    throw new ApiError('invalid_query', '`from` must be before `to`.', [{ path: 'from', message: 'must be before to' }]);
  }
  return {
    widgetId: query.widgetId,
    knowledgeBaseId: query.knowledgeBaseId,
    from,
    to,
    unanswered: query.unanswered === 'true',
    thumbsDown: query.thumbsDown === 'true',
    text: query.q || undefined,
  };
}

/** The list's and the export's filters: the shared ones and the source ("all": no source filter). */
export function ownerFilter(query: ConversationFilterQuery & { source: ConversationSource | 'all' }): OwnerConversationFilter {
  const { source, ...rest } = query;
  return { ...conversationFilter(rest), source: source === 'all' ? undefined : source };
}


import { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  type AdminConversation,
  type AdminConversationList,
  type AdminConversationSummary,
  type ConversationFilterQuery,
  type ConversationSource,
  conversationDeleteOlderSchema,
  conversationExportQuerySchema,
  conversationListQuerySchema,
} from '../../../common/contract/conversations.ts';
import { decodeTimeCursor, encodeTimeCursor } from '../../domain/cursor.ts';
import type { Conversations, OwnerConversation, OwnerConversationFilter } from '../../domain/conversations.ts';
import type { ConversationFilter } from '../../domain/visitor-conversations.ts';
import { ApiError } from '../edge/api-error.ts';
import { exportConversations } from '../conversation-export.ts';
import type { Handoffs } from '../../domain/handoffs.ts';
import { isoTime } from '../edge/iso-time.ts';

export type ConversationRoutesOptions = { conversations: Conversations; handoffs: Handoffs };

const conversationParamsSchema = z.strictObject({ conversationId: z.string().min(1).max(64) });

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
function ownerFilter(query: ConversationFilterQuery & { source: ConversationSource | 'all' }): OwnerConversationFilter {
  const { source, ...rest } = query;
  return { ...conversationFilter(rest), source: source === 'all' ? undefined : source };
}

function summaryView(c: OwnerConversation): AdminConversationSummary {
  return {
    id: c.id,
    source: c.source,
    widgetId: c.widgetId,
    widgetName: c.widgetName,
    origin: c.origin,
    user: c.user,
    startedAt: isoTime(c.startedAt),
    lastSeenAt: isoTime(c.lastSeenAt),
    turns: c.turns,
    unanswered: c.unanswered,
    thumbsUp: c.thumbsUp,
    thumbsDown: c.thumbsDown,
    firstQuestion: c.firstQuestion,
  };
}

/**
 * Visitors' and dashboard conversations for the owner: Members read and export (staff
 * conversations too), the Owner and Admins delete. Nothing here shows the keyed hash of a
 * visitor's address, which exists only for rate limits.
 */
export const conversationRoutes: FastifyPluginAsyncZod<ConversationRoutesOptions> = async (app, { conversations, handoffs }) => {
  app.get('/conversations', { config: { admin: 'member' }, schema: { querystring: conversationListQuerySchema } }, async (request): Promise<AdminConversationList> => {
    const { cursor, limit, ...filters } = request.query;
    const page = conversations.find(ownerFilter(filters), cursor ? decodeTimeCursor(cursor) : null, limit);
    return { data: page.rows.map(summaryView), nextCursor: page.next ? encodeTimeCursor(page.next) : null };
  });

  app.get('/conversations/export', { config: { admin: 'member' }, schema: { querystring: conversationExportQuerySchema } }, async (request, reply) => {
    const { format, ...filters } = request.query;
    const filter = ownerFilter(filters);
    const day = new Date().toISOString().slice(0, 10);
    reply
      .header('content-type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
      .header('content-disposition', `attachment; filename="conversations-${day}.${format}"`)
      .header('cache-control', 'no-store');
    return reply.send(Readable.from(exportConversations(conversations, filter, format, (ids) => handoffs.ofSessions(ids))));
  });

  app.get(
    '/conversations/:conversationId',
    { config: { admin: 'member' }, schema: { params: conversationParamsSchema } },
    async (request): Promise<AdminConversation> => {
      const { conversationId } = request.params;
      const found = conversations.read(conversationId);
      if (!found) throw new ApiError('not_found', `No conversation "${conversationId}".`);
      return {
        ...summaryView(found.conversation),
        turnList: found.turns.map((t) => ({
          id: t.id,
          knowledgeBaseId: t.knowledgeBaseId,
          question: t.question,
          answer: t.answer,
          answered: t.answered,
          citations: t.citations,
          latencyMs: t.latencyMs,
          feedback: t.feedback,
          askedAt: isoTime(t.askedAt),
        })),
      };
    },
  );

  app.delete(
    '/conversations/:conversationId',
    { config: { admin: 'manager' }, schema: { params: conversationParamsSchema } },
    async (request, reply) => {
      const { conversationId } = request.params;
      if (!conversations.deleteConversation(conversationId)) throw new ApiError('not_found', `No conversation "${conversationId}".`);
      return reply.code(204).send();
    },
  );

  /** "Delete everything older than": a POST, since it names no single resource. */
  app.post(
    '/conversations/delete-older',
    { config: { admin: 'manager' }, schema: { body: conversationDeleteOlderSchema } },
    async (request) => {
      try {
        return { deleted: await conversations.deleteOlderThan(Date.parse(request.body.before)) };
      } catch (error) {
        if (error instanceof RangeError) throw new ApiError('invalid_body', error.message, [{ path: 'before', message: error.message }]);
        throw error;
      }
    },
  );
};

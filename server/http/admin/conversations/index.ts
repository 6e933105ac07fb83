import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  type AdminConversation,
  type AdminConversationList,
  type AdminConversationSummary,
  conversationDeleteOlderSchema,
  conversationListQuerySchema,
} from '../../../../common/contract/conversations.ts';
import { decodeTimeCursor, encodeTimeCursor } from '../../../domain/cursor.ts';
import type { OwnerConversation } from '../../../domain/conversations.ts';
import type { Services } from '../../../services.ts';
import { ApiError } from '../../edge/api-error.ts';
import { ownerFilter } from '../../edge/conversation-filter.ts';
import { isoTime } from '../../edge/iso-time.ts';

const conversationParamsSchema = z.strictObject({ conversationId: z.string().min(1).max(64) });

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
export const conversationRoutes: FastifyPluginAsyncZod<Pick<Services, 'conversations'>> = async (app, { conversations }) => {
  app.get('/conversations', { config: { admin: 'member' }, schema: { querystring: conversationListQuerySchema } }, async (request): Promise<AdminConversationList> => {
    const { cursor, limit, ...filters } = request.query;
    const page = conversations.find(ownerFilter(filters), cursor ? decodeTimeCursor(cursor) : null, limit);
    return { data: page.rows.map(summaryView), nextCursor: page.next ? encodeTimeCursor(page.next) : null };
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

import { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { conversationExportQuerySchema } from '../../../../common/contract/conversations.ts';
import type { Services } from '../../../services.ts';
import { exportedConversations } from '../../../use-cases/export-conversations.ts';
import { exportLines } from '../../edge/conversation-export.ts';
import { ownerFilter } from '../../edge/conversation-filter.ts';

/**
 * `GET /conversations/export`: the filtered conversations as CSV or JSON Lines, streamed, for any
 * signed-in user (Members read conversations too). Which questions and handoffs, in which order,
 * is the use case's (use-cases/export-conversations.ts); the rows and their format are the edge's.
 */
export const conversationExportRoutes: FastifyPluginAsyncZod<Pick<Services, 'conversations' | 'handoffs'>> = async (app, { conversations, handoffs }) => {
  app.get('/conversations/export', { config: { admin: 'member' }, schema: { querystring: conversationExportQuerySchema } }, async (request, reply) => {
    const { format, ...filters } = request.query;
    const filter = ownerFilter(filters);
    const day = new Date().toISOString().slice(0, 10);
    reply
      .header('content-type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
      .header('content-disposition', `attachment; filename="conversations-${day}.${format}"`)
      .header('cache-control', 'no-store');
    return reply.send(Readable.from(exportLines(exportedConversations(conversations, filter, (ids) => handoffs.ofSessions(ids)), format)));
  });
};

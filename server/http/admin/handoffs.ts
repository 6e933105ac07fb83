import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  type AdminHandoff,
  type AdminHandoffList,
  type HandoffCounts,
  type HandoffReplyResult,
  handoffListQuerySchema,
  handoffParamsSchema,
  handoffReplySchema,
} from '../../../common/contract/handoffs.ts';
import { canManage } from '../../domain/users.ts';
import type { HandoffListing } from '../../domain/handoffs.ts';
import type { Services } from '../../services.ts';
import { replyToHandoff } from '../../use-cases/reply-to-handoff.ts';
import { ApiError } from '../edge/api-error.ts';
import { isoTime } from '../edge/iso-time.ts';
import { sessionOf } from '../edge/admin-auth.ts';

export type HandoffRoutesOptions = Pick<Services, 'handoffs' | 'visitorConversations' | 'curatedAnswers'>;

/**
 * `/handoffs`: the owner's inbox of visitors' handoffs. Members read it, as they read conversations and their
 * export (which hold the same contact details); Members reply too, since answering visitors is
 * staff work, but only the Owner and Admins may keep a reply as a curated answer (which changes
 * what the assistant tells every visitor), as with the curated answers' own routes.
 */
export const handoffRoutes: FastifyPluginAsyncZod<HandoffRoutesOptions> = async (app, deps) => {
  const { handoffs, visitorConversations } = deps;
  const view = (handoff: HandoffListing): AdminHandoff => ({
    id: handoff.id,
    status: handoff.status,
    widgetId: handoff.widgetId,
    widgetName: handoff.widgetName,
    conversationId: handoff.sessionId,
    knowledgeBaseId: handoff.knowledgeBaseId,
    question: handoff.question,
    name: handoff.name,
    email: handoff.email,
    phone: handoff.phone,
    createdAt: isoTime(handoff.createdAt),
    reply: handoff.reply ? { text: handoff.reply.text, at: isoTime(handoff.reply.at), by: handoff.reply.by } : null,
    conversation: (visitorConversations.conversation(handoff.sessionId)?.turns ?? []).map((t) => ({
      question: t.question,
      answer: t.answer,
      answered: t.answered,
      askedAt: isoTime(t.askedAt),
    })),
  });

  app.get('/handoffs', { config: { admin: 'member' }, schema: { querystring: handoffListQuerySchema } }, async (request): Promise<AdminHandoffList> => {
    const { status, limit } = request.query;
    return { data: handoffs.list(status, limit).map(view), counts: handoffs.counts() };
  });

  // The navigation's count and the desktop app's notification poll this: no conversations read.
  app.get('/handoffs/count', { config: { admin: 'member' } }, async (): Promise<HandoffCounts> => handoffs.counts());

  app.post(
    '/handoffs/:handoffId/reply',
    { config: { admin: 'member' }, schema: { params: handoffParamsSchema, body: handoffReplySchema } },
    async (request): Promise<HandoffReplyResult> => {
      const { handoffId } = request.params;
      const { text, saveAsAnswer } = request.body;
      const { user } = sessionOf(request);
      if (saveAsAnswer && !canManage(user.role)) {
        throw new ApiError('forbidden', 'Only the Owner and Admins can keep a reply as a curated answer; send the reply without saveAsAnswer.');
      }
      const replied = replyToHandoff(deps, handoffId, { text, by: user.username, saveAsAnswer: saveAsAnswer === true });
      if (!replied) throw new ApiError('not_found', `No handoff "${handoffId}"; it may have been deleted with its conversation.`);
      return { handoff: view(replied.handoff), curatedAnswerId: replied.curatedAnswerId };
    },
  );
};

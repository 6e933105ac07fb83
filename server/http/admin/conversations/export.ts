import { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { type ConversationExportRow, conversationExportQuerySchema, type ExportFormat } from '../../../../common/contract/conversations.ts';
import type { OwnerConversation } from '../../../domain/conversations.ts';
import type { ConversationTurnRecord } from '../../../domain/dashboard-conversations.ts';
import type { HandoffRecord } from '../../../domain/handoffs.ts';
import type { Services } from '../../../services.ts';
import { type ExportedQuestion, exportedConversations } from '../../../use-cases/export-conversations.ts';
import { ownerFilter } from '../../edge/conversation-filter.ts';
import { isoTime } from '../../edge/iso-time.ts';

const CSV_COLUMNS = [
  'conversationId',
  'source',
  'widgetId',
  'widgetName',
  'origin',
  'userName',
  'startedAt',
  'answerId',
  'askedAt',
  'knowledgeBaseId',
  'question',
  'answer',
  'answered',
  'feedback',
  'latencyMs',
  'citations',
  'handoffId',
  'contactName',
  'contactEmail',
  'contactPhone',
] as const satisfies ReadonlyArray<keyof ConversationExportRow>;

/** The columns every row of a conversation repeats: which conversation, where and when it started. */
function conversationColumns(conversation: OwnerConversation) {
  return {
    conversationId: conversation.id,
    source: conversation.source,
    widgetId: conversation.widgetId,
    widgetName: conversation.widgetName,
    origin: conversation.origin,
    startedAt: isoTime(conversation.startedAt),
  };
}

/**
 * One row per question: what was asked, what was answered, from which conversation and who asked
 * (the widget, or the dashboard user's name). Never an address or its hash, nor a user's id.
 */
function exportRow(conversation: OwnerConversation, turn: ConversationTurnRecord): ConversationExportRow {
  return {
    ...conversationColumns(conversation),
    userName: conversation.user?.name ?? null,
    answerId: turn.id,
    askedAt: isoTime(turn.askedAt),
    knowledgeBaseId: turn.knowledgeBaseId,
    question: turn.question,
    answer: turn.answer,
    answered: turn.answered,
    feedback: turn.feedback,
    latencyMs: turn.latencyMs,
    citations: turn.citations,
    handoffId: null,
    contactName: null,
    contactEmail: null,
    contactPhone: null,
  };
}

/** A handoff's row: its question, the shop's reply as the answer, and the contact details given (personal data, as the owner exports it). */
function handoffRow(conversation: OwnerConversation, handoff: HandoffRecord): ConversationExportRow {
  return {
    ...conversationColumns(conversation),
    userName: null,
    answerId: handoff.id,
    askedAt: isoTime(handoff.createdAt),
    knowledgeBaseId: handoff.knowledgeBaseId,
    question: handoff.question,
    answer: handoff.reply?.text ?? '',
    answered: handoff.reply !== null,
    feedback: null,
    latencyMs: 0,
    citations: [],
    handoffId: handoff.id,
    contactName: handoff.name,
    contactEmail: handoff.email,
    contactPhone: handoff.phone,
  };
}

/**
 * A CSV cell: quoted, quotes doubled. Visitors wrote the questions, so a cell a spreadsheet would
 * read as a formula (=, +, -, @, tab, carriage return first) is prefixed with an apostrophe.
 */
function csvCell(value: string | number | boolean | null): string {
  if (value === null) return '';
  const text = String(value);
  const safe = typeof value === 'string' && /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return `"${safe.replace(/"/g, '""')}"`;
}

function csvLine(row: ConversationExportRow): string {
  return `${CSV_COLUMNS.map((column) => {
    const value = row[column];
    return csvCell(column === 'citations' ? row.citations.map((c) => (c.url ? `${c.title} <${c.url}>` : c.title)).join(' | ') : (value as string | number | boolean | null));
  }).join(',')}\r\n`;
}

/**
 * The exported questions as CSV (with a header line) or JSON Lines, a page at a time: one row per
 * question (exportRow, handoffRow).
 */
async function* exportLines(pages: AsyncIterable<ExportedQuestion[]>, format: ExportFormat): AsyncGenerator<string> {
  if (format === 'csv') yield `\uFEFF${CSV_COLUMNS.map(csvCell).join(',')}\r\n`;
  const line = (row: ConversationExportRow) => (format === 'csv' ? csvLine(row) : `${JSON.stringify(row)}\n`);
  for await (const questions of pages) {
    const chunk = questions.map((q) => line(q.turn ? exportRow(q.conversation, q.turn) : handoffRow(q.conversation, q.handoff))).join('');
    if (chunk) yield chunk;
  }
}

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

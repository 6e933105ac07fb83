import type { ConversationExportRow, ExportFormat } from '../../common/contract/conversations.ts';
import type { Conversations, OwnerConversation, OwnerConversationFilter } from '../domain/conversations.ts';
import type { ConversationTurnRecord } from '../domain/dashboard-conversations.ts';
import type { HandoffRecord } from '../domain/handoffs.ts';
import type { ConversationPosition } from '../domain/visitor-conversations.ts';
import { isoTime } from './edge/iso-time.ts';

/** Conversations read per page while exporting: the export streams, so its size is unbounded. */
const EXPORT_PAGE = 200;

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
export function handoffRow(conversation: OwnerConversation, handoff: HandoffRecord): ConversationExportRow {
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
 * The filtered conversations, oldest question first within each, newest conversation first, as
 * CSV (with a header line) or JSON Lines, a page at a time.
 */
export async function* exportConversations(
  conversations: Conversations,
  filter: OwnerConversationFilter,
  format: ExportFormat,
  /** The handoffs left in these visitor conversations (Handoffs.ofSessions). */
  handoffsOf: (conversationIds: string[]) => HandoffRecord[] = () => [],
): AsyncGenerator<string> {
  if (format === 'csv') yield `\uFEFF${CSV_COLUMNS.map(csvCell).join(',')}\r\n`;
  let after: ConversationPosition | null = null;
  do {
    const page = conversations.find(filter, after, EXPORT_PAGE);
    let chunk = '';
    const line = (row: ConversationExportRow) => (format === 'csv' ? csvLine(row) : `${JSON.stringify(row)}\n`);
    const handoffs = new Map<string, HandoffRecord[]>();
    for (const h of handoffsOf(page.rows.filter((c) => c.source === 'visitor').map((c) => c.id))) handoffs.set(h.sessionId, [...(handoffs.get(h.sessionId) ?? []), h]);
    for (const conversation of page.rows) {
      for (const turn of conversations.read(conversation.id)?.turns ?? []) chunk += line(exportRow(conversation, turn));
      for (const handoff of handoffs.get(conversation.id) ?? []) chunk += line(handoffRow(conversation, handoff));
    }
    if (chunk) yield chunk;
    after = page.next;
    // Other requests go on between pages.
    await new Promise((resolve) => setImmediate(resolve));
  } while (after);
}

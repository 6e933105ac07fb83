import type { ConversationExportRow, ExportFormat } from '../../common/contract/conversations.ts';
import type { Conversations, OwnerConversation, OwnerConversationFilter } from '../domain/conversations.ts';
import type { ConversationTurnRecord } from '../domain/dashboard-conversations.ts';
import type { ConversationPosition } from '../domain/visitor-conversations.ts';
import { isoTime } from './iso-time.ts';

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
] as const satisfies ReadonlyArray<keyof ConversationExportRow>;

/**
 * One row per question: what was asked, what was answered, from which conversation and who asked
 * (the widget, or the dashboard user's name). Never an address or its hash, nor a user's id.
 */
function exportRow(conversation: OwnerConversation, turn: ConversationTurnRecord): ConversationExportRow {
  return {
    conversationId: conversation.id,
    source: conversation.source,
    widgetId: conversation.widgetId,
    widgetName: conversation.widgetName,
    origin: conversation.origin,
    userName: conversation.user?.name ?? null,
    startedAt: isoTime(conversation.startedAt),
    answerId: turn.id,
    askedAt: isoTime(turn.askedAt),
    knowledgeBaseId: turn.knowledgeBaseId,
    question: turn.question,
    answer: turn.answer,
    answered: turn.answered,
    feedback: turn.feedback,
    latencyMs: turn.latencyMs,
    citations: turn.citations,
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
export async function* exportConversations(conversations: Conversations, filter: OwnerConversationFilter, format: ExportFormat): AsyncGenerator<string> {
  if (format === 'csv') yield `\uFEFF${CSV_COLUMNS.map(csvCell).join(',')}\r\n`;
  let after: ConversationPosition | null = null;
  do {
    const page = conversations.find(filter, after, EXPORT_PAGE);
    let chunk = '';
    for (const conversation of page.rows) {
      for (const turn of conversations.read(conversation.id)?.turns ?? []) {
        const row = exportRow(conversation, turn);
        chunk += format === 'csv' ? csvLine(row) : `${JSON.stringify(row)}\n`;
      }
    }
    if (chunk) yield chunk;
    after = page.next;
    // Other requests go on between pages.
    await new Promise((resolve) => setImmediate(resolve));
  } while (after);
}

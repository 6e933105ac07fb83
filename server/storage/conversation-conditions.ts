import type { ConversationFilter, ConversationPosition } from '../domain/visitor-conversations.ts';

/** The SQL conditions of a conversation list, with their parameters in the order they appear. */
export type ConversationConditions = {
  /** On the conversation row: its period and the page's starting position. */
  where: string[];
  params: Array<string | number>;
  /** On one of its turns (all must hold for the same turn): knowledge base, outcome, rating, words. */
  turnWhere: string[];
  turnParams: Array<string | number>;
  /** The words of the text search, as the LIKEs read them. */
  words: string[];
};

/**
 * What the visitors' and the dashboard's conversation lists filter alike, in one place: the start
 * time range, the cursor (newest first, by start time then id), and the turn conditions. `c` is
 * the conversation table's alias, `turnLink` the condition joining a turn `t` to it. Each list
 * adds what is its own (the widget, the trigram shortcut) and its EXISTS over its turn table.
 */
export function conversationConditions(
  filter: Omit<ConversationFilter, 'widgetId'>,
  after: ConversationPosition | null,
  c: string,
  turnLink: string,
): ConversationConditions {
  const where: string[] = [];
  const params: Array<string | number> = [];
  const turnWhere = [turnLink];
  const turnParams: Array<string | number> = [];
  if (filter.from !== undefined) {
    where.push(`${c}.started_at >= ?`);
    params.push(filter.from);
  }
  if (filter.to !== undefined) {
    where.push(`${c}.started_at < ?`);
    params.push(filter.to);
  }
  if (after) {
    where.push(`(${c}.started_at < ? OR (${c}.started_at = ? AND ${c}.id < ?))`);
    params.push(after.startedAt, after.startedAt, after.id);
  }
  if (filter.knowledgeBaseId !== undefined) {
    turnWhere.push('t.knowledge_base_id = ?');
    turnParams.push(filter.knowledgeBaseId);
  }
  if (filter.unanswered) turnWhere.push('t.answered = 0');
  if (filter.thumbsDown) turnWhere.push("t.feedback = 'down'");
  const words = (filter.text ?? '').split(/\s+/).filter(Boolean);
  for (const word of words) {
    turnWhere.push("t.question LIKE ? ESCAPE '\\'");
    turnParams.push(`%${word.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`);
  }
  return { where, params, turnWhere, turnParams, words };
}

import type { ConversationTurnRecord } from '../domain/dashboard-conversations.ts';
import type { VisitorRating } from '../domain/visitor-conversations.ts';

/** The columns a turn has in both turn tables (visitor_turns, dashboard_turns). */
export type TurnRowColumns = {
  id: string;
  knowledge_base_id: string;
  question: string;
  answer: string;
  answered: number;
  citations: string;
  latency_ms: number;
  feedback: VisitorRating | null;
  asked_at: number;
};

/** A turn's shared columns as the domain reads them; each table adds the ids of its own. */
export function turnFromRow(row: TurnRowColumns): ConversationTurnRecord {
  return {
    id: row.id,
    knowledgeBaseId: row.knowledge_base_id,
    question: row.question,
    answer: row.answer,
    answered: row.answered === 1,
    citations: JSON.parse(row.citations) as ConversationTurnRecord['citations'],
    latencyMs: row.latency_ms,
    feedback: row.feedback,
    askedAt: row.asked_at,
  };
}

/** A turn's shared columns as both turn tables store them. */
export function turnToRow(turn: ConversationTurnRecord): TurnRowColumns {
  return {
    id: turn.id,
    knowledge_base_id: turn.knowledgeBaseId,
    question: turn.question,
    answer: turn.answer,
    answered: turn.answered ? 1 : 0,
    citations: JSON.stringify(turn.citations),
    latency_ms: turn.latencyMs,
    feedback: turn.feedback,
    asked_at: turn.askedAt,
  };
}

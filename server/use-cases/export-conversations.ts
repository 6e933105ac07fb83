import type { Conversations, OwnerConversation, OwnerConversationFilter } from '../domain/conversations.ts';
import type { ConversationTurnRecord } from '../domain/dashboard-conversations.ts';
import type { HandoffRecord } from '../domain/handoffs.ts';
import type { ConversationPosition } from '../domain/visitor-conversations.ts';

/** Conversations read per page while exporting: the export streams, so its size is unbounded. */
const EXPORT_PAGE = 200;

/** One exported question: a turn of a conversation, or a handoff a visitor left in it. */
export type ExportedQuestion =
  | { conversation: OwnerConversation; turn: ConversationTurnRecord; handoff?: undefined }
  | { conversation: OwnerConversation; handoff: HandoffRecord; turn?: undefined };

/**
 * The filtered conversations' questions, a page of conversations at a time: newest conversation
 * first, and within each its turns oldest first, then the handoffs left in it. Other requests go
 * on between pages.
 */
export async function* exportedConversations(
  conversations: Conversations,
  filter: OwnerConversationFilter,
  /** The handoffs left in these visitor conversations (Handoffs.ofSessions). */
  handoffsOf: (conversationIds: string[]) => HandoffRecord[] = () => [],
): AsyncGenerator<ExportedQuestion[]> {
  let after: ConversationPosition | null = null;
  do {
    const page = conversations.find(filter, after, EXPORT_PAGE);
    const handoffs = new Map<string, HandoffRecord[]>();
    for (const h of handoffsOf(page.rows.filter((c) => c.source === 'visitor').map((c) => c.id))) handoffs.set(h.sessionId, [...(handoffs.get(h.sessionId) ?? []), h]);
    const questions: ExportedQuestion[] = [];
    for (const conversation of page.rows) {
      for (const turn of conversations.read(conversation.id)?.turns ?? []) questions.push({ conversation, turn });
      for (const handoff of handoffs.get(conversation.id) ?? []) questions.push({ conversation, handoff });
    }
    yield questions;
    after = page.next;
    await new Promise((resolve) => setImmediate(resolve));
  } while (after);
}

import { randomBase62 } from './api-keys.ts';
import {
  type ConversationFilter,
  type ConversationPosition,
  type PruneResult,
  type VisitorRating,
  type VisitorTurnRecord,
  deleteInPages,
} from './visitor-conversations.ts';

/** Who asked in the dashboard: the signed-in user's id and name (never a password or a session). */
export type DashboardUser = { id: string; name: string };

/** A question and its answer as any conversation stores it (visitor turns add their session and widget). */
export type ConversationTurnRecord = Omit<VisitorTurnRecord, 'sessionId' | 'widgetId'>;

export type DashboardTurnRecord = ConversationTurnRecord & { conversationId: string };

export type DashboardConversationRecord = { id: string; userId: string; userName: string; startedAt: number; lastSeenAt: number };

/** A dashboard conversation as the owner's list shows it. */
export type DashboardConversationListing = DashboardConversationRecord & {
  turns: number;
  unanswered: number;
  thumbsUp: number;
  thumbsDown: number;
  firstQuestion: string | null;
};

/** The list's filters that mean something for a dashboard conversation (it has no widget). */
export type DashboardConversationFilter = Omit<ConversationFilter, 'widgetId'>;

/** Where dashboard conversations are kept (server/storage/dashboard-conversation-repo.ts). */
export interface DashboardConversationStore {
  getConversation(id: string): DashboardConversationRecord | null;
  insertConversation(conversation: DashboardConversationRecord): void;
  /** Stores the turn and moves its conversation's last-seen time, in one transaction. */
  insertTurn(turn: DashboardTurnRecord): void;
  rate(conversationId: string, turnId: string, rating: VisitorRating): 'rated' | 'missing';
  deleteConversation(id: string): boolean;
  /** As VisitorRepository.pruneBefore: conversations last seen before `cutoff`, and older turns of those that go on. */
  pruneBefore(cutoff: number, limit: number): PruneResult;
  /** Conversations with at least one turn matching the filter, newest first (start time, then id), after `after`. */
  findConversations(filter: DashboardConversationFilter, after: ConversationPosition | null, limit: number): DashboardConversationListing[];
  listing(id: string): DashboardConversationListing | null;
  turns(conversationId: string): DashboardTurnRecord[];
}

/**
 * The dashboard chat's conversations: each chat session (until "New conversation") of a signed-in
 * user, with its questions, answers and ratings. Stored apart from the visitors' (content gaps and
 * visitor analytics never read them), listed beside them on the Conversations screen, and kept
 * for the same retention period.
 */
export class DashboardConversations {
  constructor(
    private readonly repo: DashboardConversationStore,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * Stores a question and its answer in the user's conversation `conversationId`, or in a new one
   * when it is null, unknown (deleted since) or another user's: a chat never writes into someone
   * else's conversation. The returned turn names the conversation the chat should send next.
   */
  recordTurn(user: DashboardUser, conversationId: string | null, turn: Omit<ConversationTurnRecord, 'id' | 'feedback' | 'askedAt'>): DashboardTurnRecord {
    const now = this.clock();
    const existing = conversationId ? this.repo.getConversation(conversationId) : null;
    let id = existing?.userId === user.id ? existing.id : null;
    if (!id) {
      id = `dc_${randomBase62(20)}`;
      this.repo.insertConversation({ id, userId: user.id, userName: user.name, startedAt: now, lastSeenAt: now });
    }
    const record: DashboardTurnRecord = { ...turn, id: `ans_${randomBase62(20)}`, conversationId: id, feedback: null, askedAt: now };
    this.repo.insertTurn(record);
    return record;
  }

  /** Thumbs up or down on an answer of the user's own conversation; false when there is no such answer. */
  rate(userId: string, conversationId: string, answerId: string, rating: VisitorRating): boolean {
    if (this.repo.getConversation(conversationId)?.userId !== userId) return false;
    return this.repo.rate(conversationId, answerId, rating) === 'rated';
  }

  find(filter: DashboardConversationFilter, after: ConversationPosition | null, limit: number): { rows: DashboardConversationListing[]; next: ConversationPosition | null } {
    const rows = this.repo.findConversations(filter, after, limit + 1);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { rows: page, next: rows.length > limit && last ? { startedAt: last.startedAt, id: last.id } : null };
  }

  read(id: string): { listing: DashboardConversationListing; turns: DashboardTurnRecord[] } | null {
    const listing = this.repo.listing(id);
    return listing ? { listing, turns: this.repo.turns(id) } : null;
  }

  deleteConversation(id: string): boolean {
    return this.repo.deleteConversation(id);
  }

  deleteOlderThan(cutoff: number): Promise<number> {
    if (cutoff > this.clock()) throw new RangeError('The date must not be in the future.');
    return deleteInPages((limit) => this.repo.pruneBefore(cutoff, limit));
  }

  pruneBefore(cutoff: number, limit: number): PruneResult {
    return this.repo.pruneBefore(cutoff, limit);
  }
}

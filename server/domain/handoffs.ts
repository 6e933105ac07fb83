import { HANDOFFS_PER_SESSION, type HandoffCounts, type HandoffRequest, type HandoffStatus } from '../../common/contract/handoffs.ts';
import { randomBase62 } from './api-keys.ts';
import type { VisitorConversations } from './visitor-conversations.ts';
import type { WidgetRecord } from './widgets.ts';

/** A visitor's question left for the shop, with the contact details given (personal data). */
export type HandoffRecord = {
  id: string;
  widgetId: string;
  /** The visitor session (conversation) it was left in: it is kept, exported and deleted with it. */
  sessionId: string;
  /** Where a reply saved as a curated answer goes: the base that answered the session's last question, else the widget's first. */
  knowledgeBaseId: string;
  question: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  status: HandoffStatus;
  createdAt: number;
  reply: HandoffReply | null;
};

export type HandoffReply = { text: string; at: number; by: string | null };

/** A handoff as the owner's inbox lists it: with its widget's name (null once the widget is deleted). */
export type HandoffListing = HandoffRecord & { widgetName: string | null };

export type HandoffFilter = 'open' | 'answered' | 'all';

/**
 * Where handoffs are kept (server/storage/handoff-repo.ts). Each belongs to a stored visitor
 * session and goes with it: deleting the conversation, or retention removing it, removes its
 * handoffs in the same statement.
 */
export interface HandoffRepository {
  /** Stores the handoff and moves its session's last-seen time, so retention counts from it. */
  insert(handoff: HandoffRecord): void;
  get(id: string): HandoffListing | null;
  /** The session's handoffs of that widget, oldest first. */
  ofSession(sessionId: string, widgetId: string): HandoffRecord[];
  countOfSession(sessionId: string): number;
  /** Newest first. */
  list(filter: HandoffFilter, limit: number): HandoffListing[];
  counts(): HandoffCounts;
  /** Sets (or replaces) the reply and marks the handoff answered; false when there is no such handoff. */
  reply(id: string, reply: HandoffReply): boolean;
  /** The handoffs of the sessions given (the conversation export), oldest first. */
  ofSessions(sessionIds: string[]): HandoffRecord[];
}

/** What the `handoff.created` webhook event says: never the contact details themselves (docs/webhooks.md). */
export type HandoffCreatedEvent = {
  handoffId: string;
  widgetId: string;
  knowledgeBaseId: string;
  question: string;
  contactGiven: boolean;
  at: number;
};

export type NewHandoff = {
  widget: WidgetRecord;
  sessionId: string;
  origin: string;
  ipHash: string;
  request: HandoffRequest;
};

/**
 * Visitors' handoffs to the shop and the owner's replies. A handoff is kept in its visitor's
 * session, so retention, "delete this conversation" and the export treat its contact details as
 * they treat the conversation; `onCreated` tells the webhooks (the composition root wires it).
 */
export class Handoffs {
  constructor(
    private readonly repo: HandoffRepository,
    private readonly visitors: VisitorConversations,
    private readonly onCreated: (event: HandoffCreatedEvent) => void = () => {},
    private readonly clock: () => number = Date.now,
  ) {}

  /** Leaves the visitor's question for the shop; null when the session has left as many as it may. */
  create({ widget, sessionId, origin, ipHash, request }: NewHandoff): HandoffRecord | null {
    if (this.repo.countOfSession(sessionId) >= HANDOFFS_PER_SESSION) return null;
    // A visitor may ask for a person before asking the assistant anything: the session is stored now.
    this.visitors.startSession({ id: sessionId, widgetId: widget.id, origin, ipHash });
    const lastTurn = this.visitors.conversation(sessionId)?.turns.at(-1);
    const record: HandoffRecord = {
      id: `hnd_${randomBase62(20)}`,
      widgetId: widget.id,
      sessionId,
      knowledgeBaseId: lastTurn?.knowledgeBaseId ?? widget.knowledgeBaseIds[0]!,
      question: request.question,
      name: request.name ?? null,
      email: request.email ?? null,
      phone: request.phone ?? null,
      status: 'open',
      createdAt: this.clock(),
      reply: null,
    };
    this.repo.insert(record);
    this.onCreated({
      handoffId: record.id,
      widgetId: record.widgetId,
      knowledgeBaseId: record.knowledgeBaseId,
      question: record.question,
      contactGiven: record.email !== null || record.phone !== null,
      at: record.createdAt,
    });
    return record;
  }

  /** The visitor's own handoffs: this session's, of this widget, and nobody else's. */
  ofSession(sessionId: string, widgetId: string): HandoffRecord[] {
    return this.repo.ofSession(sessionId, widgetId);
  }

  get(id: string): HandoffListing | null {
    return this.repo.get(id);
  }

  list(filter: HandoffFilter, limit: number): HandoffListing[] {
    return this.repo.list(filter, limit);
  }

  counts(): HandoffCounts {
    return this.repo.counts();
  }

  /** The owner's reply; a second reply replaces the first (the visitor reads the latest). */
  reply(id: string, text: string, by: string | null): HandoffListing | null {
    if (!this.repo.reply(id, { text, at: this.clock(), by })) return null;
    return this.repo.get(id);
  }

  ofSessions(sessionIds: string[]): HandoffRecord[] {
    return sessionIds.length ? this.repo.ofSessions(sessionIds) : [];
  }
}

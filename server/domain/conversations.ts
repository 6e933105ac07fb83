import type { ConversationSource } from '../../common/contract/conversations.ts';
import type { ConversationTurnRecord, DashboardConversationListing, DashboardConversations, DashboardUser } from './dashboard-conversations.ts';
import type { ConversationFilter, ConversationListing, ConversationPosition, PruneResult, VisitorConversations } from './visitor-conversations.ts';

/** A conversation as the owner's list shows it, whoever asked: a visitor through a widget, or a user in the dashboard. */
export type OwnerConversation = {
  source: ConversationSource;
  id: string;
  /** The widget a visitor asked through; null for a dashboard conversation. */
  widgetId: string | null;
  widgetName: string | null;
  origin: string | null;
  /** The dashboard user who asked; null for a visitor. */
  user: DashboardUser | null;
  startedAt: number;
  lastSeenAt: number;
  turns: number;
  unanswered: number;
  thumbsUp: number;
  thumbsDown: number;
  firstQuestion: string | null;
};

/** The list's filters, and whose conversations: visitors', the dashboard's, or both (no source). */
export type OwnerConversationFilter = ConversationFilter & { source?: ConversationSource | undefined };

/**
 * Every conversation the owner reads, visitors' and the dashboard's, as one list ordered by start
 * time then id, newest first: each store returns its page after the same position and the pages
 * are merged, so each keeps its own indexed query. Deleting and retention (the visitors' setting,
 * one period for both) cover both.
 */
export class Conversations {
  constructor(
    private readonly visitors: VisitorConversations,
    private readonly dashboard: DashboardConversations,
  ) {}

  find(filter: OwnerConversationFilter, after: ConversationPosition | null, limit: number): { rows: OwnerConversation[]; next: ConversationPosition | null } {
    const { source, ...rest } = filter;
    // A widget names visitors' conversations only.
    const visitors = source !== 'dashboard' ? this.visitors.find(rest, after, limit) : null;
    const dashboard = source !== 'visitor' && rest.widgetId === undefined ? this.dashboard.find(rest, after, limit) : null;
    const merged = [...(visitors?.rows.map(fromVisitor) ?? []), ...(dashboard?.rows.map(fromDashboard) ?? [])].sort(newestFirst);
    const page = merged.slice(0, limit);
    const more = merged.length > limit || Boolean(visitors?.next) || Boolean(dashboard?.next);
    const last = page[page.length - 1];
    return { rows: page, next: more && last ? { startedAt: last.startedAt, id: last.id } : null };
  }

  read(id: string): { conversation: OwnerConversation; turns: ConversationTurnRecord[] } | null {
    const visitor = this.visitors.read(id);
    if (visitor) return { conversation: fromVisitor(visitor.listing), turns: visitor.turns };
    const staff = this.dashboard.read(id);
    return staff ? { conversation: fromDashboard(staff.listing), turns: staff.turns } : null;
  }

  deleteConversation(id: string): boolean {
    return this.visitors.deleteConversation(id) || this.dashboard.deleteConversation(id);
  }

  /** "Delete everything older than", visitors' and dashboard conversations alike; how many went. */
  async deleteOlderThan(cutoff: number): Promise<number> {
    const visitors = await this.visitors.deleteOlderThan(cutoff);
    return visitors + (await this.dashboard.deleteOlderThan(cutoff));
  }

  /** Retention's page: up to `limit` visitor and `limit` dashboard conversations past the period. */
  pruneExpired(limit: number): PruneResult {
    const visitors = this.visitors.pruneExpired(limit);
    const dashboard = this.dashboard.pruneBefore(this.visitors.retentionCutoff(), limit);
    // Summed: a page is short only when both were, so retention goes on while either is full.
    return { sessions: visitors.sessions + dashboard.sessions, turns: visitors.turns + dashboard.turns };
  }
}

/** Newest start first; the same start, the greater id first (as SQLite's ORDER BY id DESC, byte order). */
function newestFirst(a: OwnerConversation, b: OwnerConversation): number {
  if (a.startedAt !== b.startedAt) return b.startedAt - a.startedAt;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

function fromVisitor(c: ConversationListing): OwnerConversation {
  return { source: 'visitor', widgetId: c.widgetId, widgetName: c.widgetName, origin: c.origin, user: null, ...sharedFields(c) };
}

function fromDashboard(c: DashboardConversationListing): OwnerConversation {
  return { source: 'dashboard', widgetId: null, widgetName: null, origin: null, user: { id: c.userId, name: c.userName }, ...sharedFields(c) };
}

/** What a conversation of either source lists alike. */
function sharedFields(c: ConversationListing | DashboardConversationListing) {
  const { id, startedAt, lastSeenAt, turns, unanswered, thumbsUp, thumbsDown, firstQuestion } = c;
  return { id, startedAt, lastSeenAt, turns, unanswered, thumbsUp, thumbsDown, firstQuestion };
}

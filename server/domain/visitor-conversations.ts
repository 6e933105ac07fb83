import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ConversationTurn } from '../../common/contract/ask.ts';
import { VISITOR_CONVERSATION_MAX_TURNS, VISITOR_TURN_MAX } from '../../common/contract/visitor-limits.ts';
import type { VisitorCitation } from '../../common/contract/widget.ts';
import { randomBase62 } from './api-keys.ts';

export type VisitorSessionRecord = {
  id: string;
  widgetId: string;
  /** The origin the session was started from (the page that embeds the widget). */
  origin: string;
  /** HMAC of the visitor's address (VisitorSessions.hashAddress); never the address itself. */
  ipHash: string;
  startedAt: number;
  lastSeenAt: number;
};

export type VisitorRating = 'up' | 'down';

/** One question of a visitor and the answer shown. Its id is the `answerId` feedback names. */
export type VisitorTurnRecord = {
  id: string;
  sessionId: string;
  widgetId: string;
  /** The knowledge base that answered (of a widget's several, the one that supported it best). */
  knowledgeBaseId: string;
  question: string;
  answer: string;
  answered: boolean;
  citations: VisitorCitation[];
  latencyMs: number;
  feedback: VisitorRating | null;
  askedAt: number;
};

/** A conversation as the owner's list shows it. */
export type ConversationSummary = VisitorSessionRecord & { turns: number; unanswered: number };

export type PruneResult = { sessions: number; turns: number };

/** What the owner's list, export and reports filter conversations by; a session matches when one of its turns does. */
export type ConversationFilter = {
  widgetId?: string | undefined;
  knowledgeBaseId?: string | undefined;
  /** Start time range of the conversation: from inclusive, to exclusive. */
  from?: number | undefined;
  to?: number | undefined;
  unanswered?: boolean | undefined;
  thumbsDown?: boolean | undefined;
  /** Words a question contains, case-insensitive (ASCII case). */
  text?: string | undefined;
};

/** Where a page of conversations ends: the list is ordered by start time then id, newest first. */
export type ConversationPosition = { startedAt: number; id: string };

/** A conversation as the owner's list shows it, with what it needs to be told apart at a glance. */
export type ConversationListing = ConversationSummary & {
  widgetName: string | null;
  thumbsUp: number;
  thumbsDown: number;
  firstQuestion: string | null;
};

export type VisitorUsageTotals = { questions: number; answered: number; feedbackUp: number; feedbackDown: number };
export type VisitorUsage = { totals: VisitorUsageTotals; byWidget: Array<{ widgetId: string } & VisitorUsageTotals> };
export type VisitorUsageFilter = { from: number; to: number; widgetId?: string | undefined; knowledgeBaseId?: string | undefined; knowledgeBaseIds?: string[] | undefined };

/**
 * Where conversations are kept (server/storage/visitor-repo.ts). A turn and its usage counts are
 * written in one transaction, and so is a change of feedback, so usage never drifts from them;
 * usage counts outlive the conversations, which retention removes.
 */
export interface VisitorRepository {
  /** Stores the session, unless it is stored already (then the first stays). */
  insertSession(session: VisitorSessionRecord): void;
  getSession(id: string): VisitorSessionRecord | null;
  /** Whether the session was deleted while its token may still be valid (deleteSession, pruneBefore). */
  wasDeleted(id: string, now: number): boolean;
  /**
   * Stores the turn, moves its session's last-seen time and counts it in usage. The write may
   * come a moment later, off the visitor's answer, but every read through the repository sees it.
   */
  insertTurn(turn: VisitorTurnRecord): void;
  /**
   * Rates a turn of that session ('missing' when it holds no such turn). A changed rating moves
   * its count from one to the other, in the hour the question was asked.
   */
  rate(sessionId: string, turnId: string, rating: VisitorRating): 'rated' | 'missing';
  /** Deletes the session and its turns; one seen in the last session length is remembered as deleted. */
  deleteSession(id: string, now: number): boolean;
  /**
   * Removes up to `limit` sessions last seen before `cutoff`, their turns with them, and up to
   * `limit` turns asked before it in sessions that go on; says how many of each. Those seen in
   * the last session length before `now` are remembered as deleted, as by deleteSession.
   */
  pruneBefore(cutoff: number, limit: number, now: number): PruneResult;
  listSessions(filter: { widgetId?: string | undefined; before?: number | undefined; limit: number }): ConversationSummary[];
  /** Conversations with at least one turn matching the filter, newest first, after `after`. */
  findConversations(filter: ConversationFilter, after: ConversationPosition | null, limit: number): ConversationListing[];
  /** One conversation as the list shows it (whatever the filter), or null. */
  listing(sessionId: string): ConversationListing | null;
  turns(sessionId: string): VisitorTurnRecord[];
  /** The session's last `limit` turns, oldest first, those still waiting to be written included (nothing is written for it). */
  recentTurns(sessionId: string, limit: number): VisitorTurnRecord[];
  /** Questions a widget was asked from `since` on, from the usage counts (which retention leaves). */
  questionsSince(widgetId: string, since: number): number;
  usage(filter: VisitorUsageFilter): VisitorUsage;
}

/** The few stored settings this module reads and writes (server/storage/settings-repo.ts). */
export interface SettingsStore {
  get(name: string): string | null;
  set(name: string, value: string): void;
}

export const DEFAULT_VISITOR_RETENTION_DAYS = 30;
const MAX_VISITOR_RETENTION_DAYS = 3_650;
const RETENTION_SETTING = 'visitor_retention_days';

/**
 * Visitor conversations: each session with its questions, answers and feedback, kept for the
 * retention period (a setting, 30 days by default) as the owner's source for conversations,
 * content gaps and analytics. Nothing here holds a clear IP address.
 */
export class VisitorConversations {
  constructor(
    private readonly repo: VisitorRepository,
    private readonly settings: SettingsStore,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * Stores a session at its first question (nothing is stored when a visitor starts one: its
   * token is signed, and a session that never asks anything holds nothing to keep). Called at
   * every question, it reads first: a session already stored is kept as it is, without a write.
   */
  startSession(session: Omit<VisitorSessionRecord, 'startedAt' | 'lastSeenAt'>): VisitorSessionRecord {
    const stored = this.repo.getSession(session.id);
    if (stored) return stored;
    const now = this.clock();
    const record = { ...session, startedAt: now, lastSeenAt: now };
    this.repo.insertSession(record);
    return record;
  }

  /** The stored session (one that asked something), unless it was deleted (by the owner, or by retention). */
  session(id: string): VisitorSessionRecord | null {
    return this.repo.getSession(id);
  }

  /** Whether the owner deleted this session's conversation: its token, still valid, must then be refused. */
  wasDeleted(id: string): boolean {
    return this.repo.wasDeleted(id, this.clock());
  }

  recordTurn(turn: Omit<VisitorTurnRecord, 'id' | 'feedback' | 'askedAt'> & { askedAt?: number }): VisitorTurnRecord {
    const record: VisitorTurnRecord = { askedAt: this.clock(), ...turn, id: `ans_${randomBase62(20)}`, feedback: null };
    this.repo.insertTurn(record);
    return record;
  }

  /**
   * The earlier turns of a visitor's conversation as LocalIQ recorded them (each question and the
   * answer shown), oldest first, for a follow-up question: never what the visitor's browser sends,
   * in which anyone could write turns the assistant never said. As many, and as long, as a
   * browser may send.
   */
  earlierTurns(sessionId: string): ConversationTurn[] {
    return this.repo
      .recentTurns(sessionId, Math.floor(VISITOR_CONVERSATION_MAX_TURNS / 2))
      .flatMap((turn) => [
        { role: 'user' as const, content: turn.question.slice(0, VISITOR_TURN_MAX).toWellFormed() },
        { role: 'assistant' as const, content: turn.answer.slice(0, VISITOR_TURN_MAX).toWellFormed() },
      ]);
  }

  /** Thumbs up or down on an answer of this session; false when the session holds no such answer. */
  rate(sessionId: string, answerId: string, rating: VisitorRating): boolean {
    return this.repo.rate(sessionId, answerId, rating) === 'rated';
  }

  /** "Delete this conversation": the session and every turn of it. */
  deleteConversation(sessionId: string): boolean {
    return this.repo.deleteSession(sessionId, this.clock());
  }

  /** Conversations, newest first; `before` (a start time) pages through older ones. */
  conversations(filter: { widgetId?: string; before?: number; limit?: number } = {}): ConversationSummary[] {
    return this.repo.listSessions({ widgetId: filter.widgetId, before: filter.before, limit: Math.min(Math.max(filter.limit ?? 50, 1), 500) });
  }

  /** A page of conversations matching the filter, newest first, and where the next page starts. */
  find(filter: ConversationFilter, after: ConversationPosition | null, limit: number): { rows: ConversationListing[]; next: ConversationPosition | null } {
    const rows = this.repo.findConversations(filter, after, limit + 1);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { rows: page, next: rows.length > limit && last ? { startedAt: last.startedAt, id: last.id } : null };
  }

  /** A conversation with its turns, as the owner's reading view shows it. */
  read(sessionId: string): { listing: ConversationListing; turns: VisitorTurnRecord[] } | null {
    const turns = this.repo.turns(sessionId);
    const listing = this.repo.listing(sessionId);
    return listing ? { listing, turns } : null;
  }

  /**
   * "Delete everything older than": conversations last active before `cutoff` and the older
   * questions of those that go on, a page per turn of the event loop; says how many conversations went.
   */
  async deleteOlderThan(cutoff: number, page = 500): Promise<number> {
    // A date to come would take conversations still going on: that is deleting one by one.
    if (cutoff > this.clock()) throw new RangeError('The date must not be in the future.');
    const now = this.clock();
    return deleteInPages((limit) => this.repo.pruneBefore(cutoff, limit, now), page);
  }

  conversation(sessionId: string): { session: VisitorSessionRecord; turns: VisitorTurnRecord[] } | null {
    // Turns first: reading them writes any that wait, which moves the session's last-seen time.
    const turns = this.repo.turns(sessionId);
    const session = this.repo.getSession(sessionId);
    return session ? { session, turns } : null;
  }

  questionsSince(widgetId: string, since: number): number {
    return this.repo.questionsSince(widgetId, since);
  }

  usage(filter: VisitorUsageFilter): VisitorUsage {
    return this.repo.usage(filter);
  }

  retentionDays(): number {
    const stored = Number(this.settings.get(RETENTION_SETTING));
    return Number.isInteger(stored) && stored >= 1 && stored <= MAX_VISITOR_RETENTION_DAYS ? stored : DEFAULT_VISITOR_RETENTION_DAYS;
  }

  setRetentionDays(days: number): void {
    if (!Number.isInteger(days) || days < 1 || days > MAX_VISITOR_RETENTION_DAYS) {
      throw new RangeError(`Visitor conversations are kept from 1 to ${MAX_VISITOR_RETENTION_DAYS} days.`);
    }
    this.settings.set(RETENTION_SETTING, String(days));
  }

  /** Where the retention period starts now: conversations last active before it go (dashboard ones too). */
  retentionCutoff(): number {
    return this.clock() - this.retentionDays() * 86_400_000;
  }

  /** Removes up to `limit` sessions (and turns) older than the retention period. */
  pruneExpired(limit: number): PruneResult {
    return this.repo.pruneBefore(this.retentionCutoff(), limit, this.clock());
  }
}

/**
 * Runs `prune` a page at a time, a turn of the event loop between pages, until a page comes back
 * short; says how many conversations went.
 */
export async function deleteInPages(prune: (limit: number) => PruneResult, page = 500): Promise<number> {
  let removed = 0;
  for (;;) {
    const pruned = prune(page);
    removed += pruned.sessions;
    if (pruned.sessions < page && pruned.turns < page) return removed;
    await nextTurn();
  }
}

/**
 * Answer times are counted per hour in buckets 20 % apart (10 ms, 12 ms, 14.4 ms … about 2
 * minutes), so a month's median and 95th percentile read a few hundred counts, not every answer.
 * A percentile is reported as its bucket's upper bound: at most 20 % above the exact value.
 */
const LATENCY_FLOOR_MS = 10;
const LATENCY_RATIO = 1.2;
const LATENCY_BUCKETS = 52;
export const LATENCY_METRIC_PREFIX = 'latency_';

export function latencyBucket(ms: number): number {
  if (!(ms > LATENCY_FLOOR_MS)) return 0;
  return Math.min(LATENCY_BUCKETS - 1, Math.ceil(Math.log(ms / LATENCY_FLOOR_MS) / Math.log(LATENCY_RATIO) - 1e-9));
}

export function latencyBucketUpperMs(bucket: number): number {
  return Math.round(LATENCY_FLOOR_MS * LATENCY_RATIO ** bucket);
}

/** Nearest-rank percentile of a histogram (bucket → count), as the bucket's upper bound; null when empty. */
export function histogramPercentile(histogram: Map<number, number>, p: number): number | null {
  let total = 0;
  for (const n of histogram.values()) total += n;
  if (total <= 0) return null;
  const rank = Math.ceil(p * total);
  let seen = 0;
  for (const bucket of [...histogram.keys()].sort((a, b) => a - b)) {
    seen += histogram.get(bucket)!;
    if (seen >= rank) return latencyBucketUpperMs(bucket);
  }
  return null;
}

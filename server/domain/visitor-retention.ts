import { PagedRetention } from './paged-retention.ts';
import type { PruneResult } from './visitor-conversations.ts';

/** A pass a day keeps conversations within a day of their retention period. */
const PASS_EVERY_MS = 24 * 60 * 60_000;
/** Sessions (with their turns) removed per transaction; the event loop turns between pages. */
export const VISITOR_PRUNE_PAGE = 200;

/**
 * Removes conversations (visitors' and the dashboard's: Conversations.pruneExpired) older than the
 * retention period (VisitorConversations' setting, read at each pass): one pass at start-up and
 * one a day, a page per turn of the event loop (PagedRetention).
 */
export class VisitorRetention extends PagedRetention {
  constructor(
    conversations: { pruneExpired(limit: number): PruneResult },
    /** Hears how many conversations a pass removed, when it removed any. */
    onPass: (removed: number) => void = () => {},
  ) {
    super({
      name: 'conversation-retention',
      intervalMs: PASS_EVERY_MS,
      onPass,
      begin: () => () => {
        const page = conversations.pruneExpired(VISITOR_PRUNE_PAGE);
        return { removed: page.sessions, more: page.sessions >= VISITOR_PRUNE_PAGE || page.turns >= VISITOR_PRUNE_PAGE };
      },
    });
  }
}

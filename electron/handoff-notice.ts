/**
 * The desktop notification for visitors' questions left for the shop (handoffs). The dashboard
 * polls the count of open ones for its navigation and hands it over the bridge; this decides when
 * that deserves a notification: only when the count grew since the last one heard (not at start-up,
 * not when the owner answered some). Pure, so it is tested without Electron.
 */
export type HandoffNotice = { title: string; body: string };

export class HandoffNotifier {
  private last: number | null = null;

  /** The notice to show for a newly heard count, or null. The first count heard only sets the baseline. */
  heard(open: unknown): HandoffNotice | null {
    if (typeof open !== 'number' || !Number.isSafeInteger(open) || open < 0) return null;
    const before = this.last;
    this.last = open;
    if (before === null || open <= before) return null;
    const added = open - before;
    return {
      title: added === 1 ? 'A visitor asked for the team' : `${added} visitors asked for the team`,
      body: `${open} open ${open === 1 ? 'question waits' : 'questions wait'} in the Inbox.`,
    };
  }
}

import { useEffect, useState } from 'react';
import { getHandoffCounts } from '../api/handoffs.ts';

/** How often the navigation asks for the count of open handoffs. */
const POLL_MS = 30_000;
/** The Inbox says so after a reply, so the navigation's count follows at once. */
export const HANDOFFS_CHANGED = 'localiq:handoffs-changed';

/**
 * Visitors' questions waiting for the shop, for the navigation's count. In the desktop app the
 * count also goes to the shell, which shows a notification when it grows (electron/handoff-notice.ts).
 */
export function useOpenHandoffs(): number {
  const [open, setOpen] = useState(0);
  useEffect(() => {
    let stopped = false;
    const load = async () => {
      try {
        const counts = await getHandoffCounts();
        if (stopped) return;
        setOpen(counts.open);
        void window.localiq?.handoffsWaiting?.(counts.open).catch(() => undefined);
      } catch {
        // Offline for a moment: the next poll tries again.
      }
    };
    void load();
    const timer = window.setInterval(() => void load(), POLL_MS);
    window.addEventListener(HANDOFFS_CHANGED, load);
    return () => {
      stopped = true;
      window.clearInterval(timer);
      window.removeEventListener(HANDOFFS_CHANGED, load);
    };
  }, []);
  return open;
}

import type { RunningServer } from '../../server/main.ts';

/**
 * Waits until an in-process server has no queued or processing job, then until its in-memory
 * keyword and vector indexes have loaded what the pipeline wrote: a bench's searches then measure
 * the index, not a load under way.
 */
export async function waitUntilIndexed(server: RunningServer, pollMs = 100): Promise<void> {
  for (;;) {
    const counts = server.services.jobs.countByStatus();
    if (counts.queued === 0 && counts.processing === 0) break;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  await server.services.keywords.ready();
  await server.services.embedding.index()?.ready();
}

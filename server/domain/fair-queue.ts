/**
 * The queue's fair order. Every integration has two lanes: its pushes of one item (the edits a
 * shop makes as it goes) and its pushes of several (bulk imports and syncs). A lane's jobs take
 * arrival times one after another, each later than the last by the time the pipeline needs for
 * it at its measured rate: a 2,000-item bulk is spread over the minutes it takes, as if its items
 * had arrived one by one as the pipeline could take them. A job pushed meanwhile in another lane
 * arrives now, so it waits only for the work the pipeline should already have reached: a fresh
 * edit overtakes a bulk backlog, and two integrations' bulks are taken turn about. The claim key
 * is that arrival time + level × AGING_MS (jobs.ts), so priorities and aging work as before.
 */

import { FILE_LIMITS } from '../../common/contract/files.ts';
import { fileOf } from './file-items.ts';

/** The fixed work of one job (claim, transaction, index writes), counted as this many characters. */
export const JOB_OVERHEAD_CHARACTERS = 1_000;

/**
 * What one item costs the pipeline, in characters of text to chunk and embed plus its fixed work.
 * An uploaded file's text is not known before the pipeline extracts it: its size in bytes stands
 * for it, up to the most text one file may yield (a PDF's bytes are mostly fonts and pictures, so
 * this errs on the side of a file waiting its turn rather than cutting in).
 */
export function jobCost(data: { title: string; content: string }): number {
  const file = fileOf(data);
  const text = file ? Math.min(file.bytes, FILE_LIMITS.textCharacters) : data.title.length + data.content.length;
  return text + JOB_OVERHEAD_CHARACTERS;
}

/** The lane of an item pushed by this integration in a push of `pushSize` items. */
export function laneOf(integrationId: string, pushSize: number): string {
  return `${pushSize === 1 ? 'one' : 'many'}:${integrationId}`;
}

/** Lanes forgotten once this many are remembered: only lanes with work still ahead matter. */
const MAX_LANES = 10_000;

/**
 * Each lane's next free arrival time. Kept in memory by the one writer of pushes; after a restart
 * every lane starts at the current time, so a backlog from before it is not spread further.
 */
export class LaneClock {
  private readonly next = new Map<string, number>();

  /** The arrival time of a job of `lane` pushed at `now` that will take `durationMs` to process. */
  arrive(lane: string, now: number, durationMs: number): number {
    const at = Math.max(now, this.next.get(lane) ?? now);
    if (this.next.size >= MAX_LANES) this.forgetIdle(now);
    this.next.set(lane, at + durationMs);
    // Whole milliseconds, as claim keys are stored; the lane keeps the fractions.
    return Math.floor(at);
  }

  private forgetIdle(now: number): void {
    for (const [lane, at] of this.next) if (at <= now) this.next.delete(lane);
  }
}

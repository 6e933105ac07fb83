import { ErrorAnswer } from '../contract/errors.ts';
import type { IngestItem } from '../contract/ingest.ts';
import type { ImportApi } from './api-client.ts';

/** Items in one bulk push unless the caller asks for fewer (`localiq import --batch-size`). */
export const DEFAULT_BATCH_SIZE = 500;

/**
 * Serialized size at which a batch is sent early. The server refuses bodies over its body limit
 * (10 MB by default, LIMITS.defaultBodyBytes); 4 MB keeps a batch well under it, with room for
 * the request's own JSON around the items and for a server run with a lower
 * LOCALIQ_BODY_LIMIT_BYTES, and it arrives within the default 60 s body timeout over a link of
 * 70 KB/s. A server that still refuses a batch as too large gets it in halves (sendBatch).
 */
export const MAX_BATCH_BYTES = 4 * 1024 * 1024;

const encoder = new TextEncoder();

/** Collects items until the next one would take it past its count or its bytes. */
export class Batch {
  items: IngestItem[] = [];
  /** The row of the last item, the resume point once the batch is acknowledged. */
  lastRow = 0;
  private bytes = 0;

  constructor(private readonly maxItems: number) {}

  /** Adds the item, or answers false (adding nothing) when it belongs in the next batch. */
  add(item: IngestItem, row: number): boolean {
    const bytes = encoder.encode(JSON.stringify(item)).length;
    if (this.items.length >= this.maxItems || (this.items.length > 0 && this.bytes + bytes > MAX_BATCH_BYTES)) return false;
    this.items.push(item);
    this.bytes += bytes + 1; // the comma between items
    this.lastRow = row;
    return true;
  }
}

/**
 * One bulk push; resolves with the job of its last item. A server configured with a lower bulk
 * or body limit than this batch answers `too_many_items` / `payload_too_large`: the batch is then
 * sent in halves. `acknowledged` runs once per request the server took.
 */
export async function sendBatch(api: ImportApi, items: IngestItem[], acknowledged: () => void): Promise<string> {
  try {
    const answer = await api.pushBatch(items);
    acknowledged();
    return answer.jobIds.at(-1)!;
  } catch (error) {
    const tooBig = error instanceof ErrorAnswer && (error.code === 'too_many_items' || error.code === 'payload_too_large');
    if (!tooBig || items.length === 1) throw error;
    const half = Math.ceil(items.length / 2);
    await sendBatch(api, items.slice(0, half), acknowledged);
    return sendBatch(api, items.slice(half), acknowledged);
  }
}

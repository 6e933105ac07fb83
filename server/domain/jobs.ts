import { hash } from 'node:crypto';
import type { IngestItem } from '../../common/contract/ingest.ts';
import type { PriorityName } from '../../common/contract/jobs.ts';

export type { JobStatus, PriorityName } from '../../common/contract/jobs.ts';

export const PRIORITY_LEVELS = { high: 0, normal: 1, low: 2 } as const satisfies Record<PriorityName, number>;

/**
 * How long a job must wait to rise one priority level. The claim order is
 * arrival + level × AGING_MS, so high runs before normal and normal before low, in order of
 * arrival within a level (a job's arrival: fair-queue.ts), and a low job that has waited twice
 * this long overtakes fresh high jobs: no starvation.
 */
export const AGING_MS = 10 * 60_000;

/** The seed's job identifier. Not unique across knowledge bases; the item columns are the identity. */
export function jobIdOf(integrationId: string, externalId: string): string {
  return `${integrationId}-${externalId}`;
}

/** Every (integration id, external id) whose jobId this is: one per hyphen to split at. */
export function jobIdSplits(jobId: string): Array<[string, string]> {
  const splits: Array<[string, string]> = [];
  for (let at = jobId.indexOf('-'); at !== -1; at = jobId.indexOf('-', at + 1)) {
    splits.push([jobId.slice(0, at), jobId.slice(at + 1)]);
  }
  return splits;
}

export function sortKey(arrival: number, priority: number): number {
  return arrival + priority * AGING_MS;
}

/** The inverse of sortKey: the arrival of a job with this claim key and priority. */
export function arrivalOf(key: number, priority: number): number {
  return key - priority * AGING_MS;
}

export function priorityLevel(item: IngestItem): number {
  return PRIORITY_LEVELS[item.options?.priority ?? 'normal'];
}

/** Exponential backoff before the next attempt: 2 s, 4 s, 8 s … capped at 10 minutes. */
export function backoffMs(attempt: number): number {
  return Math.min(2_000 * 2 ** Math.max(0, attempt - 1), 10 * 60_000);
}

/**
 * JSON with object keys sorted and undefined members left out. Written as loops because it runs
 * for every pushed item; the output is byte for byte what the stored hashes were computed over.
 */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += canonicalJson(value[i]) ?? '';
    }
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = '{';
  for (const key of keys) {
    const member = record[key];
    if (member === undefined) continue;
    if (out.length > 1) out += ',';
    out += `${JSON.stringify(key)}:${canonicalJson(member)}`;
  }
  return `${out}}`;
}

/**
 * The item's content hash: the caller's `data.hash` when given, else SHA-256 over a canonical
 * form of `data` (keys sorted), so the same content always hashes the same.
 * The source type is part of the computed hash: the same text as another type indexes differently.
 */
export function contentHash(item: Pick<IngestItem, 'data' | 'sourceType'>): string {
  if (item.data.hash !== undefined) return item.data.hash;
  const { hash: _ignored, ...data } = item.data;
  return `sha256:${hash('sha256', canonicalJson({ sourceType: item.sourceType, data }), 'hex')}`;
}

/** Honest estimate: the work ahead of (and including) these jobs at the measured rate. */
export function formatEstimate(jobsAhead: number, jobsPerSecond: number): string {
  const rate = jobsPerSecond > 0 ? jobsPerSecond : 1;
  return `${Math.max(1, Math.ceil(jobsAhead / rate))}s`;
}

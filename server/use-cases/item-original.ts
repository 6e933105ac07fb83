import fs from 'node:fs';
import { describeOriginal, type OriginalFile } from '../domain/original-file.ts';
import type { ItemRecord } from '../domain/item-record.ts';
import type { Originals } from '../storage/originals.ts';

/**
 * An indexed item's original, described from its first bytes and its names (what it is, how a
 * browser should show it); null when the item did not come from a file or its file is gone.
 */
export function originalOf(row: Pick<ItemRecord, 'originalSha256' | 'externalId' | 'title'>, originals: Originals): (OriginalFile & { sha256: string; bytes: number }) | null {
  const sha256 = row.originalSha256;
  if (!sha256 || !originals.has(sha256)) return null;
  const file = originals.pathOf(sha256);
  const head = Buffer.alloc(1024);
  const fd = fs.openSync(file, 'r');
  try {
    const read = fs.readSync(fd, head, 0, head.length, 0);
    return { ...describeOriginal(head.subarray(0, read), [row.externalId, row.title]), sha256, bytes: fs.fstatSync(fd).size };
  } finally {
    fs.closeSync(fd);
  }
}

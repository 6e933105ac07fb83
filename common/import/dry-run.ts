import type { IngestItem } from '../contract/ingest.ts';
import { emptyTally, mappedRows, type OnProgress, type ReadOptions, type ReadTally } from './read-rows.ts';

export type DryRunReport = ReadTally & { preview: IngestItem[] };

/** Streams the whole file through the mapping and sends nothing: what an import would send and what it would refuse. */
export async function dryRunRecords(options: ReadOptions & { previewCount: number; onProgress?: OnProgress<DryRunReport> }): Promise<DryRunReport> {
  const report: DryRunReport = { ...emptyTally(options.totalBytes), preview: [] };
  const progress = (event: 'row' | 'end') => {
    report.bytesRead = options.source.bytesRead();
    return options.onProgress?.(report, event);
  };
  for await (const { item } of mappedRows(options, report, () => progress('row'))) {
    if (report.preview.length < options.previewCount) report.preview.push(item);
  }
  await progress('end');
  return report;
}

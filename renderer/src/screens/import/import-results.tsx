import type { RowError } from '../../../../common/import/import-mapping.ts';
import type { IngestItem } from '../../../../common/contract/ingest.ts';
import { JOB_STATUSES } from '../../../../common/contract/jobs.ts';
import { formatNumber } from '../../format.ts';
import type { JobTally } from '../../../../common/import/follow-jobs.ts';
import type { ReadTally } from '../../../../common/import/read-rows.ts';
import type { ImportProgress } from './import-run.ts';

export function ReadStats({ progress, label }: { progress: ReadTally & Partial<ImportProgress>; label: string }) {
  const percent = progress.totalBytes > 0 ? Math.round((progress.bytesRead / progress.totalBytes) * 100) : 100;
  return (
    <>
      <div className="progress" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent}>
        <div style={{ width: `${percent}%` }} />
      </div>
      <dl className="stats" aria-label={`${label}: counts`}>
        <div>
          <dt>Rows read</dt>
          <dd data-testid="rows-read">{formatNumber(progress.rows)}</dd>
        </div>
        <div>
          <dt>Valid</dt>
          <dd data-testid="rows-valid">{formatNumber(progress.valid)}</dd>
        </div>
        <div>
          <dt>Invalid</dt>
          <dd data-testid="rows-invalid">{formatNumber(progress.invalid)}</dd>
        </div>
        {progress.itemsSent !== undefined ? (
          <>
            <div>
              <dt>Items sent</dt>
              <dd data-testid="items-sent">{formatNumber(progress.itemsSent)}</dd>
            </div>
            <div>
              <dt>Batches</dt>
              <dd data-testid="batches">{formatNumber(progress.batches ?? 0)}</dd>
            </div>
          </>
        ) : null}
      </dl>
      {progress.waiting ? <p className="hint">{progress.waiting}</p> : null}
      {progress.titlesFromContent > 0 ? (
        <p className="note" data-testid="titles-from-content">
          {formatNumber(progress.titlesFromContent)} valid row{progress.titlesFromContent === 1 ? ' has' : 's have'} no title: the item's title is the
          first line of its content (up to 80 characters). Map a title column to choose it yourself.
        </p>
      ) : null}
    </>
  );
}

export function InvalidRows({ rows, total }: { rows: RowError[]; total: number }) {
  if (total === 0) return <p className="valid-note">Every row maps to a valid item.</p>;
  return (
    <div className="table-wrap">
      <table aria-label="Invalid rows">
        <caption>
          Invalid rows ({formatNumber(total)}){rows.length < total ? `, first ${formatNumber(rows.length)} shown` : ''}: these are not imported
        </caption>
        <thead>
          <tr>
            <th scope="col">Row</th>
            <th scope="col">externalId</th>
            <th scope="col">Reason</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.row}>
              <td>{r.row}</td>
              <td>{r.externalId ?? ''}</td>
              <td>{r.reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const clip = (text: string, n: number) => (text.length > n ? `${text.slice(0, n)}…` : text);

export function PreviewItems({ items }: { items: IngestItem[] }) {
  if (items.length === 0) return null;
  return (
    <div className="table-wrap">
      <table aria-label="First items">
        <caption>First {items.length} items, as they will be sent</caption>
        <thead>
          <tr>
            <th scope="col">externalId</th>
            <th scope="col">title</th>
            <th scope="col">content</th>
            <th scope="col">url</th>
            <th scope="col">sourceData</th>
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr key={item.externalId}>
              <td>{item.externalId}</td>
              <td>{item.data.title}</td>
              <td>{clip(item.data.content, 160)}</td>
              <td>{item.data.url ?? ''}</td>
              <td>{item.data.sourceData ? <code>{clip(JSON.stringify(item.data.sourceData), 160)}</code> : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function JobStats({ tally }: { tally: JobTally }) {
  const percent = tally.total > 0 ? Math.round((tally.done / tally.total) * 100) : 100;
  return (
    <>
      <div className="progress" role="progressbar" aria-label="Jobs final" aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent}>
        <div style={{ width: `${percent}%` }} />
      </div>
      <dl className="stats" aria-label="Jobs by state">
        {JOB_STATUSES.map((s) => (
          <div key={s}>
            <dt>{s[0]!.toUpperCase() + s.slice(1)}</dt>
            <dd data-testid={`jobs-${s}`}>{formatNumber(tally[s])}</dd>
          </div>
        ))}
      </dl>
    </>
  );
}

/** One sentence on how the import ended, so an unchanged re-import visibly ends "all skipped". */
export function jobSummary(t: JobTally): string {
  if (t.done < t.total) return `${formatNumber(t.done)} of ${formatNumber(t.total)} jobs final…`;
  if (t.total > 0 && t.skipped === t.total) return `All ${formatNumber(t.total)} items skipped: unchanged since the last import.`;
  const parts = [`${formatNumber(t.succeeded)} succeeded`, `${formatNumber(t.skipped)} skipped (unchanged)`];
  if (t.failed) parts.push(`${formatNumber(t.failed)} failed`);
  if (t.cancelled) parts.push(`${formatNumber(t.cancelled)} cancelled`);
  return `All ${formatNumber(t.total)} jobs final: ${parts.join(', ')}.`;
}

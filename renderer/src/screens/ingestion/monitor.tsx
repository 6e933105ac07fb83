import { useEffect, useState } from 'react';
import { JOB_STATUSES, type JobView, type MonitorSnapshot } from '../../../../common/contract/admin.ts';
import { MONITOR_EVENTS_URL, retryJob } from '../../api/jobs.ts';
import { Badge, CodeBlock, EmptyState, ErrorNote, errorText, PageHeader, DataTable } from '../../components/ui.tsx';
import { formatDate, formatDuration, formatNumber } from '../../format.ts';
import { useSession } from '../../session.tsx';
import { curlExample } from '../../components/curl-example.ts';
import { itemHref } from '../knowledge/knowledge.tsx';

/** Live snapshots over Server-Sent Events; the browser reconnects by itself after a drop. */
function useMonitor(): { snapshot: MonitorSnapshot | null; live: boolean } {
  const [snapshot, setSnapshot] = useState<MonitorSnapshot | null>(null);
  const [live, setLive] = useState(false);
  useEffect(() => {
    const source = new EventSource(MONITOR_EVENTS_URL);
    source.addEventListener('snapshot', (event) => {
      setSnapshot(JSON.parse((event as MessageEvent<string>).data) as MonitorSnapshot);
      setLive(true);
    });
    source.onerror = () => setLive(false);
    return () => source.close();
  }, []);
  return { snapshot, live };
}

function RetryButton({ job, onError }: { job: JobView; onError: (message: string | null) => void }) {
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      className="secondary"
      disabled={busy}
      aria-label={`Retry ${job.integrationId}/${job.externalId}`}
      onClick={async () => {
        setBusy(true);
        try {
          await retryJob({ knowledgeBaseId: job.knowledgeBaseId, integrationId: job.integrationId, externalId: job.externalId });
          onError(null);
        } catch (e) {
          onError(errorText(e));
        } finally {
          setBusy(false);
        }
      }}
    >
      Retry
    </button>
  );
}

export function MonitorScreen() {
  const { session } = useSession();
  const { snapshot, live } = useMonitor();
  const [error, setError] = useState<string | null>(null);
  const s = snapshot;
  const total = s ? s.progress.done + s.progress.pending : 0;
  const percent = s && total > 0 ? Math.round((s.progress.done / total) * 100) : 100;
  const nothingYet = s && Object.values(s.counts).every((n) => n === 0);
  return (
    <>
      <PageHeader title="Ingestion">
        <span className={`live ${live ? 'on' : 'off'}`} role="status">
          {live ? 'Live' : 'Connecting…'}
        </span>
      </PageHeader>
      <ErrorNote error={error} />
      {nothingYet ? (
        <EmptyState title="No jobs yet">
          <p>Every item pushed to LocalIQ becomes a job here: queued, processing, then done. Push one to see it:</p>
          <CodeBlock code={curlExample()} label="curl example" />
        </EmptyState>
      ) : null}
      {s ? (
        <>
          <section aria-labelledby="queue-heading" className="panel">
            <h2 id="queue-heading">Queue</h2>
            <dl className="stats wide" aria-label="Jobs by state">
              {JOB_STATUSES.map((status) => (
                <div key={status}>
                  <dt>{status[0]!.toUpperCase() + status.slice(1)}</dt>
                  <dd data-testid={`count-${status}`}>{formatNumber(s.counts[status])}</dd>
                </div>
              ))}
            </dl>
            <dl className="stats" aria-label="Queued jobs by priority">
              <div>
                <dt>High priority</dt>
                <dd>{formatNumber(s.queuedByPriority.high)}</dd>
              </div>
              <div>
                <dt>Normal</dt>
                <dd>{formatNumber(s.queuedByPriority.normal)}</dd>
              </div>
              <div>
                <dt>Low</dt>
                <dd>{formatNumber(s.queuedByPriority.low)}</dd>
              </div>
            </dl>
          </section>
          {nothingYet ? null : (
            <>
              <section aria-labelledby="progress-heading" className="panel">
                <h2 id="progress-heading">Progress</h2>
                <div
                  className="progress"
                  role="progressbar"
                  aria-label="Current work done"
                  aria-valuemin={0}
                  aria-valuemax={100}
                  aria-valuenow={percent}
                >
                  <div style={{ width: `${percent}%` }} />
                </div>
                <p>
                  {s.progress.pending === 0
                    ? 'All caught up.'
                    : `${formatNumber(s.progress.done)} of ${formatNumber(total)} done · ${s.jobsPerSecond} jobs/s · about ${formatDuration(s.etaSeconds)} left`}
                </p>
                {s.processing.length > 0 ? (
                  <div className="table-wrap">
                    <table>
                      <caption>Processing now</caption>
                      <thead>
                        <tr>
                          <th scope="col">Item</th>
                          <th scope="col">Knowledge base</th>
                          <th scope="col">Attempt</th>
                          <th scope="col">Running for</th>
                        </tr>
                      </thead>
                      <tbody>
                        {s.processing.map((job) => (
                          <tr key={`${job.knowledgeBaseId}/${job.jobId}`}>
                            <td>{job.jobId}</td>
                            <td>{job.knowledgeBaseId}</td>
                            <td>
                              {job.attempts} of {job.maxAttempts}
                            </td>
                            <td>{formatDuration(job.runningMs / 1000)}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                ) : null}
              </section>
              <section aria-labelledby="failures-heading" className="panel">
                <h2 id="failures-heading">Failures</h2>
                {s.failures.length === 0 ? (
                  <p className="hint">No failed jobs.</p>
                ) : (
                  <DataTable caption="Failed jobs" columns={['Item', 'Knowledge base', 'Attempts', 'Error', 'Failed', session.canManage && 'Action']}>
                    {s.failures.map((job) => (
                      <tr key={`${job.knowledgeBaseId}/${job.jobId}`}>
                        <td>
                          <a href={itemHref(job)}>{job.jobId}</a>
                        </td>
                        <td>{job.knowledgeBaseId}</td>
                        <td>{job.attempts}</td>
                        <td className="error-text">{job.lastError}</td>
                        <td className="date">{formatDate(job.finishedAt)}</td>
                        {session.canManage ? (
                          <td>
                            <RetryButton job={job} onError={setError} />
                          </td>
                        ) : null}
                      </tr>
                    ))}
                  </DataTable>
                )}
              </section>
              <section aria-labelledby="recent-heading" className="panel">
                <h2 id="recent-heading">Recent activity</h2>
                {s.recent.length === 0 ? (
                  <p className="hint">Nothing in the last 10 minutes.</p>
                ) : (
                  <ul className="activity">
                    {s.recent.map((job) => (
                      <li key={`${job.knowledgeBaseId}/${job.jobId}/${job.updatedAt}`}>
                        <Badge value={job.status} /> <a href={itemHref(job)}>{job.jobId}</a>{' '}
                        <span className="hint">
                          in {job.knowledgeBaseId} · {formatDate(job.updatedAt)}
                        </span>
                      </li>
                    ))}
                  </ul>
                )}
              </section>
            </>
          )}
        </>
      ) : null}
    </>
  );
}

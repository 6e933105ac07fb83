import type { MonitorSnapshot } from '../../../common/contract/admin.ts';
import type { MonitorState } from '../../domain/monitor.ts';
import { isoTime } from './iso-time.ts';
import { toJobView } from './job-view.ts';

/** The ingestion monitor's state as `GET /admin/api/monitor` and the `/admin/api/events` stream send it. */
export function monitorView(state: MonitorState): MonitorSnapshot {
  return {
    at: isoTime(state.at),
    counts: state.counts,
    queuedByPriority: state.queuedByPriority,
    processing: state.processing.map(({ job, runningMs }) => ({ ...toJobView(job), runningMs })),
    progress: state.progress,
    jobsPerSecond: state.jobsPerSecond,
    etaSeconds: state.etaSeconds,
    failures: state.failures.map(toJobView),
    recent: state.recent.map(toJobView),
  };
}

import type { JobView } from '../../../common/contract/jobs.ts';

/**
 * A job's error, in red: the last attempt's, when it failed. A job whose last run ended without
 * failing has none; the attempts that failed before it are history (`errors`), shown muted as
 * such. A job's note (superseded, deleted, pages read by OCR) is no error: it has a column of its
 * own.
 */
export function JobError({ job }: { job: Pick<JobView, 'lastError' | 'errors'> }) {
  if (job.lastError) return <span className="error-text">{job.lastError}</span>;
  const last = job.errors.at(-1);
  if (!last) return null;
  const before = job.errors.length === 1 ? 'An earlier attempt failed' : `${job.errors.length} earlier attempts failed, the last`;
  return <span className="hint">{`${before}: ${last.message}`}</span>;
}

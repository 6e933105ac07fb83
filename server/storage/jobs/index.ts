/**
 * The life of a job. Every change of a job's state is one function, in a file of its own:
 *
 *   enqueue           push → queued, or → skipped when the index already holds the content
 *   replace           queued → queued: a new push of the item takes the waiting job's place
 *   claim             queued → processing
 *   finish            processing → succeeded, skipped or cancelled
 *   fail              a failed run: back off, give up, or cancel when a newer version waits
 *   back off          processing → queued, due after the backoff
 *   give up           processing → failed (last attempt) or cancelled (superseded)
 *   retry             failed → queued, with fresh attempts
 *   cancel on delete  queued or processing → cancelled, with the item's deletion
 *   recover stale     processing → queued, failed or cancelled, at start-up after a crash
 *   requeue all       every indexed item → queued, after the embedding model changed
 *
 * The states, and which are final, are the contract's (common/contract/jobs.ts): a final state
 * never changes again, except failed, which a retry puts back in the queue.
 *
 * Triggers of the schema (storage/migrations/) follow every change of state in the same transaction,
 * and change no state themselves; they are bookkeeping that must never disagree with the jobs:
 * - `usage_job_outcome` (migration 4) counts each job that reaches a final state in usage_counts.
 *   A job inserted already settled is counted by its push instead (enqueue.ts): migration 5
 *   dropped the insert trigger, which cost every push.
 * - `job_counts_on_update` and `job_counts_on_delete` (migrations 0009 and 0011) keep job_counts; jobs
 *   inserted are counted by whoever inserts them (job-counts.ts).
 */
export { prepareBackOff } from './back-off.ts';
export { prepareCancelOnDelete } from './cancel-on-delete.ts';
export { prepareClaim } from './claim.ts';
export { prepareEnqueue } from './enqueue.ts';
export { type FailureOutcome, prepareFail } from './fail.ts';
export { type JobOutcome, prepareFinish } from './finish.ts';
export { prepareGiveUp } from './give-up.ts';
export { prepareRecoverStale } from './recover-stale.ts';
export { prepareReplace } from './replace.ts';
export { prepareRequeueAll } from './requeue-all.ts';
export { prepareRetry } from './retry.ts';
export { prepareTextPhase, type TextPhase } from './text-phase.ts';

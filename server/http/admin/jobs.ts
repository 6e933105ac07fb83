import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { adminJobListQuerySchema, itemIdentitySchema } from '../../../common/contract/admin.ts';
import { jobIdParamsSchema, jobLookupQuerySchema } from '../../../common/contract/jobs.ts';
import type { Services } from '../../services.ts';
import { ApiError } from '../edge/api-error.ts';
import { toJobView } from '../edge/job-view.ts';

/** `/jobs`, `/jobs/{jobId}` and `/jobs/retry`: every job for the dashboard; the Owner and Admins retry failed ones. */
export const jobAdminRoutes: FastifyPluginAsyncZod<Pick<Services, 'jobs' | 'queue' | 'monitor'>> = async (app, { jobs, queue, monitor }) => {
  app.get('/jobs', { config: { admin: 'member' }, schema: { querystring: adminJobListQuerySchema } }, async (request) => {
    const { limit, cursor, ...filter } = request.query;
    const page = queue.list(filter, limit, cursor);
    return { data: page.rows.map(toJobView), nextCursor: page.nextCursor };
  });

  /** One job by the jobId a push answered (the dashboard follows its uploads with it). */
  app.get(
    '/jobs/:jobId',
    { config: { admin: 'member' }, schema: { params: jobIdParamsSchema, querystring: jobLookupQuerySchema } },
    async (request) => {
      const lookup = queue.find(request.params.jobId, request.query, null);
      if (lookup.found === 'none') throw new ApiError('not_found', `No job "${request.params.jobId}".`);
      if (lookup.found !== 'one') throw new ApiError('ambiguous_job_id', `Several items share the job id "${request.params.jobId}"; add knowledgeBaseId and integrationId.`);
      return toJobView(lookup.job);
    },
  );

  /** Retries the latest job of an item (the one the monitor shows as failed). */
  app.post('/jobs/retry', { config: { admin: 'manager' }, schema: { body: itemIdentitySchema } }, async (request) => {
    const job = jobs.latestForItem(request.body);
    if (!job) throw new ApiError('not_found', 'This item has no job.');
    const outcome = queue.retry(job);
    if (outcome === 'not_failed') throw new ApiError('job_not_retryable', `Only failed jobs can be retried; this one is ${job.status}.`);
    if (outcome === 'newer_queued') throw new ApiError('job_not_retryable', 'A newer version of this item is already queued.');
    monitor.notify();
    return toJobView(queue.get(job.id)!);
  });
};

import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorSchema } from '../../../common/contract/errors.ts';
import {
  jobIdParamsSchema,
  jobListQuerySchema,
  jobListSchema,
  jobLookupQuerySchema,
  jobSchema,
} from '../../../common/contract/jobs.ts';
import type { Job } from '../../domain/job-record.ts';
import type { Services } from '../../services.ts';
import { ApiError } from '../edge/api-error.ts';
import { allowedKnowledgeBases } from '../edge/api-key-auth.ts';
import { toJobView } from '../edge/job-view.ts';
import { apiKeyErrorResponses, apiKeySecurity } from '../edge/route-schemas.ts';

const jobResponses = { 200: jobSchema, ...apiKeyErrorResponses, 404: errorSchema, 409: errorSchema } as const;

/** `/jobs`, `/jobs/{jobId}` and `/jobs/{jobId}/retry`: the jobs of pushed items (scope `iq:import`). */
export const jobRoutes: FastifyPluginAsyncZod<Pick<Services, 'queue'>> = async (app, { queue }) => {
  function findJob(request: FastifyRequest, jobId: string, narrow: { knowledgeBaseId?: string; integrationId?: string }): Job {
    const lookup = queue.find(jobId, narrow, allowedKnowledgeBases(request));
    if (lookup.found === 'one') return lookup.job;
    if (lookup.found === 'none') throw new ApiError('not_found', `No job "${jobId}".`);
    throw new ApiError(
      'ambiguous_job_id',
      `Several items share the job id "${jobId}"; add knowledgeBaseId and/or integrationId to the query.`,
      lookup.candidates.map((c, i) => ({
        path: `candidates.${i}`,
        message: `knowledgeBaseId=${c.knowledgeBaseId} integrationId=${c.integrationId} externalId=${c.externalId}`,
      })),
    );
  }

  app.get(
    '/jobs',
    {
      config: { scope: 'iq:import' },
      schema: {
        tags: ['jobs'],
        summary: 'List jobs, newest first',
        security: apiKeySecurity,
        querystring: jobListQuerySchema,
        response: { 200: jobListSchema, ...apiKeyErrorResponses },
      },
    },
    async (request) => {
      const { limit, cursor, ...filter } = request.query;
      const page = queue.list({ ...filter, allowedKnowledgeBaseIds: allowedKnowledgeBases(request) }, limit, cursor);
      return { data: page.rows.map(toJobView), nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/jobs/:jobId',
    {
      config: { scope: 'iq:import' },
      schema: {
        tags: ['jobs'],
        summary: 'Read the latest job of an item by its jobId',
        security: apiKeySecurity,
        params: jobIdParamsSchema,
        querystring: jobLookupQuerySchema,
        response: jobResponses,
      },
    },
    async (request) => toJobView(findJob(request, request.params.jobId, request.query)),
  );

  app.post(
    '/jobs/:jobId/retry',
    {
      config: { scope: 'iq:import' },
      schema: {
        tags: ['jobs'],
        summary: 'Queue a failed job again with fresh attempts',
        security: apiKeySecurity,
        params: jobIdParamsSchema,
        querystring: jobLookupQuerySchema,
        response: jobResponses,
      },
    },
    async (request) => {
      const job = findJob(request, request.params.jobId, request.query);
      const outcome = queue.retry(job);
      if (outcome === 'not_failed') {
        throw new ApiError('job_not_retryable', `Only failed jobs can be retried; this one is ${job.status}.`);
      }
      if (outcome === 'newer_queued') {
        throw new ApiError('job_not_retryable', 'A newer version of this item is already queued.');
      }
      return toJobView(queue.get(job.id)!);
    },
  );
};

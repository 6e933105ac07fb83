import { randomBytes } from 'node:crypto';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
} from 'fastify-type-provider-zod';
import type { Config } from './config.ts';
import type { ApiKeyService } from './domain/api-key-service.ts';
import type { JobQueue } from './domain/job-queue.ts';
import { registerApiKeyAuth } from './http/api-key-auth.ts';
import { registerErrorHandling } from './http/error-handler.ts';
import { registerJsonBodyParser } from './http/json-body.ts';
import { RateLimiter } from './http/rate-limiter.ts';
import { ingestRoutes } from './http/routes/ingest.ts';
import { itemWriteRoutes } from './http/routes/items.ts';
import { jobRoutes } from './http/routes/jobs.ts';
import { knowledgeRoutes } from './http/routes/knowledge.ts';
import type { SearchService } from './retrieval/search.ts';
import type { ItemReadRepo } from './storage/item-read-repo.ts';
import type { ItemRepo } from './storage/item-repo.ts';
import type { JobRepo } from './storage/job-repo.ts';

export const API_VERSION = '1.0.0';

export type AppDeps = {
  config: Pick<Config, 'bodyLimitBytes' | 'bulkLimit' | 'rateLimit' | 'logLevel'>;
  keys: ApiKeyService;
  queue: JobQueue;
  items: ItemRepo;
  reader: ItemReadRepo;
  jobs: JobRepo;
  search: SearchService;
};

/** Builds the whole HTTP surface without listening, so tests drive the real app. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: deps.config.logLevel,
      redact: ['req.headers["x-api-key"]', 'req.headers.cookie', 'req.headers.authorization'],
    },
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.config.bodyLimitBytes,
    genReqId: () => `req_${randomBytes(8).toString('hex')}`,
    requestIdHeader: false,
    routerOptions: { ignoreTrailingSlash: true },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  registerJsonBodyParser(app);
  registerErrorHandling(app);
  registerApiKeyAuth(app, deps.keys, new RateLimiter(deps.config.rateLimit.perSecond, deps.config.rateLimit.burst));

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'LocalIQ API',
        version: API_VERSION,
        description:
          'Push content into local knowledge bases, follow its processing, search it and ask questions about it.',
      },
      components: {
        securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/docs' });

  await app.register(ingestRoutes, { queue: deps.queue, bulkLimit: deps.config.bulkLimit });
  await app.register(jobRoutes, { queue: deps.queue });
  await app.register(itemWriteRoutes, { items: deps.items });
  await app.register(knowledgeRoutes, { reader: deps.reader, jobs: deps.jobs, search: deps.search });

  app.get('/health', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  return app;
}

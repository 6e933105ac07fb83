import { randomBytes } from 'node:crypto';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
} from 'fastify-type-provider-zod';
import type { Config } from './config.ts';
import { createLogs } from './logging.ts';
import type { Logger } from 'pino';
import type { ApiKeyService } from './domain/api-key-service.ts';
import type { JobQueue } from './domain/job-queue.ts';
import { registerApiKeyAuth } from './http/edge/api-key-auth.ts';
import { adminApi } from './http/admin/index.ts';
import type { Webhooks } from './webhooks/webhooks.ts';
import type { QuestionGroupStore } from './domain/content-gaps.ts';
import type { VisitorAnalyticsRepo } from './storage/visitor-analytics-repo.ts';
import type { QuestionGrouper } from './retrieval/question-groups.ts';
import { isLanAccess, lanAccessHelp } from './http/admin/settings-routes.ts';
import { registerDashboard } from './http/edge/dashboard-static.ts';
import type { DiskCondition } from './domain/disk-condition.ts';
import type { MonitorService } from './domain/monitor.ts';
import { DesktopSignIn, type SessionService } from './domain/sessions.ts';
import type { UserService } from './domain/users.ts';
import { MonitorRepo } from './storage/monitor-repo.ts';
import type { Db } from './storage/db.ts';
import type { EmbeddingModel } from './indexes/embedding-model.ts';
import type { LlmSettings } from './retrieval/answer/llm-settings.ts';
import type { ScheduledBackups } from './domain/scheduled-backups.ts';
import type { WebsiteSourceService } from './domain/website-sources.ts';
import { clientErrorHandler, frameworkErrorHandler, registerErrorHandling } from './http/edge/error-handler.ts';
import { registerJsonBodyParser } from './http/edge/json-body.ts';
import { RateLimiter } from './http/edge/rate-limiter.ts';
import { ingestRoutes } from './http/routes/ingest.ts';
import { itemWriteRoutes } from './http/routes/items.ts';
import { fileRoutes } from './http/routes/files.ts';
import { FILE_LIMITS } from '../common/contract/files.ts';
import type { Originals } from './storage/originals.ts';
import { jobRoutes } from './http/routes/jobs.ts';
import { knowledgeRoutes } from './http/routes/knowledge.ts';
import { articleRoutes } from './http/routes/articles.ts';
import { askRoutes } from './http/routes/ask.ts';
import { usageRoutes } from './http/routes/usage.ts';
import { registerUsageCounting } from './http/edge/usage-hook.ts';
import type { AskQuestion } from './retrieval/answer/ask-question.ts';
import type { Assistant } from './retrieval/answer/assistant.ts';
import type { CuratedAnswers } from './retrieval/curated/curated-answers.ts';
import type { ArticleRepo } from './storage/article-repo.ts';
import type { UsageRepo } from './storage/usage-repo.ts';
import type { SearchService } from './retrieval/search.ts';
import type { ItemReadRepo } from './storage/item-read-repo.ts';
import type { ItemRepo } from './storage/item-repo.ts';
import type { JobRepo } from './storage/jobs/job-repo.ts';
import { visitorSurface } from './http/public/index.ts';
import type { VisitorConversations } from './domain/visitor-conversations.ts';
import type { Conversations } from './domain/conversations.ts';
import type { DashboardConversations } from './domain/dashboard-conversations.ts';
import type { VisitorLimits } from './domain/visitor-limits.ts';
import type { Handoffs } from './domain/handoffs.ts';
import type { VisitorSessions } from './domain/visitor-sessions.ts';
import type { WidgetService } from './domain/widgets.ts';

const API_VERSION = '1.0.0';

// Request ids only correlate log lines with answers: a random prefix per process and a counter
// cost nothing per request, where fresh random bytes for each showed up in profiles.
const REQUEST_ID_PREFIX = `req_${randomBytes(4).toString('hex')}`;
let requestCounter = 0;
export const nextRequestId = () => `${REQUEST_ID_PREFIX}${(++requestCounter).toString(36).padStart(6, '0')}`;

export type AppDeps = {
  config: Pick<Config, 'bodyLimitBytes' | 'bulkLimit' | 'rateLimit' | 'logLevel' | 'logFormat' | 'bodyTimeoutMs'> &
    Partial<Pick<Config, 'dataDir' | 'host' | 'port' | 'workers' | 'desktopSignInToken' | 'trustedProxies' | 'publicListener' | 'fileLimits'>>;
  keys: ApiKeyService;
  queue: JobQueue;
  items: ItemRepo;
  originals: Originals;
  reader: ItemReadRepo;
  jobs: JobRepo;
  search: SearchService;
  // The assistant, published articles, usage counters.
  assistant: Assistant;
  askQuestion: AskQuestion;
  curatedAnswers: CuratedAnswers;
  articles: ArticleRepo;
  usage: UsageRepo;
  // The dashboard: users, sessions, the live monitor.
  db: Db;
  users: UserService;
  sessions: SessionService;
  monitor: MonitorService;
  disk: DiskCondition;
  embedding?: EmbeddingModel;
  secretStore?: string;
  llmSettings: LlmSettings;
  backups: ScheduledBackups;
  websiteSources: WebsiteSourceService;
  // The visitor side (server/http/public), served here too so a kiosk or a test needs no second listener.
  widgets: WidgetService;
  visitorSessions: VisitorSessions;
  visitorConversations: VisitorConversations;
  visitorLimits: VisitorLimits;
  handoffs: Handoffs;
  dashboardConversations: DashboardConversations;
  conversations: Conversations;
  /** The time sign-in delays are counted in (Services' clock); the wall clock when absent. */
  clock?: () => number;
  questionGroups: QuestionGroupStore;
  questionGrouper: QuestionGrouper;
  visitorAnalytics: VisitorAnalyticsRepo;
  /** Webhooks the Owner and Admins register (server/webhooks/). */
  webhooks: Webhooks;
  /** The built widget script; out/widget/widget.js of the checkout by default. */
  widgetScript?: string;
  /** The server's logger (server/logging.ts); made from the config when absent. */
  logger?: Logger;
  /** Where the built dashboard is; defaults to out/renderer of the checkout. */
  rendererDir?: string;
  /** Where log lines go; standard output by default (tests read them). */
  logStream?: { write(line: string): void };
};

/** Builds the whole HTTP surface without listening, so tests drive the real app. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    // Typed as Fastify's base logger so the instance keeps the type every route module expects.
    loggerInstance: (deps.logger ?? createLogs(deps.config, deps.logStream).logger) as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.config.bodyLimitBytes,
    genReqId: nextRequestId,
    requestIdHeader: false,
    clientErrorHandler,
    frameworkErrors: frameworkErrorHandler,
    // Path parameters are ids of up to 256 characters (jobIds 513), percent-encoded up to 9 bytes
    // each; the router's default of 100 would refuse valid ids before validation sees them.
    routerOptions: { maxParamLength: 5_000, ignoreTrailingSlash: true },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // A callback hook, not an async one: it runs on every answer and needs no promise.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });

  registerJsonBodyParser(app, deps.config.bodyTimeoutMs);
  registerErrorHandling(app, () => deps.disk.pushRefused());
  registerApiKeyAuth(app, deps.keys, new RateLimiter(deps.config.rateLimit.perSecond, deps.config.rateLimit.burst));
  registerUsageCounting(app, deps.usage);

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
  await app.register(fileRoutes, {
    queue: deps.queue,
    originals: deps.originals,
    db: deps.db,
    limits: deps.config.fileLimits ?? FILE_LIMITS,
  });
  await app.register(jobRoutes, { queue: deps.queue });
  await app.register(itemWriteRoutes, { items: deps.items });
  await app.register(knowledgeRoutes, { reader: deps.reader, jobs: deps.jobs, search: deps.search });
  await app.register(askRoutes, { askQuestion: deps.askQuestion, reader: deps.reader });
  await app.register(articleRoutes, { articles: deps.articles });
  await app.register(usageRoutes, { usage: deps.usage, visitors: deps.visitorConversations, visitorAnalytics: deps.visitorAnalytics });

  app.get('/health', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  await app.register(visitorSurface, { ...deps, trustedProxies: deps.config.trustedProxies ?? [] });

  const { config } = deps;
  await app.register(adminApi, {
    prefix: '/admin/api',
    ...deps,
    desktop: new DesktopSignIn(config.desktopSignInToken ?? null),
    monitorRepo: new MonitorRepo(deps.db),
    bulkLimit: config.bulkLimit,
    fileLimits: deps.config.fileLimits ?? FILE_LIMITS,
    settings: () => ({
      dataDir: config.dataDir ?? '',
      host: config.host ?? '127.0.0.1',
      port: (app.server.address() as { port?: number } | null)?.port ?? config.port ?? 0,
      lanAccess: isLanAccess(config.host ?? '127.0.0.1'),
      lanAccessHelp: lanAccessHelp(config.host ?? '127.0.0.1', config.port ?? 7410),
      embedder: deps.embedding?.modelId() ?? null,
      workers: config.workers ?? 0,
      secretStore: deps.secretStore ?? 'file',
      desktopSignIn: Boolean(config.desktopSignInToken),
      publicListener: config.publicListener ?? null,
    }),
  });
  await registerDashboard(app, deps.rendererDir);
  return app;
}

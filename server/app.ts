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
import { FILE_LIMITS } from '../common/contract/files.ts';
import { DesktopSignIn } from './domain/sessions.ts';
import { MonitorRepo } from './storage/monitor-repo.ts';
import type { Services } from './services.ts';
import { adminApi, type AdminApiOptions } from './http/admin/index.ts';
import { isLanAccess, lanAccessHelp } from './http/admin/settings/index.ts';
import { integrationApi, type IntegrationApiOptions } from './http/api/index.ts';
import { registerApiKeyAuth } from './http/edge/api-key-auth.ts';
import { registerDashboard } from './http/edge/dashboard-static.ts';
import { clientErrorHandler, frameworkErrorHandler, registerErrorHandling } from './http/edge/error-handler.ts';
import { registerJsonBodyParser } from './http/edge/json-body.ts';
import { RateLimiter } from './http/edge/rate-limiter.ts';
import { registerUsageCounting } from './http/edge/usage-hook.ts';
import { visitorSurface, type VisitorSurfaceOptions } from './http/public/index.ts';

const API_VERSION = '1.0.0';

// Request ids only correlate log lines with answers: a random prefix per process and a counter
// cost nothing per request, where fresh random bytes for each showed up in profiles.
const REQUEST_ID_PREFIX = `req_${randomBytes(4).toString('hex')}`;
let requestCounter = 0;
export const nextRequestId = () => `${REQUEST_ID_PREFIX}${(++requestCounter).toString(36).padStart(6, '0')}`;

/**
 * The services the HTTP surfaces use: each route file names its part of `Services`, and each
 * surface (api/, admin/, public/) the union of its files'; the app takes the union of theirs.
 */
type HttpServices = Omit<IntegrationApiOptions, 'bulkLimit' | 'fileLimits'> &
  Omit<AdminApiOptions, 'desktop' | 'monitorRepo' | 'settings' | 'fileLimits' | 'bulkLimit'> &
  Omit<VisitorSurfaceOptions, 'trustedProxies' | 'widgetScript'> &
  Pick<Services, 'keys' | 'usage' | 'disk'> &
  Partial<Pick<Services, 'embedding' | 'secretStore'>>;

export type AppDeps = HttpServices & {
  config: Pick<Config, 'bodyLimitBytes' | 'bulkLimit' | 'rateLimit' | 'logLevel' | 'logFormat' | 'bodyTimeoutMs'> &
    Partial<Pick<Config, 'dataDir' | 'host' | 'port' | 'workers' | 'desktopSignInToken' | 'trustedProxies' | 'publicListener' | 'fileLimits'>>;
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

  await app.register(integrationApi, { ...deps, bulkLimit: deps.config.bulkLimit, fileLimits: deps.config.fileLimits ?? FILE_LIMITS });

  app.get('/health', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  // The visitor side (server/http/public), served here too so a kiosk or a test needs no second listener.
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

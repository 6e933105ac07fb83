import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import { clientErrorHandler, frameworkErrorHandler, registerErrorHandling } from '../edge/error-handler.ts';
import { registerJsonBodyParser } from '../edge/json-body.ts';
import { visitorSurface, type VisitorSurfaceOptions } from './index.ts';
import { VISITOR_BODY_LIMIT } from '../edge/visitor-route.ts';

export type PublicAppDeps = VisitorSurfaceOptions & {
  logger: Logger;
  bodyTimeoutMs: number;
  /** The main app's request ids, so log lines of both listeners read alike. */
  genReqId: () => string;
};

/**
 * The public listener (`LOCALIQ_PUBLIC_HOST`/`LOCALIQ_PUBLIC_PORT`): a Fastify instance of its
 * own that serves the visitor side and nothing else. Ingest, the integration API, the admin API,
 * the dashboard, the API docs and `/health` are not routes here at all, so every other path
 * answers 404 in the error shape whatever a proxy in front lets through.
 */
export async function buildPublicApp(deps: PublicAppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: VISITOR_BODY_LIMIT,
    genReqId: deps.genReqId,
    requestIdHeader: false,
    clientErrorHandler,
    frameworkErrors: frameworkErrorHandler,
    routerOptions: { ignoreTrailingSlash: true },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });
  registerJsonBodyParser(app, deps.bodyTimeoutMs);
  registerErrorHandling(app);
  await app.register(visitorSurface, deps);
  return app;
}

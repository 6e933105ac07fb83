import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { publicWidgetConfigSchema } from '../../../../common/contract/widget.ts';
import { publicWidgetConfig } from '../../../domain/widgets.ts';
import { originErrors, preflight, VISITOR_BODY_LIMIT, visitorOf, visitorParams as params, visitorTags as tags } from '../../edge/visitor-route.ts';

/** `GET /v1/widget/{widgetId}/config`: what the widget needs to draw itself. */
export const widgetConfigRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/v1/widget/:widgetId/config',
    {
      bodyLimit: VISITOR_BODY_LIMIT,
      schema: {
        tags,
        summary: "A widget's public settings: what it needs to draw itself",
        description: 'From an allowed origin only (CORS). A disabled widget answers 404 like an unknown one.',
        params,
        response: { 200: publicWidgetConfigSchema, ...originErrors },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-cache');
      return publicWidgetConfig(visitorOf(request).widget);
    },
  );

  preflight(app, 'config', 'GET');
};

import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AdminSettings, AdminWidget, AdminWidgetList } from '../../../common/contract/admin.ts';
import { widgetInputSchema, widgetUpdateSchema } from '../../../common/contract/widget.ts';
import { startOfUtcDay, type WidgetRecord, widgetBaseUrl } from '../../domain/widgets.ts';
import type { Services } from '../../services.ts';
import { ApiError } from '../edge/api-error.ts';
import { toWidgetView } from '../edge/widget-view.ts';

export type WidgetRoutesOptions = Pick<Services, 'widgets' | 'visitorConversations'> & { settings: () => AdminSettings };

const widgetParamsSchema = z.strictObject({ widgetId: z.string().min(1).max(64) });

/**
 * The visitor assistant's widgets as the dashboard manages them: Owner and Admins change them,
 * Members look. Every answer carries the snippet to paste, pointing where visitors' browsers
 * reach LocalIQ (the public listener, else the address the dashboard was opened at).
 */
export const widgetRoutes: FastifyPluginAsyncZod<WidgetRoutesOptions> = async (app, { widgets, visitorConversations, settings }) => {
  const baseUrlFor = (request: FastifyRequest) =>
    widgetBaseUrl(settings().publicListener, new URL(`${request.protocol}://${request.host}`));
  const view = (widget: WidgetRecord, baseUrl: string): AdminWidget =>
    toWidgetView(widget, baseUrl, visitorConversations.questionsSince(widget.id, startOfUtcDay(Date.now())));
  const found = (widget: WidgetRecord | null, widgetId: string): WidgetRecord => {
    if (!widget) throw new ApiError('not_found', `No widget "${widgetId}".`);
    return widget;
  };

  app.get('/widgets', { config: { admin: 'member' } }, async (request): Promise<AdminWidgetList> => {
    const baseUrl = baseUrlFor(request);
    return {
      data: widgets.list().map((widget) => view(widget, baseUrl)),
      address: { baseUrl, publicListener: settings().publicListener !== null },
    };
  });

  app.post('/widgets', { config: { admin: 'manager' }, schema: { body: widgetInputSchema } }, async (request, reply) => {
    return reply.code(201).send(view(widgets.create(request.body), baseUrlFor(request)));
  });

  app.get('/widgets/:widgetId', { config: { admin: 'member' }, schema: { params: widgetParamsSchema } }, async (request) => {
    const { widgetId } = request.params;
    return view(found(widgets.get(widgetId), widgetId), baseUrlFor(request));
  });

  app.patch(
    '/widgets/:widgetId',
    { config: { admin: 'manager' }, schema: { params: widgetParamsSchema, body: widgetUpdateSchema } },
    async (request) => {
      const { widgetId } = request.params;
      return view(found(widgets.update(widgetId, request.body), widgetId), baseUrlFor(request));
    },
  );

  app.delete('/widgets/:widgetId', { config: { admin: 'manager' }, schema: { params: widgetParamsSchema } }, async (request, reply) => {
    const { widgetId } = request.params;
    if (!widgets.delete(widgetId)) throw new ApiError('not_found', `No widget "${widgetId}".`);
    return reply.code(204).send();
  });
};

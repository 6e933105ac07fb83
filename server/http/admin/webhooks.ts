import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { newWebhookSchema, webhookParamsSchema } from '../../../common/contract/webhooks.ts';
import type { Services } from '../../services.ts';
import { ApiError } from '../edge/api-error.ts';
import { sessionOf } from '../edge/admin-auth.ts';

/**
 * Webhooks, for the Owner and Admins only: a webhook makes this machine POST to an address of the
 * registrant's choosing (docs/webhooks.md says why that is safe). The secret is returned once.
 */
export const webhookRoutes: FastifyPluginAsyncZod<Pick<Services, 'webhooks'>> = async (app, { webhooks }) => {
  const missing = (id: string) => new ApiError('not_found', `No webhook "${id}".`);

  app.get('/webhooks', { config: { admin: 'manager' } }, async () => ({ data: webhooks.list() }));

  app.post('/webhooks', { config: { admin: 'manager' }, schema: { body: newWebhookSchema } }, async (request, reply) => {
    const created = webhooks.create(request.body, sessionOf(request).user.username);
    return reply.code(201).send(created);
  });

  app.delete('/webhooks/:webhookId', { config: { admin: 'manager' }, schema: { params: webhookParamsSchema } }, async (request, reply) => {
    if (!webhooks.remove(request.params.webhookId)) throw missing(request.params.webhookId);
    return reply.code(204).send();
  });

  app.get('/webhooks/:webhookId/deliveries', { config: { admin: 'manager' }, schema: { params: webhookParamsSchema } }, async (request) => {
    const deliveries = webhooks.deliveries(request.params.webhookId);
    if (!deliveries) throw missing(request.params.webhookId);
    return { data: deliveries };
  });
};

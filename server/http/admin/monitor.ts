import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Services } from '../../services.ts';
import { monitorView } from '../edge/monitor-view.ts';

/** `GET /monitor`: one snapshot of the ingestion monitor (`/events` streams them). */
export const monitorRoutes: FastifyPluginAsyncZod<Pick<Services, 'monitor'>> = async (app, { monitor }) => {
  app.get('/monitor', { config: { admin: 'member' } }, async () => monitorView(monitor.snapshot()));
};

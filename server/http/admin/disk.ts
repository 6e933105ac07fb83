import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Services } from '../../services.ts';

/** `GET /disk`: whether the data folder's disk is full; every screen of the dashboard checks. */
export const diskRoutes: FastifyPluginAsyncZod<Pick<Services, 'disk'>> = async (app, { disk }) => {
  app.get('/disk', { config: { admin: 'member' } }, async () => disk.view());
};

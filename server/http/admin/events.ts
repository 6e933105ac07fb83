import type { ServerResponse } from 'node:http';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Services } from '../../services.ts';
import { sessionOf } from '../edge/admin-auth.ts';
import { monitorView } from '../edge/monitor-view.ts';

/** A comment line now and then keeps proxies and the browser from closing a quiet stream. */
const KEEPALIVE_MS = 20_000;

/**
 * `GET /events`: the ingestion monitor as a Server-Sent Events stream that sends a snapshot at
 * once and then whenever the queue changes (coalesced to a few per second at most).
 */
export const eventRoutes: FastifyPluginAsyncZod<Pick<Services, 'monitor' | 'sessions'>> = async (app, { monitor, sessions }) => {
  const open = new Set<ServerResponse>();
  // Streams never end by themselves; closing the server ends them first.
  app.addHook('preClose', async () => {
    for (const res of open) res.end();
    open.clear();
  });

  app.get('/events', { config: { admin: 'member' } }, async (request, reply) => {
    const { token } = sessionOf(request);
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'x-request-id': request.id,
    });
    res.write('retry: 3000\n\n');
    open.add(res);
    let id = 0;
    const unsubscribe = monitor.subscribe((state) => {
      // The stream outlives the request that opened it: a user signed out, removed or whose
      // password changed elsewhere gets no more snapshots.
      if (!sessions.isActive(token)) return void res.end();
      res.write(`id: ${++id}\nevent: snapshot\ndata: ${JSON.stringify(monitorView(state))}\n\n`);
    });
    const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
    keepalive.unref();
    const close = () => {
      clearInterval(keepalive);
      unsubscribe();
      open.delete(res);
    };
    request.raw.once('close', close);
    res.once('close', close);
  });
};

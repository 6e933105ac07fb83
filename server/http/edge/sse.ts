import type { FastifyReply, FastifyRequest } from 'fastify';

export type EventStream = { send(event: string, data: unknown): void; end(): void; signal: AbortSignal };

/**
 * Takes over the response for Server-Sent Events: `event:`/`data:` frames, no buffering by
 * proxies, and an AbortSignal that fires when the client closes the connection, so the work
 * behind the stream stops with it.
 */
export function openEventStream(request: FastifyRequest, reply: FastifyReply): EventStream {
  const controller = new AbortController();
  const res = reply.raw;
  const onClose = () => {
    if (!res.writableFinished) controller.abort(new Error('the client closed the connection'));
  };
  res.on('close', onClose);
  reply.hijack();
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'x-request-id': request.id,
  });
  res.flushHeaders();
  return {
    signal: controller.signal,
    send(event, data) {
      if (controller.signal.aborted || res.writableEnded) return;
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    end() {
      res.off('close', onClose);
      if (!res.writableEnded) res.end();
    },
  };
}

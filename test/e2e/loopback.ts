import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A web server of the test's own on loopback: a shop's site, or a webhook receiver. */
export type Site = { url: string; close(): Promise<void> };

async function listen(server: http.Server): Promise<Site> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** A shop's site on its own origin: every path is the HTML page `page(path)` returns. */
export function serveShop(page: (path: string) => string): Promise<Site> {
  return listen(
    http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page(new URL(req.url ?? '/', 'http://shop').pathname));
    }),
  );
}

/** A webhook receiver: keeps every POST's raw body and signature header, answers 200. */
export async function startWebhookReceiver(): Promise<Site & { received: Array<{ body: string; signature: string }> }> {
  const received: Array<{ body: string; signature: string }> = [];
  const site = await listen(
    http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ body: Buffer.concat(chunks).toString('utf8'), signature: String(req.headers['x-localiq-signature']) });
        res.end('ok');
      });
    }),
  );
  return { ...site, received };
}

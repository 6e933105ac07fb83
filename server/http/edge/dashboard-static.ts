import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * The built dashboard (`electron-vite build`), out/renderer/ of the checkout. This file is
 * TypeScript in server/http/edge/ when the sources run; built, it is part of a bundle in
 * out/server/, one folder less deep, so the way to out/renderer/ depends on which one runs.
 */
const DEFAULT_RENDERER_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  import.meta.url.endsWith('.ts') ? '../../../out/renderer' : '../renderer',
);

/**
 * The page may load only its own scripts and talk only to this server. Inline styles are allowed
 * because the chart library positions its tooltips with them; inline scripts are not.
 */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function securityHeaders(reply: FastifyReply): FastifyReply {
  return reply.headers({
    'content-security-policy': CSP,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  });
}

const MISSING_BUILD = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>LocalIQ</title></head>
<body style="font-family:system-ui;max-width:40rem;margin:4rem auto;line-height:1.5">
<h1>LocalIQ is running</h1>
<p>The dashboard has not been built yet. Build it with <code>npx electron-vite build</code>
(or start LocalIQ with <code>npm start</code>, which builds it first), then reload this page.</p>
<p>The API works already: see <a href="/docs">/docs</a>.</p></body></html>`;

/**
 * Serves the dashboard at `/` and its files under `/assets/`. The app routes with the URL hash
 * (`/#/keys`), so no fallback route is needed and unknown paths keep the API's 404.
 */
export async function registerDashboard(app: FastifyInstance, rendererDir = DEFAULT_RENDERER_DIR): Promise<void> {
  const indexFile = path.join(rendererDir, 'index.html');
  const assets = path.join(rendererDir, 'assets');
  if (fs.existsSync(assets)) {
    await app.register(fastifyStatic, {
      root: assets,
      prefix: '/assets/',
      decorateReply: false,
      index: false,
      // File names carry a content hash: they never change, so browsers keep them.
      immutable: true,
      maxAge: '365d',
      setHeaders: (res) => res.header('x-content-type-options', 'nosniff'),
    });
  }
  app.get('/', { schema: { hide: true } }, async (_request, reply) => {
    securityHeaders(reply).header('cache-control', 'no-cache').type('text/html; charset=utf-8');
    try {
      return await fs.promises.readFile(indexFile, 'utf8');
    } catch {
      return MISSING_BUILD;
    }
  });
}

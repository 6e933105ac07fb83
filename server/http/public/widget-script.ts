import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../edge/api-error.ts';

/**
 * The built widget (`npm run build` writes it beside the dashboard, in out/widget/). This file is
 * TypeScript in server/http/public/ when the sources run; built, it is part of a bundle in
 * out/server/, one folder less deep, so the way to out/widget/ depends on which one runs.
 */
const DEFAULT_WIDGET_SCRIPT = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  import.meta.url.endsWith('.ts') ? '../../../out/widget/widget.js' : '../widget/widget.js',
);

const AN_HOUR_S = 3_600;
const A_YEAR_S = 31_536_000;

type Loaded = { mtimeMs: number; size: number; body: Buffer; version: string };

/**
 * The built widget script, read again only when the file changes, with its version: the start of
 * its SHA-256, which is also its ETag.
 */
export class WidgetScript {
  private loaded: Loaded | null = null;

  constructor(readonly file: string = DEFAULT_WIDGET_SCRIPT) {}

  /** The script and its version, or null when it has not been built. */
  current(): Loaded | null {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(this.file);
    } catch {
      this.loaded = null;
      return null;
    }
    if (!this.loaded || this.loaded.mtimeMs !== stat.mtimeMs || this.loaded.size !== stat.size) {
      const body = fs.readFileSync(this.file);
      this.loaded = { mtimeMs: stat.mtimeMs, size: stat.size, body, version: createHash('sha256').update(body).digest('hex').slice(0, 16) };
    }
    return this.loaded;
  }
}

/**
 * `GET /widget.js`: cached an hour, revalidated by ETag. `/widget.js?v=<version>` (the hosted page
 * links it so) is the same file marked immutable, while `v` names the version being served; an
 * outdated `v` gets the current file with the hour's caching, never a year's.
 */
export function registerWidgetScript(app: FastifyInstance, script: WidgetScript): void {
  app.get('/widget.js', { schema: { hide: true } }, async (request, reply) => {
    const loaded = script.current();
    if (!loaded) {
      throw new ApiError('not_found', 'The widget script has not been built yet: run `npm run build` in the LocalIQ checkout, then reload.');
    }
    const etag = `"${loaded.version}"`;
    const { v } = request.query as { v?: unknown };
    reply.headers({
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': v === loaded.version ? `public, max-age=${A_YEAR_S}, immutable` : `public, max-age=${AN_HOUR_S}`,
      etag,
      'x-content-type-options': 'nosniff',
      // Any site may load it with <script> (and with crossorigin or integrity checks).
      'access-control-allow-origin': '*',
      'cross-origin-resource-policy': 'cross-origin',
    });
    if (request.headers['if-none-match']?.split(',').some((tag) => tag.trim() === etag)) return reply.code(304).send();
    return reply.send(loaded.body);
  });
}

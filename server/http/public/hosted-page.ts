import type { FastifyInstance } from 'fastify';
import { WIDGET_ID_PATTERN } from '../../../common/contract/widget.ts';
import { resolveWidgetTexts } from '../../../common/contract/widget-texts.ts';
import type { WidgetService } from '../../domain/widgets.ts';
import { ApiError } from '../edge/api-error.ts';
import type { WidgetScript } from './widget-script.ts';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * The page may run only LocalIQ's own script and talk only to LocalIQ; it may be framed by the
 * widget's allowed origins (a shop that shows the chat inside its own page) and nobody else.
 */
function contentSecurityPolicy(frameAncestors: string[]): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "connect-src 'self'",
    // The widget styles its own elements.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors 'self' ${frameAncestors.join(' ')}`.trim(),
  ].join('; ');
}

/**
 * `/w/{widgetId}`: the hosted chat page, for a shop without a website of its own or a kiosk. It
 * loads the widget script in page mode. Links are relative, so the page also works where a proxy
 * serves LocalIQ under a path (`https://shop.example/assistant/w/…`); its requests then carry
 * the origin it was reached at, which the origin gate accepts as LocalIQ's own.
 */
export function registerHostedPage(app: FastifyInstance, widgets: WidgetService, script: WidgetScript): void {
  app.get('/w/:widgetId', { schema: { hide: true } }, async (request, reply) => {
    const { widgetId } = request.params as { widgetId: string };
    const widget = WIDGET_ID_PATTERN.test(widgetId) ? widgets.forVisitors(widgetId) : null;
    if (!widget) throw new ApiError('widget_not_found', 'No widget has this id, or it is switched off.');
    // `/w/{id}/` (a trailing slash is the same route) is one folder deeper.
    const up = request.url.split('?')[0]!.endsWith('/') ? '../../' : '../';
    const version = script.current()?.version;
    const src = `${up}widget.js${version ? `?v=${version}` : ''}`;
    const texts = resolveWidgetTexts(widget.language, widget.strings);
    reply.headers({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': contentSecurityPolicy(widget.allowedOrigins),
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-cache',
    });
    return `<!doctype html>
<html lang="${escapeHtml(widget.language)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(texts.title)}</title>
<link rel="icon" href="data:,">
</head>
<body>
<script src="${escapeHtml(src)}" data-widget="${escapeHtml(widget.id)}" data-mode="page" async></script>
<noscript>${escapeHtml(texts.noScript)}</noscript>
</body>
</html>
`;
  });
}

import type { FastifyPluginAsync } from 'fastify';
import { registerHostedPage } from './hosted-page.ts';
import { visitorApi, type VisitorApiOptions } from './widget/index.ts';
import { registerWidgetScript, WidgetScript } from './widget-script.ts';

export type VisitorSurfaceOptions = VisitorApiOptions & {
  /** The built widget script; out/widget/widget.js of the checkout by default. */
  widgetScript?: string | undefined;
};

/**
 * The visitor side, the one way in to this folder: the widget script (`/widget.js`), the hosted
 * chat page (`/w/{widgetId}`) and the visitor API (`/v1/widget/{widgetId}/...`). Registered on
 * the main listener and, alone, on the public listener (public-app.ts).
 */
export const visitorSurface: FastifyPluginAsync<VisitorSurfaceOptions> = async (app, options) => {
  const script = new WidgetScript(options.widgetScript);
  registerWidgetScript(app, script);
  registerHostedPage(app, options.widgets, script);
  await app.register(visitorApi, options);
};

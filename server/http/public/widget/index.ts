import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../../services.ts';
import { registerOriginGate } from '../../edge/origin-gate.ts';
import { visitorAskRoutes } from './ask.ts';
import { widgetConfigRoutes } from './config.ts';
import { visitorFeedbackRoutes } from './feedback.ts';
import { visitorHandoffRoutes } from './handoffs.ts';
import { visitorSessionRoutes } from './sessions.ts';

export type VisitorApiOptions = Pick<
  Services,
  'widgets' | 'visitorSessions' | 'visitorConversations' | 'visitorLimits' | 'handoffs' | 'askQuestion'
> & { trustedProxies: readonly string[] };

/**
 * `/v1/widget/{widgetId}/...`: all a visitor's browser may call (contract: common/contract/widget.ts),
 * one file per resource. Every route, preflights included, passes the origin gate first
 * (edge/origin-gate.ts).
 */
export const visitorApi: FastifyPluginAsync<VisitorApiOptions> = async (app, options) => {
  registerOriginGate(app, options);
  await app.register(widgetConfigRoutes);
  await app.register(visitorSessionRoutes, options);
  await app.register(visitorAskRoutes, options);
  await app.register(visitorFeedbackRoutes, options);
  await app.register(visitorHandoffRoutes, options);
};

import fastifyCookie from '@fastify/cookie';
import type { FastifyPluginAsync } from 'fastify';
import type { AdminSettings } from '../../../common/contract/admin.ts';
import type { DesktopSignIn } from '../../domain/sessions.ts';
import type { Services } from '../../services.ts';
import type { MonitorRepo } from '../../storage/monitor-repo.ts';
import { registerAdminAuth } from '../edge/admin-auth.ts';
import type { FileLimits } from '../edge/file-upload.ts';
import { backupRoutes } from './backup/index.ts';
import { backupScheduleRoutes } from './backup/schedule.ts';
import { contentGapRoutes } from './content-gaps.ts';
import { conversationExportRoutes } from './conversations/export.ts';
import { conversationFeedbackRoutes } from './conversations/feedback.ts';
import { conversationRoutes } from './conversations/index.ts';
import { diskRoutes } from './disk.ts';
import { eventRoutes } from './events.ts';
import { handoffRoutes } from './handoffs.ts';
import { importRoutes } from './ingest.ts';
import { jobAdminRoutes } from './jobs.ts';
import { keyRoutes } from './keys.ts';
import { curatedAnswerRoutes } from './knowledge-bases/answers.ts';
import { askAdminRoutes } from './knowledge-bases/ask.ts';
import { fileAdminRoutes } from './knowledge-bases/files.ts';
import { knowledgeBaseAdminRoutes } from './knowledge-bases/index.ts';
import { integrationRoutes } from './knowledge-bases/integrations.ts';
import { itemOriginalRoutes } from './knowledge-bases/item-original.ts';
import { itemAdminRoutes } from './knowledge-bases/items.ts';
import { knowledgeBaseSettingsRoutes } from './knowledge-bases/settings.ts';
import { synonymRoutes } from './knowledge-bases/synonyms.ts';
import { monitorRoutes } from './monitor.ts';
import { sessionRoutes } from './session.ts';
import { settingsRoutes } from './settings/index.ts';
import { llmSettingsRoutes } from './settings/llm.ts';
import { setupRoutes } from './setup.ts';
import { sourceRoutes } from './sources.ts';
import { usageAdminRoutes } from './usage.ts';
import { userRoutes } from './users.ts';
import { webhookRoutes } from './webhooks.ts';
import { widgetRoutes } from './widgets.ts';

/** The services the admin routes use, and what only the app knows (app.ts). */
export type AdminApiOptions = Pick<
  Services,
  | 'users' | 'sessions' | 'keys' | 'reader' | 'items' | 'jobs' | 'queue' | 'search' | 'monitor' | 'disk' | 'askQuestion'
  | 'curatedAnswers' | 'usage' | 'llmSettings' | 'backups' | 'originals' | 'db' | 'widgets' | 'visitorConversations'
  | 'dashboardConversations' | 'conversations' | 'questionGroups' | 'questionGrouper' | 'visitorAnalytics' | 'webhooks'
  | 'handoffs' | 'websiteSources'
> & {
  /** The time sign-in delays are counted in (Services' clock); the wall clock when absent. */
  clock?: () => number;
  desktop: DesktopSignIn;
  monitorRepo: MonitorRepo;
  settings: () => AdminSettings;
  /** The limits of an upload (as on the integration API). */
  fileLimits: FileLimits;
  /** Most items in one bulk push (LOCALIQ_BULK_LIMIT), for the file import. */
  bulkLimit: number;
};

/**
 * The dashboard's admin API under /admin/api: its own surface with its own gate (session cookie,
 * CSRF header, same origin, never an API key: edge/admin-auth.ts), kept out of the integration
 * API's OpenAPI document. One file per resource, named by its URL below /admin/api.
 */
export const adminApi: FastifyPluginAsync<AdminApiOptions> = async (app, { prefix: _prefix, ...options }: AdminApiOptions & { prefix?: string }) => {
  await app.register(fastifyCookie);
  registerAdminAuth(app, options.sessions);
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  await app.register(setupRoutes, options);
  await app.register(sessionRoutes, options);
  await app.register(userRoutes, options);
  await app.register(keyRoutes, options);
  await app.register(knowledgeBaseAdminRoutes, options);
  await app.register(itemAdminRoutes, options);
  await app.register(knowledgeBaseSettingsRoutes, options);
  await app.register(synonymRoutes, options);
  await app.register(integrationRoutes, options);
  await app.register(jobAdminRoutes, options);
  await app.register(monitorRoutes, options);
  await app.register(eventRoutes, options);
  await app.register(settingsRoutes, options);
  await app.register(diskRoutes, options);
  await app.register(askAdminRoutes, options);
  await app.register(conversationFeedbackRoutes, options);
  await app.register(usageAdminRoutes, options);
  await app.register(llmSettingsRoutes, options);
  await app.register(backupRoutes, options);
  await app.register(backupScheduleRoutes, options);
  await app.register(importRoutes, options);
  await app.register(fileAdminRoutes, options);
  await app.register(itemOriginalRoutes, options);
  await app.register(widgetRoutes, options);
  await app.register(sourceRoutes, options);
  await app.register(conversationRoutes, options);
  await app.register(conversationExportRoutes, options);
  await app.register(contentGapRoutes, options);
  await app.register(webhookRoutes, options);
  await app.register(curatedAnswerRoutes, options);
  await app.register(handoffRoutes, options);
};

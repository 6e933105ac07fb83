import fastifyCookie from '@fastify/cookie';
import type { FastifyPluginAsync } from 'fastify';
import type { AdminSettings } from '../../../common/contract/admin.ts';
import type { ApiKeyService } from '../../domain/api-key-service.ts';
import type { JobQueue } from '../../domain/job-queue.ts';
import type { DiskCondition } from '../../domain/disk-condition.ts';
import type { MonitorService } from '../../domain/monitor.ts';
import type { ScheduledBackups } from '../../domain/scheduled-backups.ts';
import type { DesktopSignIn, SessionService } from '../../domain/sessions.ts';
import type { UserService } from '../../domain/users.ts';
import type { SearchService } from '../../retrieval/search.ts';
import type { ItemReadRepo } from '../../storage/item-read-repo.ts';
import type { ItemRepo } from '../../storage/item-repo.ts';
import type { JobRepo } from '../../storage/jobs/job-repo.ts';
import type { MonitorRepo } from '../../storage/monitor-repo.ts';
import type { AskQuestion } from '../../retrieval/answer/ask-question.ts';
import type { Assistant } from '../../retrieval/answer/assistant.ts';
import type { LlmSettings } from '../../retrieval/answer/llm-settings.ts';
import type { UsageRepo } from '../../storage/usage-repo.ts';
import type { VisitorConversations } from '../../domain/visitor-conversations.ts';
import type { Conversations } from '../../domain/conversations.ts';
import type { DashboardConversations } from '../../domain/dashboard-conversations.ts';
import type { WidgetService } from '../../domain/widgets.ts';
import type { QuestionGroupStore } from '../../domain/content-gaps.ts';
import type { QuestionGrouper } from '../../retrieval/question-groups.ts';
import { contentGapRoutes } from './content-gap-routes.ts';
import { curatedAnswerRoutes } from './curated-answer-routes.ts';
import type { CuratedAnswers } from '../../retrieval/curated/curated-answers.ts';
import { fileAdminRoutes } from './file-routes.ts';
import type { Originals } from '../../storage/originals.ts';
import type { Db } from '../../storage/db.ts';
import type { FileLimits } from '../file-upload.ts';
import type { VisitorAnalyticsRepo } from '../../storage/visitor-analytics-repo.ts';
import type { WebsiteSourceService } from '../../domain/website-sources.ts';
import { registerAdminAuth } from '../edge/admin-auth.ts';
import { assistantAdminRoutes } from './assistant-routes.ts';
import { backupRoutes } from './backup-routes.ts';
import { conversationRoutes } from './conversation-routes.ts';
import { importRoutes } from './import-routes.ts';
import { keyRoutes } from './key-routes.ts';
import { knowledgeAdminRoutes } from './knowledge-routes.ts';
import { monitorRoutes } from './monitor-routes.ts';
import { sessionRoutes } from './session-routes.ts';
import { settingsRoutes } from './settings-routes.ts';
import { userRoutes } from './user-routes.ts';
import { sourceRoutes } from './source-routes.ts';
import { widgetRoutes } from './widget-routes.ts';
import { webhookRoutes } from './webhook-routes.ts';
import { handoffRoutes } from './handoff-routes.ts';
import type { Handoffs } from '../../domain/handoffs.ts';
import type { Webhooks } from '../../webhooks/webhooks.ts';

export type AdminApiOptions = {
  users: UserService;
  sessions: SessionService;
  desktop: DesktopSignIn;
  keys: ApiKeyService;
  reader: ItemReadRepo;
  items: ItemRepo;
  jobs: JobRepo;
  queue: JobQueue;
  search: SearchService;
  monitor: MonitorService;
  disk: DiskCondition;
  monitorRepo: MonitorRepo;
  settings: () => AdminSettings;
  assistant: Assistant;
  askQuestion: AskQuestion;
  curatedAnswers: CuratedAnswers;
  usage: UsageRepo;
  llmSettings: LlmSettings;
  backups: ScheduledBackups;
  /** Uploaded files' originals, and the limits of an upload (as on the integration API). */
  originals: Originals;
  db: Db;
  fileLimits: FileLimits;
  /** Most items in one bulk push (LOCALIQ_BULK_LIMIT), for the file import. */
  bulkLimit: number;
  widgets: WidgetService;
  visitorConversations: VisitorConversations;
  dashboardConversations: DashboardConversations;
  conversations: Conversations;
  clock?: () => number;
  questionGroups: QuestionGroupStore;
  questionGrouper: QuestionGrouper;
  visitorAnalytics: VisitorAnalyticsRepo;
  webhooks: Webhooks;
  handoffs: Handoffs;
  websiteSources: WebsiteSourceService;
};

/**
 * The dashboard's admin API under /admin/api: its own surface with its own gate (session cookie,
 * CSRF header, same origin, never an API key), kept out of the integration API's OpenAPI document.
 */
export const adminApi: FastifyPluginAsync<AdminApiOptions> = async (app, { prefix: _prefix, ...options }: AdminApiOptions & { prefix?: string }) => {
  await app.register(fastifyCookie);
  registerAdminAuth(app, options.sessions);
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  await app.register(sessionRoutes, options);
  await app.register(userRoutes, options);
  await app.register(keyRoutes, options);
  await app.register(knowledgeAdminRoutes, options);
  await app.register(monitorRoutes, options);
  await app.register(settingsRoutes, options);
  await app.register(assistantAdminRoutes, options);
  await app.register(backupRoutes, options);
  await app.register(importRoutes, options);
  await app.register(fileAdminRoutes, options);
  await app.register(widgetRoutes, options);
  await app.register(sourceRoutes, options);
  await app.register(conversationRoutes, options);
  await app.register(contentGapRoutes, options);
  await app.register(webhookRoutes, options);
  await app.register(curatedAnswerRoutes, options);
  await app.register(handoffRoutes, options);
};
